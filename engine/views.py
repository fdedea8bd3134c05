"""What each viewer may see (R2.5): a view per player, a public view for spectators, redacted events.

A view holds the whole board, the face-up cards, the discard pile, the walls left and the scores, every
hand as a count with the cards the table knows it holds (P12: taken face up or given in view of all, and
not paid since), and only the viewer's own hand by symbol. The supply's order, the random state and the
seed never leave the engine. The renderer and the bot's public messages are drawn from views only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine import rules
from engine.actions import CardSource
from engine.events import CardTaken, Event, FirstPlayerChosen, GameCreated, SupplyShuffled
from engine.geometry import Point, Side, Space
from engine.maps import Map
from engine.state import (
    ACTIONS_PER_TURN,
    COLOURS,
    ActionKind,
    EndReason,
    GameResult,
    GameState,
    LastMove,
    Options,
    Phase,
)
from engine.symbols import NO_CARDS, Cards, Symbol, total


@dataclass(frozen=True)
class PlayerPublic:
    seat: int
    colour: str
    score: int
    hand_size: int
    guards: frozenset[Space]
    guards_in_supply: int
    resigned: bool
    known: Cards = NO_CARDS  # P12: cards the table saw this player take (or be given) and not pay since


@dataclass(frozen=True)
class ProvinceView:
    id: int
    spaces: frozenset[Space]
    value: int
    symbol_spaces: tuple[Space, ...]
    owner: int | None
    guards: tuple[Space, ...]

    @property
    def can_be_occupied(self) -> bool:
        """R4.5: a free province with at least one symbol space."""
        return self.owner is None and bool(self.symbol_spaces)


@dataclass(frozen=True)
class GameView:
    viewer: int | None  # a seat, or None for the public
    map: Map
    options: Options
    players: tuple[PlayerPublic, ...]
    hand: Cards | None  # the viewer's own hand; None in the public view
    alexander: Point
    walls: frozenset[Side]
    red_walls: frozenset[Side]
    provinces: tuple[ProvinceView, ...]
    face_up: tuple[Symbol | None, ...]
    supply_size: int
    discard: Cards
    black_left: int
    red_left: int
    current: int
    phase: Phase
    turn: int
    actions_taken: tuple[ActionKind, ...]
    last_move: LastMove | None
    result: GameResult | None
    version: int
    # R3.6-R3.8, R10.1: the game ends as this turn ends (a public fact: the move that set it was seen).
    ending: EndReason | None = None

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER


def view(state: GameState, viewer: int | None = None) -> GameView:
    """The game as ``viewer`` may see it (R2.5)."""
    players = tuple(
        PlayerPublic(
            seat=i,
            colour=COLOURS[i],
            score=p.score,
            hand_size=total(p.hand),
            guards=p.guards,
            guards_in_supply=p.guards_in_supply,
            resigned=p.resigned,
            known=p.known,
        )
        for i, p in enumerate(state.players)
    )
    provinces = tuple(
        ProvinceView(i.id, i.spaces, i.value, i.symbol_spaces, i.owner, i.guards)
        for i in rules.province_infos(state)
    )
    return GameView(
        viewer=viewer,
        map=state.map,
        options=state.options,
        players=players,
        hand=state.players[viewer].hand if viewer is not None else None,
        alexander=state.alexander,
        walls=state.walls,
        red_walls=state.red_walls,
        provinces=provinces,
        face_up=state.face_up,
        supply_size=len(state.supply),
        discard=state.discard,
        black_left=state.black_left,
        red_left=state.red_left,
        current=state.current,
        phase=state.phase,
        turn=state.turn,
        actions_taken=state.actions_taken,
        last_move=state.last_move,
        result=state.result,
        version=state.version,
        ending=state.ending,
    )


def redact(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` may see it: a card drawn from the supply is named only to its drawer."""
    if isinstance(event, CardTaken):
        if event.source is CardSource.SUPPLY and event.player != viewer:
            return replace(event, symbol=None)
        return event
    if isinstance(event, SupplyShuffled):
        return replace(event, order=None, rng=None)
    if isinstance(event, FirstPlayerChosen):
        return replace(event, rng=None)
    if isinstance(event, GameCreated):
        return replace(event, seed=0)  # the seed would reveal every shuffle
    return event


def redact_all(events: list[Event], viewer: int | None) -> list[Event]:
    return [redact(e, viewer) for e in events]


@dataclass(frozen=True)
class OpenActions:
    """What the player on turn can do now, as far as public facts tell (R2.5): ``sure`` actions are open
    whatever the hidden hand holds; ``maybe`` actions are open for some hands of its size, not others."""

    sure: tuple[ActionKind, ...]
    maybe: tuple[ActionKind, ...]


def open_actions(v: GameView) -> OpenActions:
    """The actions open to the player on turn, judged from the public view alone, so that a public post
    can name them without hinting at the hand (R2.5): only the hand's size is known.

    Take a card: a face-up card, or a card in the supply or the discard pile (R5.1, R5.3). Occupy: sure when
    the guards left cover every symbol space of a free province (R6.1, R6.2: no card), maybe when the
    hand could pay for the spaces they leave. Take over: maybe, when the hand could pay two cards for each
    of the owner's guards and the spaces left (R6.3). Levy: with a guard on the map and no levy yet
    (R7.1, R7.2), sure when the guards stand on every symbol (any card matches), maybe with any card.
    Take back: sure with a guard on the map (R8.1)."""
    if v.phase is not Phase.ACTIONS or len(v.actions_taken) >= ACTIONS_PER_TURN:
        return OpenActions((), ())
    me = v.players[v.current]
    cards, guards = me.hand_size, me.guards_in_supply
    sure: list[ActionKind] = []
    maybe: list[ActionKind] = []

    def needed(p: ProvinceView) -> int:
        removal = 2 * len(p.guards) if p.owner is not None else 0
        return removal + max(0, len(p.symbol_spaces) - guards)

    if any(s is not None for s in v.face_up) or v.supply_size or total(v.discard):
        sure.append(ActionKind.TAKE_CARD)
    free = [p for p in v.provinces if p.can_be_occupied] if guards else []
    if any(needed(p) == 0 for p in free):
        sure.append(ActionKind.OCCUPY)
    elif any(needed(p) <= cards for p in free):
        maybe.append(ActionKind.OCCUPY)
    if guards and any(p.owner not in (None, v.current) and needed(p) <= cards for p in v.provinces):
        maybe.append(ActionKind.TAKE_OVER)
    if me.guards and ActionKind.LEVY not in v.actions_taken and cards:
        under = {v.map.symbol[s] for s in me.guards}
        (sure if under >= set(Symbol) else maybe).append(ActionKind.LEVY)
    if me.guards:
        sure.append(ActionKind.TAKE_BACK)
    return OpenActions(tuple(sure), tuple(maybe))
