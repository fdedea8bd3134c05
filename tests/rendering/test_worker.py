"""The process-pool entry point: a request survives pickling, carries no secret, and draws the same bytes."""

from __future__ import annotations

import pickle
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from engine import GameState, Symbol, rules, view
from engine.rules import CornerOption, PathOption, Target
from engine.state import Phase
from rendering import (
    RenderRequest,
    render_board,
    render_hand,
    render_move_preview,
    render_path_preview,
    render_request,
    warm_worker,
)
from tests.rendering.games import first, game_states, small_map

WIDTH = 640
NAMES = ("Ana", "Jürgen", "Zoë")


def _mover() -> tuple[GameState, Symbol, list[Target], CornerOption, list[PathOption]]:
    s = first(game_states(3, 5), lambda s: s.phase is Phase.MOVE and s.turn > 4 and rules.can_move(s))
    symbol = rules.move_choices(s)[0].symbol
    targets = rules.targets(s, symbol)
    corner = targets[0].corners[0]
    return s, symbol, targets, corner, rules.path_options(s, corner.point)


def test_a_request_pickles_its_map_as_text_and_draws_the_same_picture() -> None:
    s = game_states(3, 5)[40]
    req = RenderRequest.board(view(s), NAMES, WIDTH)
    wire = pickle.dumps(req)
    assert len(wire) < len(pickle.dumps(s.map)), "the parsed map (with its distance table) was pickled"
    back = pickle.loads(wire)
    assert back == req and back.view.map == s.map
    assert render_request(back) == render_board(view(s), NAMES, WIDTH)


def test_every_kind_of_request_draws_what_the_direct_call_draws() -> None:
    s, symbol, targets, corner, paths = _mover()
    mine = view(s, s.current)
    cases = [
        (RenderRequest.hand(mine, "Ana", WIDTH), render_hand(mine, "Ana", WIDTH)),
        (
            RenderRequest.move_preview(mine, targets, symbol, NAMES, WIDTH),
            render_move_preview(mine, targets, symbol, NAMES, WIDTH),
        ),
        (
            RenderRequest.path_preview(mine, corner.point, paths[:1], NAMES, WIDTH, confirm=True),
            render_path_preview(mine, corner.point, paths[:1], NAMES, WIDTH, confirm=True),
        ),
    ]
    for req, expected in cases:
        assert render_request(pickle.loads(pickle.dumps(req))) == expected


def test_a_spawned_pool_with_the_warm_initializer_renders() -> None:
    s = game_states(2, 3)[20]
    req = RenderRequest.board(view(s), (), WIDTH)
    ctx = get_context("spawn")
    with ProcessPoolExecutor(
        1, mp_context=ctx, initializer=warm_worker, initargs=([small_map().text], WIDTH)
    ) as pool:
        assert pool.submit(render_request, req).result(timeout=60) == render_board(view(s), None, WIDTH)
