"""The console shows what Discord shows (issue 28, item 8): the pinned status message where Discord keeps
it (pinned, edited in place: printed when it changes, marked as pinned, never inside another answer), the
lobby once, and message and custom ids only with --verbose."""

from __future__ import annotations

import argparse
import io
import re
from typing import Any

from bot.console import run

pytest_plugins = ["tests.harness.fixtures"]

LINES = (
    "ann: press My hand\n"
    "ben: press My hand\n"
    "ben: press Move\n"
    "ben: select 1 #1\n"
    "ben: select 1 #1\n"
    "ben: select 1 #1\n"
    "ben: press Confirm\n"
    "ben: press End turn\n"
    "quit\n"
)


async def _session(tmp_path: Any, verbose: bool) -> str:
    out = io.StringIO()
    args = argparse.Namespace(
        players="ann,ben", db=str(tmp_path / "c.db"), out=str(tmp_path / "pics"), seed=2, verbose=verbose
    )
    assert await run(args, io.StringIO(LINES), out) == 0
    return out.getvalue()


def _blocks(text: str) -> list[tuple[str, str]]:
    """(mark, body) of every message printed: "--- [pinned]" and what follows up to the next mark."""
    parts = re.split(r"^--- \[([^\]]+)\].*$", text, flags=re.M)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


async def test_issue_28_the_status_message_shows_pinned_and_when_it_changes(
    tmp_path: Any, no_network: Any
) -> None:
    """Issue 28: the pinned status message never showed during play, then once inside the answer to a
    command of the next game."""
    text = await _session(tmp_path, verbose=False)
    blocks = _blocks(text)
    pinned = [(mark, body) for mark, body in blocks if mark.startswith("pinned")]
    assert pinned and pinned[0][0] == "pinned" and all(m == "pinned, edited" for m, _ in pinned[1:]), blocks
    assert "Turn 1: ben" in pinned[0][1] and any("Turn 2: ann" in b for _, b in pinned)
    # Printed only when it changed: no two prints of the status message alike.
    bodies = [b for _, b in pinned]
    assert len(bodies) == len(set(bodies)) >= 2
    # Never inside another answer: no other block holds the status message's words.
    assert not [b for m, b in blocks if not m.startswith("pinned") and "Kept up to date by the bot" in b]


async def test_issue_28_the_lobby_shows_once(tmp_path: Any, no_network: Any) -> None:
    """Issue 28: the lobby was printed three times at start (the new table, each join, the start)."""
    text = await _session(tmp_path, verbose=False)
    lobbies = [b for _, b in _blocks(text) if "**Alexandros — game 1**" in b and "Seated" in b]
    assert len(lobbies) == 1, lobbies
    assert "@ann, @ben" in lobbies[0]  # shown with everyone seated
    assert "has started" not in text


async def test_issue_28_ids_show_only_with_verbose(tmp_path: Any, no_network: Any) -> None:
    """Issue 28: every message printed raw ids ("[button Join → alx:join:1]")."""
    plain = await _session(tmp_path / "a", verbose=False)
    assert "alx:" not in plain and "alxs:" not in plain
    assert not re.search(r"^--- \[[^\]]+\] message \d+", plain, flags=re.M)
    verbose = await _session(tmp_path / "b", verbose=True)
    assert "alx:join:1" in verbose or "alx:hand:1" in verbose
    assert re.search(r"^--- \[public\] message \d+", verbose, flags=re.M)


async def test_issue_28_the_consoles_own_lines_speak_its_language(tmp_path: Any, no_network: Any) -> None:
    """Issue 28: the console's "!!!" lines and "(only you)" were English in a German console."""
    from tests.bot.test_german_complete import english_words

    out = io.StringIO()
    args = argparse.Namespace(
        players="ann,ben", db=str(tmp_path / "c.db"), out=str(tmp_path / "pics"), seed=2, locale="de"
    )
    typed = "ben: press Nope\nben: press Zug beenden\nann: press Meine Hand\nquit\n"
    assert await run(args, io.StringIO(typed), out) == 0
    text = out.getvalue()
    assert "Hier gibt es keinen Knopf und kein Menü „Nope“" in text
    assert "(Konsole) Das ist gerade ausgegraut" in text and "--- [nur ann]" in text
    assert "!!!" not in text and "(only you)" not in text
    shown = [line for line in text.splitlines() if not line.startswith("> ")]
    assert [line for line in shown if english_words(line)] == []


async def test_issue_28_the_consoles_parsing_answers_speak_its_language(
    tmp_path: Any, no_network: Any
) -> None:
    """The console's answers to a mistyped line (a line without a player, a typo in a command, a group
    typed alone, an option that is no number or no player) were English in a German console."""
    from tests.bot.test_german_complete import english_words

    out = io.StringIO()
    args = argparse.Namespace(
        players="ann,ben", db=str(tmp_path / "c.db"), out=str(tmp_path / "pics"), seed=2, locale="de"
    )
    typed = "\n".join(
        [
            "hallo",
            "ann: hüpfen",
            "ann: /alexandros zeihen",
            "ann: /alexandros ich",
            "ann: /alexandros urlaub tage:x",
            "ann: /alexandros wertungen statistik mitglied:zoe",
            "help",
            "quit",
        ]
    )
    assert await run(args, io.StringIO(typed + "\n"), out) == 0
    text = out.getvalue()
    assert "Beginne eine Zeile mit dem Namen eines Spielers (ann, ben)" in text
    assert "Es gibt keinen Befehl /alexandros zeihen: meintest du /alexandros ziehen" in text
    assert "/alexandros ich ist eine Gruppe" in text and "erwartet eine Zahl" in text
    assert "nenne einen Spieler dieser Konsole (ann, ben)" in text
    answers = [line for line in text.splitlines() if not line.startswith(("> ", "    ", "---"))]
    assert [line for line in answers if english_words(line)] == []
