"""A seeded simulated game and one sample of every kind of picture (``python -m rendering samples OUT``).

The game is played by ``engine.ai.greedy_player`` on the default map when it ships, else on a built-in demo
map. ``greedy_action`` is a smaller player of our own whose games depend on nothing but the rules, for tests.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine import (
    CardSource,
    EndTurn,
    GameState,
    Levy,
    Map,
    Move,
    MoveWay,
    Occupy,
    TakeCard,
    apply,
    new_game,
    parse_map,
    rules,
    view,
)
from engine.actions import Action
from engine.state import Phase

DEMO_MAP = """\
name: Demo coast
start: A3
walls: 65 black, 10 red
label: Hellas at C9
label: Ionia at E21
label: Aegyptus at H13
grid:
~~.T..A.H.~~~~.T.S..~
~.S..L..H.T.~.A.L.H..
~..A..T.S..L~.S..T.A.~
 .H.L..A..T..~..H..L..
 ..S..H..L.A.~.T..A.S.
  .T..S..A..H..L..S..~
  ~.H.L..T.S..A.T..H.~
   ~~~.A..L..S..~~~~~
"""


def demo_map() -> Map:
    return parse_map(DEMO_MAP, "demo.map")


def sample_map() -> Map:
    """The default map if it is there, else the demo map."""
    try:
        from engine import default_map

        return default_map()
    except (FileNotFoundError, OSError, ValueError):
        return demo_map()


def greedy_action(state: GameState, rng: random.Random) -> Action:
    """One legal action: a random move (fewest new walls), then occupy, levy or take a card."""
    me = state.current
    if state.phase is Phase.MOVE:
        choices = rules.move_choices(state)
        c = rng.choice(choices)
        targets = rules.targets(state, c.symbol)
        t = rng.choice(targets)
        corner = rng.choice(t.corners)
        paths = rules.path_options(state, corner.point)
        path = paths[0] if rng.random() < 0.7 else rng.choice(paths)
        return Move(
            me,
            c.way,
            path.points,
            slot=c.slot,
            card=c.card,
            named=c.symbol if c.way is MoveWay.JOKER else None,
        )
    if len(state.actions_taken) >= 2:
        return EndTurn(me)
    best = None
    for prov in state.provinces:
        plan = rules.plan_occupation(state, me, prov)
        if plan is None or not plan.affordable or rules.province_owner(state, prov) is not None:
            continue
        value = rules.province_value(state, prov)
        if value > 0 and (best is None or value > best[0]):
            best = (value, plan)
    if best is not None:
        return Occupy(me, best[1].province, best[1].guards)
    levy = rules.levy_cards(state, me)
    if levy and not state.levied and rules.levy_scores(state)[me][0] > 0:
        return Levy(me, levy[0])
    if state.supply and rng.random() < 0.8:
        return TakeCard(me, CardSource.SUPPLY)
    slots = [i for i, s in enumerate(state.face_up) if s is not None]
    if slots:
        return TakeCard(me, CardSource.FACE_UP, slot=slots[0])
    return EndTurn(me)


def _player() -> Callable[[GameState, random.Random], Action]:
    """The engine's greedy computer player; this module's own small player if it is missing."""
    try:
        from engine.ai import greedy_player
    except ImportError:
        return greedy_action
    return greedy_player


@dataclass
class SampleGame:
    states: list[GameState]

    def first_with(self, test: Callable[[GameState], bool]) -> GameState:
        return next((s for s in self.states if test(s)), self.states[-1])


def play(
    game_map: Map,
    players: int = 4,
    seed: int = 7,
    max_actions: int = 4000,
    player: Callable[[GameState, random.Random], Action] | None = None,
) -> SampleGame:
    """Play a whole seeded game; every state after every action is kept."""
    choose = player or _player()
    rng = random.Random(seed)
    state, _ = new_game(game_map, players, seed)
    states = [state]
    for _ in range(max_actions):
        if state.over:
            break
        action = choose(state, rng)
        state, _ = apply(state, action)
        states.append(state)
    return SampleGame(states)


def write_samples(out: Path, width: int = 1600) -> list[Path]:
    """Write one PNG of every kind of picture to ``out``; returns the files."""
    from rendering import (
        render_board,
        render_end,
        render_hand,
        render_move_preview,
        render_path_preview,
        render_province_preview,
    )

    out.mkdir(parents=True, exist_ok=True)
    m = sample_map()
    game = play(m, 4, seed=7)
    names = ("Alexandra", "Björn", "Chloé", "Dmitri Ж")
    written: list[Path] = []

    def save(name: str, data: bytes) -> None:
        path = out / f"{name}.png"
        path.write_bytes(data)
        written.append(path)

    start = game.states[0]
    save("01-start", render_board(view(start), names, width))
    total = len(game.states)
    mid = game.first_with(
        lambda s: s.turn >= 16 and s.phase is Phase.ACTIONS and sum(bool(p.guards) for p in s.players) >= 3
    )
    if mid is game.states[-1]:
        mid = game.states[total // 2]
    save("02-mid-game", render_board(view(mid), names, width))
    # A move preview for the next player to move after the mid-game picture.
    mover = game.first_with(lambda s: s.version > mid.version and s.phase is Phase.MOVE and not s.over)
    choices = rules.move_choices(mover)
    if choices:
        symbol = max({c.symbol for c in choices}, key=lambda s: len(rules.targets(mover, s)))
        targets = rules.targets(mover, symbol)
        v = view(mover, mover.current)
        save("03-move-preview", render_move_preview(v, targets, symbol, names, width))
        corner = max((c for t in targets for c in t.corners), key=lambda c: (c.paths, c.point))
        paths = rules.path_options(mover, corner.point)
        save("04-path-preview", render_path_preview(v, corner, paths, names, width))
    acting = game.first_with(
        lambda s: (
            s.version >= mid.version
            and s.phase is Phase.ACTIONS
            and any(rules.province_owner(s, p) not in (None, s.current) for p in s.provinces)
        )
    )
    me = acting.current
    taken = [p for p in acting.provinces if rules.province_owner(acting, p) not in (None, me)]
    free = [
        p
        for p in acting.provinces
        if rules.province_owner(acting, p) is None and rules.province_symbol_spaces(acting, p)
    ]
    prov = max(taken or free, key=lambda p: (rules.province_value(acting, p), p.id))
    plan = rules.plan_occupation(acting, me, prov)
    save("05-province-preview", render_province_preview(view(acting, me), prov.id, plan, names, width))
    save("06-hand", render_hand(view(mid, mid.current), names[mid.current]))
    save("07-end", render_end(view(game.states[-1]), names, width))
    return written
