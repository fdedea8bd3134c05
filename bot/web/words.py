"""The words of a game's web page, each a message of the bot's catalogs, in the reader's language (their
browser's ``Accept-Language``: one of the bot's languages, English when none fits)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from engine.state import EndReason
from engine.symbols import LETTER_SYMBOLS, SYMBOLS

from ..texts.posts import colour_name
from ..words import i18n
from ..words.i18n import N_, _
from ..words.words import END_REASONS, cards_text, shown_name, symbol_name

# The page's labels, by the key app.js reads them under.
LABELS: dict[str, str] = {
    "title": N_("Alexandros, game {game}"),
    "turn": N_("Turn {turn}"),
    "on_turn": N_("{player} is on turn"),
    "since": N_("since {time}"),
    "score": N_("Score"),
    "cards": N_("Cards"),
    "guards": N_("Guards"),
    "guards_left": N_("Guards in supply"),
    "walls_left": N_("Walls left"),
    "black": N_("black"),
    "red": N_("red"),
    "face_up": N_("Face-up cards"),
    "supply": N_("Cards in the supply"),
    "province": N_("Province {id}"),
    "value": N_("Value"),
    "owner": N_("Owner"),
    "free": N_("free"),
    "occupy_cost": N_("Occupying it costs, before guards on symbol spaces"),
    "removal_cost": N_("Taking it over costs besides"),
    "no_symbol": N_("No symbol space: nobody can occupy it."),
    "point": N_("Point {label}"),
    "history": N_("History"),
    "step": N_("Step {n} of {total}"),
    "deal": N_("the deal"),
    "latest": N_("Now"),
    "link": N_("Link to this step"),
    "plot": N_("Scores over the turns"),
    "log": N_("What happened"),
    "live": N_("Live"),
    "offline": N_("Reconnecting…"),
    "gone": N_("This link no longer leads to the game: ask its players for the new one."),
    "over": N_("The game is over ({reason})."),
    "winners": N_("Won by {players}."),
    "lobby": N_("The game has not started yet."),
    "abandoned": N_("The game was abandoned."),
    "none": N_("none"),
    "players": N_("Players"),
}


def language(accept: str | None) -> str:
    """The bot's language that fits an ``Accept-Language`` header best (its q-values honoured)."""
    best, best_q = i18n.SOURCE, -1.0
    for i, part in enumerate((accept or "").split(",")[:20]):
        tag, _sep, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                continue
        lang = tag.strip().lower().split("-")[0]
        if lang in i18n.LANGUAGES and q - i * 1e-6 > best_q:
            best, best_q = lang, q - i * 1e-6
    return best


def labels(lang: str) -> dict[str, str]:
    with i18n.speaking(lang):
        out = {key: _(message) for key, message in LABELS.items()}
        out.update({f"sym_{s.letter}": symbol_name(s) for s in SYMBOLS})
        out.update({f"colour_{i}": colour_name(c) for i, c in enumerate(("red", "yellow", "blue", "green"))})
        out.update({f"end_{r.value}": END_REASONS.get(r, r.value) for r in EndReason})
        return out


def names(stored: Iterable[str], lang: str) -> list[str]:
    """Players' names as the channel shows them (a forgotten user's pseudonym worded in ``lang``)."""
    with i18n.speaking(lang):
        return [shown_name(n) for n in stored]


def costs(letters: Iterable[str], lang: str) -> dict[str, str]:
    """Each distinct card list (symbol letters, "AAH") in words ("2 amphora cards, 1 horse card")."""
    return {text: _cost(text, lang) for text in letters}


# Every live page's news words its game's costs again; the same few, so they are worded once. (Not its
# names: a user forgotten since must not stay in a cache.)
@lru_cache(maxsize=4096)
def _cost(text: str, lang: str) -> str:
    counts = [0] * len(SYMBOLS)
    for ch in text:
        counts[LETTER_SYMBOLS[ch].ordinal] += 1
    with i18n.speaking(lang):
        return cards_text(counts)
