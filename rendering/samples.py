"""A seeded simulated game and the gallery: one picture of every kind (``python -m rendering gallery OUT``).

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
    Occupy,
    TakeCard,
    apply,
    new_game,
    parse_map,
    rules,
    view,
)
from engine.actions import Action
from engine.ai import move_action
from engine.geometry import Point
from engine.rules import PathOption
from engine.state import Phase
from rendering.layout import BOARD_WIDTH
from rendering.words import ENGLISH, Words

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
        # engine.ai builds the Move, so that this player follows the engine's Move as it changes.
        return move_action(state, c, path.points)
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


GALLERY = (
    "01-start",
    "02-mid-game",
    "03-move-preview",
    "04-path-preview",
    "05-confirm",
    "06-confirm-game-end",
    "07-occupy-preview",
    "08-take-over-preview",
    "09-hand",
    "10-end",
    "11-late-game",
)


def write_gallery(out: Path, width: int = BOARD_WIDTH, words: Words = ENGLISH) -> list[Path]:
    """Write the gallery to ``out``: one PNG of every kind of picture (``GALLERY`` names them), from one
    seeded game on the sample map, in the language of ``words``; returns the files."""
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
    save("01-start", render_board(view(start), names, width, words=words))
    mid = game.first_with(
        lambda s: s.turn >= 16 and s.phase is Phase.ACTIONS and sum(bool(p.guards) for p in s.players) >= 3
    )
    save("02-mid-game", render_board(view(mid), names, width, words=words))
    # A move preview for the next player to move after the mid-game picture.
    mover = game.first_with(lambda s: s.version > mid.version and s.phase is Phase.MOVE and rules.can_move(s))
    choices = rules.move_choices(mover)
    symbol = max({c.symbol for c in choices}, key=lambda s: (len(rules.targets(mover, s)), s.value))
    targets = rules.targets(mover, symbol)
    v = view(mover, mover.current)
    save("03-move-preview", render_move_preview(v, targets, symbol, names, width, words=words))
    corner = max((c for t in targets for c in t.corners), key=lambda c: (c.paths, c.point))
    paths = rules.path_options(mover, corner.point)
    save("04-path-preview", render_path_preview(v, corner, paths, names, width, words=words))
    save("05-confirm", render_path_preview(v, corner, paths[:1], names, width, confirm=True, words=words))
    # The last move of a game that ended by walls: more new walls than black walls left (R3.6, R10.1).
    last = next(
        (s for s in reversed(game.states) if s.phase is Phase.MOVE and not s.over and rules.can_move(s)),
        mover,
    )
    lv = view(last, last.current)
    ending = _ending_path(last)
    if ending is not None:
        point, path = ending
        save(
            "06-confirm-game-end",
            render_path_preview(lv, point, [path], names, width, confirm=True, ends_game=True, words=words),
        )
    acting = game.first_with(
        lambda s: (
            s.version >= mid.version
            and s.phase is Phase.ACTIONS
            and any(rules.province_owner(s, p) not in (None, s.current) for p in s.provinces)
        )
    )
    me = acting.current
    free = [
        p
        for p in acting.provinces
        if rules.province_owner(acting, p) is None and rules.province_symbol_spaces(acting, p)
    ]
    taken = [p for p in acting.provinces if rules.province_owner(acting, p) not in (None, me)]
    for name, pool in (("07-occupy-preview", free), ("08-take-over-preview", taken)):
        # A province of a few symbol spaces, the most valuable of them: what a player would look at.
        small = [p for p in pool if len(rules.province_symbol_spaces(acting, p)) <= 6] or pool
        if small:
            prov = max(small, key=lambda p: (rules.province_value(acting, p), p.id))
            plan = rules.plan_occupation(acting, me, prov)
            save(name, render_province_preview(view(acting, me), prov.id, plan, names, width, words=words))
    save("09-hand", render_hand(view(mid, mid.current), names[mid.current], words=words))
    save("10-end", render_end(view(game.states[-1]), names, width, words=words))
    # A late board: the most provinces of the game, at the start of a turn (issue 28: read at a glance).
    late = max(
        (s for s in game.states if s.phase is Phase.MOVE and not s.over),
        key=lambda s: (len(s.provinces), -s.version),
    )
    save("11-late-game", render_board(view(late), names, width, words=words))
    return written


def _ending_path(state: GameState) -> tuple[Point, PathOption] | None:
    """A destination and path whose new walls outnumber the black walls left (R3.6), if the move has one."""
    for choice in rules.move_choices(state):
        for t in rules.targets(state, choice.symbol):
            for c in t.corners:
                if c.most_walls > state.black_left:
                    path = max(rules.path_options(state, c.point), key=lambda p: (len(p.new_walls), p.points))
                    if len(path.new_walls) > state.black_left:
                        return c.point, path
    return None
