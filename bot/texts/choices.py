"""What a player may choose right now, as (label, value) pairs, and how a typed or picked value becomes an
engine action. Discord-free: autocomplete, select menus and the console all use these lists.

Every list comes from an engine query (``engine.rules``), so what is offered is what the engine accepts.
Values are short codes that also fit in a ``custom_id``:

* move card: ``n1``/``n2`` (normal, face-up slot 1/2), ``sH`` (special, hand horse), ``j1S`` (joker from
  face-up slot 1, naming soldier) - the letters are engine.symbols' letters;
* destination: a point label ``D7``, or ``D7@3.6`` when the point is a corner of several closest spaces;
* path: ``1``, ``2``, ... in the order of ``rules.path_options``;
* spaces: ``r.c``; lists of spaces joined with ``-``.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine import rules
from engine.actions import (
    Action,
    CardSource,
    EndTurn,
    Levy,
    Move,
    MoveWay,
    Occupy,
    TakeBack,
    TakeCard,
    TakeOver,
)
from engine.errors import IllegalAction
from engine.geometry import Point, Space, nearest, point_label
from engine.maps import LabelError
from engine.state import GameState, Phase
from engine.symbols import LETTER_SYMBOLS, NO_CARDS, SYMBOLS, Cards, Symbol, add, as_list, one

from ..games.tables import Refused
from ..process import limits
from ..words import words
from ..words.i18n import _
from ..words.words import Speaker, count, symbol_name

MAX_CHOICES = 25

Parse = Callable[[GameState, int], Action]  # builds the seat's action from the current state


@dataclass(frozen=True)
class Choice:
    """One option: ``name`` leads with the action and its price (a select option's label, never cut before
    the price), ``detail`` says the rest (a select option's description; after the name in autocomplete,
    whose choices have no description). Discord allows 100 characters for each."""

    name: str
    value: str
    detail: str = ""

    @property
    def line(self) -> str:
        """The name and the detail on one line of at most 100 characters (an autocomplete choice): the whole
        name first, then as much of the detail as fits."""
        name, detail = " ".join(self.name.split()), " ".join(self.detail.split())
        room = limits.MAX_LABEL - len(name) - len(" — ")
        if not detail or room < 2:
            return limits.shorten(f"{name} — {detail}" if detail else name, limits.MAX_LABEL)
        return f"{name} — {limits.cut(detail, room)}"


def filtered(choices: Sequence[Choice], typed: str, limit: int = MAX_CHOICES) -> list[Choice]:
    """Choices whose label, detail or value contains what was typed (case-insensitive), at most ``limit``:
    the whole detail, also where the autocomplete's line had no room for all of it."""
    t = typed.strip().lower()
    hits = [c for c in choices if not t or any(t in s.lower() for s in (c.name, c.detail, c.value))]
    return hits[:limit]


# --- Moving Alexander -----------------------------------------------------------------------------------


def card_code(mc: rules.MoveChoice) -> str:
    if mc.way is MoveWay.SPECIAL:
        assert mc.card is not None
        return f"s{mc.card.letter}"
    assert mc.slot is not None
    if mc.way is MoveWay.JOKER:
        return f"j{mc.slot + 1}{mc.symbol.letter}"
    return f"n{mc.slot + 1}"


def card_label(state: GameState, mc: rules.MoveChoice) -> str:
    if mc.way is MoveWay.SPECIAL:
        return _("hand: {symbol} (special)").format(symbol=symbol_name(mc.symbol))
    assert mc.slot is not None
    up = state.face_up[mc.slot]
    up_name = symbol_name(up) if isinstance(up, Symbol) else "?"
    if mc.way is MoveWay.JOKER:
        return _("face-up {slot}: {card} as joker → {symbol}").format(
            slot=mc.slot + 1, card=up_name, symbol=symbol_name(mc.symbol)
        )
    return _("face-up {slot}: {card}").format(slot=mc.slot + 1, card=up_name)


def card_choices(state: GameState) -> list[Choice]:
    """R3.1: the ways the current player may pick the target symbol (rules.move_choices)."""
    return [Choice(card_label(state, mc), card_code(mc)) for mc in rules.move_choices(state)]


def parse_card(state: GameState, value: str | None) -> rules.MoveChoice:
    """A card code, a label as offered, ``1``/``2`` for a face-up card, or a symbol name."""
    options = rules.move_choices(state)
    if not options:
        raise Refused("bot/no-moves")
    v = (value or "").strip()
    for mc in options:
        if v.lower() in (card_code(mc).lower(), card_label(state, mc).lower()):
            return mc
    low = v.lower()
    if low in ("1", "2"):
        slot = int(low) - 1
        normal = [mc for mc in options if mc.slot == slot and mc.way is MoveWay.NORMAL]
        if normal:
            return normal[0]
    by_symbol = [
        mc
        for mc in options
        if low in (mc.symbol.value, symbol_name(mc.symbol).lower()) and mc.way is not MoveWay.JOKER
    ]
    if by_symbol:
        return by_symbol[0]
    allowed = words.can_play(words.listing(f"`{card_code(mc)}` {card_label(state, mc)}" for mc in options))
    raise _why_not(state, v, allowed) or Refused("bot/bad-choice", what="card", value=v, allowed=allowed)


_CARD_CODE = re.compile(r"^(?:[nN](?P<slot>\d)|[jJ](?P<jslot>\d)(?P<named>[A-Za-z])|[sS](?P<card>[A-Za-z]))$")


# The engine's refusals of the card itself (R3.1), before any point or path is looked at.
_CARD_CODES = frozenset({
    "move/bad-slot", "move/slot-empty", "move/unexpected-symbol", "move/no-empty-space",
    "move/joker-not-allowed", "move/joker-needs-symbol", "move/not-in-hand",
})  # fmt: skip


def _why_not(state: GameState, value: str, allowed: str) -> Refused | None:
    """Why a well-formed card code (``n1``, ``j1H``, ``sH``) cannot be played now, in the engine's words
    (R3.1): the engine checks the card before the path, so a move that stays put is refused for its card
    if the card is wrong. None when the value is no card code, or its card is fine."""
    m = _CARD_CODE.match(value.strip())
    if m is None:
        return None
    letter = m.group("named") or m.group("card")
    symbol = LETTER_SYMBOLS.get(letter.upper()) if letter else None
    if letter and symbol is None:
        letters = ", ".join(f"{s.letter} ({symbol_name(s)})" for s in SYMBOLS)
        allowed = words.symbols_are(letters)
        return Refused("bot/bad-choice", what="symbol letter", value=letter, allowed=allowed)
    seat, here = state.current, (state.alexander,)
    if m.group("card"):
        move = Move(seat, MoveWay.SPECIAL, here, card=symbol)
    else:
        slot = int(m.group("slot") or m.group("jslot")) - 1
        way = MoveWay.JOKER if m.group("jslot") else MoveWay.NORMAL
        move = Move(seat, way, here, slot=slot, named=symbol)
    try:
        rules.check_move(state, move)
    except IllegalAction as err:
        if err.code in _CARD_CODES:
            details = {**err.details, "allowed": allowed}
            if move.slot is not None:
                details.setdefault("slot", move.slot)
            return Refused(err.code, **details)
    return None


def destinations(state: GameState, mc: rules.MoveChoice) -> list[rules.Destination]:
    """Every point Alexander may stop on for this card, with its paths and walls: the engine's one answer."""
    return rules.destinations(state, mc)


def move_ends_game(state: GameState, mc: rules.MoveChoice) -> bool:
    """Whether some point or path for this card ends the game (R3.6, R3.7): the point step says so."""
    return any(d.most_walls > state.black_left for d in destinations(state, mc))


def destination_choices(
    state: GameState, mc: rules.MoveChoice, letters: dict[Point, str] | None = None
) -> list[Choice]:
    """Every point Alexander may stop on, once each; ``letters`` are the marks of the move preview picture
    (A, B, …), shown first so that the list and the picture agree."""
    out = []
    for d in destinations(state, mc):
        label = point_label(d.point)
        mark = f"{letters[d.point]} · " if letters and d.point in letters else ""
        walls = words.new_walls(d.fewest_walls, d.most_walls, state.black_left)
        info = f"{count(d.distance, 'side')}, {count(d.paths, 'path')}"
        # The walls are the move's price (R3.5): they lead, the way there follows.
        out.append(Choice(limits.label(f"{mark}{label}: {walls}"), label, limits.label(info)))
    return out


def parse_destination(state: GameState, mc: rules.MoveChoice, value: str | None) -> Point:
    """The point a user named. A point that is not a closest one, but a corner of an empty space of the
    card's symbol, is returned too: the engine then says how far it is (``move/not-closest``)."""
    points = rules.destination_points(state, mc)
    allowed = ", ".join(point_label(p) for p in points)
    v = (value or "").strip()
    if not v:
        raise Refused("bot/not-a-destination", point="(none)", allowed=allowed)
    label = v.partition("@")[0]  # an older menu named the space too: the point alone decides (R3.4)
    label = label.split()[0] if label.split() else label
    try:
        point = state.map.parse_point(label)
    except LabelError as err:
        raise Refused(
            "bot/bad-point", value=label, near=list(err.suggestions), rows=err.rows, columns=err.columns
        ) from None
    if point in points:
        return point
    empty = rules.empty_spaces(state)
    around = state.map.point_spaces.get(point, ())
    farther = [sp for sp in around if state.map.symbol.get(sp) is mc.symbol and sp in empty]
    if farther:
        # A corner of an empty space of the symbol, but not a closest one (R3.2): the closest points
        # Alexander may stop on, nearest the typed one first, by label.
        closest, _spaces = rules.closest_targets(state, mc.symbol)
        distance = min(rules.space_distance(state, sp) for sp in farther)
        near = [point_label(p) for p in nearest(point, points, count=4)]
        raise Refused(
            "move/not-closest", distance=distance, closest=closest, symbol=mc.symbol.value, near=near
        )
    raise Refused("bot/not-a-destination", point=point_label(point), allowed=allowed)


def legal_paths(state: GameState, corner: Point) -> list[rules.PathOption]:
    """The paths to ``corner`` a player may pick, numbered in this order (R3.7 is the engine's)."""
    return rules.legal_path_options(state, corner, limit=200)


def path_choice(n: int, option: rules.PathOption, black_left: int | None = None) -> Choice:
    """A path: its number and new walls (its price, R3.5), then the way it goes."""
    w = len(option.new_walls)
    via = [point_label(p) for p in option.points[1:-1]]
    end = point_label(option.points[-1])
    if via:
        route = _("{end} via {points}").format(end=end, points=" ".join(via))
    else:
        route = _("{end} directly").format(end=end)
    return Choice(limits.label(f"{n} — {words.new_walls(w, w, black_left)}"), str(n), limits.label(route))


def path_choices(state: GameState, corner: Point) -> list[Choice]:
    return [path_choice(i + 1, o, state.black_left) for i, o in enumerate(legal_paths(state, corner))]


def parse_path(state: GameState, corner: Point, value: str | None) -> rules.PathOption:
    options = legal_paths(state, corner)
    if not options:
        raise Refused("bot/no-such-path", value=value or "-", count=0)
    v = (value or "").strip().split(" ")[0] if value else ""
    if not v:
        if len(options) == 1:
            return options[0]
        raise Refused("bot/no-such-path", value="(none)", count=len(options))
    try:
        n = int(v)
    except ValueError:
        raise Refused("bot/no-such-path", value=v, count=len(options)) from None
    if not 1 <= n <= len(options):
        raise Refused("bot/no-such-path", value=v, count=len(options))
    return options[n - 1]


def move_action(state: GameState, seat: int, card: str | None, to: str | None, path: str | None) -> Move:
    """The Move for typed or picked values; every choice is checked against the engine's lists."""
    mc = parse_card(state, card)
    point = parse_destination(state, mc, to)
    option = parse_path(state, point, path)
    named = mc.symbol if mc.way is MoveWay.JOKER else None
    if mc.way is MoveWay.SPECIAL:
        return Move(seat, MoveWay.SPECIAL, option.points, card=mc.card)
    return Move(seat, mc.way, option.points, slot=mc.slot, named=named)


def move_code(state: GameState, move: Move) -> tuple[str, str, str]:
    """The (card, to, path) values a user would pick for a Move (tests and the console use it)."""
    if move.way is MoveWay.SPECIAL:
        assert move.card is not None
        card = f"s{move.card.letter}"
    elif move.way is MoveWay.JOKER:
        assert move.slot is not None and move.named is not None
        card = f"j{move.slot + 1}{move.named.letter}"
    else:
        assert move.slot is not None
        card = f"n{move.slot + 1}"
    mc = parse_card(state, card)
    to = next(
        c.value
        for c in destination_choices(state, mc)
        if parse_destination(state, mc, c.value) == move.corner
    )
    walls = frozenset(rules.new_walls(state, move.path))
    options = legal_paths(state, move.corner)
    same = [i + 1 for i, o in enumerate(options) if frozenset(o.new_walls) == walls]
    alike = [i + 1 for i, o in enumerate(options) if len(o.new_walls) == len(walls)]
    n = (same or alike or [1])[0]
    return card, to, str(n)


# --- Actions --------------------------------------------------------------------------------------------


def take_choices(state: GameState) -> list[Choice]:
    """R5: the face-up slots that hold a card, and the supply while a card can come from it."""
    out = []
    for i, up in enumerate(state.face_up):
        if isinstance(up, Symbol):
            out.append(
                Choice(_("face-up {slot}: {card}").format(slot=i + 1, card=symbol_name(up)), str(i + 1))
            )
    if rules.supply_can_give(state):
        out.append(Choice(_("supply: the top card (face down)"), "supply"))
    return out


def _actions_phase(state: GameState) -> None:
    """A typed action before the move is refused for that (R3), not for its value."""
    if state.phase is Phase.MOVE:
        raise Refused("turn/move-first")


def _values(choices: Sequence[Choice]) -> str:
    """The values a player may type, each with its label: "`1` face-up 1: lyre; `supply` …"."""
    return words.listing(f"`{c.value}` {c.name}" for c in choices)


def take_action(state: GameState, seat: int, value: str | None) -> TakeCard:
    _actions_phase(state)
    v = (value or "").strip().lower()
    if v in ("supply", "s", "deck") or v.startswith("supply"):
        return TakeCard(seat, CardSource.SUPPLY)
    for c in take_choices(state):
        if v == c.value or v == c.name.lower():
            return TakeCard(seat, CardSource.FACE_UP, int(c.value) - 1)
    if v in ("1", "2"):
        return TakeCard(seat, CardSource.FACE_UP, int(v) - 1)  # let the engine say why not
    for i, up in enumerate(state.face_up):  # a face-up card by its symbol: "take card:horse"
        if isinstance(up, Symbol) and v in (up.value, up.letter.lower(), symbol_name(up).lower()):
            return TakeCard(seat, CardSource.FACE_UP, i)
    allowed = words.can_take(_values(take_choices(state)))
    raise Refused("bot/bad-choice", what="card", value=v, allowed=allowed)


def space_code(space: Space) -> str:
    return f"{space[0]}.{space[1]}"


def parse_space(text: str) -> Space:
    try:
        r, c = text.strip().split(".")
        return int(r), int(c)
    except ValueError:
        raise Refused("bot/bad-choice", what="space", value=text, allowed=words.pick_from_list()) from None


def spaces_code(spaces: Sequence[Space]) -> str:
    return "-".join(space_code(s) for s in spaces)


def parse_spaces(text: str) -> tuple[Space, ...]:
    return tuple(parse_space(t) for t in text.split("-") if t)


def province_plans(state: GameState, seat: int, takeover: bool) -> list[rules.OccupyPlan]:
    """R6: provinces the player can afford to occupy (free) or take over (an opponent's), best value first."""
    out = []
    infos = {i.id: i for i in rules.province_infos(state)}
    for p in state.provinces:
        info = infos[p.id]
        if not info.symbol_spaces or info.owner == seat:
            continue
        if (info.owner is not None) != takeover:
            continue
        plan = rules.plan_occupation(state, seat, p)
        if plan is not None and plan.affordable:
            out.append(plan)
    out.sort(key=lambda pl: (-infos[pl.province].value, pl.province))
    return out


def plan_choice(state: GameState, plan: rules.OccupyPlan, speaker: Speaker, verb: bool = False) -> Choice:
    """A province to occupy or take over (R6): its number, value, guards and cards paid first ("Occupy P2
    (value 4): 1 guard, pay amphora + lyre"); the owner and symbol spaces in the detail. ``verb``: the
    Actions menu names the action, the occupy and takeover commands need not."""
    info = next(i for i in rules.province_infos(state) if i.id == plan.province)
    fields = {
        "province": plan.province,
        "value": info.value,
        "guards": count(len(plan.guards), "guard"),
        "cards": words.price(plan.paid),
    }
    if len(plan.guards) > 1:  # R7.3: two guards of one player in a province score nothing
        # TRANSLATORS: "3 guards (no score)": two or more of a player's guards in a province score nothing
        fields["guards"] = _("{guards} (no score)").format(guards=fields["guards"])
    if info.owner is not None:
        # TRANSLATORS: an Actions menu entry: "Take over P3 (value 5): 1 guard, pay 2 horse + lyre"
        name = _("Take over P{province} (value {value}): {guards}, pay {cards}") if verb else None
    else:
        # TRANSLATORS: an Actions menu entry: "Occupy P2 (value 4): 1 guard, pay amphora + lyre"
        name = _("Occupy P{province} (value {value}): {guards}, pay {cards}") if verb else None
    # TRANSLATORS: a menu entry: "P2 (value 4): 1 guard, pay amphora + lyre"
    name = name or _("P{province} (value {value}): {guards}, pay {cards}")
    spaces = count(len(info.symbol_spaces), "symbol space")
    if info.owner is not None:
        # TRANSLATORS: a menu entry's detail: "province 3 of bob, 2 symbol spaces"
        detail = _("province {province} of {owner}, {spaces}").format(
            province=plan.province, owner=speaker.seat(info.owner), spaces=spaces
        )
    else:
        detail = _("province {province}, {spaces}").format(province=plan.province, spaces=spaces)
    if len(plan.guards) > 1:
        detail += "; " + _("two or more guards of yours score nothing")
    return Choice(limits.label(name.format(**fields)), str(plan.province), limits.label(detail))


def plan_label(state: GameState, plan: rules.OccupyPlan, speaker: Speaker) -> str:
    return plan_choice(state, plan, speaker).line


def scoring_plan(state: GameState, seat: int, province: int) -> tuple[Space, Cards] | None:
    """A plan with ONE guard that the hand can pay (the space and the cards), or None: two guards of one
    player in a province score nothing (R7.3), so a preview whose cheapest plan stacks guards says whether
    one guard would do. The cheapest plan already uses one guard whenever it can; this looks at every
    space, so it also finds one the cheapest plan's choice of first space missed."""
    p = state.province_by_id.get(province)
    if p is None:
        return None
    hand = state.players[seat].hand
    options = []
    for space in rules.province_symbol_spaces(state, p):
        paid = rules.takeover_price(state, p, (space,))
        if all(h >= c for h, c in zip(hand, paid, strict=True)):
            options.append((sum(paid), space, paid))
    if not options:
        return None
    _, space, paid = min(options)
    return space, paid


def province_choices(state: GameState, seat: int, takeover: bool, speaker: Speaker) -> list[Choice]:
    return [plan_choice(state, p, speaker) for p in province_plans(state, seat, takeover)]


def parse_province(state: GameState, value: str | int | None, takeover: bool | None = None) -> int:
    """A province number; a bad one is refused with the provinces the player can afford (``takeover``:
    an opponent's, or else a free one)."""
    v = str(value or "").strip().lower().removeprefix("province").removeprefix(_("province")).strip()
    v = v.split(" ")[0]
    try:
        return int(v)
    except ValueError:
        allowed = words.pick_province()
        if takeover is not None and state.phase is Phase.ACTIONS:
            plans = province_plans(state, state.current, takeover)
            numbers = words.listing(f"{p.province}" for p in plans)
            allowed = words.can_choose_provinces(numbers) if plans else words.no_province_affordable()
        raise Refused("bot/bad-choice", what="province", value=str(value), allowed=allowed) from None


def guard_space_choices(
    state: GameState, province: int, speaker: Speaker, first: Sequence[Space] = ()
) -> list[Choice]:
    """The province's symbol spaces (R6.1-R6.2), ``first`` (the cheapest plan's) before the others: a
    select menu holds 25, and a big province has more (texts.province_prompt says so)."""
    p = state.province_by_id.get(province)
    if p is None:
        raise Refused("province/unknown", province=province)
    spaces = rules.province_symbol_spaces(state, p)
    ordered = [s for s in first if s in spaces] + [s for s in spaces if s not in first]
    return [Choice(limits.label(speaker.space(s)), space_code(s)) for s in ordered]


def paid_cards(state: GameState, seat: int, province: int, guards: Sequence[Space]) -> Cards:
    p = state.province_by_id.get(province)
    if p is None:
        raise Refused("province/unknown", province=province)
    return rules.takeover_price(state, p, tuple(guards))


def compensation_choices(paid: Cards) -> list[Choice]:
    """One option per paid card (``horse.2`` is the second horse), so a multi-select can pick a multiset
    (R6.4). More than 25 paid cards do not fit a menu: then each symbol keeps as many of its cards as fit
    alike (five or more each), rather than the last symbols losing theirs."""
    counts = collections.Counter(as_list(paid))
    cap = max(counts.values(), default=0)
    while sum(min(n, cap) for n in counts.values()) > MAX_CHOICES:
        cap -= 1
    return [
        Choice(f"{symbol_name(s)} #{k}", f"{s.letter}{k}")
        for s, n in counts.items()
        for k in range(1, min(n, cap) + 1)
    ]


def parse_compensation(values: Sequence[str]) -> Cards:
    out = NO_CARDS
    for v in values:
        sym = LETTER_SYMBOLS.get(v[:1])
        if sym is None:
            raise Refused("bot/bad-choice", what="card", value=v, allowed=words.pick_cards_from_list())
        out = add(out, one(sym))
    return out


def occupy_action(
    state: GameState, seat: int, province: int, guards: Sequence[Space], compensation: Cards | None = None
) -> Action:
    """Occupy a free province or take over an opponent's, as the province's owner decides."""
    p = state.province_by_id.get(province)
    if p is None:
        raise Refused("province/unknown", province=province)
    owner = rules.province_owner(state, p)
    if owner is None:
        return Occupy(seat, province, tuple(guards))
    return TakeOver(seat, province, tuple(guards), compensation or NO_CARDS)


def compensation_size(state: GameState, seat: int, province: int, guards: Sequence[Space]) -> int:
    p = state.province_by_id.get(province)
    if p is None or rules.province_owner(state, p) in (None, seat):
        return 0
    return rules.compensation_size(state, paid_cards(state, seat, province, guards))


def levy_scores_text(state: GameState, seat: int, speaker: Speaker) -> str:
    """What a levy now scores each player (R7.3, the engine's ``levy_scores``), in scoring order, the
    levying player first: "you +4, bob +0, carol +2"."""
    points = rules.levy_scores(state)
    parts = []
    for s in rules.scoring_order(state, seat):
        who = _("you") if s == seat else speaker.seat(s)
        parts.append(f"{who} +{points[s][0]}")
    return ", ".join(parts)


def levy_choices(state: GameState, seat: int, speaker: Speaker | None = None) -> list[Choice]:
    """R7.2: the cards the player may pay, each with what the levy scores everyone (R7.3)."""
    if not rules.can_levy(state, seat):
        return []
    scores = levy_scores_text(state, seat, speaker or Speaker(game_map=state.map))
    out = []
    for s in rules.levy_cards(state, seat):
        # TRANSLATORS: a levy entry: the card paid, then what each player scores: "soldier: you +4, bob +0"
        name = _("{symbol}: {scores}").format(symbol=symbol_name(s), scores=scores)
        # TRANSLATORS: a levy entry's detail: "pay soldier; a province scores for ..."
        detail = _("pay {card}; a province scores for a player with exactly one guard in it").format(
            card=words.price(one(s))
        )
        out.append(Choice(limits.label(name), s.value, limits.label(detail)))
    return out


def _named_symbol(value: str | None) -> Symbol | None:
    """The symbol a typed value names (its value, letter or name in the speaker's language), if any."""
    v = (value or "").strip().lower().split(" ")[0]
    return next((s for s in SYMBOLS if v in (s.value, s.letter.lower(), symbol_name(s).lower())), None)


def parse_symbol(value: str | None, what: str = "card") -> Symbol:
    symbol = _named_symbol(value)
    if symbol is None:
        raise Refused(
            "bot/bad-choice", what=what, value=value or "", allowed=words.symbols_are(_symbol_names())
        )
    return symbol


def levy_action(state: GameState, seat: int, value: str | None) -> Levy:
    _actions_phase(state)
    symbol = _named_symbol(value)
    if symbol is None:
        if not state.players[seat].guards:
            raise Refused("levy/no-guards")
        if state.levied:
            raise Refused("levy/already")
        offered = levy_choices(state, seat)
        allowed = words.can_pay(_values(offered)) if offered else words.no_levy_card()
        raise Refused("bot/bad-choice", what="card", value=value or "", allowed=allowed)
    return Levy(seat, symbol)  # a symbol the hand lacks or no guard matches: the engine says why


def _symbol_names() -> str:
    return ", ".join(symbol_name(s) for s in SYMBOLS)


def guard_choices(state: GameState, seat: int, speaker: Speaker) -> list[Choice]:
    out = []
    for g in sorted(state.players[seat].guards):
        pid = state.province_of.get(g)
        # TRANSLATORS: the detail of a guard to take back (R8.1: it costs no card)
        detail = _("in province {province}; costs no card").format(province=pid)
        out.append(Choice(limits.label(speaker.space(g)), space_code(g), limits.label(detail)))
    return out


def takeback_action(state: GameState, seat: int, value: str | None) -> TakeBack:
    _actions_phase(state)
    try:
        return TakeBack(seat, parse_space(value or ""))
    except Refused:
        guards = guard_choices(state, seat, Speaker(game_map=state.map))
        allowed = words.can_take_back(_values(guards)) if guards else words.no_guard_to_take_back()
        raise Refused("bot/bad-choice", what="guard", value=value or "", allowed=allowed) from None


def end_action(state: GameState, seat: int) -> EndTurn:
    return EndTurn(seat)


# --- The Actions menu -----------------------------------------------------------------------------------


def action_menu(state: GameState, seat: int, speaker: Speaker) -> tuple[list[Choice], int]:
    """Every action open to the player now, as one list (the Actions button's select menu), and how many
    provinces to occupy or take over did not fit in Discord's 25 options (the prompt says so: the commands
    /alexandros occupy and takeover list them all). The provinces come best first and fill what room the
    cards and guards leave."""
    if state.phase is not Phase.ACTIONS or state.current != seat:
        return [], 0
    out: list[Choice] = []
    left_out = 0
    if rules.actions_left(state) > 0:
        # TRANSLATORS: an entry of the Actions menu; {card} is e.g. "face-up 1: horse".
        out += [Choice(_("Take {card}").format(card=c.name), f"take:{c.value}") for c in take_choices(state)]
        out += [
            # TRANSLATORS: an entry of the Actions menu; {card} is e.g. "soldier: you +4, bob +0".
            Choice(limits.label(_("Levy with {card}").format(card=c.name)), f"levy:{c.value}", c.detail)
            for c in levy_choices(state, seat, speaker)
        ]
        guards = [
            Choice(
                limits.label(_("Take back the guard on the {space}").format(space=c.name)),
                f"back:{c.value}",
                c.detail,
            )
            for c in guard_choices(state, seat, speaker)
        ]
        plans = province_plans(state, seat, takeover=False) + province_plans(state, seat, takeover=True)
        room = max(0, MAX_CHOICES - 1 - len(out) - len(guards))
        for plan in plans[:room]:
            c = plan_choice(state, plan, speaker, verb=True)
            out.append(Choice(c.name, f"occ:{plan.province}", c.detail))
        left_out = len(plans) - min(room, len(plans))
        out += guards
    return out[: MAX_CHOICES - 1] + [Choice(_("End the turn"), "end")], left_out
