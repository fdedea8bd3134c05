"""The local console plays the real bot through the offline Discord: commands, buttons, selects, pictures."""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
from pathlib import Path

from bot.console import parse_options, run

ROOT = Path(__file__).resolve().parents[2]
pytest_plugins = ["tests.harness.fixtures"]


def test_options_are_split_on_names() -> None:
    assert parse_options("card:n1 to:D7@3.6 path:2") == {"card": "n1", "to": "D7@3.6", "path": "2"}
    assert parse_options("card:face-up 1: horse") == {"card": "face-up 1: horse"}


async def test_a_console_session(tmp_path, no_network) -> None:
    lines = io.StringIO(
        "alice: press My hand\n"
        "bob: press My hand\n"
        "bob: /alexandros status\n"
        "alice: /alexandros move card:?\n"
        "alice: press Move\n"
        "alice: select 1 #1\n"
        "alice: select 1 #1\n"
        "nobody: press 1\n"
        "alice: /alexandros end\n"
        "quit\n"
    )
    out = io.StringIO()
    args = argparse.Namespace(
        players="alice,bob", db=str(tmp_path / "c.db"), out=str(tmp_path / "pics"), seed=3
    )
    assert await run(args, lines, out) == 0
    text = out.getvalue()
    assert "[public]" in text and "[only alice]" in text and "[only bob]" in text
    assert "Your hand" in text and "Walls left" in text
    assert "n1" in text or "n2" in text  # the autocomplete answer for the card
    assert "step 2 of 3" in text  # the guided move went on to the points
    assert "Start a line with a player's name" in text
    assert "@alice" in text and "<@" not in text.split("[only bob]")[-1]
    pictures = sorted((tmp_path / "pics").glob("*.png"))
    assert any(p.name.endswith("board.png") for p in pictures) and any("hand" in p.name for p in pictures)
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in pictures)


def _console(tmp_path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``python -m bot console`` in a fresh process, two players, one typed line."""
    return subprocess.run(
        [sys.executable, "-m", "bot", "console", "--players", "ann,ben", "--db", str(tmp_path / "x.db"),
         "--out", str(tmp_path / "p"), "--seed", "1", *extra],
        input="ann: /alexandros rules\nquit\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


def test_python_m_bot_console_runs_from_the_command_line(tmp_path) -> None:
    proc = _console(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Alexandros" in proc.stdout and "Traceback" not in proc.stderr


def test_missing_token_is_one_sentence(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bot"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert proc.returncode != 0
    assert "DISCORD_TOKEN" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


async def test_a_whole_game_can_be_played_in_the_console(tmp_path, no_network) -> None:
    """Typed lines only (commands and selects), decided by the computer player, until the game ends."""
    import random

    from bot.console import Console
    from bot.texts import choices as ch
    from engine import ai
    from engine.actions import CardSource, EndTurn, Levy, Move, Occupy, TakeBack, TakeCard, TakeOver
    from engine.symbols import as_list
    from tests.bot.driver import WALLS_MAP, find_seed

    seed = find_seed(WALLS_MAP, 2, "walls")
    map_file = tmp_path / "walls.map"
    map_file.write_text(WALLS_MAP.text)
    out = io.StringIO()
    console = Console(["ann", "ben"], str(tmp_path / "w.db"), tmp_path / "pics", seed, out, str(map_file))
    await console.start()
    rng = random.Random(seed)
    try:
        for _ in range(300):
            table = await console.d.bot.pipeline.tables.by_id(1)
            st = table.state
            if st.over:
                break
            name = table.speaker.seat(st.current)
            a = ai.greedy_player(st, rng)
            if isinstance(a, Move):
                card, to, path = ch.move_code(st, a)
                lines = [f"{name}: /alexandros move card:{card} to:{to} path:{path}"]
            elif isinstance(a, TakeCard):
                value = "supply" if a.source is CardSource.SUPPLY else str((a.slot or 0) + 1)
                lines = [f"{name}: /alexandros take card:{value}"]
            elif isinstance(a, Occupy | TakeOver):
                verb = "occupy" if isinstance(a, Occupy) else "takeover"
                lines = [
                    f"{name}: /alexandros {verb} province:{a.province}",
                    f"{name}: select 1 " + " ".join(ch.space_code(s) for s in a.guards),
                ]
                if isinstance(a, TakeOver) and sum(a.compensation):
                    seen: dict[str, int] = {}
                    picks = []
                    for sym in as_list(a.compensation):
                        seen[sym.letter] = seen.get(sym.letter, 0) + 1
                        picks.append(f"{sym.letter}{seen[sym.letter]}")
                    lines.append(f"{name}: select 1 " + " ".join(picks))
            elif isinstance(a, Levy):
                lines = [f"{name}: /alexandros levy card:{a.card.value}"]
            elif isinstance(a, TakeBack):
                lines = [f"{name}: /alexandros takeback guard:{ch.space_code(a.space)}"]
            else:
                assert isinstance(a, EndTurn)
                lines = [f"{name}: press End turn"]
            version = st.version
            for line in lines:
                assert await console.line(line)
            assert (await console.d.bot.pipeline.tables.by_id(1)).version > version, out.getvalue()[-2000:]
        final = (await console.d.bot.pipeline.tables.by_id(1)).state
        assert final.over
    finally:
        await console.close()
    assert "is over" in out.getvalue() and "!!!" not in out.getvalue()


def _args(tmp_path, players: str = "alice,bob", out: str = "pics") -> argparse.Namespace:
    return argparse.Namespace(players=players, db=str(tmp_path / "c.db"), out=str(tmp_path / out), seed=3)


async def test_the_console_resumes_its_game_buttons_and_picture_numbers(tmp_path, no_network) -> None:
    first = io.StringIO()
    assert await run(_args(tmp_path), io.StringIO("alice: press My hand\nquit\n"), first) == 0
    numbers = sorted(int(p.name[:4]) for p in (tmp_path / "pics").glob("*.png"))
    assert numbers == list(range(1, len(numbers) + 1)) and numbers
    # Again on the same database: the current turn is posted again, its buttons work.
    again = io.StringIO()
    lines = io.StringIO("board\nalice: press Move\nbob: press Move\nquit\n")
    assert await run(_args(tmp_path), lines, again) == 0
    text = again.getvalue()
    assert "Carrying on with the game saved in this database." in text
    assert "[public]" in text and "it is your turn" in text
    assert "Choose the card" in text or "step 1 of 3" in text, text[-1500:]
    assert "not your turn" in text.lower()
    later = sorted(int(p.name[:4]) for p in (tmp_path / "pics").glob("*.png"))
    assert later[: len(numbers)] == numbers and len(later) > len(numbers), "no picture overwritten"
    assert later == list(range(1, len(later) + 1))


async def test_other_players_on_a_running_game_get_one_sentence(tmp_path, no_network, capsys) -> None:
    assert await run(_args(tmp_path), io.StringIO("quit\n"), io.StringIO()) == 0
    assert await run(_args(tmp_path, players="carol,dave"), io.StringIO("quit\n"), io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--players alice,bob" in err[0], err


def test_a_start_up_failure_exits_within_seconds_with_one_sentence(tmp_path) -> None:
    (tmp_path / "afile").write_text("not a folder")
    cases = [
        ["--out", str(tmp_path / "afile")],
        ["--db", str(tmp_path)],  # a folder, not a database file
    ]
    for extra in cases:
        proc = subprocess.run(
            [sys.executable, "-m", "bot", "console", "--players", "ann,ben", *extra],
            capture_output=True,
            text=True,
            cwd=ROOT,
            input="quit\n",
            timeout=30,
        )
        assert proc.returncode != 0, proc.stdout[-500:]
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_issue_15_timestamps_show_as_times_not_markup() -> None:
    from bot.console import render_markup, show_time

    now = 1_800_000_000.0
    markup = "since <t:1799989200:R>, due <t:1800003600:R>; <@42> in <#7>"
    text = render_markup(markup, {42: "ann"}, now, {7: "x"})
    assert text == (
        "since 2027-01-15 05:00 UTC (3 hours ago), due 2027-01-15 09:00 UTC (in 1 hour); @ann in #x"
    ), text
    assert show_time(1_800_000_000, "t", now) == "08:00 UTC"
    assert show_time(1_800_000_000, "R", now).endswith("(now)")
    # In the reader's language (console --locale), as a Discord client writes it (Babel's CLDR words).
    german = render_markup(markup, {42: "ann"}, now, {7: "x"}, "de")
    assert german == (
        "since 2027-01-15 05:00 UTC (vor 3 Stunden), due 2027-01-15 09:00 UTC (in 1 Stunde); @ann in #x"
    ), german
    assert show_time(1_800_000_000, "R", now, "de").endswith("(jetzt)")
    assert show_time(1_800_000_000, "D", now, "de") == "15. Januar 2027"


async def test_issue_15_the_console_shows_no_raw_timestamp(tmp_path, no_network) -> None:
    out = io.StringIO()
    assert await run(_args(tmp_path), io.StringIO("alice: /alexandros status\nquit\n"), out) == 0
    text = out.getvalue()
    assert "Turn 1:" in text and "<t:" not in text and " UTC (" in text, text[-800:]


def test_the_console_speaks_german_with_locale_de(tmp_path) -> None:
    proc = _console(tmp_path, "--locale", "de")
    assert proc.returncode == 0, proc.stderr
    assert "**Zug 1 — ann" in proc.stdout or "**Zug 1 — ben" in proc.stdout  # the public turn post
    assert "**Dein Zug:**" in proc.stdout  # the private rules summary


async def test_the_console_types_three_word_commands_and_numbers(tmp_path, no_network) -> None:
    """'/alexandros me waiting' was read as the group 'alexandros me' ("me is a group"), and a NUMBER
    option such as vacation's days was passed as text ("expects a number")."""
    out = io.StringIO()
    lines = "\n".join(
        [
            "alice: /alexandros me waiting",
            "bob: /alexandros vacation days:3",
            "bob: /alexandros vacation days:x",
            "quit\n",
        ]
    )
    assert await run(_args(tmp_path), io.StringIO(lines), out) == 0
    text = out.getvalue()
    assert "is a group" not in text and "expects a number" in text.split("days:x")[-1], text[-1500:]
    assert "Game 1" in text or "game 1" in text
    assert "vacation runs until" in text, text[-1500:]
