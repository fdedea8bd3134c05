"""Computer players: a uniformly random legal player and a greedy heuristic player.

A player is a function ``(state, rng) -> Action`` for ``state.current``: a ``Move`` in ``Phase.MOVE``, else
an action (R5-R8) or ``EndTurn``. Players draw chance only from the ``random.Random`` they are given, never
from the global ``random`` module, so a seeded game is the same game on every run. They see what the rules
queries in ``engine.rules`` answer and never peek at hidden cards: a supply draw is valued before it is
seen, and moves are judged on the board they leave, not by applying them.

``play_game`` lets them play whole games alone, for simulations, tests and benchmarks.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from engine import outlook, rules
from engine.actions import (
    Action,
    CardSource,
    EndTurn,
    Levy,
    Move,
    MoveWay,
    Occupy,
    SkipTurn,
    TakeBack,
    TakeCard,
    TakeOver,
)
from engine.determinize import sample_world
from engine.events import Event
from engine.game import apply, new_game
from engine.geometry import Point, Side, Space, side
from engine.maps import Map, SideKind
from engine.state import GameState, Phase
from engine.symbols import NO_CARDS, Cards, Symbol, add, as_list, one, sub, total
from engine.views import GameView, view

Player = Callable[[GameState, random.Random], Action]
T = TypeVar("T")


# --- Shared helpers ------------------------------------------------------------------------------------


def move_action(state: GameState, choice: rules.MoveChoice, path: tuple[Point, ...]) -> Move:
    """The ``Move`` that carries out a rules.MoveChoice (R3.1) along ``path``, to its last point."""
    if choice.way is MoveWay.SPECIAL:
        return Move(state.current, MoveWay.SPECIAL, path, card=choice.card)
    named = choice.symbol if choice.way is MoveWay.JOKER else None
    return Move(state.current, choice.way, path, slot=choice.slot, named=named)


def compensation_cards(state: GameState, receiver: int, paid: Cards, size: int) -> Cards:
    """R6.4: the ``size`` paid cards that help the receiver least.

    A card matching a guard the receiver keeps on the map lets them levy (R7.2), so those go last.
    """
    if size <= 0:
        return NO_CARDS
    under = {state.map.symbol[s] for s in state.players[receiver].guards}
    ranked = sorted(as_list(paid), key=lambda s: (s in under, s.ordinal))
    out = NO_CARDS
    for s in ranked[:size]:
        out = add(out, one(s))
    return out


def takeover_action(state: GameState, plan: rules.OccupyPlan) -> TakeOver:
    owner = rules.province_owner(state, state.province_by_id[plan.province])
    assert owner is not None
    comp = compensation_cards(state, owner, plan.paid, plan.compensation)
    return TakeOver(state.current, plan.province, plan.guards, comp)


def occupation_plans(state: GameState) -> list[rules.OccupyPlan]:
    """Affordable plans to occupy free provinces or take over opponents' (R6), cheapest guards first."""
    me = state.current
    if state.players[me].guards_in_supply == 0:
        return []
    out = []
    sym = state.map.symbol
    for p in state.provinces:
        if not any(sym[s] is not None for s in p.spaces):
            continue
        plan = rules.plan_occupation(state, me, p)
        if plan is not None and plan.affordable:
            out.append(plan)
    return out


def card_actions(state: GameState) -> list[TakeCard]:
    """R5.1-R5.3: the face-up slots that hold a card, and the supply while a card can come from it."""
    me = state.current
    out = [TakeCard(me, CardSource.FACE_UP, i) for i, up in enumerate(state.face_up) if up is not None]
    if state.supply or total(state.discard):
        out.append(TakeCard(me, CardSource.SUPPLY))
    return out


def legal_actions(state: GameState) -> list[Action]:
    """Every action option the players in this module consider in Phase.ACTIONS (R5-R8, D7)."""
    me = state.current
    out: list[Action] = []
    if rules.actions_left(state) > 0:
        out.extend(card_actions(state))
        for plan in occupation_plans(state):
            if plan.removal == NO_CARDS:
                out.append(Occupy(me, plan.province, plan.guards))
            else:
                out.append(takeover_action(state, plan))
        if not state.levied:
            out.extend(Levy(me, c) for c in rules.levy_cards(state, me))
        out.extend(TakeBack(me, g) for g in sorted(state.players[me].guards))
    out.append(EndTurn(me))
    return out


# --- Random player ---------------------------------------------------------------------------------------


def random_move(state: GameState, rng: random.Random) -> Move:
    """A uniformly random legal move: a way, then a closest target, a corner and a distinct path (R3).

    R3.7: corners whose fewest walls exceed the walls left are dropped; when no move fits at all, the
    move must be one of those that need the fewest walls.
    """
    left = rules.walls_left(state)
    options: list[tuple[rules.MoveChoice, rules.Target, rules.CornerOption]] = []
    by_symbol: dict[Symbol, list[rules.Target]] = {}
    for choice in rules.move_choices(state):
        if choice.symbol not in by_symbol:
            by_symbol[choice.symbol] = rules.targets(state, choice.symbol)
        for t in by_symbol[choice.symbol]:
            for c in t.corners:
                options.append((choice, t, c))
    assert options, "random_move needs a state where Alexander can move"
    fitting = [o for o in options if o[2].fewest_walls <= left]
    if not fitting:
        fewest = min(o[2].fewest_walls for o in options)
        fitting = [o for o in options if o[2].fewest_walls == fewest]
    choices = _unique([o[0] for o in fitting])
    choice = rng.choice(choices)
    spaces = _unique([o[1].space for o in fitting if o[0] == choice])
    space = rng.choice(spaces)
    corner_opts = [o[2] for o in fitting if o[0] == choice and o[1].space == space]
    corner = rng.choice(corner_opts)
    paths = rules.path_options(state, corner.point)
    limit = left if corner.fewest_walls <= left else corner.fewest_walls
    paths = [p for p in paths if len(p.new_walls) <= limit] or paths[:1]
    return move_action(state, choice, rng.choice(paths).points)


def random_player(state: GameState, rng: random.Random) -> Action:
    """Uniformly random among the legal options of the moment."""
    if state.phase is Phase.MOVE:
        return random_move(state, rng)
    return rng.choice(legal_actions(state))


# --- Greedy player ---------------------------------------------------------------------------------------


@dataclass
class _ProvinceFacts:
    value: int  # R4.5
    need: Cards  # one card per symbol space (R6.1)
    symbols: int


@dataclass
class _Board:
    """What a move leaves behind, as the greedy player sees it."""

    walls: tuple[Side, ...]
    splits: list[tuple[int, list[frozenset[Space]]]]
    ends_game: bool


@dataclass
class GreedyPlayer:
    """A one-step greedy player. Its state value is, from its own seat,

        own score + alpha * own income + cards(own hand) + hope * potential
        - lam * (the best opponent's score + alpha * their income),

    where income is what a levy would pay now (R7.3); alpha stands for the levies still to come, fewer as
    the walls run out; cards() grows ever slower with the hand, so hoarding is no plan; potential is the
    best free province its hand and guards could occupy now (R6.1-R6.2); and lam is how much the best
    opponent matters, all of it in a duel, half of it among four players. Moves are judged by the
    provinces they cut (R4), the cards they gain or spend (R3.1) and, as a clock, the walls they use;
    a move that ends the game (R10.1) by whether it wins. Actions are judged by applying them, except a
    draw from the supply, which is valued unseen.

    The weights were tuned with ``python -m engine simulate`` together with the default map.
    """

    paths_per_corner: int = 3
    noise: float = 0.05
    rivalry: float = 0.5  # lam with 4 players, where the best opponent is one of three to beat
    move_hope: float = 1.0
    levy_rivals: float = 0.5  # weight of what each rival gains from a levy beyond our own gain (R7.3)
    _facts: dict[Map, dict[frozenset[Space], _ProvinceFacts]] = field(default_factory=dict, repr=False)

    def __call__(self, state: GameState, rng: random.Random) -> Action:
        if state.phase is Phase.MOVE:
            return self.choose_move(state, rng)
        return self.choose_action(state, rng)

    # -- weights ----------------------------------------------------------------------------------------

    def alpha(self, state: GameState) -> float:
        return 0.6 + min(rules.walls_left(state), 60) / 30

    def lam(self, state: GameState) -> float:
        """1 in a duel, ``rivalry`` with four players, halfway between with three."""
        return 1.0 - (1.0 - self.rivalry) * (len(state.players) - 2) / 2

    BETA = 1.0
    LONG_GAME = 150  # turns
    DECAY = 0.85  # each further card is worth less: hoarding the deck is no plan (and could stall a game)

    def cards_value(self, n: int) -> float:
        return self.BETA * (1 - self.DECAY**n) / (1 - self.DECAY)

    # -- provinces --------------------------------------------------------------------------------------

    def facts(
        self,
        state: GameState,
        spaces: frozenset[Space],
        table: dict[frozenset[Space], _ProvinceFacts] | None = None,
    ) -> _ProvinceFacts:
        table = table if table is not None else self._table(state)
        f = table.get(spaces)
        if f is None:
            sym = state.map.symbol
            value = 0
            need = [0, 0, 0, 0, 0]
            for s in spaces:
                x = sym[s]
                if x is None:
                    value += 1
                else:
                    need[x.ordinal] += 1
            f = _ProvinceFacts(value, (need[0], need[1], need[2], need[3], need[4]), sum(need))
            if len(table) > 50_000:
                table.clear()
            table[spaces] = f
        return f

    def _table(self, state: GameState) -> dict[frozenset[Space], _ProvinceFacts]:
        # One table per map: the same spaces mean other symbols on another map.
        table = self._facts.get(state.map)
        if table is None:
            if len(self._facts) >= 8:
                self._facts.clear()
            table = self._facts.setdefault(state.map, {})
        return table

    def occupy_gain(self, state: GameState, f: _ProvinceFacts, hand: Cards, guards: int) -> float:
        """What occupying a free province with this hand is worth now (R6.1-R6.2, R7.3), or 0."""
        if f.symbols == 0 or guards == 0 or f.value == 0:
            return 0.0
        short = sum(max(0, n - h) for n, h in zip(f.need, hand, strict=True))
        g = max(1, short)
        if g > guards or g > f.symbols:
            return 0.0
        paid = f.symbols - g
        held = total(hand)
        gain = self.alpha(state) * f.value - (self.cards_value(held) - self.cards_value(held - paid))
        if g > 1:
            gain *= 0.4  # two guards score nothing until one is taken back (R7.3)
        return max(0.0, gain)

    def state_incomes(self, state: GameState) -> list[int]:
        """``incomes`` of the state's own provinces, found from the guards (at most 16) and not the other
        way round."""
        counts: dict[tuple[int, int], int] = {}
        province_of = state.province_of
        for s, o in state.guard_owner.items():
            key = (province_of[s], o)
            counts[key] = counts.get(key, 0) + 1
        out = [0] * len(state.players)
        table = self._table(state)
        by_id = state.province_by_id
        for (pid, o), n in counts.items():
            if n == 1:
                out[o] += self.facts(state, by_id[pid].spaces, table).value
        return out

    def incomes(self, state: GameState, provinces: Sequence[frozenset[Space]]) -> list[int]:
        """R7.3 for every seat: the open values of provinces where the seat has exactly one guard."""
        owner = state.guard_owner
        out = [0] * len(state.players)
        table = self._table(state)
        for spaces in provinces:
            if spaces.isdisjoint(owner):  # at most 16 guards: cheaper than walking a large province
                continue
            counts: dict[int, int] = {}
            for s, o in owner.items():
                if s in spaces:
                    counts[o] = counts.get(o, 0) + 1
            if counts:
                v = self.facts(state, spaces, table).value
                for o, n in counts.items():
                    if n == 1:
                        out[o] += v
        return out

    def value(self, state: GameState, me: int) -> float:
        """The state value described in the class docstring; a finished game is won or lost."""
        if state.phase is Phase.OVER:
            return _final_value(state.players[me].score, [p.score for p in state.players], me)
        provinces = [p.spaces for p in state.provinces]
        inc = self.state_incomes(state)
        hand = state.players[me].hand
        return self._value(state, me, inc, hand, provinces, state.players[me].guards_in_supply)

    def _value(
        self,
        state: GameState,
        me: int,
        inc: list[int],
        hand: Cards,
        provinces: Sequence[frozenset[Space]],
        guards: int,
        hope: float = 0.5,
    ) -> float:
        mine = state.players[me].score + self.alpha(state) * inc[me] + self.cards_value(total(hand))
        best_other = self.best_rival(state, me, inc)
        potential = self.reach(state, hand, guards, provinces)
        return mine + hope * potential - self.lam(state) * best_other

    def reach(
        self, state: GameState, hand: Cards, guards: int, provinces: Sequence[frozenset[Space]] | None = None
    ) -> float:
        """The best ``occupy_gain`` of a free province this hand and these guards could occupy now."""
        if not guards:
            return 0.0
        if provinces is None:
            provinces = [p.spaces for p in state.provinces]
        owner = state.guard_owner
        table = self._table(state)
        held = total(hand) + guards
        best = 0.0
        for spaces in provinces:
            f = self.facts(state, spaces, table)
            if f.symbols == 0 or f.symbols > held:
                continue
            if not spaces.isdisjoint(owner):
                continue
            best = max(best, self.occupy_gain(state, f, hand, guards))
        return best

    def outlook_rows(self, state: GameState) -> list[tuple[float, ...] | None]:
        """Each player's features for engine.outlook (score, income, cards, guards, reach), None for one
        who resigned."""
        inc = self.state_incomes(state)
        provinces = [p.spaces for p in state.provinces]
        rows: list[tuple[float, ...] | None] = []
        for j, p in enumerate(state.players):
            if p.resigned:
                rows.append(None)
                continue
            cards = self.cards_value(total(p.hand))
            reach = self.reach(state, p.hand, p.guards_in_supply, provinces)
            rows.append((float(p.score), float(inc[j]), cards, float(p.guards_in_supply), reach))
        return rows

    def best_rival(self, state: GameState, me: int, inc: list[int]) -> float:
        """The best score still in play among the others, with their incomes counted as ``_value`` counts."""
        a = self.alpha(state)
        return max(
            (p.score + a * inc[q] for q, p in enumerate(state.players) if q != me and not p.resigned),
            default=0.0,
        )

    # -- moves ------------------------------------------------------------------------------------------

    def rank_moves(self, state: GameState, rng: random.Random) -> list[tuple[float, Move]]:
        """R3: every way x closest space x corner x a few paths, judged by the board it leaves, best first."""
        me = state.current
        left = rules.walls_left(state)
        pl = state.players[me]
        choices = rules.move_choices(state)
        by_symbol: dict[Symbol, list[rules.Target]] = {}
        for c in choices:
            if c.symbol not in by_symbol:
                by_symbol[c.symbol] = rules.targets(state, c.symbol)
        all_corners = [c for ts in by_symbol.values() for t in ts for c in t.corners]
        fewest_any = min(c.fewest_walls for c in all_corners)
        limit = left if fewest_any <= left else fewest_any
        barrier = _barrier_degree(state)
        base_provinces = [p.spaces for p in state.provinces]
        base_inc = self.state_incomes(state)
        boards: dict[tuple[Symbol, Space, tuple[Point, ...]], tuple[_Board, float]] = {}
        for sym, ts in by_symbol.items():
            for t in ts:
                for corner in t.corners:
                    if corner.fewest_walls > limit:
                        continue
                    for path, walls in self._paths(state, corner.point, rng):
                        if len(walls) > limit or (fewest_any > left and len(walls) != fewest_any):
                            continue
                        board = self._board(state, walls, barrier)
                        boards[(sym, t.space, path)] = (board, rng.random() * self.noise)
        if not boards:
            # R3.7: the walks look one step ahead, so they can miss the only allowed path (a far one that
            # reuses walls); the rules' cheapest legal path per corner is the fallback, used only then.
            for sym, ts in by_symbol.items():
                for t in ts:
                    for corner in t.corners:
                        for option in rules.legal_path_options(state, corner.point, limit=1):
                            board = self._board(state, option.new_walls, barrier)
                            boards[(sym, t.space, option.points)] = (board, rng.random() * self.noise)
        ranked: list[tuple[float, Move]] = []
        for c in choices:
            hand = pl.hand
            if c.way is MoveWay.SPECIAL:
                assert c.card is not None
                hand = sub(hand, one(c.card))
            else:
                assert c.slot is not None
                up = state.face_up[c.slot]
                assert up is not None
                hand = add(hand, one(up))
            for (sym, _space, path), (board, jitter) in boards.items():
                if sym is not c.symbol:
                    continue
                score = self._judge(state, me, board, hand, base_inc, base_provinces) + jitter
                ranked.append((score, move_action(state, c, path)))
        assert ranked, "rank_moves needs a state where Alexander can move"
        # Stable: among equal scores the first found stays first.
        ranked.sort(key=lambda sm: -sm[0])
        return ranked

    def choose_move(self, state: GameState, rng: random.Random) -> Move:
        """R3: the move whose board values best (see rank_moves)."""
        return self.rank_moves(state, rng)[0][1]

    def _paths(
        self, state: GameState, corner: Point, rng: random.Random
    ) -> list[tuple[tuple[Point, ...], tuple[Side, ...]]]:
        """A few shortest paths to ``corner`` with different walls: the fewest, the most, some at random."""
        m = state.map
        to_corner = m.distance[corner]
        walls = state.walls
        coast = state.options.coast_walls
        kind = m.side_kind

        def cost(a: Point, b: Point) -> int:
            sd = side(a, b)
            if sd in walls or (not coast and kind[sd] is not SideKind.INTERIOR):
                return 0
            return 1

        def walk(pick: Callable[[list[Point], Point], Point]) -> tuple[Point, ...]:
            p = state.alexander
            out = [p]
            while p != corner:
                d = to_corner[p]
                nxt = [q for q in m.adjacent[p] if to_corner[q] == d - 1]
                p = pick(nxt, p)
                out.append(p)
            return tuple(out)

        # Fewest new walls: prefer the side with a wall, looking one step ahead is enough on short paths.
        found: dict[frozenset[Side], tuple[tuple[Point, ...], tuple[Side, ...]]] = {}
        tries = [
            walk(lambda nxt, p: min(nxt, key=lambda q: (cost(p, q), q))),
            walk(lambda nxt, p: max(nxt, key=lambda q: (cost(p, q), q))),
        ]
        tries += [walk(lambda nxt, p: rng.choice(nxt)) for _ in range(self.paths_per_corner)]
        for pts in tries:
            new = rules.new_walls(state, pts)
            key = frozenset(new)
            if key not in found:
                found[key] = (pts, new)
            if len(found) >= self.paths_per_corner:
                break
        return list(found.values())

    @staticmethod
    def _board(state: GameState, walls: tuple[Side, ...], barrier: dict[Point, int]) -> _Board:
        splits = rules.splits_after(state, walls) if _may_split(walls, barrier) else []
        ends = len(walls) > state.black_left
        return _Board(walls, splits, ends)

    def _judge(
        self,
        state: GameState,
        me: int,
        board: _Board,
        hand: Cards,
        base_inc: list[int],
        base_provinces: list[frozenset[Space]],
    ) -> float:
        guards = state.players[me].guards_in_supply
        if board.splits:
            split_ids = {pid for pid, _ in board.splits}
            provinces = [p.spaces for p in state.provinces if p.id not in split_ids]
            inc = list(base_inc)
            for pid, parts in board.splits:
                provinces.extend(parts)
                # Only the provinces cut change: their incomes out, their parts' in.
                old = self.incomes(state, (state.province_by_id[pid].spaces,))
                new = self.incomes(state, parts)
                inc = [i - o + n for i, o, n in zip(inc, old, new, strict=True)]
        else:
            provinces = base_provinces
            inc = base_inc
        if board.ends_game:
            # R10.1: this player's actions are the last; a levy now is the last scoring.
            scores = [p.score for p in state.players]
            can_levy = bool(state.players[me].guards) and any(
                hand[state.map.symbol[g].ordinal] > 0  # type: ignore[union-attr]
                for g in state.players[me].guards
            )
            best = _final_value(scores[me], scores, me)
            if can_levy:
                after = [s + i for s, i in zip(scores, inc, strict=True)]
                best = max(best, _final_value(after[me], after, me))
            return best
        # The actions come right after the move, so a province it makes affordable counts in full.
        v = self._value(state, me, inc, hand, provinces, guards, hope=self.move_hope)
        # Walls are the game's clock: a player behind wants the game long, one ahead wants it short.
        a = self.alpha(state)
        lead = (
            state.players[me].score
            + a * inc[me]
            - max(p.score + a * i for q, (p, i) in enumerate(zip(state.players, inc, strict=True)) if q != me)
        )
        clock = 0.1 if lead > 0 else -0.1
        if state.turn > self.LONG_GAME:
            clock = 0.5  # the rules allow endless wall-free moves; a game this long should end
        return v + clock * len(board.walls)

    def levy_penalty(self, before: GameState, after: GameState, me: int) -> float:
        """R7.3: what the rivals' gains from a levy cost beyond what the state value already counts.

        The value weighs only the best rival, so a levy that pays three rivals more than us each looked
        good; each rival's gain beyond ours now counts too. A penalty on every rival's whole gain beat the
        old player more often, but when every seat plays it nobody levies and games never reach 100 points.
        """
        mine = after.players[me].score - before.players[me].score
        return self.levy_rivals * sum(
            max(0, a.score - b.score - mine)
            for q, (a, b) in enumerate(zip(after.players, before.players, strict=True))
            if q != me
        )

    # -- actions ----------------------------------------------------------------------------------------

    def rank_actions(self, state: GameState, rng: random.Random) -> list[tuple[float, Action]]:
        """R5-R8: every action option with the value of the state it leaves, best first; ending the turn is
        valued as the state now, and a supply draw is valued unseen."""
        me = state.current
        base = self.value(state, me)
        ranked: list[tuple[float, Action]] = [(base, EndTurn(me))]
        for action in legal_actions(state):
            if isinstance(action, EndTurn):
                continue
            if isinstance(action, TakeCard) and action.source is CardSource.SUPPLY:
                # An unseen card: worth a little less than a chosen one.
                held = total(state.players[me].hand)
                score = base + 0.9 * (self.cards_value(held + 1) - self.cards_value(held))
            else:
                after, _ = apply(state, action)
                score = self.value(after, me)
                if isinstance(action, Levy) and after.phase is not Phase.OVER:
                    score -= self.levy_penalty(state, after, me)
                if isinstance(action, TakeCard):
                    score -= 0.05  # the face-up card is replaced for the next player only at turn end
            score += rng.random() * self.noise
            ranked.append((score - 1e-9, action))  # ending the turn wins a tie
        ranked.sort(key=lambda sa: -sa[0])
        return ranked

    def choose_action(self, state: GameState, rng: random.Random) -> Action:
        """R5-R8: the action whose resulting state values best (see rank_actions)."""
        return self.rank_actions(state, rng)[0][1]


def _final_value(mine: int, scores: Sequence[int], me: int) -> float:
    top = max(scores)
    others = max((s for q, s in enumerate(scores) if q != me), default=0)
    if mine >= top:
        return 10_000.0 + mine - others
    return -10_000.0 + mine - top


def _barrier_degree(state: GameState) -> dict[Point, int]:
    """At each point, how many of its sides already bound a province (walls, coasts and map edges)."""
    m = state.map
    deg: dict[Point, int] = {}
    for sd, kind in m.side_kind.items():
        if kind is not SideKind.INTERIOR or sd in state.walls:
            for p in sd:
                deg[p] = deg.get(p, 0) + 1
    return deg


def _may_split(walls: tuple[Side, ...], barrier: dict[Point, int]) -> bool:
    """False when the new walls cannot close a ring (R4.2), so no province is recomputed.

    New walls that hang from a point touching no other boundary form a loose end; pruning loose ends
    until none is left, a split needs some new wall to survive.
    """
    if not walls:
        return False
    live = set(walls)
    deg = dict(barrier)
    for a, b in walls:
        deg[a] = deg.get(a, 0) + 1
        deg[b] = deg.get(b, 0) + 1
    changed = True
    while changed and live:
        changed = False
        for sd in list(live):
            a, b = sd
            if deg[a] <= 1 or deg[b] <= 1:
                live.discard(sd)
                deg[a] -= 1
                deg[b] -= 1
                changed = True
    return bool(live)


def greedy_player(state: GameState, rng: random.Random) -> Action:
    return _GREEDY(state, rng)


_GREEDY = GreedyPlayer()


# --- Hard player -----------------------------------------------------------------------------------------


@dataclass
class HardPlayer:
    """A lookahead player that decides from its own view only (R2.5): it never sees a hidden card.

    It turns the state into its seat's view (engine.views) at once and works on that alone: it samples
    ``worlds`` game states consistent with the view (engine.determinize: each rival's known cards, P12, in
    that rival's hand, the other unseen cards dealt at random into the hands and the supply), takes the
    greedy player's ``candidates`` best options, and plays each one out in every world: the rest of its
    own turn and the other players' next turns by the greedy player, ``rounds`` times round the table
    (one round more once ``late_walls`` black walls or fewer are left, so that the end by walls, R10.1,
    comes within sight). The option with the best mean chance to win over the worlds is chosen
    (``chance``: won, lost or shared when a play-out ends the game; otherwise the chance engine.outlook
    gives a game still going, fitted to greedy games: every player's score, income, cards, guards and
    reach, weighed by how many walls are left).

    Successive halving (``keep`` < 1): after ``prune_after`` worlds, each further world plays out only the
    best ``keep`` share of the options left (at least two), so more candidates fit in the same work.

    Budget: the engine has no clock, so the work is bounded by at most ``candidates * worlds`` play-outs per
    decision (``endgame_worlds`` in place of ``worlds`` near the end by walls; the same decision on every
    machine). A caller that needs a hard time limit also passes ``deadline``, a callable that says when time
    is up (e.g. ``lambda: time.monotonic() > t``), here or per call: it is asked after every action of a
    play-out and the search stops at once when it says so; the options played out so far decide (the greedy
    player's own choice is played out first), so a decision takes at most the deadline plus one greedy action.
    With ``follow_ups`` > 1, a move is valued by the best of the greedy player's first few actions after it.
    Without a deadline a decision is a pure function of the view and the random source; either way it can run
    in a worker thread or process, off the bot's event loop.
    """

    candidates: int = 6
    worlds: int = 3
    rounds: int = 1
    follow_ups: int = 1
    keep: float = 1.0  # after ``prune_after`` worlds, each later world plays out this share of the options
    prune_after: int = 1
    late_walls: int = 0  # with this many black walls left or fewer, one more round is played out (R10.1)
    # Near the end by walls (R10.1) a game turns on the hidden cards (who can pay for a levy, which card
    # comes up face up): with ``endgame_walls`` black walls left or fewer, ``endgame_worlds`` worlds are
    # sampled (0: ``worlds``, as earlier in the game). With the logistic curve engine.outlook replaced, 12
    # worlds from 12 walls won 71.2 % against 3 greedy on seeds 3001-3200 (66.4 % without), but paired on
    # fresh seeds 10001-10200 only +0.5 +- 3.9 points (docs/MEASURED.md): off.
    endgame_walls: int = 12
    endgame_worlds: int = 0
    # Replies (off at 0): an option is also valued after the rest of its turn by the next rival's best
    # ``replies`` greedy moves, each with the greedy rest of that rival's turn: the mean chance, moved
    # ``reply_worst`` of the way to the worst of them, counts ``reply_mix`` of the option's value (1: no
    # play-out at all).
    replies: int = 0
    reply_worst: float = 0.0
    reply_mix: float = 1.0
    # The play-out's value counts the chance at the end of the player's own turn with this weight.
    turn_end: float = 0.0
    # Measured against 3 greedy players (issue 29, 100 games each, seeds 1-100 / 1001-1100; the default
    # player: 67.5 / 59.5 %): replies=4 alone 61.8 % on 1-100; replies=4, reply_mix=0.5 73.0 / 62.5 % at
    # twice the time; turn_end=0.5 68.5 / 68.0 %, but 63.5 % on seeds 2001-2300 where the default won
    # 66.7 %. None reached 70 %: off by default, kept for bench_ai's ``--hard`` screens.
    deadline: Callable[[], bool] | None = None
    greedy: GreedyPlayer = field(default_factory=lambda: _GREEDY)

    def __call__(
        self, state: GameState, rng: random.Random, deadline: Callable[[], bool] | None = None
    ) -> Action:
        return self.decide(view(state, state.current), rng, deadline)

    def decide(self, v: GameView, rng: random.Random, deadline: Callable[[], bool] | None = None) -> Action:
        """The decision from the view ``v`` of the player to act (who must be ``v.viewer``)."""
        me = v.viewer
        assert me is not None and me == v.current and v.phase is not Phase.OVER
        deadline = deadline or self.deadline
        count = self.worlds
        if self.endgame_worlds and v.black_left <= self.endgame_walls:
            count = max(count, self.endgame_worlds)
        worlds = [sample_world(v, rng) for _ in range(count)]
        options = self._options(worlds[0], rng)
        if len(options) == 1:
            return options[0]
        totals = [0.0] * len(options)
        counts = [0] * len(options)
        stop = deadline or _never
        alive = list(range(len(options)))
        for k, world in enumerate(worlds):
            seed = rng.getrandbits(64)  # the same chance for every option in one world: a fairer comparison
            for i in alive:
                value = self._option_value(world, options[i], me, seed, stop)
                if value is None:
                    break
                totals[i] += value
                counts[i] += 1
                if stop():
                    break
            else:
                if k + 1 >= self.prune_after and self.keep < 1.0:
                    # Successive halving: the worlds left go to the options that look best so far.
                    n = max(2, math.ceil(len(alive) * self.keep))
                    alive = sorted(alive, key=lambda i: (-totals[i] / counts[i], i))[:n]
                    alive.sort()
                continue
            break
        # Options are tried in the greedy order, so the greedy choice is the first one played out.
        tried = [i for i in alive if counts[i]]
        if not tried:
            return options[0]
        best = max(tried, key=lambda i: (totals[i] / counts[i], -i))
        return options[best]

    def _option_value(
        self, world: GameState, option: Action, me: int, seed: int, stop: Callable[[], bool]
    ) -> float | None:
        """An option's value in one world; after a move, the best of the greedy player's first
        ``follow_ups`` actions (the player's own choice, so the best counts). None when time ran out."""
        if self.replies > 0:
            return self._reply_value(world, option, me, seed, stop)
        if not isinstance(option, Move) or self.follow_ups <= 1:
            return self._play_out(world, (option,), me, random.Random(seed), stop)
        moved, _ = apply(world, option)
        if moved.phase is not Phase.ACTIONS:
            return self._play_out(world, (option,), me, random.Random(seed), stop)
        firsts = [a for _, a in self.greedy.rank_actions(moved, random.Random(seed))[: self.follow_ups]]
        best: float | None = None
        for first in firsts:
            value = self._play_out(moved, (first,), me, random.Random(seed), stop)
            if value is None:
                return best
            best = value if best is None else max(best, value)
        return best

    def _reply_value(
        self, world: GameState, option: Action, me: int, seed: int, stop: Callable[[], bool]
    ) -> float | None:
        """The option, the greedy rest of this player's turn, then the next rival's best ``replies`` greedy
        moves (each followed by the greedy rest of that rival's turn), valued by ``chance``; mixed with the
        play-out when ``reply_mix`` < 1. None when time ran out."""
        rng = random.Random(seed)
        state = self._finish_turn(apply(world, option)[0], rng, stop)
        if state is None:
            return None
        if state.phase is Phase.OVER or state.current == me:
            value = self.chance(state, me)
        else:
            values = []
            for reply in self._options(state, rng, self.replies):
                after = self._finish_turn(apply(state, reply)[0], random.Random(seed + 1), stop)
                if after is None:
                    return None
                values.append(self.chance(after, me))
            mean = sum(values) / len(values)
            value = mean + self.reply_worst * (min(values) - mean)
        if self.reply_mix >= 1.0:
            return value
        played = self._play_out(world, (option,), me, random.Random(seed), stop)
        if played is None:
            return None
        return self.reply_mix * value + (1.0 - self.reply_mix) * played

    def _finish_turn(
        self, state: GameState, rng: random.Random, stop: Callable[[], bool]
    ) -> GameState | None:
        """The greedy player plays the rest of the turn under way; None when time runs out."""
        turn = state.turn
        while state.phase is not Phase.OVER and state.turn == turn:
            if stop():
                return None
            state, _ = apply(state, self.greedy(state, rng))
        return state

    def _options(self, world: GameState, rng: random.Random, count: int = 0) -> list[Action]:
        """The greedy player's best few options (``count``, else ``candidates``) in one sampled world; legal
        in every world alike, since they depend only on the board, the face-up cards and the player's own
        hand."""
        count = count or self.candidates
        ranked: list[tuple[float, Action]]
        if world.phase is Phase.MOVE:
            if not rules.can_move(world):
                return [SkipTurn(world.current)]  # pragma: no cover - the engine skips such moves itself
            ranked = list(self.greedy.rank_moves(world, rng))
        else:
            ranked = self.greedy.rank_actions(world, rng)
        out: list[Action] = []
        for _, action in ranked:
            if action not in out:
                out.append(action)
            if len(out) >= count:
                break
        return out

    def _play_out(
        self,
        world: GameState,
        actions: tuple[Action, ...],
        me: int,
        rng: random.Random,
        stop: Callable[[], bool],
    ) -> float | None:
        """Apply ``actions``, let the greedy player finish the turn and ``rounds`` rounds, and value that;
        None when time runs out on the way."""
        state = world
        for action in actions:
            state, _ = apply(state, action)
        turn, rounds = state.turn, 0
        horizon = self.rounds + (1 if world.black_left <= self.late_walls else 0)
        at_turn_end = self.chance(state, me) if self.turn_end and state.turn != world.turn else None
        while state.phase is not Phase.OVER:
            if stop():
                return None
            if state.turn != turn:
                turn = state.turn
                if self.turn_end and at_turn_end is None:
                    at_turn_end = self.chance(state, me)
                if state.current == me:  # back at this player's turn: one more round played
                    rounds += 1
                    if rounds >= horizon:
                        break
            state, _ = apply(state, self.greedy(state, rng))
        value = self.chance(state, me)
        if at_turn_end is not None:
            value += self.turn_end * (at_turn_end - value)
        return value

    def chance(self, state: GameState, me: int) -> float:
        """A play-out's end as this player's chance to win (R10.3), so that the worlds' mean weighs an
        unfinished game and a finished one on one scale: 1 for a victory (a share of it when tied, D9), 0
        for a loss, and for a game still going the chance engine.outlook gives it, fitted to greedy games."""
        if state.phase is Phase.OVER:
            assert state.result is not None
            winners = state.result.winners
            return 1.0 / len(winners) if me in winners else 0.0
        t = state.black_left / state.map.black_walls
        return outlook.chances(self.greedy.outlook_rows(state), t, state.current)[me]


def _never() -> bool:
    return False


def hard_player(state: GameState, rng: random.Random, deadline: Callable[[], bool] | None = None) -> Action:
    """The hard level with its default budget, and an optional deadline (see HardPlayer)."""
    return _HARD(state, rng, deadline)


_HARD = HardPlayer()

PLAYERS: dict[str, Player] = {"random": random_player, "greedy": greedy_player, "hard": hard_player}

# The levels a game offers for a computer seat or a player's autopilot, easiest first; one signature.
LEVELS: dict[str, Player] = {"easy": random_player, "normal": greedy_player, "hard": hard_player}


# --- Whole games -----------------------------------------------------------------------------------------


@dataclass
class GameStats:
    turns: int
    actions: dict[str, int]
    violations: list[str]
    unfinished: bool = False


MAX_TURNS = 2000


def play_game(
    game_map: Map,
    players: int,
    seed: int,
    ai: str | Sequence[str] | Sequence[Player] = "greedy",
    check: bool = True,
) -> tuple[GameState, list[Event], GameStats]:
    """Play a whole game by computer players. Seat i uses ``ai[i]`` (or ``ai`` for every seat).

    With ``check``, every invariant of engine.invariants is checked after every action. Actions go
    through ``apply``, fully checked. The AI's chance comes from its own
    ``random.Random(seed)``; the game's from the seed carried by the state.
    """
    from engine import invariants

    seats = _seats(ai, players)
    rng = random.Random(seed)
    state, events = new_game(game_map, players, seed)
    events = list(events)
    violations: list[str] = []
    if check:
        violations.extend(invariants.check(state))
    actions: dict[str, int] = {}
    unfinished = False
    while state.phase is not Phase.OVER:
        if state.turn > MAX_TURNS:
            unfinished = True
            break
        action = seats[state.current](state, rng)
        kind = _kind(action)
        actions[kind] = actions.get(kind, 0) + 1
        after, evs = apply(state, action)
        events.extend(evs)
        if check:
            violations.extend(f"turn {after.turn} {kind}: {v}" for v in invariants.check_step(state, after))
        state = after
    return state, events, GameStats(state.turn, actions, violations, unfinished)


def _seats(ai: str | Sequence[str] | Sequence[Player], players: int) -> list[Player]:
    if isinstance(ai, str):
        return [PLAYERS[ai]] * players
    out: list[Player] = []
    for a in ai:
        out.append(PLAYERS[a] if isinstance(a, str) else a)
    if len(out) != players:
        raise ValueError(f"{len(out)} computer players for {players} seats")
    return out


def _kind(action: Action) -> str:
    if isinstance(action, Move):
        return "move"
    if isinstance(action, TakeCard):
        return "take-card"
    if isinstance(action, Occupy):
        return "occupy"
    if isinstance(action, TakeOver):
        return "take-over"
    if isinstance(action, Levy):
        return "levy"
    if isinstance(action, TakeBack):
        return "take-back"
    if isinstance(action, EndTurn):
        return "end-turn"
    return type(action).__name__.lower()


def _unique(items: list[T]) -> list[T]:
    seen: list[T] = []
    for x in items:
        if x not in seen:
            seen.append(x)
    return seen
