"""Everything the bot says in words: refusals, event lines, names of cards, points, spaces and provinces.

The engine and the service speak in codes and values; this is the ONE place that turns them into words, each
a message of the catalog (bot.words.i18n: ``_("...").format(...)``), so they come out in the language in
force. A noun with a number goes through ``count`` (its two forms are ``Nn_`` pairs); a symbol's name, and a
symbol with its article ("a horse", "an amphora"), are messages of their own, since the article and the case
belong to the translation (``a()`` is English-only and never used on a translated text).
``Speaker`` carries what a sentence needs to name things (the players' display names and the map), and
every event line is made from an event already redacted for its reader, so a public line can never name a
card drawn from the supply.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine import events as ev
from engine.geometry import Point, Space, corners, point_label
from engine.maps import Map
from engine.state import EndReason
from engine.symbols import SYMBOLS, Cards, Symbol
from storage import former_number

from ..process import limits
from .i18n import N_, Nn_, _, ngettext, pgettext


class _Translated(Mapping[Any, str]):
    """A dict of marked messages (``N_``) whose lookups come out in the language speaking now."""

    def __init__(self, marked: Mapping[Any, str]) -> None:
        self._marked = dict(marked)

    def __getitem__(self, key: Any) -> str:
        return _(self._marked[key])

    def __iter__(self) -> Iterator[Any]:
        return iter(self._marked)

    def __len__(self) -> int:
        return len(self._marked)


_SYMBOL_NAMES: dict[Symbol, Callable[[], str]] = {
    Symbol.TEMPLE: lambda: pgettext("symbol", "temple"),
    Symbol.AMPHORA: lambda: pgettext("symbol", "amphora"),
    Symbol.HORSE: lambda: pgettext("symbol", "horse"),
    Symbol.LYRE: lambda: pgettext("symbol", "lyre"),
    Symbol.SOLDIER: lambda: pgettext("symbol", "soldier"),
}


def _symbol(symbol: Symbol | str) -> Symbol:
    """A symbol from the engine's value ("horse") or the symbol itself; ValueError for anything else."""
    return symbol if isinstance(symbol, Symbol) else Symbol(str(symbol))


def symbol_name(symbol: Symbol | str) -> str:
    """A symbol's name in the language speaking now: "horse" (a player may also type it)."""
    return _SYMBOL_NAMES[_symbol(symbol)]()


# A symbol with its article, as the object of a sentence: "No empty space shows a horse" (the article,
# and in some languages the case, belongs to the translation, not to a helper).
_A_SYMBOL: dict[Symbol, Callable[[], str]] = {
    Symbol.TEMPLE: lambda: pgettext("symbol, object", "a temple"),
    Symbol.AMPHORA: lambda: pgettext("symbol, object", "an amphora"),
    Symbol.HORSE: lambda: pgettext("symbol, object", "a horse"),
    Symbol.LYRE: lambda: pgettext("symbol, object", "a lyre"),
    Symbol.SOLDIER: lambda: pgettext("symbol, object", "a soldier"),
}
# ... and as the subject, at the start of a sentence: "A horse is not a joker".
_A_SYMBOL_SUBJECT: dict[Symbol, Callable[[], str]] = {
    Symbol.TEMPLE: lambda: pgettext("symbol, subject", "A temple"),
    Symbol.AMPHORA: lambda: pgettext("symbol, subject", "An amphora"),
    Symbol.HORSE: lambda: pgettext("symbol, subject", "A horse"),
    Symbol.LYRE: lambda: pgettext("symbol, subject", "A lyre"),
    Symbol.SOLDIER: lambda: pgettext("symbol, subject", "A soldier"),
}
# A card of a symbol as the subject: "A horse card matches none of your guards".
_A_CARD_SUBJECT: dict[Symbol, Callable[[], str]] = {
    Symbol.TEMPLE: lambda: pgettext("card, subject", "A temple card"),
    Symbol.AMPHORA: lambda: pgettext("card, subject", "An amphora card"),
    Symbol.HORSE: lambda: pgettext("card, subject", "A horse card"),
    Symbol.LYRE: lambda: pgettext("card, subject", "A lyre card"),
    Symbol.SOLDIER: lambda: pgettext("card, subject", "A soldier card"),
}
# A symbol space: "horse space (C6 D5 D7)", "That horse space is 3 sides away".
_SYMBOL_SPACE: dict[Symbol, Callable[[], str]] = {
    Symbol.TEMPLE: lambda: pgettext("space", "temple space"),
    Symbol.AMPHORA: lambda: pgettext("space", "amphora space"),
    Symbol.HORSE: lambda: pgettext("space", "horse space"),
    Symbol.LYRE: lambda: pgettext("space", "lyre space"),
    Symbol.SOLDIER: lambda: pgettext("space", "soldier space"),
}
# Where Alexander stopped: "moved Alexander to C6, a corner of a horse space" (he stands on points, R3.4).
_ON_SYMBOL_SPACE: dict[Symbol, Callable[[], str]] = {
    Symbol.TEMPLE: lambda: pgettext("space", "a corner of a temple space"),
    Symbol.AMPHORA: lambda: pgettext("space", "a corner of an amphora space"),
    Symbol.HORSE: lambda: pgettext("space", "a corner of a horse space"),
    Symbol.LYRE: lambda: pgettext("space", "a corner of a lyre space"),
    Symbol.SOLDIER: lambda: pgettext("space", "a corner of a soldier space"),
}
# "2 horse" in a list of cards: English keeps the symbol's name as it is, other languages may not.
_SYMBOL_CARDS: dict[Symbol, tuple[str, str]] = {
    Symbol.TEMPLE: Nn_("{n} temple", "{n} temple"),
    Symbol.AMPHORA: Nn_("{n} amphora", "{n} amphora"),
    Symbol.HORSE: Nn_("{n} horse", "{n} horse"),
    Symbol.LYRE: Nn_("{n} lyre", "{n} lyre"),
    Symbol.SOLDIER: Nn_("{n} soldier", "{n} soldier"),
}


def a_symbol(symbol: Symbol | str) -> str:
    """The symbol with its article, as an object: "a horse", "an amphora"."""
    return _A_SYMBOL[_symbol(symbol)]()


def symbol_space(symbol: Symbol | str) -> str:
    """A symbol space's kind: "horse space"."""
    return _SYMBOL_SPACE[_symbol(symbol)]()


def a(noun: str) -> str:
    """English only: the noun with its indefinite article, "a horse", "an amphora". Never for a translated
    text (the article belongs to the message: ``a_symbol``); kept for English-only output."""
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


# Every noun ``count`` knows, with its two forms: a new noun gets its pair here (so that it is translated).
_COUNTED: dict[str, tuple[str, str]] = {
    "action": Nn_("{n} action", "{n} actions"),
    "black wall": Nn_("{n} black wall", "{n} black walls"),
    "card": Nn_("{n} card", "{n} cards"),
    "day": Nn_("{n} day", "{n} days"),
    "event": Nn_("{n} event", "{n} events"),
    "finished or abandoned game": Nn_("{n} finished or abandoned game", "{n} finished or abandoned games"),
    "game": Nn_("{n} game", "{n} games"),
    "game record": Nn_("{n} game record", "{n} game records"),
    "guard": Nn_("{n} guard", "{n} guards"),
    "hour": Nn_("{n} hour", "{n} hours"),
    "minute": Nn_("{n} minute", "{n} minutes"),
    "month": Nn_("{n} month", "{n} months"),
    "new wall": Nn_("{n} new wall", "{n} new walls"),
    "path": Nn_("{n} path", "{n} paths"),
    "player": Nn_("{n} player", "{n} players"),
    "point": Nn_("{n} point", "{n} points"),
    "province": Nn_("{n} province", "{n} provinces"),
    "rated game": Nn_("{n} rated game", "{n} rated games"),
    "red wall": Nn_("{n} red wall", "{n} red walls"),
    "second": Nn_("{n} second", "{n} seconds"),
    "side": Nn_("{n} side", "{n} sides"),
    "symbol space": Nn_("{n} symbol space", "{n} symbol spaces"),
    "wall": Nn_("{n} wall", "{n} walls"),
    "win": Nn_("{n} win", "{n} wins"),
    "year": Nn_("{n} year", "{n} years"),
}


def count(n: int, noun: str) -> str:
    """A number and its noun, agreeing, in the language speaking now: "1 side", "2 sides", "0 cards".
    ``noun`` is one of the nouns of ``_COUNTED`` (KeyError for another: add its pair there)."""
    return ngettext(*_COUNTED[noun], n).format(n=n)


def cards_text(cards: Cards | Sequence[int] | None) -> str:
    """``(1, 0, 2, 0, 0)`` -> "1 temple, 2 horse"; nothing -> "no cards"."""
    pairs = zip(SYMBOLS, cards or (), strict=False)
    parts = [ngettext(*_SYMBOL_CARDS[s], n).format(n=n) for s, n in pairs if n]
    return ", ".join(parts) if parts else _("no cards")


def price(cards: Cards | Sequence[int] | None) -> str:
    """Cards to pay, short enough for the head of a menu entry: "amphora + lyre", "2 horse + lyre"; nothing
    -> "no cards"."""
    pairs = zip(SYMBOLS, cards or (), strict=False)
    parts = [symbol_name(s) if n == 1 else ngettext(*_SYMBOL_CARDS[s], n).format(n=n) for s, n in pairs if n]
    return " + ".join(parts) if parts else _("no cards")


def new_walls(lo: int, hi: int, black_left: int | None = None) -> str:
    """The new walls to a point or along a path ("3 new walls", "2–4 new walls"), flagged when they end the
    game: more than the black walls left means red walls, and the game ends after this turn (R3.6, R3.7)."""
    text = count(lo, "new wall") if lo == hi else _("{lo}–{hi} new walls").format(lo=lo, hi=hi)
    if black_left is not None and lo > black_left:
        return _("{walls}, ends the game").format(walls=text)
    if black_left is not None and hi > black_left:
        return _("{walls}, some paths end the game").format(walls=text)
    return text


def point_text(p: Point | Sequence[int] | None) -> str:
    if p is None:
        return "?"
    return point_label((int(p[0]), int(p[1])))


def space_corners(space: Space) -> str:
    return " ".join(point_label(p) for p in sorted(corners(space)))


TIMESTAMP_STYLES = frozenset("tTdDfFR")


def format_timestamp(unix: float, style: str = "R") -> str:
    """A Discord timestamp, shown to each reader in their own time zone and language (R: "in 3 hours"):
    never write "in 3 hours" by hand."""
    if style not in TIMESTAMP_STYLES:
        raise ValueError(
            f"{style!r} is not a Discord timestamp style: use one of {''.join(sorted(TIMESTAMP_STYLES))}."
        )
    return f"<t:{math.floor(unix)}:{style}>"


def shown_name(name: str) -> str:
    """A stored name as the reader reads it: a forgotten user's "former player N" is stored in English
    (storage.privacy) and worded here in the reader's language; a replay's "bob → carol" name by name."""
    if " → " in name:
        return " → ".join(shown_name(part) for part in name.split(" → "))
    n = former_number(name)
    if n is None:
        return name
    return _("a former player") if n == 0 else _("former player {n}").format(n=n)


@dataclass(frozen=True)
class Speaker:
    """Names for one game: ``names[seat]`` are display names; ``game_map`` names the spaces' symbols."""

    names: Sequence[str] = ()
    game_map: Map | None = None

    def seat(self, seat: int | None) -> str:
        if seat is None:
            return _("nobody")
        if 0 <= seat < len(self.names):
            return shown_name(self.names[seat])
        return _("player {n}").format(n=seat + 1)

    def space(self, space: Space | Sequence[int] | None) -> str:
        """A space named by its symbol and its three corners, e.g. "horse space (C6 D5 D7)"."""
        if space is None:
            return _("a space")
        s = (int(space[0]), int(space[1]))
        sym = self.game_map.symbol.get(s) if self.game_map is not None else None
        kind = _SYMBOL_SPACE[sym]() if sym is not None else _("space")
        return f"{kind} ({space_corners(s)})"

    def spaces(self, spaces: Sequence[Space]) -> str:
        return ", ".join(self.space(s) for s in spaces) if spaces else _("no space")

    # --- refusals -----------------------------------------------------------------------------------------

    def refusal(self, code: str, details: Mapping[str, Any] | None = None) -> str:
        """The sentence for an engine or bot refusal: why, and what is allowed instead."""
        d = dict(details or {})
        if "value" in d:  # what the user typed, quoted back: one short line, whatever they sent
            d["value"] = limits.echo(d["value"])
        make = _REFUSALS.get(code)
        if make is None:
            return _("That is not allowed here ({code}).").format(code=code)
        try:
            return make(self, d)
        except (KeyError, TypeError, ValueError, IndexError):
            return _("That is not allowed here ({code}).").format(code=code)

    # --- events -------------------------------------------------------------------------------------------

    def event_line(self, event: Any) -> str | None:
        """One line for the turn message or the log, or None for bookkeeping events nobody needs to read.

        ``event`` must already be redacted for the reader (engine.views.redact).
        """
        who = self.seat
        if isinstance(event, ev.CardTaken):
            if event.source.value == "supply":
                if event.symbol is None:
                    return _("{player} drew a card.").format(player=who(event.player))
                # TRANSLATORS: the card drawn, shown to its owner only: "alice drew a card (horse)."
                return _("{player} drew a card ({symbol}).").format(
                    player=who(event.player), symbol=symbol_name(event.symbol)
                )
            if event.slot is None:  # the deal at the start
                return None
            if event.symbol is None:
                return _("{player} took the face-up card.").format(player=who(event.player))
            return _("{player} took the face-up {symbol}.").format(
                player=who(event.player), symbol=symbol_name(event.symbol)
            )
        if isinstance(event, ev.FaceUpTurned):
            # TRANSLATORS: {a_symbol} is e.g. "A horse" (the subject of the sentence); {slot} is 1 or 2.
            return _("{a_symbol} was turned face up (slot {slot}).").format(
                a_symbol=_A_SYMBOL_SUBJECT[event.symbol](), slot=event.slot + 1
            )
        if isinstance(event, ev.CardsDiscarded):
            if event.reason == "special-move":
                return None  # the move line says it
            return _("{player} paid {cards}.").format(player=who(event.player), cards=cards_text(event.cards))
        if isinstance(event, ev.AlexanderMoved):
            return self._moved(event)
        if isinstance(event, ev.MoveSkipped):
            line = _("{player} cannot move Alexander.").format(player=who(event.player))
            return line + " " + _("The game ends after this turn.") if event.game_ends else line
        if isinstance(event, ev.ProvinceSplit):
            ids = ", ".join(str(pid) for pid, _parts in event.parts)
            return ngettext(
                "Province {province} was split; new province {ids}.",
                "Province {province} was split; new provinces {ids}.",
                len(event.parts),
            ).format(province=event.province, ids=ids)
        if isinstance(event, ev.GuardsPlaced):
            n = len(event.spaces)
            return _("{player} put {guards} in province {province}.").format(
                player=who(event.player), guards=count(n, "guard"), province=event.province
            )
        if isinstance(event, ev.GuardsRemoved):
            guards = count(len(event.spaces), "guard")
            if event.reason == "take-back":
                line = _("{player} took back {guards}.")
            elif event.reason == "resigned":
                line = _("{player} withdrew {guards}.")
            elif event.reason == "take-over":
                line = _("{player} lost {guards} to a take-over.")
            else:
                line = _("{player} lost {guards}.")
            return line.format(player=who(event.player), guards=guards)
        if isinstance(event, ev.CardsGiven):
            return _("{giver} gave {cards} to {receiver}.").format(
                giver=who(event.giver), cards=cards_text(event.cards), receiver=who(event.receiver)
            )
        if isinstance(event, ev.Scored):
            # TRANSLATORS: {points} is a number of points: "alice scored 7."
            return _("{player} scored {points}.").format(player=who(event.player), points=event.points)
        if isinstance(event, ev.TurnEnded):
            if event.skipped:
                return _("{player} skipped the turn.").format(player=who(event.player))
            return _("{player} ended the turn.").format(player=who(event.player))
        if isinstance(event, ev.PlayerResigned):
            return _("{player} resigned.").format(player=who(event.player))
        if isinstance(event, ev.StepTakenBack):
            return _("{player} took back their last step.").format(player=who(event.player))
        if isinstance(event, ev.GameEnded):
            reason = END_REASONS.get(event.reason, str(event.reason))
            return _("The game is over ({reason}).").format(reason=reason)
        return None  # TurnStarted, ActionUsed, GameCreated, SupplyShuffled, FirstPlayerChosen: bookkeeping

    def _moved(self, event: ev.AlexanderMoved) -> str:
        walls = count(len(event.black) + len(event.red), "new wall")
        if event.red:
            # TRANSLATORS: "3 new walls, 1 of them red"
            walls = _("{walls}, {red} of them red").format(walls=walls, red=len(event.red))
        if event.way.value == "special":
            line = _("{player} moved Alexander to {point}, {on_space} (special move): path {path}, {walls}.")
        elif event.way.value == "joker":
            line = _("{player} moved Alexander to {point}, {on_space} (joker): path {path}, {walls}.")
        else:
            # TRANSLATORS: {on_space} is e.g. "a corner of a horse space"; {path} is points like "C6–D5–D7".
            line = _("{player} moved Alexander to {point}, {on_space}: path {path}, {walls}.")
        line = line.format(
            player=self.seat(event.player),
            point=point_label(event.path[-1]),
            on_space=_ON_SYMBOL_SPACE[event.symbol](),
            path="–".join(point_label(p) for p in event.path),
            walls=walls,
        )
        if event.walls_ran_out:
            line += " " + _("The walls ran out: the game ends after this turn.")
        return line

    def event_lines(self, events: Sequence[Any]) -> list[str]:
        out: list[str] = []
        dealing = False  # between GameCreated and the first TurnStarted, cards are dealt, not drawn
        for e in events:
            if isinstance(e, ev.GameCreated):
                dealing = True
                out.append(_("The game began with {n} players.").format(n=e.players))
                continue
            if isinstance(e, ev.TurnStarted):
                dealing = False
            if dealing and isinstance(e, ev.CardTaken):
                out.append(_("{player} was dealt a card.").format(player=self.seat(e.player)))
                continue
            if dealing and isinstance(e, ev.FirstPlayerChosen):
                out.append(_("{player} was chosen to start.").format(player=self.seat(e.player)))
                continue
            line = self.event_line(e)
            if line:
                out.append(line)
        return out


# Why a game ended; a lookup comes out in the language speaking now (``END_REASONS.get(reason, ...)``).
END_REASONS: Mapping[EndReason | str, str] = _Translated(
    {
        EndReason.WALLS: N_("the walls ran out"),
        EndReason.NO_SPACE: N_("no empty symbol space was left"),
        EndReason.POINTS: N_("someone reached 100 points"),
        EndReason.RESIGNATIONS: N_("everyone else resigned"),
        EndReason.AGREED: N_("the players agreed to end it"),
    }
)

# A game's status as a refusal names it ("The game in this channel is finished").
_STATUS: Mapping[str, str] = _Translated(
    {
        "lobby": N_("still at the table"),
        "playing": N_("being played"),
        "finished": N_("finished"),
        "abandoned": N_("abandoned"),
    }
)


def _status(d: Mapping[str, Any]) -> str:
    return _STATUS.get(str(d["status"]), str(d["status"]))


def _also(d: Mapping[str, Any]) -> str:
    """The list of what may be played instead, when the refusal carries it."""
    return f" {d['allowed']}" if d.get("allowed") else ""


def _slot(d: Mapping[str, Any]) -> Any:
    """The face-up slot a refusal names, counted from 1 as players count."""
    s = d.get("slot")
    return s + 1 if isinstance(s, int) else s


def _not_in_hand(d: Mapping[str, Any]) -> str:
    allowed = d.get("allowed") or _("Choose a card from the list offered.")
    if d["card"] is None:
        return _("You have no such card in your hand for a special move.") + " " + allowed
    text = _("You have no {symbol} card in your hand for a special move.")
    return text.format(symbol=symbol_name(d["card"])) + " " + allowed


def _no_empty_space(d: Mapping[str, Any]) -> str:
    shows = a_symbol(d["symbol"])
    if not d["joker"]:
        text = _("No empty space shows {a_symbol}. Choose another symbol.").format(a_symbol=shows)
    elif isinstance(d.get("slot"), int):
        text = _(
            "No empty space shows {a_symbol}, so that face-up card can only be played as a joker "
            "(name another symbol, e.g. `j{slot}T` for temple)."
        ).format(a_symbol=shows, slot=d["slot"] + 1)
    else:
        text = _(
            "No empty space shows {a_symbol}, so that face-up card can only be played as a joker "
            "(name another symbol)."
        ).format(a_symbol=shows)
    return text + _also(d)


def _joker_not_allowed(d: Mapping[str, Any]) -> str:
    if isinstance(d.get("slot"), int):
        text = _(
            "Face-up card {slot} ({symbol}) is not a joker: a face-up card is a joker only when no empty "
            "space shows its symbol, and an empty space shows {a_symbol}. "
            "Play it as a normal move (`n{slot}`)."
        ).format(slot=d["slot"] + 1, symbol=symbol_name(d["symbol"]), a_symbol=a_symbol(d["symbol"]))
    else:
        text = _(
            "{A_symbol} is not a joker: a face-up card is a joker only when no empty space shows its symbol, "
            "and an empty space shows {a_symbol}. Play it as a normal move."
        ).format(A_symbol=_A_SYMBOL_SUBJECT[_symbol(d["symbol"])](), a_symbol=a_symbol(d["symbol"]))
    return text + _also(d)


def _not_matching(d: Mapping[str, Any]) -> str:
    allowed = ", ".join(symbol_name(s) for s in d["allowed"]) or _("none")
    if d["card"] is None:
        text = _("That card matches none of your guards; pay one of: {allowed}.")
        return text.format(allowed=allowed)
    text = _("{a_card} matches none of your guards; pay one of: {allowed}.")
    return text.format(a_card=_A_CARD_SUBJECT[_symbol(d["card"])](), allowed=allowed)


def _levy_not_in_hand(d: Mapping[str, Any]) -> str:
    if d["card"] is None:
        text = _(
            "You have no such card in your hand: pay a card you hold that matches one of your guards "
            "(`/alexandros hand` shows your cards)."
        )
        return text
    return _(
        "You have no {symbol} card in your hand: pay a card you hold that matches one of your guards "
        "(`/alexandros hand` shows your cards)."
    ).format(symbol=symbol_name(d["card"]))


def _not_closest(s: Speaker, d: Mapping[str, Any]) -> str:
    if d.get("near"):  # a typed point: the closest points it may be, by label
        # TRANSLATORS: {points} are the closest points Alexander may stop on, nearest the typed one first
        text = _(
            "That {space} is {distance} away, but the closest empty {space} is {closest} away. "
            "Alexander must go to a closest one, such as {points}."
        )
    else:
        text = _(
            "That {space} is {distance} away, but the closest empty {space} is {closest} away. "
            "Alexander must go to a closest one: pick one of the points offered."
        )
    return text.format(
        points=", ".join(d["near"]) if d.get("near") else "",
        space=_SYMBOL_SPACE[_symbol(d["symbol"])](),
        distance=count(d["distance"], "side"),
        closest=count(d["closest"], "side"),
    )


def _bad_point(d: Mapping[str, Any]) -> str:
    """A label that names no point: the nearest points, or, off the map's rows and columns, which exist."""
    if d.get("near"):
        return _("“{value}” is not a point of this map. Nearest points: {near}.").format(
            value=d["value"], near=", ".join(d["near"])
        )
    rows, columns = d.get("rows") or ("?", "?"), d.get("columns") or ("?", "?")
    # TRANSLATORS: "“Z99” is not a point of this map: its rows are A to L, its columns 0 to 33 (a point is
    # written like D7)."
    return _(
        "“{value}” is not a point of this map: its rows are {first} to {last}, its columns {low} to {high} "
        "(a point is written like D7)."
    ).format(value=d["value"], first=rows[0], last=rows[1], low=columns[0], high=columns[1])


def _too_many_walls(d: Mapping[str, Any]) -> str:
    # TRANSLATORS: {needed} is e.g. "3 new walls"; {left} and {fewest} are numbers of walls.
    return ngettext(
        "That path needs {needed}, but only {left} is left. Choose a move that needs at most {left} "
        "(the fewest any move needs is {fewest}).",
        "That path needs {needed}, but only {left} are left. Choose a move that needs at most {left} "
        "(the fewest any move needs is {fewest}).",
        d["left"],
    ).format(needed=count(d["needed"], "new wall"), left=d["left"], fewest=d["fewest"])


# "I do not understand card “x”": what the player typed, by the kind of thing it should have been.
_BAD_CHOICE: Mapping[str, str] = _Translated(
    {
        "card": N_("I do not understand card “{value}”. {allowed}"),
        "symbol letter": N_("I do not understand symbol letter “{value}”. {allowed}"),
        "space": N_("I do not understand space “{value}”. {allowed}"),
        "province": N_("I do not understand province “{value}”. {allowed}"),
        "guard": N_("I do not understand guard “{value}”. {allowed}"),
        "map": N_("I do not understand map “{value}”. {allowed}"),
        "level": N_("I do not understand level “{value}”. {allowed}"),
        "place": N_("I do not understand place “{value}”. {allowed}"),
        "deadline policy": N_("I do not understand deadline policy “{value}”. {allowed}"),
    }
)


def _bad_choice(d: Mapping[str, Any]) -> str:
    text = _BAD_CHOICE.get(str(d["what"])) or _("I do not understand {what} “{value}”. {allowed}")
    return text.format(what=d["what"], value=d["value"], allowed=d["allowed"])


# "Only alice (who created the game) can start the game": what only the creator may do.
_ONLY_CREATOR: Mapping[str, str] = _Translated(
    {
        "start the game": N_("Only {creator} (who created the game) can start the game."),
        "seat a computer player": N_("Only {creator} (who created the game) can seat a computer player."),
    }
)
_ONLY_MANAGER: Mapping[str, str] = _Translated(
    {
        "replace a player": N_(
            "Only the game's creator or a member with Manage Channels can replace a player."
        ),
        "pause the game": N_("Only the game's creator or a member with Manage Channels can pause the game."),
        "resume the game": N_(
            "Only the game's creator or a member with Manage Channels can resume the game."
        ),
    }
)


def _not_creator(d: Mapping[str, Any]) -> str:
    text = _ONLY_CREATOR.get(str(d["what"])) or _("Only {creator} (who created the game) can {what}.")
    return text.format(creator=d["creator"], what=d["what"])


def _not_manager(d: Mapping[str, Any]) -> str:
    text = _ONLY_MANAGER.get(str(d["what"])) or _(
        "Only the game's creator or a member with Manage Channels can {what}."
    )
    return text.format(what=d["what"])


Refusal = Callable[[Speaker, dict[str, Any]], str]

_REFUSALS: dict[str, Refusal] = {
    # --- engine codes (engine.errors.ERROR_CODES) -------------------------------------------------------
    "game/over": lambda s, d: _("This game is over. Start a new one with `/alexandros new`."),
    # The versions stay in the log line, not in the player's words ("step 18" read as the guided move's).
    "game/stale": lambda s, d: _(
        "That was already done or is out of date: the game has moved on since. Look at the latest turn "
        "message and try again."
    ),
    "game/unknown-player": lambda s, d: _(
        "Seat {player} is not part of this game. Use `/alexandros status` to see who plays."
    ).format(player=d["player"]),
    "game/not-your-turn": lambda s, d: _(
        "It is not your turn: it is {player}'s turn. You can look at `/alexandros hand`, "
        "`/alexandros board` or `/alexandros status` meanwhile."
    ).format(player=s.seat(d["current"])),
    "game/resigned": lambda s, d: _(
        "{player} has resigned and takes no more part in this game; you can follow it with "
        "`/alexandros board` and `/alexandros status`."
    ).format(player=s.seat(d["player"])),
    "game/bad-setup": lambda s, d: _(
        "A game needs {min} to {max} players, not {players}: start it when {min} to {max} are seated."
    ).format(min=d["min"], max=d["max"], players=d["players"]),
    "turn/move-first": lambda s, d: _(
        "You must move Alexander first: use `/alexandros move` or the Move button."
    ),
    "turn/already-moved": lambda s, d: _(
        "You have already moved Alexander this turn. Now take up to two actions, or end the turn."
    ),
    "turn/no-actions-left": lambda s, d: _(
        "You have used both actions of this turn. End the turn with `/alexandros end`."
    ),
    "move/bad-slot": lambda s, d: (
        _("There is no face-up slot {slot}: choose face-up card 1 or 2.").format(slot=_slot(d)) + _also(d)
    ),
    "move/slot-empty": lambda s, d: (
        _("The face-up slot {slot} is empty. Choose the other face-up card or a hand card.").format(
            slot=_slot(d)
        )
        + _also(d)
    ),
    "move/not-in-hand": lambda s, d: _not_in_hand(d),
    "move/no-empty-space": lambda s, d: _no_empty_space(d),
    "move/joker-not-allowed": lambda s, d: _joker_not_allowed(d),
    "move/joker-needs-symbol": lambda s, d: _(
        "A joker needs a named symbol: pick the symbol Alexander goes to."
    ),
    "move/unexpected-symbol": lambda s, d: _(
        "Only a joker names a symbol. Play this card for its own symbol instead."
    ),
    "move/unknown-space": lambda s, d: _("There is no symbol space at {space}.").format(
        space=s.space(d["space"])
    ),
    "move/wrong-symbol": lambda s, d: _(
        "The {space} does not show {a_symbol}. Pick one of the points offered."
    ).format(space=s.space(d["space"]), a_symbol=a_symbol(d["symbol"])),
    "move/not-empty": lambda s, d: _(
        "The {space} is not empty (a wall, a guard or Alexander touches it). Pick one of the points offered."
    ).format(space=s.space(d["space"])),
    "move/not-closest": _not_closest,
    "move/bad-path": lambda s, d: (
        _("That path does not start where Alexander stands ({point}).").format(
            point=point_text(d["alexander"])
        )
        if d.get("reason") == "start"
        else _(
            "That path jumps from {at} to {to}, which is not a side. Pick one of the numbered paths."
        ).format(at=point_text(d["at"]), to=point_text(d["to"]))
    ),
    "move/not-a-corner": lambda s, d: _(
        "{point} is not a corner of the {space}. Pick one of the points offered."
    ).format(point=point_text(d["point"]), space=s.space(d["space"])),
    "move/not-shortest": lambda s, d: _(
        "That path is {length} long, but the shortest is {shortest}. Pick a numbered path."
    ).format(length=count(d["length"], "side"), shortest=d["shortest"]),
    "move/too-many-walls": lambda s, d: _too_many_walls(d),
    "move/not-fewest-walls": lambda s, d: _(
        "No move fits the {left} left, so you must make a move that needs the fewest walls ({fewest}); "
        "that one needs {needed}."
    ).format(left=count(d["left"], "wall"), fewest=d["fewest"], needed=d["needed"]),
    "card/bad-slot": lambda s, d: _(
        "There is no face-up slot {slot}: take face-up card 1, 2 or the supply."
    ).format(slot=_slot(d)),
    "card/slot-empty": lambda s, d: _(
        "The face-up slot {slot} is empty until the end of the turn. Take another card."
    ).format(slot=_slot(d)),
    "card/supply-empty": lambda s, d: _(
        "The supply and the discard pile are both empty: take a face-up card instead."
    ),
    "province/unknown": lambda s, d: _(
        "There is no province {province} now. Pick one from the list offered."
    ).format(province=d["province"]),
    "occupy/not-free": lambda s, d: _(
        "Province {province} is held by {owner}: use `/alexandros takeover` instead."
    ).format(province=d["province"], owner=s.seat(d["owner"])),
    "occupy/no-symbol-space": lambda s, d: _(
        "Province {province} has no symbol space, so no guard can stand in it. Pick another province."
    ).format(province=d["province"]),
    "occupy/no-guard": lambda s, d: _("Choose at least one space for a guard."),
    "occupy/not-enough-guards": lambda s, d: _(
        "You want to place {wanted} but have only {have} left. Choose fewer spaces."
    ).format(wanted=count(d["wanted"], "guard"), have=d["have"]),
    "occupy/duplicate-space": lambda s, d: _("Only one guard may stand on a space: choose different spaces."),
    "occupy/outside-province": lambda s, d: _(
        "The {space} is not in province {province}. Choose spaces of that province."
    ).format(space=s.space(d["space"]), province=d["province"]),
    "occupy/open-space": lambda s, d: _(
        "Guards stand on symbol spaces only; the {space} is open. Pick symbol spaces from the list."
    ).format(space=s.space(d["space"])),
    "occupy/missing-cards": lambda s, d: _(
        "Not enough cards: this costs {cost}, and you are missing {missing}. "
        "Put a guard on those spaces instead, or take cards first."
    ).format(cost=cards_text(d["cost"]), missing=cards_text(d["missing"])),
    "takeover/free": lambda s, d: _("Province {province} is free: use `/alexandros occupy` instead.").format(
        province=d["province"]
    ),
    "takeover/own-province": lambda s, d: _(
        "Province {province} is already yours: pick an opponent's province to take over."
    ).format(province=d["province"]),
    "takeover/missing-cards": lambda s, d: _(
        "Not enough cards: removing the guards costs {removal} and occupying costs {cost}; you are missing "
        "{missing}. Put more guards there instead of paying, or take cards first."
    ).format(removal=cards_text(d["removal"]), cost=cards_text(d["cost"]), missing=cards_text(d["missing"])),
    "takeover/bad-compensation": lambda s, d: _(
        "The loser must get exactly {expected} of those you pay ({paid}); you chose {given}."
    ).format(expected=count(d["expected"], "card"), paid=cards_text(d["paid"]), given=cards_text(d["given"])),
    "levy/already": lambda s, d: _(
        "You have already levied taxes this turn (once per turn). Take another action."
    ),
    "levy/no-guards": lambda s, d: _(
        "You have no guard on the map, so you cannot levy taxes. Occupy a province first."
    ),
    "levy/not-in-hand": lambda s, d: _levy_not_in_hand(d),
    "levy/card-not-matching": lambda s, d: _not_matching(d),
    "takeback/not-your-guard": lambda s, d: _(
        "You have no guard on the {space}. Pick one of your guards from the list."
    ).format(space=s.space(d["space"])),
    "undo/nothing": lambda s, d: _("There is nothing of this turn to take back."),
    "undo/revealed": lambda s, d: _(
        "That can no longer be taken back: a hidden card was revealed since (a card drawn from the supply, "
        "a face-up card turned, or cards given to another player). Play on from here."
    ),
    # --- bot codes --------------------------------------------------------------------------------------
    "bot/no-game": lambda s, d: _("There is no game in this channel. Start one with `/alexandros new`."),
    "bot/creator-left": lambda s, d: _(
        "You left this table, so it cannot start with you as its host: press Join to sit down again, "
        "then Start."
    ),
    "bot/game-over": lambda s, d: _(
        "The game in this channel is {status}: `/alexandros status` shows how it ended and "
        "`/alexandros board` its last board. Start a new one with `/alexandros new`."
    ).format(status=_status(d)),
    "bot/unknown-game": lambda s, d: _(
        "Game {game} does not exist (any more). Use `/alexandros status` to see this channel's game."
    ).format(game=d["game"]),
    "bot/channel-busy": lambda s, d: _(
        "This channel already has an unfinished game (game {game}). Join it with "
        "`/alexandros table join`, or start a game in a new thread with `/alexandros new thread:True`."
    ).format(game=d["game"]),
    "bot/practice-no-place": lambda s, d: _(
        "No thread can be made here, and this channel already has an unfinished game (game {game}): type "
        "`/alexandros learn practice` in a text channel, where the game gets a thread of its own."
    ).format(game=d["game"]),
    "bot/hints-off": lambda s, d: _(
        "This game is played without hints, since it is rated. Practise with hints in "
        "`/alexandros learn practice`, or open a table with `/alexandros new hints:True` (not rated)."
    ),
    "bot/not-a-player": lambda s, d: _(
        "You are not playing in this game. You can follow it here, and use `/alexandros board`, "
        "`/alexandros status` or `/alexandros log`."
    ),
    "bot/not-in-lobby": lambda s, d: _(
        "This game has already started; seats can no longer change. `/alexandros status` shows the game."
    ),
    "bot/already-seated": lambda s, d: _(
        "You are already seated at this table: wait for the creator to press Start."
    ),
    "bot/not-seated": lambda s, d: _("You are not seated at this table. Join it with the Join button."),
    "bot/table-full": lambda s, d: _(
        "The table is full ({max} players). Start a game in another channel."
    ).format(max=d["max"]),
    "bot/not-creator": lambda s, d: _not_creator(d),
    "bot/too-few-players": lambda s, d: _(
        "A game needs at least {min} players; {have} seated so far. Ask someone to press Join."
    ).format(min=d["min"], have=d["have"]),
    "bot/conflict": lambda s, d: _(
        "Someone acted first: the game changed while your action was being saved. Look at the latest turn "
        "message and try again."
    ),
    "bot/closed": lambda s, d: _(
        "This game is {status}; it takes no more actions. Start a new one with `/alexandros new`."
    ).format(status=_status(d)),
    "bot/not-started": lambda s, d: _(
        "This game has not started yet. The creator starts it with the Start button."
    ),
    "bot/bad-choice": lambda s, d: _bad_choice(d),
    "bot/bad-point": lambda s, d: _bad_point(d),
    "bot/not-a-destination": lambda s, d: _(
        "Alexander cannot stop at {point} with this card. Allowed points: {allowed}."
    ).format(point=d["point"], allowed=d["allowed"]),
    "bot/no-such-path": lambda s, d: _("There is no path {value}; choose 1 to {count}.").format(
        value=d["value"], count=d["count"]
    ),
    "bot/no-moves": lambda s, d: _("There is no card you can move with right now."),
    "bot/no-permission": lambda s, d: _(
        "Only the game's creator or a member with Manage Channels can abandon a game: ask one of them, "
        "or `/alexandros resign` to leave it yourself."
    ),
    "bot/already-voted": lambda s, d: _(
        "You have already agreed to end the game; waiting for {waiting}."
    ).format(waiting=d["waiting"]),
    "bot/select-count": lambda s, d: _("Choose exactly {cards}.").format(cards=count(d["count"], "card")),
    # seats over days (bot.commands.seats)
    "bot/paused": lambda s, d: _(
        "The game is paused: nothing can be played until it is resumed with `/alexandros game resume` "
        "(by its creator or a member with Manage Channels)."
    ),
    "bot/already-paused": lambda s, d: _(
        "The game is already paused. Resume it with `/alexandros game resume`."
    ),
    "bot/not-paused": lambda s, d: _(
        "The game is not paused: play on, or pause it with `/alexandros game pause`."
    ),
    "bot/not-creator-or-manager": lambda s, d: _not_manager(d),
    "bot/offer-stale": lambda s, d: _(
        "This seat offer is out of date: the seat changed hands, or a newer offer replaced it. Ask for a new "
        "offer with `/alexandros game handover` or `/alexandros game replace`."
    ),
    "bot/offer-not-yours": lambda s, d: _("This seat is offered to {to}, not to you.").format(to=d["to"]),
    "bot/offer-bad-member": lambda s, d: _(
        "{who} cannot take a seat here: already seated in this game, a bot, or the seat's own holder."
    ).format(who=d["who"]),
    "bot/shutting-down": lambda s, d: _(
        "The bot is restarting and takes no new actions now. Your game is saved; try again in a minute."
    ),
    "bot/policy-without-deadline": lambda s, d: _(
        "A deadline policy needs a deadline: add `deadline_hours`, or leave the policy out."
    ),
    "bot/not-absent": lambda s, d: _(
        "You already have your seat: the computer is not playing for you in this game. Play your turns "
        "as usual."
    ),
    "bot/nudge-self": lambda s, d: _(
        "It is your own turn: nobody to nudge but you. Play it from the turn message."
    ),
    "bot/nudge-too-soon": lambda s, d: _(
        "This game's waiting player was nudged less than 24 hours ago; you can nudge again {when}."
    ).format(when=_when(d.get("at"))),
}


# The ``allowed`` part of a "bot/bad-choice" refusal: what the player may type or pick instead.
def pick_from_list() -> str:
    return _("Pick one from the list.")


def pick_cards_from_list() -> str:
    return _("Pick cards from the list.")


def pick_province() -> str:
    return _("Type a province number from the list offered.")


def policy_choices() -> str:
    return _("Choose skip or autoplay.")


def listing(items: Iterable[str], limit: int = 1200) -> str:
    """Items joined with "; ", within ``limit`` characters (then "and N more"), so that a refusal listing
    every valid value still fits in a Discord message (bot.process.limits)."""
    items = list(items)
    out: list[str] = []
    for item in items:
        if len("; ".join([*out, item])) > limit - 40:  # room for the tail
            more = _("and {n} more (see the list offered)").format(n=len(items) - len(out))
            return "; ".join(out) + "; " + more
        out.append(item)
    return "; ".join(out) if out else _("nothing")


def can_play(labels: str) -> str:
    return _("You can play: {labels}.").format(labels=labels)


def can_take(labels: str) -> str:
    return _("You can take: {labels}.").format(labels=labels)


def can_pay(labels: str) -> str:
    return _("You can pay: {labels}.").format(labels=labels)


def can_take_back(labels: str) -> str:
    return _("You can take back: {labels}.").format(labels=labels)


def can_choose_provinces(numbers: str) -> str:
    return _("Provinces you can afford now: {numbers}.").format(numbers=numbers)


def no_levy_card() -> str:
    return _("No card in your hand matches one of your guards: take a card first, or end the turn.")


def no_guard_to_take_back() -> str:
    return _("You have no guard on the map to take back; take another action or end the turn.")


def no_province_affordable() -> str:
    return _("No such province is affordable now; take another action or end the turn.")


def symbols_are(names: str) -> str:
    return _("Symbols are: {names}.").format(names=names)


def _when(at: Any) -> str:
    # A Discord timestamp: each reader sees it in their own time zone, and it never goes stale.
    return format_timestamp(float(at)) if at is not None else _("later")


BOT_CODES: frozenset[str] = frozenset(c for c in _REFUSALS if c.startswith("bot/"))


def has_words(code: str) -> bool:
    return code in _REFUSALS


def rules_summary(rules_url: str = "") -> str:
    """The `/alexandros rules` text. The full rules ship as docs/ALEXANDROS.md; a host may link their copy
    (ALEXANDROS_RULES_URL)."""
    link = f"<{rules_url}>" if rules_url else _("`docs/ALEXANDROS.md` in the bot's repository (README)")
    return "\n".join(
        [
            _(
                "**Alexandros** (Leo Colovini), 2–4 players. Alexander marches over a map of triangles and "
                "leaves walls behind him; the walls cut the land into provinces, which you guard and tax."
            ),
            _("**Your turn:** first **move Alexander** (must), then take **up to two actions**."),
            _(
                "• **Move:** take a face-up card (its symbol is the target), or discard a hand card (special "
                "move), or play a face-up card whose symbol has no empty space as a **joker** (name any "
                "symbol). Alexander goes to a **closest** empty space with that symbol, stops on any of its "
                "corners, and walks a shortest path: every side without a wall gets one."
            ),
            _("• **Take a card:** a face-up card or the top of the supply."),
            _(
                "• **Occupy** a free province: put a guard on one of its symbol spaces and pay one matching "
                "card for every other symbol space (extra guards spare cards)."
            ),
            _(
                "• **Take over:** pay two matching cards for each of the owner's guards, then occupy "
                "(3–4 players: the loser gets half the cards)."
            ),
            _(
                "• **Levy taxes** (once a turn): pay a card matching one of your guards; everyone scores the "
                "open spaces of every province where they have exactly one guard."
            ),
            _("• **Take back** a guard."),
            _(
                "**End:** at 100 points after a levy, or when the walls run out (that turn is finished "
                "first). Most points wins."
            ),
            _(
                "Commands: `/alexandros move`, `take`, `occupy`, `takeover`, `levy`, `takeback`, `end`, "
                "`game undo`, `hand`, `board`, `status`, `log`, `agree`, `resign`, `nudge`, `back`, "
                "`vacation`, `me waiting`, `me reminders`. Full rules: {link}"
            ).format(link=link),
        ]
    )
