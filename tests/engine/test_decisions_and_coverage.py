"""Decisions D1-D12 not tested beside their rules, and the check that every rule id has a test."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from engine import rules
from engine.actions import CardSource, Levy, Move, MoveWay, TakeCard
from engine.events import SupplyShuffled
from engine.game import apply
from engine.geometry import corners
from engine.state import Phase
from engine.symbols import NO_CARDS, SYMBOLS, add, total
from tests.engine.helpers import H, L, S, T, hand, make_map, position

ROOT = Path(__file__).resolve().parents[2]
MAP = make_map(
    """
.T.A.H.L.S~~
S.L.H.A.T..~
.T.A.H.L.S..
"""
)
ISLANDS = make_map("S........~H....\n~~~~~~~~~~~~~~~T\nSL........~T....")  # joined at a corner


def test_d1_alexander_stands_in_every_space_around_his_point_so_he_always_moves() -> None:
    for label in ("A1", "B4", "C5", "D6"):
        st = position(MAP, alexander=label)
        around = set(MAP.point_spaces[st.alexander])
        assert around and not around & rules.empty_spaces(st)
        for sym in SYMBOLS:
            distance, _ = rules.closest_targets(st, sym)
            assert distance != 0


def test_d3_levy_card_may_match_a_guard_in_a_two_guard_province() -> None:
    st = position(ISLANDS, players=2, phase=Phase.ACTIONS, guards={0: ((2, 0), (2, 1))}, hands={0: hand(L)})
    after, _ = apply(st, Levy(0, L))
    assert after.players[0].hand == NO_CARDS and after.players[0].score == 0


def test_d5_move_card_replaced_at_once_action_card_at_end_of_turn() -> None:
    st = position(MAP, face_up=(H, L), hands={0: NO_CARDS, 1: NO_CARDS})
    t = rules.targets(st, H)[0]
    path = next(rules.shortest_paths(st, t.corners[0].point))
    moved, _ = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    assert moved.face_up[0] is not None
    acted, _ = apply(moved, TakeCard(0, CardSource.FACE_UP, 1))
    assert acted.face_up[1] is None


def test_d6_special_move_loses_only_the_discarded_card() -> None:
    st = position(MAP, face_up=(T, L), hands={0: hand(H, S), 1: NO_CARDS})
    t = rules.targets(st, H)[0]
    path = next(rules.shortest_paths(st, t.corners[0].point))
    after, _ = apply(st, Move(0, MoveWay.SPECIAL, path, card=H))
    assert after.players[0].hand == hand(S)
    assert after.face_up == st.face_up and after.supply == st.supply
    assert after.discard == add(st.discard, hand(H))


def test_d10_supply_running_out_reshuffles_the_discard_pile() -> None:
    st = position(MAP, phase=Phase.ACTIONS, supply=(T,), discard=hand(H, H, L), hands={0: NO_CARDS})
    st, first = apply(st, TakeCard(0, CardSource.SUPPLY))
    assert not any(isinstance(e, SupplyShuffled) for e in first) and st.supply == ()
    st, second = apply(st, TakeCard(0, CardSource.SUPPLY))
    assert any(isinstance(e, SupplyShuffled) and e.size == 3 for e in second)
    assert total(st.players[0].hand) == 2 and len(st.supply) == 2


def test_d11_no_hand_limit_at_the_end_of_a_turn() -> None:
    big = (12, 0, 0, 0, 0)
    st = position(MAP, phase=Phase.ACTIONS, hands={0: big})
    after, _ = apply(st, TakeCard(0, CardSource.SUPPLY))
    assert total(after.players[0].hand) == 13


def test_d12_no_empty_symbol_space_means_no_move_choices() -> None:
    st = position(MAP)
    walls = frozenset(MAP.space_sides[s][0] for s in MAP.symbol_spaces)
    blocked = replace(st, walls=walls)
    assert rules.move_choices(blocked) == [] and not rules.can_move(blocked)
    assert rules.fewest_walls_of_any_move(blocked) is None


def _rule_ids(text: str) -> list[str]:
    found = re.findall(r"\*\*(R\d+\.\d+)|\| (D\d+) \|", text)
    return sorted({a or b for a, b in found})


def test_every_rule_id_has_a_test_named_after_it() -> None:
    ids = _rule_ids((ROOT / "docs" / "ALEXANDROS.md").read_text(encoding="utf-8"))
    assert len(ids) == 47
    source = "".join(p.read_text() for p in (ROOT / "tests").rglob("*.py"))
    names = re.findall(r"def (test_[a-z0-9_]+)", source)
    for rule_id in ids:
        key = re.compile(r"(^|_)" + rule_id.lower().replace(".", "_") + r"($|_|[a-z])")
        assert any(key.search(n[5:]) for n in names), f"no test is named after {rule_id}"


def test_docs_copy_of_the_rules_matches_shared_rules() -> None:
    shared = ROOT.parent / "shared" / "rules"
    for name in ("ALEXANDROS.md", "MAP-FORMAT.md"):
        source = shared / name
        if source.exists():  # a checkout without ../shared (a user's machine) has only the copy
            assert (ROOT / "docs" / name).read_text() == source.read_text(), name


def test_corners_helper_matches_map_format_example() -> None:
    # MAP-FORMAT.md: up (0,0) and down (0,1) share the side (0,1)-(1,2).
    assert set(corners((0, 0))) & set(corners((0, 1))) == {(0, 1), (1, 2)}
