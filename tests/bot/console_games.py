"""Whole games through the console (bot.console), as a new player would type them: for the transcript checks
of issue 15 (tests/bot/test_console_games.py) and the longer runs of benchmarks/bench_console_games.py.

The computer player (engine.ai) decides; its decisions are typed as console lines: moves by command or by
the guided buttons and selects, actions by command, the province steps by select. A few mistakes a new
player makes are typed too (off turn, bad values, a face-up card that is no joker, a turn command after
the end), so that the refusals are in the transcript.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from bot.console import Console
from bot.texts import choices as ch
from bot.words import i18n
from bot.words.words import Speaker
from engine import ai
from engine.actions import CardSource, EndTurn, Levy, Move, Occupy, TakeBack, TakeCard, TakeOver
from engine.maps import Map, parse_map
from engine.state import GameState
from engine.symbols import as_list

NAMES = ("ann", "ben", "cat", "dan")


def packaged_maps() -> dict[str, str]:
    """Every map shipped in engine/maps (name -> its text), whatever maps are added there."""
    folder = resources.files("engine").joinpath("maps")
    return {
        p.name.removesuffix(".map"): p.read_text(encoding="utf-8")
        for p in sorted(folder.iterdir(), key=lambda p: p.name)
        if p.name.endswith(".map")
    }


class Recorder:
    """Every refusal sentence the bot words (bot.words.words.Speaker.refusal), to
    check each has a way forward."""

    def __init__(self) -> None:
        self.refusals: list[str] = []
        self._original: Callable[..., str] = Speaker.refusal

    def __enter__(self) -> Recorder:
        original = self._original
        seen = self.refusals

        def refusal(speaker: Speaker, code: str, details: Any = None) -> str:
            text = original(speaker, code, details)
            seen.append(text)
            return text

        Speaker.refusal = refusal  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Speaker.refusal = self._original  # type: ignore[method-assign]


def _move_lines(name: str, st: GameState, move: Move, guided: bool) -> list[str]:
    card, to, path = ch.move_code(st, move)
    if not guided:
        return [f"{name}: /alexandros move card:{card} to:{to} path:{path}"]
    lines = [f"{name}: press Move", f"{name}: select 1 {card}", f"{name}: select 1 {to}"]
    if int(path) > ch.MAX_CHOICES:
        # The menu holds the first 25 paths, fewest walls first, and its prompt says to type the command
        # for the others: so does the player.
        return [*lines, f"{name}: /alexandros move card:{card} to:{to} path:{path}"]
    if len(ch.legal_paths(st, move.corner)) > 1:
        lines.append(f"{name}: select 1 {path}")
    return [*lines, f"{name}: press Confirm"]


def _action_lines(name: str, st: GameState, a: Any) -> list[str]:
    if isinstance(a, TakeCard):
        value = "supply" if a.source is CardSource.SUPPLY else str((a.slot or 0) + 1)
        return [f"{name}: /alexandros take card:{value}"]
    if isinstance(a, Occupy | TakeOver):
        verb = "occupy" if isinstance(a, Occupy) else "takeover"
        lines = [
            f"{name}: /alexandros {verb} province:?",
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
        return lines
    if isinstance(a, Levy):
        return [f"{name}: /alexandros levy card:{a.card.value}"]
    if isinstance(a, TakeBack):
        return [f"{name}: /alexandros takeback guard:{ch.space_code(a.space)}"]
    assert isinstance(a, EndTurn)
    return [f"{name}: press End turn"]


def _mistakes_before_move(name: str, other: str) -> list[str]:
    return [
        f"{other}: /alexandros take card:soldier",
        f"{name}: /alexandros take card:soldier",
        f"{name}: /alexandros move card:j1H",
        f"{name}: /alexandros move card:zz",
        f"{name}: /alexandros move card:?",
        f"{name}: press My hand",
        f"{name}: /alexandros status",
    ]


def _mistakes_after_move(name: str) -> list[str]:
    return [
        f"{name}: /alexandros take card:banana",  # not "soldier": a face-up soldier would be taken
        f"{name}: /alexandros take card:?",
        f"{name}: /alexandros levy card:xx",
        f"{name}: /alexandros occupy province:zz",
        f"{name}: /alexandros takeover province:zz",
        f"{name}: /alexandros takeback guard:zz",
        f"{name}: /alexandros log",
        f"{name}: /alexandros status",
    ]


_BUTTONS = ("Move", "Confirm", "End turn", "My hand")  # the labels the lines press, as the catalog has them


def _in_language(line: str, locale: str) -> str:
    """A typed line with the button it presses labelled in the console's language ("press Zug beenden")."""
    name, _sep, rest = line.partition(": press ")
    if rest in _BUTTONS:
        return f"{name}: press {i18n.in_language(locale, rest)}"
    return line


async def play(
    map_text: str, players: int, seed: int, folder: Path, max_lines: int = 2000, locale: str = "en-US"
) -> tuple[str, GameState]:
    """One whole game through the console (its players and server speak ``locale``); its transcript and its
    last state."""
    game_map: Map = parse_map(map_text)
    map_file = folder / "game.map"
    map_file.write_text(map_text, encoding="utf-8")
    out = io.StringIO()
    names = list(NAMES[:players])
    console = Console(names, str(folder / "c.db"), folder / "pics", seed, out, str(map_file), locale)
    console.print(f"=== {game_map.name}, {players} players, seed {seed}")
    rng = random.Random(seed)
    await console.start()
    typed = 0
    mistakes = 2  # the first two turns also get the mistakes
    try:
        while typed < max_lines:
            table = await console.d.bot.pipeline.tables.by_id(1)
            st = table.state
            if st.over:
                break
            name = table.speaker.seat(st.current)
            other = table.speaker.seat((st.current + 1) % players)
            a = ai.greedy_player(st, rng)
            if isinstance(a, Move):
                lines = _mistakes_before_move(name, other) if mistakes else []
                lines += _move_lines(name, st, a, guided=st.turn % 2 == 0)
                if mistakes:
                    lines += _mistakes_after_move(name)
                    mistakes -= 1
            else:
                lines = _action_lines(name, st, a)
            version = st.version
            for line in lines:
                await console.line(_in_language(line, locale))
                typed += 1
            after = await console.d.bot.pipeline.tables.by_id(1)
            assert after.version > version, f"{lines} changed nothing:\n{out.getvalue()[-3000:]}"
        final = (await console.d.bot.pipeline.tables.by_id(1)).state
        assert final is not None and final.over, f"the game did not end within {max_lines} lines"
        last = names[final.current]
        for line in (
            f"{last}: /alexandros move card:n1",
            f"{last}: /alexandros take card:1",
            f"{last}: /alexandros status",
        ):
            await console.line(line)
    finally:
        await console.close()
    return out.getvalue(), final
