"""Issue 27: the console and ``python -m bot --help`` as a first contact. Options named like the offline
Discord's parameters, no line ending the console, a game against computers at once, ``help`` from the real
command tree, the nearest names for a typo, the German names a German game prints, an unsupported locale
refused, ``quit`` saying where the game is and how to carry on, and the bot's own ``--help``."""

from __future__ import annotations

import argparse
import inspect
import io
import random
import re
import shlex
import subprocess
import sys
from pathlib import Path

from bot.console import Console, parse_options, run
from bot.process import config
from bot.texts import choices as ch
from engine import ai
from engine.actions import Move
from offline import OfflineDiscord

ROOT = Path(__file__).resolve().parents[2]
pytest_plugins = ["tests.harness.fixtures"]


def _args(tmp_path: Path, players: str = "alice,bob", **more: str) -> argparse.Namespace:
    return argparse.Namespace(
        players=players, db=str(tmp_path / "c.db"), out=str(tmp_path / "pics"), seed=3, **more
    )


async def test_issue_27_an_option_named_user_works_and_no_line_ends_the_console(
    tmp_path, no_network, monkeypatch
) -> None:
    """``user:alice`` crashed the console (``slash() got multiple values for argument 'user'``); and any
    failure of a line ended it with a traceback."""
    real_slash = OfflineDiscord.slash

    async def slash(self, user, command, *args, **kwargs):  # type: ignore[no-untyped-def]
        if command == "alexandros rules":
            raise RuntimeError("the wire came loose")
        return await real_slash(self, user, command, *args, **kwargs)

    monkeypatch.setattr(OfflineDiscord, "slash", slash)
    lines = io.StringIO(
        "alice: /alexandros ratings stats user:bob\n"
        "alice: /alexandros ratings stats user:@alice\n"
        "alice: /alexandros ratings stats user:zed\n"
        "alice: /alexandros rules\n"
        "bob: /alexandros status\n"
        "quit\n"
    )
    out = io.StringIO()
    assert await run(_args(tmp_path), lines, out) == 0
    text = out.getvalue()
    assert "@bob has no rated game on this server yet." in text, text[-2000:]
    assert "@alice has no rated game on this server yet." in text
    assert "user: name a player of this console (alice, bob)" in text
    assert "(console) That line failed (RuntimeError: the wire came loose)" in text
    assert "Walls left" in text.split("> bob: /alexandros status")[1], "the console carried on"


async def test_issue_27_one_player_against_computers_at_once(tmp_path, no_network, capsys) -> None:
    out = io.StringIO()
    lines = io.StringIO("alice: /alexandros status\nquit\n")
    assert await run(_args(tmp_path, "alice", computers="easy,normal"), lines, out) == 0
    text = out.getvalue()
    # The lobby is printed once, with every seat taken (issue 28), before the start.
    assert "Seated (3/4): @alice, **Computer (easy)**, **Computer (normal)**" in text, text[-3000:]
    assert "@alice, it is your turn" in text  # the computers played up to alice's turn
    # Again on the same database: the same seats carry on; other seats get one sentence with the flags.
    again = io.StringIO()
    assert await run(_args(tmp_path, "alice", computers="easy,normal"), io.StringIO("quit\n"), again) == 0
    assert "Carrying on with the game saved in this database." in again.getvalue()
    capsys.readouterr()
    assert await run(_args(tmp_path, "alice", computers="hard"), io.StringIO("quit\n"), io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--players alice --computers easy,normal" in err[0], err


async def test_issue_27_the_seats_on_the_command_line_are_checked(tmp_path, capsys) -> None:
    for players, computers, words in [
        ("alice", "", "2 to 4 in all"),
        ("alice,bob", "hard,hard,hard", "2 to 4 in all"),
        ("alice,alice", "", "different names"),
        ("alice", "wizard", "the levels are easy, normal, hard"),
    ]:
        assert await run(_args(tmp_path, players, computers=computers), io.StringIO(), io.StringIO()) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0], (players, computers, err)
    from bot.console import parser

    assert (
        parser().parse_args(["--players", "alice", "--computers", "hard,normal"]).computers == "hard,normal"
    )


async def test_issue_27_help_lists_every_command_of_the_tree(tmp_path, no_network) -> None:
    out = io.StringIO()
    console = Console(["ann", "ben"], str(tmp_path / "h.db"), tmp_path / "pics", 1, out)
    await console.start()
    try:
        mark = len(out.getvalue())
        assert await console.line("help")
        text = out.getvalue()[mark:]
        paths = console.d.command_paths()  # the tree the bot synced to the offline Discord
        assert len(paths) > 30
        for path in paths:
            node = console.d.command_payload(path)
            for word in path.split()[1:]:
                node = next(o for o in node["options"] if o["name"] == word)
            line = next(
                (r for r in text.splitlines() if r.startswith(f"  /{path} ") or r == f"  /{path}"), None
            )
            assert line is not None, (path, text[:3000])
            assert line.rstrip().endswith(node["description"]), line
        assert "card: [to:] [path:]" in next(
            r for r in text.splitlines() if r.startswith("  /alexandros move ")
        )
        assert "press" in text and "select" in text  # the console's own lines too
    finally:
        await console.close()


async def test_issue_27_a_typo_gets_the_nearest_commands(tmp_path, no_network) -> None:
    lines = io.StringIO(
        "alice: /alexandros mvoe\n"
        "alice: /alexandros move crad:?\n"
        "alice: /alexandro status\n"
        "alice: /alexandros ratings stat\n"
        "alice: /alexandros me\n"
        "quit\n"
    )
    out = io.StringIO()
    assert await run(_args(tmp_path), lines, out) == 0
    text = out.getvalue()
    assert "There is no command /alexandros mvoe: did you mean /alexandros move" in text, text[-2000:]
    assert (
        "/alexandros move has no option crad: (its options: card:, to:, path:). Did you mean card:?" in text
    )
    assert "There is no command /alexandro: did you mean /alexandros or /alexandros-admin?" in text
    assert "did you mean /alexandros ratings stats" in text
    assert "/alexandros me is a group: name one of its commands (reminders, waiting, games, forget)." in text


async def test_issue_27_a_german_game_takes_the_german_names_it_prints(tmp_path, no_network) -> None:
    out = io.StringIO()
    console = Console(["ann", "ben"], str(tmp_path / "de.db"), tmp_path / "pics", 3, out, locale="de")
    await console.start()
    try:
        text = out.getvalue()
        assert "`/alexandros ziehen`" in text, text[-2000:]  # the bot's own instruction
        table = await console.d.bot.pipeline.tables.by_id(1)
        st = table.state
        name = table.speaker.seat(st.current)
        move = ai.greedy_player(st, random.Random(3))
        assert isinstance(move, Move)
        card, to, path = ch.move_code(st, move)
        for line in (
            f"{name}: /alexandros ziehen karte:?",
            f"{name}: /alexandros ziehen karte:{card} ziel:{to} weg:{path}",
            f"{name}: /alexandros verlauf anzahl:3",
            f"{name}: /alexandros zurücknehmen wächter:?",
        ):
            assert await console.line(line)
        after = out.getvalue()[len(text) :]
        assert "no subcommand" not in after and "There is no command" not in after, after[-2000:]
        assert (await console.d.bot.pipeline.tables.by_id(1)).version > st.version, after[-2000:]
        assert "has no option" not in after
    finally:
        await console.close()
    assert parse_options("wächter:C7 ziel:D7") == {"wächter": "C7", "ziel": "D7"}


async def test_issue_27_an_unsupported_locale_is_refused(tmp_path, capsys) -> None:
    assert await run(_args(tmp_path, locale="fr"), io.StringIO(), io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--locale fr" in err[0] and "en-US" in err[0] and "de" in err[0], err
    assert not (tmp_path / "c.db").exists(), "refused before anything opened"
    from bot.console import supported_locale

    assert supported_locale("DE") == "de" and supported_locale("en") == "en-US"
    assert supported_locale("en-GB") == "en-GB" and supported_locale("fr") is None


async def test_issue_27_quit_says_where_the_game_is_saved_and_how_to_carry_on(tmp_path, no_network) -> None:
    out = io.StringIO()
    args = _args(tmp_path, locale="de")
    assert await run(args, io.StringIO("alice: /alexandros status\nquit\n"), out) == 0
    last = out.getvalue().strip().splitlines()[-1]
    saved = str((tmp_path / "c.db").resolve())
    # In the game's language (German here), the command line as a code span.
    said = f"Das Spiel ist in {saved} gespeichert. Weiterspielen mit: `python -m bot console "
    assert last.startswith(said), last
    from bot.console import parser

    argv = shlex.split(last.split("`")[1])
    assert argv[:4] == ["python", "-m", "bot", "console"]
    resumed = parser().parse_args(argv[4:])
    assert resumed.db == saved and resumed.players == "alice,bob" and resumed.locale == "de"
    again = io.StringIO()
    assert await run(resumed, io.StringIO("quit\n"), again) == 0
    assert "Es geht weiter mit dem Spiel, das in dieser Datenbank gespeichert ist." in again.getvalue()


def test_issue_27_python_m_bot_help_says_what_it_does_and_every_setting(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    text = proc.stdout
    assert "Discord bot" in text and "--sync" in text and "ALEXANDROS_TEST_GUILD" in text
    for sub in ("console", "backup", "restore", "ratings", "purge", "health"):
        assert f"python -m bot {sub}" in text, sub
    assert "--computers" in text
    # Every variable load_config reads is listed, each with the default load_config gives.
    read = set(re.findall(r'get\("([A-Z_]+)"\)', inspect.getsource(config.load_config)))
    assert read == {name for name, _, _ in config.VARIABLES}
    defaults = config.load_config({}, None, require_token=False)
    for name, field, _ in config.VARIABLES:
        line = next(li for li in text.splitlines() if li.strip().startswith(name + " "))
        value = getattr(defaults, field)
        shown = "unset" if value in (None, "") else f"{value:g}" if isinstance(value, float) else str(value)
        assert line.endswith(f"default {shown}"), line
    assert "default 7" in next(li for li in text.splitlines() if "ALEXANDROS_BACKUP_KEEP" in li)
    assert "default data/alexandros.db" in text
