"""Golden playthroughs: whole recorded games, replayed action by action through the checked ``apply``.

Each file in tests/engine/golden/ names a map, the players and the seed, then lists every action in the
notation of engine.notation, then the end and a digest of every event. A change to the rules that alters
any of these games shows here. ``pytest --update-goldens`` rewrites them from greedy self-play, on purpose.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from engine import ai, serialize
from engine.game import apply, new_game
from engine.maps import load_map
from engine.notation import format_action, parse_action
from engine.state import Phase

GOLDEN = Path(__file__).parent / "golden"
GAMES = {  # file -> (players, seed): chosen to cover each ending and a shared victory (D9)
    "points-2p.txt": (2, 2),
    "walls-3p.txt": (3, 3),
    "no-space-4p.txt": (4, 0),
    "tie-3p.txt": (3, 6),
}


def _digest(events: list[object]) -> str:
    text = json.dumps([serialize.dump(e) for e in events], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _write(name: str, players: int, seed: int) -> None:
    final, events = new_game(load_map(str(GOLDEN / "meadow.map")), players, seed)
    rng = random.Random(seed)
    actions = []
    while final.phase is not Phase.OVER:
        action = ai.greedy_player(final, rng)
        final, more = apply(final, action)
        actions.append(action)
        events.extend(more)
    assert final.result is not None
    lines = [
        "# Greedy self-play on meadow.map. Rewrite only on purpose: pytest --update-goldens",
        "map: meadow.map",
        f"players: {players}",
        f"seed: {seed}",
        *(format_action(a) for a in actions),
        f"end: {final.result.reason.value} winners {','.join(map(str, final.result.winners))} "
        f"scores {','.join(map(str, final.result.scores))} turns {final.turn}",
        f"events: {_digest(events)}",
    ]
    (GOLDEN / name).write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough_replays_exactly(name: str, request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--update-goldens"):
        _write(name, *GAMES[name])
    lines = [ln for ln in (GOLDEN / name).read_text().splitlines() if ln and not ln.startswith("#")]
    header = dict(ln.split(": ", 1) for ln in lines[:3])
    game_map = load_map(str(GOLDEN / header["map"]))
    state, events = new_game(game_map, int(header["players"]), int(header["seed"]))
    log = list(events)
    for line in lines[3:-2]:
        action = parse_action(line)
        assert format_action(action) == line  # the notation round-trips
        state, events = apply(state, action, expected_version=state.version)
        log.extend(events)
    assert state.phase is Phase.OVER and state.result is not None
    end = (
        f"end: {state.result.reason.value} winners {','.join(map(str, state.result.winners))} "
        f"scores {','.join(map(str, state.result.scores))} turns {state.turn}"
    )
    assert end == lines[-2]
    assert f"events: {_digest(log)}" == lines[-1]
