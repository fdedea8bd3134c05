"""Everything the bot says in words: refusals, event lines, names of cards, points, spaces and provinces.

The engine and the service speak in codes and values; this is the ONE place that turns them into English.
``Speaker`` carries what a sentence needs to name things (the players' display names and the map), and
every event line is made from an event already redacted for its reader, so a public line can never name a
card drawn from the supply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine import events as ev
from engine.geometry import Point, Space, corners, point_label
from engine.maps import Map
from engine.state import EndReason
from engine.symbols import SYMBOLS, Cards, Symbol

from . import limits
from .schedule import format_timestamp


def symbol_name(symbol: Symbol | str | None) -> str:
    """A symbol's name, for "no horse card"; an unnamed one is "such" ("no such card")."""
    if symbol is None:
        return "such"
    return str(symbol.value if isinstance(symbol, Symbol) else symbol)


def a(noun: str) -> str:
    """The noun with its indefinite article: "a horse", "an amphora" (the ONE place that decides)."""
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


article = a  # the older name


def plural(noun: str) -> str:
    """English plural of the game's nouns: side -> sides, province -> provinces, match -> matches."""
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return noun[:-1] + "ies"
    return noun + "s"


def count(n: int, noun: str, many: str | None = None) -> str:
    """A number and its noun, agreeing: "1 side", "2 sides", "0 cards" (``many``: an irregular plural)."""
    return f"{n} {noun if n == 1 else (many or plural(noun))}"


def cards_text(cards: Cards | Sequence[int] | None) -> str:
    """``(1, 0, 2, 0, 0)`` -> "1 temple, 2 horse"; nothing -> "no cards"."""
    if not cards:
        return "no cards"
    parts = [f"{n} {s.value}" for s, n in zip(SYMBOLS, cards, strict=False) if n]
    return ", ".join(parts) if parts else "no cards"


def point_text(p: Point | Sequence[int] | None) -> str:
    if p is None:
        return "?"
    return point_label((int(p[0]), int(p[1])))


def space_corners(space: Space) -> str:
    return " ".join(point_label(p) for p in sorted(corners(space)))


@dataclass(frozen=True)
class Speaker:
    """Names for one game: ``names[seat]`` are display names; ``game_map`` names the spaces' symbols."""

    names: Sequence[str] = ()
    game_map: Map | None = None

    def seat(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        if 0 <= seat < len(self.names):
            return self.names[seat]
        return f"player {seat + 1}"

    def space(self, space: Space | Sequence[int] | None) -> str:
        """A space named by its symbol and its three corners, e.g. "horse space (C6 D5 D7)"."""
        if space is None:
            return "a space"
        s = (int(space[0]), int(space[1]))
        sym = self.game_map.symbol.get(s) if self.game_map is not None else None
        kind = f"{sym.value} space" if sym is not None else "space"
        return f"{kind} ({space_corners(s)})"

    def spaces(self, spaces: Sequence[Space]) -> str:
        return ", ".join(self.space(s) for s in spaces) if spaces else "no space"

    # --- refusals -----------------------------------------------------------------------------------------

    def refusal(self, code: str, details: Mapping[str, Any] | None = None) -> str:
        """The sentence for an engine or bot refusal: why, and what is allowed instead."""
        d = dict(details or {})
        if "value" in d:  # what the user typed, quoted back: one short line, whatever they sent
            d["value"] = limits.echo(d["value"])
        make = _REFUSALS.get(code)
        if make is None:
            return f"That is not allowed here ({code})."
        try:
            return make(self, d)
        except (KeyError, TypeError, ValueError, IndexError):
            return f"That is not allowed here ({code})."

    # --- events -------------------------------------------------------------------------------------------

    def event_line(self, event: Any) -> str | None:
        """One line for the turn message or the log, or None for bookkeeping events nobody needs to read.

        ``event`` must already be redacted for the reader (engine.views.redact).
        """
        who = self.seat
        if isinstance(event, ev.CardTaken):
            if event.source.value == "supply":
                if event.symbol is None:
                    return f"{who(event.player)} drew a card."
                return f"{who(event.player)} drew a card ({event.symbol.value})."
            if event.slot is None:  # the deal at the start
                return None
            return f"{who(event.player)} took the face-up {event.symbol.value if event.symbol else 'card'}."
        if isinstance(event, ev.FaceUpTurned):
            return f"{a(event.symbol.value).capitalize()} was turned face up (slot {event.slot + 1})."
        if isinstance(event, ev.CardsDiscarded):
            if event.reason == "special-move":
                return None  # the move line says it
            return f"{who(event.player)} paid {cards_text(event.cards)}."
        if isinstance(event, ev.AlexanderMoved):
            walls = len(event.black) + len(event.red)
            how = {"normal": "", "special": " (special move)", "joker": " (joker)"}[event.way.value]
            red = f", {len(event.red)} of them red" if event.red else ""
            path = "–".join(point_label(p) for p in event.path)
            line = (
                f"{who(event.player)} moved Alexander to {point_label(event.path[-1])} "
                f"on {a(event.symbol.value)} space{how}: path {path}, "
                f"{count(walls, 'new wall')}{red}."
            )
            if event.walls_ran_out:
                line += " The walls ran out: the game ends after this turn."
            return line
        if isinstance(event, ev.MoveSkipped):
            tail = " The game ends after this turn." if event.game_ends else ""
            return f"{who(event.player)} cannot move Alexander.{tail}"
        if isinstance(event, ev.ProvinceSplit):
            ids = ", ".join(str(pid) for pid, _ in event.parts)
            plural = "s" if len(event.parts) > 1 else ""
            return f"Province {event.province} was split; new province{plural} {ids}."
        if isinstance(event, ev.GuardsPlaced):
            n = len(event.spaces)
            return f"{who(event.player)} put {count(n, 'guard')} in province {event.province}."
        if isinstance(event, ev.GuardsRemoved):
            n = len(event.spaces)
            why = {"take-over": "lost", "take-back": "took back", "resigned": "withdrew"}.get(
                event.reason, "lost"
            )
            tail = " to a take-over" if event.reason == "take-over" else ""
            return f"{who(event.player)} {why} {count(n, 'guard')}{tail}."
        if isinstance(event, ev.CardsGiven):
            return f"{who(event.giver)} gave {cards_text(event.cards)} to {who(event.receiver)}."
        if isinstance(event, ev.Scored):
            return f"{who(event.player)} scored {event.points}."
        if isinstance(event, ev.TurnEnded):
            return f"{who(event.player)} {'skipped the turn' if event.skipped else 'ended the turn'}."
        if isinstance(event, ev.PlayerResigned):
            return f"{who(event.player)} resigned."
        if isinstance(event, ev.StepTakenBack):
            return f"{who(event.player)} took back their last step."
        if isinstance(event, ev.GameEnded):
            return f"The game is over ({END_REASONS.get(event.reason, str(event.reason))})."
        if isinstance(event, ev.TurnStarted):
            return None
        if isinstance(event, ev.ActionUsed):
            return None
        if isinstance(event, ev.GameCreated | ev.SupplyShuffled | ev.FirstPlayerChosen):
            return None
        return None

    def event_lines(self, events: Sequence[Any]) -> list[str]:
        out: list[str] = []
        dealing = False  # between GameCreated and the first TurnStarted, cards are dealt, not drawn
        for e in events:
            if isinstance(e, ev.GameCreated):
                dealing = True
                out.append(f"The game began with {e.players} players.")
                continue
            if isinstance(e, ev.TurnStarted):
                dealing = False
            if dealing and isinstance(e, ev.CardTaken):
                out.append(f"{self.seat(e.player)} was dealt a card.")
                continue
            if dealing and isinstance(e, ev.FirstPlayerChosen):
                out.append(f"{self.seat(e.player)} was chosen to start.")
                continue
            line = self.event_line(e)
            if line:
                out.append(line)
        return out


END_REASONS: dict[EndReason | str, str] = {
    EndReason.WALLS: "the walls ran out",
    EndReason.NO_SPACE: "no empty symbol space was left",
    EndReason.POINTS: "someone reached 100 points",
    EndReason.RESIGNATIONS: "everyone else resigned",
    EndReason.AGREED: "the players agreed to end it",
}


def _that_card(card: Any) -> str:
    return "That card" if card is None else f"{a(symbol_name(card)).capitalize()} card"


def _also(d: Mapping[str, Any]) -> str:
    """The list of what may be played instead, when the refusal carries it."""
    return f" {d['allowed']}" if d.get("allowed") else ""


def _slot(d: Mapping[str, Any]) -> str:
    s = d.get("slot")
    return f"face-up slot {s + 1}" if isinstance(s, int) else f"face-up slot {s}"


Refusal = Callable[[Speaker, dict[str, Any]], str]

_REFUSALS: dict[str, Refusal] = {
    # --- engine codes (engine.errors.ERROR_CODES) -------------------------------------------------------
    "game/over": lambda s, d: "This game is over. Start a new one with `/alexandros new`.",
    "game/stale": lambda s, d: (
        f"That was already done or is out of date (you saw step {d['expected']}, the game is at step "
        f"{d['actual']}). Look at the latest turn message and try again."
    ),
    "game/unknown-player": lambda s, d: (
        f"Seat {d['player']} is not part of this game. Use `/alexandros status` to see who plays."
    ),
    "game/not-your-turn": lambda s, d: (
        f"It is not your turn: it is {s.seat(d['current'])}'s turn. You can look at `/alexandros hand`, "
        "`/alexandros board` or `/alexandros status` meanwhile."
    ),
    "game/resigned": lambda s, d: (
        f"{s.seat(d['player'])} has resigned and takes no more part in this game; you can follow it with "
        "`/alexandros board` and `/alexandros status`."
    ),
    "game/bad-setup": lambda s, d: (
        f"A game needs {d['min']} to {d['max']} players, not {d['players']}: start it when "
        f"{d['min']} to {d['max']} are seated."
    ),
    "turn/move-first": lambda s, d: (
        "You must move Alexander first: use `/alexandros move` or the Move button."
    ),
    "turn/already-moved": lambda s, d: (
        "You have already moved Alexander this turn. Now take up to two actions, or end the turn."
    ),
    "turn/no-actions-left": lambda s, d: (
        "You have used both actions of this turn. End the turn with `/alexandros end`."
    ),
    "move/bad-slot": lambda s, d: f"There is no {_slot(d)}: choose face-up card 1 or 2.{_also(d)}",
    "move/slot-empty": lambda s, d: (
        f"The {_slot(d)} is empty. Choose the other face-up card or a hand card.{_also(d)}"
    ),
    "move/not-in-hand": lambda s, d: (
        f"You have no {symbol_name(d['card'])} card in your hand for a special move. "
        + d.get("allowed", "Choose a card from the list offered.")
    ),
    "move/no-empty-space": lambda s, d: (
        f"No empty space shows {a(d['symbol'])}"
        + (
            ", so that face-up card can only be played as a joker (name another symbol"
            + (f", e.g. `j{d['slot'] + 1}T` for temple" if isinstance(d.get("slot"), int) else "")
            + ")."
            if d["joker"]
            else ". Choose another symbol."
        )
        + _also(d)
    ),
    "move/joker-not-allowed": lambda s, d: (
        (
            f"Face-up card {d['slot'] + 1} ({d['symbol']}) is not a joker"
            if isinstance(d.get("slot"), int)
            else f"{a(d['symbol']).capitalize()} is not a joker"
        )
        + f": a face-up card is a joker only when no empty space shows its symbol, and an empty space "
        f"shows {a(d['symbol'])}. Play it as a normal move"
        + (f" (`n{d['slot'] + 1}`)." if isinstance(d.get("slot"), int) else ".")
        + _also(d)
    ),
    "move/joker-needs-symbol": lambda s, d: (
        "A joker needs a named symbol: pick the symbol Alexander goes to."
    ),
    "move/unexpected-symbol": lambda s, d: (
        "Only a joker names a symbol. Play this card for its own symbol instead."
    ),
    "move/unknown-space": lambda s, d: f"There is no symbol space at {s.space(d['space'])}.",
    "move/wrong-symbol": lambda s, d: (
        f"The {s.space(d['space'])} does not show {a(d['symbol'])}. Pick one of the points offered."
    ),
    "move/not-empty": lambda s, d: (
        f"The {s.space(d['space'])} is not empty (a wall, a guard or Alexander touches it). "
        "Pick one of the points offered."
    ),
    "move/not-closest": lambda s, d: (
        f"That {d['symbol']} space is {count(d['distance'], 'side')} away, but the closest empty "
        f"{d['symbol']} space is {count(d['closest'], 'side')} away. Alexander must go to a closest one: "
        "pick one of the points offered."
    ),
    "move/bad-path": lambda s, d: (
        f"That path does not start where Alexander stands ({point_text(d['alexander'])})."
        if d.get("reason") == "start"
        else f"That path jumps from {point_text(d['at'])} to {point_text(d['to'])}, which is not a side. "
        "Pick one of the numbered paths."
    ),
    "move/not-a-corner": lambda s, d: (
        f"{point_text(d['point'])} is not a corner of the {s.space(d['space'])}. "
        "Pick one of the points offered."
    ),
    "move/not-shortest": lambda s, d: (
        f"That path is {count(d['length'], 'side')} long, but the shortest is {d['shortest']}. "
        "Pick a numbered path."
    ),
    "move/too-many-walls": lambda s, d: (
        f"That path needs {count(d['needed'], 'new wall')}, but only {d['left']} "
        f"{'is' if d['left'] == 1 else 'are'} left. Choose a move that needs at most {d['left']} "
        f"(the fewest any move needs is {d['fewest']})."
    ),
    "move/not-fewest-walls": lambda s, d: (
        f"No move fits the {count(d['left'], 'wall')} left, so you must make a move that needs the "
        "fewest walls "
        f"({d['fewest']}); that one needs {d['needed']}."
    ),
    "card/bad-slot": lambda s, d: f"There is no {_slot(d)}: take face-up card 1, 2 or the supply.",
    "card/slot-empty": lambda s, d: f"The {_slot(d)} is empty until the end of the turn. Take another card.",
    "card/supply-empty": lambda s, d: (
        "The supply and the discard pile are both empty: take a face-up card instead."
    ),
    "province/unknown": lambda s, d: (
        f"There is no province {d['province']} now. Pick one from the list offered."
    ),
    "occupy/not-free": lambda s, d: (
        f"Province {d['province']} is held by {s.seat(d['owner'])}: use `/alexandros takeover` instead."
    ),
    "occupy/no-symbol-space": lambda s, d: (
        f"Province {d['province']} has no symbol space, so no guard can stand in it. Pick another province."
    ),
    "occupy/no-guard": lambda s, d: "Choose at least one space for a guard.",
    "occupy/not-enough-guards": lambda s, d: (
        f"You want to place {count(d['wanted'], 'guard')} but have only {d['have']} left. "
        "Choose fewer spaces."
    ),
    "occupy/duplicate-space": lambda s, d: "Only one guard may stand on a space: choose different spaces.",
    "occupy/outside-province": lambda s, d: (
        f"The {s.space(d['space'])} is not in province {d['province']}. Choose spaces of that province."
    ),
    "occupy/open-space": lambda s, d: (
        f"Guards stand on symbol spaces only; the {s.space(d['space'])} is open. Pick symbol spaces from "
        "the list."
    ),
    "occupy/missing-cards": lambda s, d: (
        f"Not enough cards: this costs {cards_text(d['cost'])}, "
        f"and you are missing {cards_text(d['missing'])}. "
        "Put a guard on those spaces instead, or take cards first."
    ),
    "takeover/free": lambda s, d: f"Province {d['province']} is free: use `/alexandros occupy` instead.",
    "takeover/own-province": lambda s, d: (
        f"Province {d['province']} is already yours: pick an opponent's province to take over."
    ),
    "takeover/missing-cards": lambda s, d: (
        f"Not enough cards: removing the guards costs {cards_text(d['removal'])} and occupying costs "
        f"{cards_text(d['cost'])}; you are missing {cards_text(d['missing'])}. Put more guards there instead "
        "of paying, or take cards first."
    ),
    "takeover/bad-compensation": lambda s, d: (
        f"The loser must get exactly {count(d['expected'], 'card')} of those you pay "
        f"({cards_text(d['paid'])}); "
        f"you chose {cards_text(d['given'])}."
    ),
    "levy/already": lambda s, d: (
        "You have already levied taxes this turn (once per turn). Take another action."
    ),
    "levy/no-guards": lambda s, d: (
        "You have no guard on the map, so you cannot levy taxes. Occupy a province first."
    ),
    "levy/not-in-hand": lambda s, d: (
        f"You have no {symbol_name(d['card'])} card in your hand: pay a card you hold that matches one of "
        "your guards (`/alexandros hand` shows your cards)."
    ),
    "levy/card-not-matching": lambda s, d: (
        f"{_that_card(d['card'])} matches none of your guards; pay one of: "
        f"{', '.join(d['allowed']) or 'none'}."
    ),
    "takeback/not-your-guard": lambda s, d: (
        f"You have no guard on the {s.space(d['space'])}. Pick one of your guards from the list."
    ),
    "undo/nothing": lambda s, d: "There is nothing of this turn to take back.",
    "undo/revealed": lambda s, d: (
        "That can no longer be taken back: a hidden card was revealed since (a card drawn from the supply, "
        "a face-up card turned, or cards given to another player). Play on from here."
    ),
    # --- bot codes --------------------------------------------------------------------------------------
    "bot/no-game": lambda s, d: "There is no game in this channel. Start one with `/alexandros new`.",
    "bot/creator-left": lambda s, d: (
        "You left this table, so it cannot start with you as its host: press Join to sit down again, "
        "then Start."
    ),
    "bot/game-over": lambda s, d: (
        f"The game in this channel is {d['status']}: `/alexandros status` shows how it ended and "
        "`/alexandros board` its last board. Start a new one with `/alexandros new`."
    ),
    "bot/unknown-game": lambda s, d: (
        f"Game {d['game']} does not exist (any more). Use `/alexandros status` to see this channel's game."
    ),
    "bot/channel-busy": lambda s, d: (
        f"This channel already has an unfinished game (game {d['game']}). Join it with "
        "`/alexandros table join`, or start a game in a new thread with `/alexandros new thread:True`."
    ),
    "bot/not-a-player": lambda s, d: (
        "You are not playing in this game. You can follow it here, and use `/alexandros board`, "
        "`/alexandros status` or `/alexandros log`."
    ),
    "bot/not-in-lobby": lambda s, d: (
        "This game has already started; seats can no longer change. `/alexandros status` shows the game."
    ),
    "bot/already-seated": lambda s, d: (
        "You are already seated at this table: wait for the creator to press Start."
    ),
    "bot/not-seated": lambda s, d: "You are not seated at this table. Join it with the Join button.",
    "bot/table-full": lambda s, d: (
        f"The table is full ({d['max']} players). Start a game in another channel."
    ),
    "bot/not-creator": lambda s, d: f"Only {d['creator']} (who created the game) can {d['what']}.",
    "bot/too-few-players": lambda s, d: (
        f"A game needs at least {d['min']} players; {d['have']} seated so far. Ask someone to press Join."
    ),
    "bot/conflict": lambda s, d: (
        "Someone acted first: the game changed while your action was being saved. Look at the latest turn "
        "message and try again."
    ),
    "bot/closed": lambda s, d: (
        f"This game is {d['status']}; it takes no more actions. Start a new one with `/alexandros new`."
    ),
    "bot/not-started": lambda s, d: (
        "This game has not started yet. The creator starts it with the Start button."
    ),
    "bot/bad-choice": lambda s, d: f"I do not understand {d['what']} “{d['value']}”. {d['allowed']}",
    "bot/bad-point": lambda s, d: (
        f"“{d['value']}” is not a point of this map. Nearest points: {', '.join(d['near'])}."
    ),
    "bot/not-a-destination": lambda s, d: (
        f"Alexander cannot stop at {d['point']} with this card. Allowed points: {d['allowed']}."
    ),
    "bot/no-such-path": lambda s, d: f"There is no path {d['value']}; choose 1 to {d['count']}.",
    "bot/no-moves": lambda s, d: "There is no card you can move with right now.",
    "bot/no-permission": lambda s, d: (
        "Only the game's creator or a member with Manage Channels can abandon a game: ask one of them, "
        "or `/alexandros resign` to leave it yourself."
    ),
    "bot/already-voted": lambda s, d: f"You have already agreed to end the game; waiting for {d['waiting']}.",
    "bot/select-count": lambda s, d: f"Choose exactly {count(d['count'], 'card')}.",
    # seats over days (bot.seats)
    "bot/paused": lambda s, d: (
        "The game is paused: nothing can be played until its creator resumes it "
        "with `/alexandros game resume`."
    ),
    "bot/already-paused": lambda s, d: (
        "The game is already paused. Resume it with `/alexandros game resume`."
    ),
    "bot/not-paused": lambda s, d: (
        "The game is not paused: play on, or pause it with `/alexandros game pause`."
    ),
    "bot/not-creator-or-manager": lambda s, d: (
        f"Only the game's creator or a member with Manage Channels can {d['what']}."
    ),
    "bot/offer-stale": lambda s, d: (
        "This seat offer is out of date: the seat changed hands, or a newer offer replaced it. Ask for a new "
        "offer with `/alexandros game handover` or `/alexandros game replace`."
    ),
    "bot/offer-not-yours": lambda s, d: f"This seat is offered to {d['to']}, not to you.",
    "bot/offer-bad-member": lambda s, d: (
        f"{d['who']} cannot take a seat here: already seated in this game, a bot, or the seat's own holder."
    ),
    "bot/shutting-down": lambda s, d: (
        "The bot is restarting and takes no new actions now. Your game is saved; try again in a minute."
    ),
    "bot/policy-without-deadline": lambda s, d: (
        "A deadline policy needs a deadline: add `deadline_hours`, or leave the policy out."
    ),
    "bot/not-absent": lambda s, d: (
        "You already have your seat: the computer is not playing for you in this game. Play your turns "
        "as usual."
    ),
    "bot/nudge-self": lambda s, d: (
        "It is your own turn: nobody to nudge but you. Play it from the turn message."
    ),
    "bot/nudge-too-soon": lambda s, d: (
        "This game's waiting player was nudged less than 24 hours ago; you can nudge again "
        f"{_when(d.get('at'))}."
    ),
}


# The ``allowed`` part of a "bot/bad-choice" refusal: what the player may type or pick instead.
PICK_FROM_LIST = "Pick one from the list."
PICK_CARDS_FROM_LIST = "Pick cards from the list."
PICK_PROVINCE = "Type a province number from the list offered."
POLICY_CHOICES = "Choose skip or autoplay."


def listing(items: Iterable[str], limit: int = 1200) -> str:
    """Items joined with "; ", within ``limit`` characters (then "and N more"), so that a refusal listing
    every valid value still fits in a Discord message (bot.limits)."""
    items = list(items)
    out: list[str] = []
    for item in items:
        if len("; ".join([*out, item])) > limit - 40:  # room for the tail
            return "; ".join(out) + f"; and {len(items) - len(out)} more (see the list offered)"
        out.append(item)
    return "; ".join(out) if out else "nothing"


def can_play(labels: str) -> str:
    return f"You can play: {labels}."


def can_take(labels: str) -> str:
    return f"You can take: {labels}."


def can_pay(labels: str) -> str:
    return f"You can pay: {labels}."


def can_take_back(labels: str) -> str:
    return f"You can take back: {labels}."


def can_choose_provinces(numbers: str) -> str:
    return f"Provinces you can afford now: {numbers}."


ENDS_GAME_TAG = ", ends the game"
SOME_PATHS_END_TAG = ", some paths end the game"
SCORES_NOTHING_TAG = " (scores nothing, R7.3)"
NO_LEVY_CARD = "No card in your hand matches one of your guards: take a card first, or end the turn."
NO_GUARD_TO_TAKE_BACK = "You have no guard on the map to take back; take another action or end the turn."
NO_PROVINCE_AFFORDABLE = "No such province is affordable now; take another action or end the turn."


def symbols_are(names: str) -> str:
    return f"Symbols are: {names}."


def _when(at: Any) -> str:
    # A Discord timestamp: each reader sees it in their own time zone, and it never goes stale.
    return format_timestamp(float(at)) if at is not None else "later"


BOT_CODES: frozenset[str] = frozenset(c for c in _REFUSALS if c.startswith("bot/"))


def has_words(code: str) -> bool:
    return code in _REFUSALS


def rules_summary(rules_url: str = "") -> str:
    """The `/alexandros rules` text. The full rules ship as docs/ALEXANDROS.md; a host may link their copy
    (ALEXANDROS_RULES_URL)."""
    link = f"<{rules_url}>" if rules_url else "`docs/ALEXANDROS.md` in the bot's repository (README)"
    return _RULES_SUMMARY.format(link=link)


_RULES_SUMMARY = "\n".join(
    [
        "**Alexandros** (Leo Colovini), 2–4 players. Alexander marches over a map of triangles and leaves "
        "walls behind him; the walls cut the land into provinces, which you guard and tax.",
        "**Your turn:** first **move Alexander** (must), then take **up to two actions**.",
        "• **Move:** take a face-up card (its symbol is the target), or discard a hand card (special "
        "move), or play a face-up card whose symbol has no empty space as a **joker** (name any symbol). "
        "Alexander goes to a **closest** empty space with that symbol, stops on any of its corners, "
        "and walks a shortest path: every side without a wall gets one.",
        "• **Take a card:** a face-up card or the top of the supply.",
        "• **Occupy** a free province: put a guard on one of its symbol spaces and pay one matching card for "
        "every other symbol space (extra guards spare cards).",
        "• **Take over:** pay two matching cards for each of the owner's guards, then occupy "
        "(3–4 players: the loser gets half the cards).",
        "• **Levy taxes** (once a turn): pay a card matching one of your guards; everyone scores the "
        "open spaces of every province where they have exactly one guard.",
        "• **Take back** a guard.",
        "**End:** at 100 points after a levy, or when the walls run out (that turn is finished first). "
        "Most points wins.",
        "Commands: `/alexandros move`, `take`, `occupy`, `takeover`, `levy`, `takeback`, `end`, `hand`, "
        "`board`, `status`, `log`, `waiting`, `nudge`, `back`, `reminders`. Full rules: {link}",
    ]
)
