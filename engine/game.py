"""The game contract: start a game, apply an action, fold events, replay.

``apply`` = ``decide`` (check the action against the rules, emit events) + ``evolve`` (fold each event into
the state, with no rule and no chance of its own). ``decide`` folds each event as soon as it emits it, so
that later checks in the same action see the state they act on, and a replay of the events is exact.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from engine import rules
from engine.actions import (
    Action,
    CardSource,
    EndByAgreement,
    EndTurn,
    Levy,
    Move,
    MoveWay,
    Occupy,
    Resign,
    SkipTurn,
    TakeBack,
    TakeCard,
    TakeOver,
    Undo,
)
from engine.errors import IllegalAction
from engine.events import (
    ActionUsed,
    AlexanderMoved,
    CardsDiscarded,
    CardsGiven,
    CardTaken,
    Event,
    FaceUpTurned,
    FirstPlayerChosen,
    GameCreated,
    GameEnded,
    GuardsPlaced,
    GuardsRemoved,
    MoveSkipped,
    PlayerResigned,
    ProvinceSplit,
    Scored,
    StepTakenBack,
    SupplyShuffled,
    TurnEnded,
    TurnStarted,
)
from engine.geometry import Side, Space
from engine.maps import Map, parse_map
from engine.state import (
    ACTIONS_PER_TURN,
    CARDS_PER_SYMBOL,
    WINNING_SCORE,
    ActionKind,
    EndReason,
    GameResult,
    GameState,
    LastMove,
    Options,
    Phase,
    PlayerState,
    Province,
    UndoTrail,
    changed,
    randbelow,
    shuffled,
)
from engine.symbols import (
    NO_CARDS,
    SYMBOLS,
    Cards,
    Symbol,
    add,
    as_list,
    contains,
    missing,
    one,
    sub,
    total,
    without,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 4


# --- Starting a game (R2) ---------------------------------------------------------------------------------


def new_game(
    game_map: Map, players: int, seed: int, options: Options | None = None
) -> tuple[GameState, list[Event]]:
    """R2.1-R2.4: shuffle, deal one card each, turn two face up, choose the starting player at random."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise IllegalAction("game/bad-setup", players=players, min=MIN_PLAYERS, max=MAX_PLAYERS)
    tx = _Tx(None)
    tx.emit(GameCreated(game_map.text, players, options or Options(), seed))
    _shuffle(tx, from_discard=False)
    for p in range(players):
        symbol = tx.state.supply[0]
        tx.emit(CardTaken(p, CardSource.SUPPLY, None, symbol))
    for slot in (0, 1):
        _turn_up(tx, slot)
    rng, first = randbelow(tx.state.rng, players)
    tx.emit(FirstPlayerChosen(first, rng))
    _start_turn(tx, first, 1)
    return tx.state, tx.events


# --- Applying actions -----------------------------------------------------------------------------------


def apply(
    state: GameState, action: Action, expected_version: int | None = None
) -> tuple[GameState, list[Event]]:
    """Check ``action`` and return the new state with the events it caused; raise IllegalAction if refused.

    ``expected_version`` is the state version the player saw: an older one is refused as stale.
    """
    if expected_version is not None and expected_version != state.version:
        raise IllegalAction("game/stale", expected=expected_version, actual=state.version)
    if state.phase is Phase.OVER:
        raise IllegalAction("game/over")
    if not 0 <= action.player < len(state.players):
        raise IllegalAction("game/unknown-player", player=action.player)
    if state.players[action.player].resigned:
        raise IllegalAction("game/resigned", player=action.player)
    tx = _Tx(state)
    if isinstance(action, Resign):
        _resign(tx, action.player)
    elif isinstance(action, EndByAgreement):
        _end(tx, EndReason.AGREED)
    else:
        if action.player != state.current:
            raise IllegalAction("game/not-your-turn", player=action.player, current=state.current)
        if isinstance(action, Move):
            _move(tx, action)
        elif isinstance(action, SkipTurn):
            _end_turn(tx, skipped=True)
        elif isinstance(action, Undo):
            _undo(tx, action.player)
        elif isinstance(action, EndTurn):
            if state.phase is Phase.MOVE:
                raise IllegalAction("turn/move-first")
            _end_turn(tx, skipped=False)
        else:
            _action(tx, action)
    return tx.state, tx.events


class _Tx:
    """Events emitted so far for one action, and the state they fold into."""

    def __init__(self, state: GameState | None) -> None:
        self._state = state
        self.events: list[Event] = []

    @property
    def state(self) -> GameState:
        assert self._state is not None
        return self._state

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self._state = evolve(self._state, event)


# --- Cards (R2.4, R3.1, R5) ---------------------------------------------------------------------------


def _shuffle(tx: _Tx, from_discard: bool) -> None:
    """R5.3, D10: the discard pile becomes the new supply."""
    st = tx.state
    rng, order = shuffled(st.rng, tuple(as_list(st.discard)))
    tx.emit(SupplyShuffled(len(order), order, rng, from_discard))


def _top_card(tx: _Tx) -> Symbol | None:
    """The supply's top card, reshuffling the discard pile first if the supply is empty (R5.3)."""
    if not tx.state.supply:
        if total(tx.state.discard) == 0:
            return None
        _shuffle(tx, from_discard=True)
    return tx.state.supply[0]


def _turn_up(tx: _Tx, slot: int) -> None:
    """Fill an empty face-up slot from the supply; it stays empty if no card is left (R5.3)."""
    symbol = _top_card(tx)
    if symbol is not None:
        tx.emit(FaceUpTurned(slot, symbol))


# --- Turns (R3, D7, R10.1) ----------------------------------------------------------------------------


def _start_turn(tx: _Tx, player: int, turn: int) -> None:
    tx.emit(TurnStarted(player, turn))
    st = tx.state
    if not rules.can_move(st):
        # R3.8: no empty symbol space at all ends the game after the actions. A player who has simply no
        # card to move with (both slots and the hand empty) skips the move and the game goes on (P4).
        no_space = not rules.empty_spaces(st)
        tx.emit(MoveSkipped(player, game_ends=no_space))


def _end_turn(tx: _Tx, skipped: bool) -> None:
    """D5: face-up cards taken by actions are replaced now; then the next player, or the end (R10.1)."""
    st = tx.state
    player = st.current
    tx.emit(TurnEnded(player, skipped))
    for slot, up in enumerate(tx.state.face_up):
        if up is None:
            _turn_up(tx, slot)
    if tx.state.ending is not None:
        _end(tx, tx.state.ending)
        return
    nxt = rules.next_seat(tx.state, player)
    assert nxt is not None
    _start_turn(tx, nxt, tx.state.turn + 1)


def _end(tx: _Tx, reason: EndReason) -> None:
    st = tx.state
    tx.emit(GameEnded(reason, rules.winners(st), tuple(p.score for p in st.players)))


def _resign(tx: _Tx, player: int) -> None:
    """P1: the guards leave the map, the hand stays hidden and out of play, and the seat is skipped."""
    st = tx.state
    guards = tuple(sorted(st.players[player].guards))
    if guards:
        tx.emit(GuardsRemoved(player, guards, "resigned"))
    was_current = st.current == player and st.phase is not Phase.OVER
    tx.emit(PlayerResigned(player))
    if len(rules.active_players(tx.state)) <= 1:
        _end(tx, EndReason.RESIGNATIONS)
    elif was_current:
        _end_turn(tx, skipped=True)


def _undo(tx: _Tx, player: int) -> None:
    """P10: take back the last step of this turn, unless hidden information was revealed since it began."""
    trail = tx.state.undo
    if not trail.points:
        raise IllegalAction("undo/revealed" if trail.revealed else "undo/nothing")
    tx.emit(StepTakenBack(player, trail.points[-1].version))


# --- Moving Alexander (R3) ----------------------------------------------------------------------------


def _move(tx: _Tx, action: Move) -> None:
    """R3: the checks are rules.check_move's; then the card (R3.1), the walk and its walls (R3.4-R3.7)."""
    st = tx.state
    checked = rules.check_move(st, action)
    target = checked.symbol
    if action.way is MoveWay.SPECIAL:
        tx.emit(CardsDiscarded(action.player, one(target), "special-move"))
    else:
        assert action.slot is not None
        taken = st.face_up[action.slot]
        assert isinstance(taken, Symbol)
        tx.emit(CardTaken(action.player, CardSource.FACE_UP, action.slot, taken))
        _turn_up(tx, action.slot)  # R3.1 a: replaced at once (D5)

    before = tx.state
    black, red, ends = checked.black, checked.red, checked.ends_game
    tx.emit(AlexanderMoved(action.player, action.way, target, checked.space, action.path, black, red, ends))
    _emit_splits(tx, before, black + red)


def _emit_splits(tx: _Tx, before: GameState, added: tuple[Side, ...]) -> None:
    """R4.1, R4.4: every province cut by the new walls, its largest part keeping the id."""
    next_id = tx.state.next_province_id
    for pid, parts in rules.splits_after(before, added):
        numbered = []
        for part in parts[1:]:
            numbered.append((next_id, part))
            next_id += 1
        tx.emit(ProvinceSplit(pid, tuple(numbered)))


# --- Actions (R5-R8) ----------------------------------------------------------------------------------


def _action(tx: _Tx, action: Action) -> None:
    st = tx.state
    if st.phase is Phase.MOVE:
        raise IllegalAction("turn/move-first")
    if len(st.actions_taken) >= ACTIONS_PER_TURN:
        raise IllegalAction("turn/no-actions-left")
    if isinstance(action, TakeCard):
        _take_card(tx, action)
        kind = ActionKind.TAKE_CARD
    elif isinstance(action, Occupy):
        _occupy(tx, action)
        kind = ActionKind.OCCUPY
    elif isinstance(action, TakeOver):
        _take_over(tx, action)
        kind = ActionKind.TAKE_OVER
    elif isinstance(action, Levy):
        _levy(tx, action)
        return  # a levy records its own use before it may end the game (D8)
    elif isinstance(action, TakeBack):
        _take_back(tx, action)
        kind = ActionKind.TAKE_BACK
    else:  # pragma: no cover - every Action type is handled above
        raise TypeError(action)
    tx.emit(ActionUsed(action.player, kind))


def _take_card(tx: _Tx, action: TakeCard) -> None:
    """R5.1-R5.3: a face-up card (replaced at the end of the turn) or the supply's top card."""
    st = tx.state
    if action.source is CardSource.FACE_UP:
        if action.slot not in (0, 1):
            raise IllegalAction("card/bad-slot", slot=action.slot)
        up = st.face_up[action.slot]
        if not isinstance(up, Symbol):
            raise IllegalAction("card/slot-empty", slot=action.slot)
        tx.emit(CardTaken(action.player, CardSource.FACE_UP, action.slot, up))
        return
    symbol = _top_card(tx)
    if symbol is None:
        raise IllegalAction("card/supply-empty")
    tx.emit(CardTaken(action.player, CardSource.SUPPLY, None, symbol))


def _check_guards(st: GameState, player: int, province: Province, guards: tuple[Space, ...]) -> None:
    """R6.1-R6.2: at least one guard, within the supply, each on its own symbol space of the province."""
    if not guards:
        raise IllegalAction("occupy/no-guard")
    have = st.players[player].guards_in_supply
    if len(guards) > have:
        raise IllegalAction("occupy/not-enough-guards", wanted=len(guards), have=have)
    if len(set(guards)) != len(guards):
        raise IllegalAction("occupy/duplicate-space")
    for g in guards:
        if g not in province.spaces:
            raise IllegalAction("occupy/outside-province", space=g, province=province.id)
        if st.map.symbol[g] is None:
            raise IllegalAction("occupy/open-space", space=g)


def _occupy(tx: _Tx, action: Occupy) -> None:
    st = tx.state
    province = rules.check_province_action(st, action.player, action.province, takeover=False)
    _check_guards(st, action.player, province, action.guards)
    cost = rules.occupation_cost(st, province, action.guards)
    hand = st.players[action.player].hand
    if not contains(hand, cost):
        raise IllegalAction("occupy/missing-cards", missing=missing(hand, cost), cost=cost)
    if total(cost):
        tx.emit(CardsDiscarded(action.player, cost, "occupy"))
    tx.emit(GuardsPlaced(action.player, province.id, tuple(action.guards)))


def _take_over(tx: _Tx, action: TakeOver) -> None:
    """R6.3-R6.5: remove and occupy as one action, then compensate the loser (not in 2-player games)."""
    st = tx.state
    province = rules.check_province_action(st, action.player, action.province, takeover=True)
    owner = rules.province_owner(st, province)
    assert owner is not None
    _check_guards(st, action.player, province, action.guards)
    removal = rules.removal_cost(st, province)
    cost = rules.occupation_cost(st, province, action.guards)
    paid = rules.takeover_price(st, province, action.guards)
    hand = st.players[action.player].hand
    if not contains(hand, paid):
        raise IllegalAction(
            "takeover/missing-cards", missing=missing(hand, paid), removal=removal, cost=cost
        )
    size = rules.compensation_size(st, paid)
    comp = action.compensation
    if total(comp) != size or not contains(paid, comp):
        raise IllegalAction("takeover/bad-compensation", expected=size, paid=paid, given=comp)
    removed = tuple(sorted(s for s in province.spaces if s in st.guard_owner))
    tx.emit(GuardsRemoved(owner, removed, "take-over"))
    if total(comp):
        tx.emit(CardsGiven(action.player, owner, comp))
    rest = sub(paid, comp)
    if total(rest):
        tx.emit(CardsDiscarded(action.player, rest, "take-over"))
    tx.emit(GuardsPlaced(action.player, province.id, tuple(action.guards)))


def _levy(tx: _Tx, action: Levy) -> None:
    """R7.1-R7.4, D8."""
    st = tx.state
    if st.levied:
        raise IllegalAction("levy/already")
    pl = st.players[action.player]
    if not pl.guards:
        raise IllegalAction("levy/no-guards")
    if pl.hand[action.card.ordinal] == 0:
        raise IllegalAction("levy/not-in-hand", card=action.card.value)
    allowed = rules.levy_cards(st, action.player)
    if action.card not in allowed:
        under = sorted({s.value for g in pl.guards if (s := st.map.symbol[g]) is not None})
        raise IllegalAction("levy/card-not-matching", card=action.card.value, allowed=under)
    tx.emit(CardsDiscarded(action.player, one(action.card), "levy"))
    scores = rules.levy_scores(tx.state)
    for seat in rules.scoring_order(tx.state, action.player):
        points, provinces = scores[seat]
        tx.emit(Scored(seat, points, provinces))
    tx.emit(ActionUsed(action.player, ActionKind.LEVY))
    if any(p.score >= WINNING_SCORE for p in tx.state.players if not p.resigned):
        _end(tx, EndReason.POINTS)


def _take_back(tx: _Tx, action: TakeBack) -> None:
    """R8.1."""
    if action.space not in tx.state.players[action.player].guards:
        raise IllegalAction("takeback/not-your-guard", space=action.space)
    tx.emit(GuardsRemoved(action.player, (action.space,), "take-back"))


# --- Folding events -------------------------------------------------------------------------------------


def evolve(state: GameState | None, event: Event) -> GameState:
    """Fold one event into a state. No rule is checked and no chance is drawn here."""
    if isinstance(event, GameCreated):
        return _created(event)
    assert state is not None, "the first event must be GameCreated"
    if isinstance(event, StepTakenBack):
        return _taken_back(state, event)
    after = _fold(state, event)
    return changed(after, undo=_trail(state, event))


# Events that show someone a card nobody could know before (R2.5): no undo reaches back past them (P10).
_REVEALING = (SupplyShuffled, FaceUpTurned, CardsGiven, FirstPlayerChosen)


def _trail(before: GameState, event: Event) -> UndoTrail:
    """P10: the undo trail after ``event``. The first event of a step (the move or an action) pushes the
    state before it; a revealing event clears the trail; a turn's start, its end, a resignation and the
    game's end leave nothing to take back."""
    trail = before.undo
    if isinstance(event, TurnStarted):
        return UndoTrail()
    if isinstance(event, _REVEALING) or (isinstance(event, CardTaken) and event.source is CardSource.SUPPLY):
        return UndoTrail((), step_open=True, revealed=True)
    if isinstance(event, TurnEnded | PlayerResigned | GameEnded):
        return UndoTrail(revealed=trail.revealed)
    if isinstance(event, AlexanderMoved | ActionUsed | MoveSkipped):
        return replace(trail, step_open=False)  # the step's end (a move's splits follow, and push nothing)
    if isinstance(event, ProvinceSplit) or trail.step_open or before.phase is Phase.OVER:
        return trail
    return UndoTrail(trail.points + (changed(before, undo=UndoTrail()),), True, trail.revealed)


def _taken_back(state: GameState, event: StepTakenBack) -> GameState:
    """P10: the state at the last undo point again, with the trail before it; only the version counts on."""
    points = state.undo.points
    assert points and points[-1].version == event.version, "the trail has no undo point at that version"
    trail = UndoTrail(points[:-1], step_open=False, revealed=state.undo.revealed)
    return changed(points[-1], version=state.version + 1, undo=trail)


def _fold(state: GameState, event: Event) -> GameState:
    """The change one event makes, the undo trail aside."""
    st = changed(state, version=state.version + 1)
    if isinstance(event, SupplyShuffled):
        assert event.order is not None and event.rng is not None, "cannot fold a redacted shuffle"
        return changed(st, supply=event.order, discard=NO_CARDS, rng=event.rng)
    if isinstance(event, FirstPlayerChosen):
        assert event.rng is not None, "cannot fold a redacted draw"
        return changed(st, rng=event.rng, current=event.player)
    if isinstance(event, CardTaken):
        assert event.symbol is not None, "cannot fold a redacted card"
        if event.source is CardSource.SUPPLY:
            assert st.supply[0] is event.symbol
            st = changed(st, supply=st.supply[1:])
        else:
            assert event.slot is not None
            st = _set_slot(st, event.slot, None)
        pl = st.players[event.player]
        card = one(event.symbol)
        if event.source is CardSource.SUPPLY:
            return _with_player(st, event.player, hand=add(pl.hand, card))
        return _with_player(st, event.player, hand=add(pl.hand, card), known=add(pl.known, card))  # P12
    if isinstance(event, FaceUpTurned):
        assert st.supply[0] is event.symbol
        return _set_slot(changed(st, supply=st.supply[1:]), event.slot, event.symbol)
    if isinstance(event, CardsDiscarded):
        st = _paid(st, event.player, event.cards)
        return changed(st, discard=add(st.discard, event.cards))
    if isinstance(event, CardsGiven):
        st = _paid(st, event.giver, event.cards)
        to = st.players[event.receiver]
        hand, known = add(to.hand, event.cards), add(to.known, event.cards)  # P12: given in view of all
        return _with_player(st, event.receiver, hand=hand, known=known)
    if isinstance(event, TurnStarted):
        return changed(
            st, current=event.player, turn=event.turn, phase=Phase.MOVE, actions_taken=(), ending=None
        )
    if isinstance(event, AlexanderMoved):
        return changed(
            st,
            alexander=event.path[-1],
            walls=st.walls | frozenset(event.black) | frozenset(event.red),
            red_walls=st.red_walls | frozenset(event.red),
            phase=Phase.ACTIONS,
            ending=EndReason.WALLS if event.walls_ran_out else None,
            last_move=LastMove(event.player, event.path, event.black, event.red),
        )
    if isinstance(event, MoveSkipped):
        return changed(st, phase=Phase.ACTIONS, ending=EndReason.NO_SPACE if event.game_ends else None)
    if isinstance(event, ProvinceSplit):
        old = st.province_by_id[event.province]
        moved: frozenset[Space] = frozenset().union(*(spaces for _, spaces in event.parts))
        kept = Province(old.id, old.spaces - moved)
        new = tuple(Province(pid, spaces) for pid, spaces in event.parts)
        provinces = tuple(kept if p.id == old.id else p for p in st.provinces) + new
        top = max(pid for pid, _ in event.parts)
        return changed(st, provinces=provinces, next_province_id=max(st.next_province_id, top + 1))
    if isinstance(event, ActionUsed):
        return changed(st, actions_taken=st.actions_taken + (event.kind,))
    if isinstance(event, GuardsPlaced):
        pl = st.players[event.player]
        return _with_player(st, event.player, guards=pl.guards | frozenset(event.spaces))
    if isinstance(event, GuardsRemoved):
        pl = st.players[event.player]
        return _with_player(st, event.player, guards=pl.guards - frozenset(event.spaces))
    if isinstance(event, Scored):
        return _with_player(st, event.player, score=st.players[event.player].score + event.points)
    if isinstance(event, TurnEnded):
        return st
    if isinstance(event, PlayerResigned):
        return _with_player(st, event.player, resigned=True)
    if isinstance(event, GameEnded):
        return changed(st, phase=Phase.OVER, result=GameResult(event.reason, event.winners, event.scores))
    raise TypeError(f"unknown event {event!r}")  # pragma: no cover


def _created(event: GameCreated) -> GameState:
    game_map = parse_map(event.map_text)
    # Before the first shuffle, all 55 cards wait in the discard pile, so the card count always holds.
    st = GameState(
        map=game_map,
        options=event.options,
        players=tuple(PlayerState() for _ in range(event.players)),
        alexander=game_map.start,
        walls=frozenset(),
        red_walls=frozenset(),
        provinces=(),
        next_province_id=1,
        face_up=(None, None),
        supply=(),
        discard=(CARDS_PER_SYMBOL,) * len(SYMBOLS),  # type: ignore[arg-type]
        rng=event.seed & 0xFFFFFFFFFFFFFFFF,
        seed=event.seed,
        version=1,
    )
    provinces = rules.initial_provinces(st)
    return changed(st, provinces=provinces, next_province_id=len(provinces) + 1)


def _set_slot(st: GameState, slot: int, symbol: Symbol | None) -> GameState:
    face_up = list(st.face_up)
    face_up[slot] = symbol
    return changed(st, face_up=tuple(face_up))


def _paid(st: GameState, seat: int, cards: Cards) -> GameState:
    """Cards leave a hand in view of all. P12: each one paid of a symbol the table knew the player held
    lowers that known count by one (it may have been the known card or another: at least one fewer is
    certainly left), never below zero."""
    pl = st.players[seat]
    return _with_player(st, seat, hand=sub(pl.hand, cards), known=without(pl.known, cards))


def _with_player(st: GameState, seat: int, **changes: object) -> GameState:
    players = list(st.players)
    players[seat] = replace(players[seat], **changes)  # type: ignore[arg-type]
    return changed(st, players=tuple(players))


def replay(events: Iterable[Event]) -> GameState:
    """Rebuild a state from its full (unredacted) event log."""
    state: GameState | None = None
    for e in events:
        state = evolve(state, e)
    assert state is not None, "an empty log has no game"
    return state

