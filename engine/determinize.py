"""Sampled worlds for a player who may not peek (R2.5): whole game states built from one player's view.

A player's view (engine.views) shows the board, the face-up cards, the discard pile, every hand's size and
the cards known to be in it (P12), and the player's own hand. The cards the viewer cannot place are the 55
(R2.1) minus those. ``sample_world`` puts each rival's known cards into that rival's hand, and deals the
rest at random into the other hands (up to their public sizes) and the supply (at its public size), so
that every sampled state agrees with everything the viewer saw. A computer player that searches such
worlds, and nothing else, decides from its view alone: two states that differ only in hidden cards give it
the same view, and so (with the same random source) the same decision.
"""

from __future__ import annotations

import random

from engine.state import CARDS_PER_SYMBOL, GameState, PlayerState, Province
from engine.symbols import Cards, add, as_list, cards_of, sub, total
from engine.views import GameView

ALL_CARDS: Cards = (CARDS_PER_SYMBOL,) * 5


def unseen_cards(v: GameView) -> Cards:
    """The cards the viewer has not seen: all cards minus the own hand, the face-up cards and the discards."""
    assert v.hand is not None, "a world is sampled for a seated player"
    seen = add(add(v.hand, v.discard), cards_of([s for s in v.face_up if s is not None]))
    out = sub(ALL_CARDS, seen)
    if min(out) < 0:
        raise ValueError(f"the view shows more cards than the game holds: {seen}")
    return out


def unplaced_cards(v: GameView) -> Cards:
    """The unseen cards less those known to be in a rival's hand (P12): the ones a world deals at random."""
    out = unseen_cards(v)
    for p in v.players:
        if p.seat != v.viewer:
            if total(p.known) > p.hand_size:
                raise ValueError(f"seat {p.seat} is known to hold {total(p.known)} of {p.hand_size} cards")
            out = sub(out, p.known)
    if min(out) < 0:
        raise ValueError(f"the rivals are known to hold more cards than are unseen: {out}")
    return out


def sample_world(v: GameView, rng: random.Random) -> GameState:
    """One game state consistent with the view ``v``: hidden hands and the supply order dealt at random."""
    me = v.viewer
    assert me is not None and v.hand is not None
    pool = as_list(unplaced_cards(v))
    wanted = sum(p.hand_size - total(p.known) for p in v.players if p.seat != me) + v.supply_size
    if wanted != len(pool):
        raise ValueError(f"{len(pool)} unseen cards for {wanted} hidden places")
    rng.shuffle(pool)
    players = []
    at = 0
    for p in v.players:
        if p.seat == me:
            hand = v.hand
        else:
            dealt = p.hand_size - total(p.known)
            hand = add(p.known, cards_of(pool[at : at + dealt]))
            at += dealt
        players.append(PlayerState(hand, p.guards, p.score, p.resigned, p.known))
    supply = tuple(pool[at:])
    return GameState(
        map=v.map,
        options=v.options,
        players=tuple(players),
        alexander=v.alexander,
        walls=v.walls,
        red_walls=v.red_walls,
        provinces=tuple(Province(p.id, p.spaces) for p in v.provinces),
        next_province_id=max((p.id for p in v.provinces), default=0) + 1,
        face_up=v.face_up,
        supply=supply,
        discard=v.discard,
        rng=rng.getrandbits(64),
        current=v.current,
        phase=v.phase,
        turn=v.turn,
        actions_taken=v.actions_taken,
        last_move=v.last_move,
        result=v.result,
        version=v.version,
        ending=v.ending,
    )
