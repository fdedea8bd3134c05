"""Words read at a glance (issue 28, items 5 and 6): the levy shows everyone's score, the end post names
the reason and the winner together, ratings read as 0 or more, and a point that is not one is answered
with real points."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.games.tables import Refused, Table
from bot.texts import choices as ch
from bot.texts import posts
from bot.words.words import Speaker
from engine import rules
from engine.state import EndReason, GameResult, GameState, Phase
from engine.symbols import Symbol
from storage import GameRecord, PlayerRating
from tests.engine.helpers import CUT, STRIP, H, T, hand, position

SPEAKER = Speaker(("alice", "bob", "carol"), STRIP)


def _table(st: GameState, names: tuple[str, ...] = ("alice", "bob")) -> Table:
    seats = tuple((i, 101 + i) for i in range(len(names)))
    record = GameRecord(1, 1, 2, "finished" if st.over else "playing", {"names": {}}, 3, 0.0, 0.0, 101, 101,  # type: ignore[arg-type]
                        0.0, seats)  # fmt: skip
    return Table(record, st, names)


def _over(reason: EndReason, scores: tuple[int, ...], winners: tuple[int, ...]) -> GameState:
    st = position(STRIP, players=len(scores), phase=Phase.ACTIONS)
    players = tuple(replace(p, score=s) for p, s in zip(st.players, scores, strict=True))
    return replace(st, players=players, phase=Phase.OVER, result=GameResult(reason, winners, scores))


# --- item 5: the levy shows what everyone scores (R7.3) ---------------------------------------------------


def test_r7_3_the_levy_entry_names_what_each_player_scores_not_only_the_levier() -> None:
    """Issue 28: "Levy with soldier — you score 0 now", then "bob scored 0. • alice scored 4."."""
    guards = {0: ((0, 1),), 1: ((0, 0), (0, 3)), 2: ((1, 2),)}
    st = position(STRIP, players=3, phase=Phase.ACTIONS, walls=CUT, guards=guards, hands={0: hand(H)})
    scores = [s for s, _ in rules.levy_scores(st)]
    menu, _ = ch.action_menu(st, 0, SPEAKER)
    entry = next(c for c in menu if c.value == "levy:horse")
    expected = f"Levy with horse: you +{scores[0]}, bob +{scores[1]}, carol +{scores[2]}"
    assert entry.name == expected, (entry, scores)
    assert scores[1] != scores[0] or scores[2] != scores[0]  # the others' scores differ: a real test


# --- item 6: the end post --------------------------------------------------------------------------------


def test_the_end_post_names_who_reached_100_points_and_won_in_one_sentence() -> None:
    """Issue 28: "**Game 1 is over** — someone reached 100 points. Winner: @alice."."""
    text = posts.end_text(_table(_over(EndReason.POINTS, (104, 60), (0,))))
    assert text.startswith("**Game 1 is over** — <@101> reached 100 points and won with 104."), text
    assert "someone" not in text and "Winner" not in text


def test_the_end_post_says_who_reached_100_when_another_won_and_names_shared_wins() -> None:
    text = posts.end_text(_table(_over(EndReason.POINTS, (100, 108), (1,))))
    assert text.startswith(
        "**Game 1 is over** — <@101> and <@102> reached 100 points; <@102> won with 108"
    ), text
    walls = posts.end_text(_table(_over(EndReason.WALLS, (40, 40), (0, 1))))
    assert walls.startswith("**Game 1 is over** — the walls ran out; <@101> and <@102> share the win with 40")


# --- item 6: ratings on a scale players read --------------------------------------------------------------


def test_a_first_rating_reads_as_0_or_more_and_provisional() -> None:
    """Issue 28: a first rating "@bob: -1.8 (skill 22.4 ± 8.1)" puzzled."""
    bob = PlayerRating(1, 102, 22.4, 8.1, 1, 0)
    text = posts.stats_text(102, bob, 2, 2, "en")
    assert text.startswith("<@102>: 0 (provisional), 1 game, 0 wins."), text
    assert "-" not in text.split("\n")[0] and "±" not in text
    seasoned = PlayerRating(1, 101, 30.0, 2.0, posts.PROVISIONAL_GAMES, 3)
    assert posts.stats_text(101, seasoned, 1, 2, "en").startswith("<@101>: 240, 5 games, 3 wins.")


# --- item 6: points that are not points ------------------------------------------------------------------


def _refusal(st: GameState, card: str, typed: str) -> tuple[Refused, str]:
    with pytest.raises(Refused) as err:
        ch.parse_destination(st, ch.parse_card(st, card), typed)
    return err.value, SPEAKER.refusal(err.value.code, err.value.details)


def test_a_label_off_the_maps_rows_says_which_rows_and_columns_exist() -> None:
    """Issue 28: "“Z99” is not a point of this map. Nearest points: G33, H32, E33." (there is no row Z)."""
    st = position(STRIP, face_up=(T, H))
    _, text = _refusal(st, "n1", "Z99")
    rows = "its rows are A to C, its columns 0 to 10 (a point is written like D7)."
    assert text == f"“Z99” is not a point of this map: {rows}", text
    assert "Nearest" not in _refusal(st, "n1", "A99")[1]


def test_a_label_inside_the_map_suggests_the_geometrically_nearest_points() -> None:
    st = position(STRIP, face_up=(T, H))
    refused, text = _refusal(st, "n1", "B3")  # between B2 and B4: no point (row B has even columns)
    assert refused.details["near"][:2] in (["B2", "B4"], ["B4", "B2"]), refused.details
    assert text.startswith("“B3” is not a point of this map. Nearest points: B")


def test_a_typed_farther_point_names_the_closest_points_alexander_may_stop_on() -> None:
    """Issue 28: a typed move to a farther point said "pick one of the points offered": none were."""
    st = position(STRIP, face_up=(T, H))
    mc = ch.parse_card(st, "n2")
    assert mc.symbol is Symbol.HORSE
    refused, text = _refusal(st, "n2", "C7")  # a corner of the far horse space (B7), 2 sides away
    assert refused.code == "move/not-closest"
    allowed = {ch.point_label(p) for p in rules.destination_points(st, mc)}
    assert set(refused.details["near"]) == allowed  # the three closest points, every one reachable
    assert "points offered" not in text and "such as A3, B2, A1." in text, text
