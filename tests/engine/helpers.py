"""Building positions on small hand-drawn maps for rule tests."""

from __future__ import annotations

import random
from dataclasses import replace

from engine import rules
from engine.game import new_game
from engine.geometry import Point, Side, side
from engine.maps import Map, parse_map
from engine.state import GameState, Options, Phase, PlayerState
from engine.symbols import NO_CARDS, Cards, Symbol, add, as_list, cards_of, sub, total

T, A, H, L, S = Symbol.TEMPLE, Symbol.AMPHORA, Symbol.HORSE, Symbol.LYRE, Symbol.SOLDIER


def make_map(grid: str, start: str = "A1", walls: str = "65 black, 10 red", name: str = "test") -> Map:
    return parse_map(f"name: {name}\nstart: {start}\nwalls: {walls}\ngrid:\n{grid.strip(chr(10))}\n")


def pt(label: str, m: Map) -> Point:
    return m.parse_point(label)


def sd(a: str, b: str, m: Map) -> Side:
    return side(m.parse_point(a), m.parse_point(b))


def hand(*symbols: Symbol) -> Cards:
    return cards_of(list(symbols))


def position(
    m: Map,
    players: int = 2,
    *,
    current: int = 0,
    phase: Phase = Phase.MOVE,
    alexander: str | None = None,
    walls: tuple[Side, ...] = (),
    red_walls: tuple[Side, ...] = (),
    hands: dict[int, Cards] | None = None,
    guards: dict[int, tuple[tuple[int, int], ...]] | None = None,
    face_up: tuple[Symbol | None, Symbol | None] | None = None,
    supply: tuple[Symbol, ...] | None = None,
    discard: Cards | None = None,
    options: Options | None = None,
    seed: int = 7,
) -> GameState:
    """A game on ``m`` set to the given position. Provinces are worked out afresh from the walls."""
    st, _ = new_game(m, players, seed, options)
    pls = []
    for i, p in enumerate(st.players):
        pls.append(
            PlayerState(
                hand=(hands or {}).get(i, NO_CARDS if hands is not None else p.hand),
                guards=frozenset((guards or {}).get(i, ())),
            )
        )
    st = replace(
        st,
        players=tuple(pls),
        current=current,
        phase=phase,
        alexander=m.parse_point(alexander) if alexander else m.start,
        walls=frozenset(walls) | frozenset(red_walls),
        red_walls=frozenset(red_walls),
        face_up=face_up if face_up is not None else st.face_up,
        supply=supply if supply is not None else st.supply,
        discard=discard if discard is not None else st.discard,
    )
    provinces = rules.initial_provinces(st)
    return replace(st, provinces=provinces, next_province_id=len(provinces) + 1)


# A strip of two rows (see worked example 4): walls down the middle (CUT) split it.
STRIP = make_map("TH.A.A...\n.LT..S.H.", start="A5")
CUT = (sd("A5", "B4", STRIP), sd("B4", "C5", STRIP))


def takeover_position(players: int) -> GameState:
    """On STRIP cut in two: seat 1's guard on the horse space (0, 1); seat 0 to act, holding H, H, T, A,
    L, T (R6.3, R6.4)."""
    return position(
        STRIP,
        players=players,
        phase=Phase.ACTIONS,
        walls=CUT,
        guards={1: ((0, 1),)},
        hands={0: hand(H, H, T, A, L, T)},
    )


def hidden_twin(state: GameState, rng: random.Random) -> GameState:
    """The same position as its player on turn sees it (the same view), with the hidden cards dealt
    otherwise: each rival keeps the cards the table knows of, the rest of the rivals' hands and the supply
    are shuffled among themselves."""
    me = state.current
    hidden = list(state.supply)
    for i, p in enumerate(state.players):
        if i != me:
            hidden += as_list(sub(p.hand, p.known))
    rng.shuffle(hidden)
    players, at = [], 0
    for i, p in enumerate(state.players):
        if i == me:
            players.append(p)
            continue
        n = total(p.hand) - total(p.known)
        players.append(replace(p, hand=add(p.known, cards_of(hidden[at : at + n]))))
        at += n
    return replace(state, players=tuple(players), supply=tuple(hidden[at:]), rng=rng.getrandbits(64))
