"""Hints (issue 29): the hard player's suggestion for the decision in front of a player, and the facts that
explain it, all from that player's own view (R2.5).

``suggest`` asks ``engine.ai.HardPlayer`` from the view alone. ``advise`` works out what the suggestion does
on one world sampled from the same view (engine.determinize): its walls, the provinces it cuts, a levy's
points; facts of the board and of the player's own hand, the same in every world the view allows, so
nothing hidden decides them. The bot words the facts (bot.hints).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from engine import rules
from engine.actions import (
    Action,
    CardSource,
    Levy,
    Move,
    MoveWay,
    Occupy,
    TakeBack,
    TakeCard,
    TakeOver,
)
from engine.ai import HardPlayer, occupation_plans
from engine.determinize import sample_world
from engine.game import apply
from engine.symbols import NO_CARDS, Cards, Symbol, total
from engine.views import GameView

_ADVISER = HardPlayer()


@dataclass(frozen=True)
class Advice:
    """What a suggested action does, as a hint's reason needs it. ``kind``: move, take, occupy, takeover,
    levy, takeback or end."""

    action: Action
    kind: str
    symbol: Symbol | None = None  # move: the target symbol; take: the face-up card (None: the supply); levy
    joker: Symbol | None = None  # move by joker (R3.1 c): the face-up card taken
    sides: int = 0  # move: the sides Alexander walks (the closest space's distance, R3.2)
    black: int = 0  # move: new black walls (R3.5)
    red: int = 0  # move: new red walls (R3.6)
    ends_game: bool = False  # move: the game ends after this turn (R10.1)
    # move: the free provinces it forms, to occupy; take: the provinces the card makes affordable (id, value)
    free: tuple[tuple[int, int], ...] = ()
    path: rules.PathOption | None = None  # move: its path and new walls (for the preview picture)
    province: int | None = None  # occupy, takeover, takeback: the province
    value: int = 0  # occupy, takeover, takeback: its value (R4.5)
    guards: int = 0  # occupy, takeover: guards put there
    cost: Cards = NO_CARDS  # occupy, takeover: every card paid (R6.1, R6.3)
    plan: rules.OccupyPlan | None = None  # occupy, takeover: the guards and cards (for the preview picture)
    owner: int | None = None  # takeover: whose province it was
    gains: tuple[int, ...] = ()  # levy: each seat's points (R7.3)
    freed: bool = False  # takeback: the province becomes free (R8.1)


def suggest(v: GameView, rng: random.Random, deadline: Callable[[], bool] | None = None) -> Action:
    """The hard player's choice for the viewer, who must be the player to act, from the view ``v`` only."""
    return _ADVISER.decide(v, rng, deadline)


def advise(v: GameView, action: Action, rng: random.Random) -> Advice:
    """The facts of ``action`` (legal for the viewer) as the view shows them."""
    world = sample_world(v, rng)
    me = world.current
    if isinstance(action, Move):
        preview = rules.preview_move(world, action)
        sym = world.map.symbol
        free = tuple(
            (part.id, part.value)
            for cut in preview.cuts
            for part in cut.parts[1:]  # the parts cut off (the largest keeps the old province's id)
            if part.owner is None and any(sym[s] is not None for s in part.spaces)
        )
        joker = None
        if action.way is MoveWay.JOKER and action.slot is not None:
            joker = world.face_up[action.slot]
        return Advice(
            action,
            "move",
            symbol=preview.symbol,
            joker=joker,
            sides=len(action.path) - 1,
            black=len(preview.black),
            red=len(preview.red),
            ends_game=preview.ends_game,
            free=free,
            path=rules.PathOption(action.path, preview.new_walls),
        )
    if isinstance(action, TakeCard):
        symbol = (
            world.face_up[action.slot]
            if action.source is CardSource.FACE_UP and action.slot is not None
            else None
        )
        opens: tuple[tuple[int, int], ...] = ()
        if symbol is not None:  # a face-up card hides nothing; a card from the supply is not known yet
            after, _ = apply(world, action)
            could = {p.province for p in occupation_plans(world)}
            opens = tuple(
                sorted(
                    (
                        (p.province, rules.province_value(after, after.province_by_id[p.province]))
                        for p in occupation_plans(after)
                        if p.province not in could
                    ),
                    key=lambda pv: (-pv[1], pv[0]),
                )
            )
        return Advice(action, "take", symbol=symbol, free=opens)
    if isinstance(action, Occupy | TakeOver):
        province = world.province_by_id[action.province]
        takeover = isinstance(action, TakeOver)
        removal = rules.removal_cost(world, province) if takeover else NO_CARDS
        paying = rules.occupation_cost(world, province, action.guards)
        given = total(action.compensation) if isinstance(action, TakeOver) else 0
        plan = rules.OccupyPlan(action.province, action.guards, removal, paying, NO_CARDS, given)
        return Advice(
            action,
            "takeover" if isinstance(action, TakeOver) else "occupy",
            province=action.province,
            value=rules.province_value(world, province),
            guards=len(action.guards),
            cost=plan.paid,
            owner=rules.province_owner(world, province) if takeover else None,
            plan=plan,
        )
    if isinstance(action, Levy):
        after, _ = apply(world, action)
        gains = tuple(a.score - b.score for a, b in zip(after.players, world.players, strict=True))
        return Advice(action, "levy", symbol=action.card, gains=gains)
    if isinstance(action, TakeBack):
        pid = world.province_of[action.space]
        province = world.province_by_id[pid]
        mine = [s for s in province.spaces if world.guard_owner.get(s) == me]
        return Advice(
            action,
            "takeback",
            province=pid,
            value=rules.province_value(world, province),
            freed=len(mine) == 1,
        )
    return Advice(action, "end")  # EndTurn (or a turn the engine skips: nothing to explain but ending)
