"""The console's slash commands as a Discord client knows them (issue 27): taken from the bot's real command
tree with its localisations (bot.words.translator), so a German console accepts the German names the bot
itself prints (``/alexandros ziehen karte:n1``), ``help`` lists every command with its description, and an
unknown name is answered with the nearest ones.

A typed line is read into the command's default path and option names, as a Discord client sends them
whatever names it shows.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

from discord import app_commands

from .words import i18n
from .words.i18n import N_, _

_SUBCOMMAND, _GROUP = 1, 2
# An option's name at a word's start, before a colon: lower case, any language ("wächter:"), no digit first.
_OPTION = re.compile(r"(?<!\S)([^\W\d_][-\w]*):")


class CommandError(Exception):
    """A typed command the tree does not know: one sentence, with the nearest names when there are some."""


def parse_options(text: str) -> dict[str, str]:
    """``card:n1 to:D7 path:2`` -> {"card": "n1", ...}; a value runs until the next ``name:``."""
    out: dict[str, str] = {}
    marks = [m for m in _OPTION.finditer(text) if m.group(1).islower()]
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out[m.group(1)] = text[m.end() : end].strip()
    return out


def _first_option(text: str) -> int:
    return next((m.start() for m in _OPTION.finditer(text) if m.group(1).islower()), len(text))


@dataclass(frozen=True)
class Typed:
    """A typed command: its default path ("alexandros move"), its options by their default names (raw
    text), and their definitions (as the tree registers them)."""

    path: str
    options: dict[str, str]
    definitions: list[dict[str, Any]]


class CommandBook:
    """The slash commands of a tree, in one Discord locale's names and descriptions."""

    def __init__(self, payloads: list[dict[str, Any]], locale: str) -> None:
        self.roots = [p for p in payloads if p.get("type", 1) == 1]
        self.locale = locale

    @classmethod
    async def of(cls, tree: app_commands.CommandTree[Any], locale: str) -> CommandBook:
        """The global slash commands of ``tree``, localised as a sync sends them to Discord."""
        translator = tree.translator
        payloads = [
            await c.get_translated_payload(tree, translator) if translator is not None else c.to_dict(tree)
            for c in tree.get_commands()
        ]
        return cls(payloads, locale)

    def shown(self, node: dict[str, Any]) -> str:
        """The name a client of this locale shows (and the player types)."""
        return str((node.get("name_localizations") or {}).get(self.locale) or node["name"])

    def _description(self, node: dict[str, Any]) -> str:
        return str(
            (node.get("description_localizations") or {}).get(self.locale) or node.get("description", "")
        )

    @staticmethod
    def _subs(node: dict[str, Any]) -> list[dict[str, Any]]:
        return [o for o in node.get("options") or [] if o.get("type") in (_SUBCOMMAND, _GROUP)]

    def _find(self, word: str, nodes: list[dict[str, Any]]) -> dict[str, Any] | None:
        low = word.lower()
        return next((n for n in nodes if low in (n["name"], self.shown(n))), None)

    def _nearest(self, word: str, nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        names = {self.shown(n): n for n in nodes} | {n["name"]: n for n in nodes}
        close = difflib.get_close_matches(word.lower(), list(names), n=3, cutoff=0.6)
        out: list[dict[str, Any]] = []
        for name in close:
            if names[name] not in out:
                out.append(names[name])
        return out

    def leaves(self) -> list[tuple[str, dict[str, Any]]]:
        """Every command a player can type, as shown ("/alexandros ziehen"), with its payload."""
        out: list[tuple[str, dict[str, Any]]] = []

        def walk(prefix: str, node: dict[str, Any]) -> None:
            here = f"{prefix} {self.shown(node)}".strip()
            subs = self._subs(node)
            if not subs:
                out.append((f"/{here}", node))
            for sub in subs:
                walk(here, sub)

        for root in self.roots:
            walk("", root)
        return out

    def help_lines(self) -> list[str]:
        """One line a command: how to type it (its options as ``name:``, optional ones in brackets) and what
        it does."""
        rows = []
        for shown, node in self.leaves():
            options = [
                f"{self.shown(o)}:" if o.get("required") else f"[{self.shown(o)}:]"
                for o in node.get("options") or []
            ]
            rows.append((" ".join([shown, *options]), self._description(node)))
        width = min(max(len(r[0]) for r in rows), 48) if rows else 0
        return [f"  {usage:<{width}}  {what}" for usage, what in rows]

    def read(self, text: str) -> Typed:
        """A typed ``alexandros move card:n1 to:D7`` (without its slash), in this locale's names or the
        default ones. Raises CommandError for a name the tree does not have."""
        cut = _first_option(text)
        words, rest = text[:cut].split(), text[cut:]
        if not words:
            # TRANSLATORS: the console: a slash with no command after it
            said = N_("Name a command after the slash, e.g. /alexandros status; 'help' lists them.")
            raise CommandError(self._say(said))
        nodes: list[dict[str, Any]] = self.roots
        node: dict[str, Any] | None = None
        path: list[str] = []
        shown: list[str] = []
        for word in words:
            if node is not None and not nodes:
                known = ", ".join(f"{self.shown(o)}:" for o in node.get("options") or []) or "-"
                # TRANSLATORS: the console: a word after a command that takes options only
                said = N_("/{command} takes no word “{word}”: give its options as name:value ({known}).")
                raise CommandError(self._say(said, command=" ".join(shown), word=word, known=known))
            found = self._find(word, nodes)
            if found is None:
                raise CommandError(self._unknown(shown, word, nodes))
            node, nodes = found, self._subs(found)
            path.append(found["name"])
            shown.append(self.shown(found))
        assert node is not None
        if nodes:
            names = ", ".join(self.shown(n) for n in nodes)
            # TRANSLATORS: the console: a command group typed without one of its commands
            said = N_("/{command} is a group: name one of its commands ({names}).")
            raise CommandError(self._say(said, command=" ".join(shown), names=names))
        definitions = [o for o in node.get("options") or [] if o.get("type") not in (_SUBCOMMAND, _GROUP)]
        options: dict[str, str] = {}
        for name, value in parse_options(rest).items():
            odef = self._find(name, definitions)
            if odef is None:
                raise CommandError(self._unknown_option(shown, name, definitions))
            options[odef["name"]] = value
        return Typed(" ".join(path), options, definitions)

    def _unknown(self, shown: list[str], word: str, nodes: list[dict[str, Any]]) -> str:
        where = f"/{' '.join([*shown, word])}"
        near = [f"/{' '.join([*shown, self.shown(n)])}" for n in self._nearest(word, nodes)]
        if near:
            # TRANSLATORS: the console: a mistyped command, with the nearest names
            said = N_("There is no command {where}: did you mean {near}? 'help' lists every command.")
            return self._say(said, where=where, near=self._or(near))
        # TRANSLATORS: the console: a mistyped command
        return self._say(N_("There is no command {where}: 'help' lists every command."), where=where)

    def _unknown_option(self, shown: list[str], name: str, definitions: list[dict[str, Any]]) -> str:
        known = ", ".join(f"{self.shown(o)}:" for o in definitions) or "-"
        near = [f"{self.shown(o)}:" for o in self._nearest(name, definitions)]
        # TRANSLATORS: the console: a mistyped option of a command
        said = N_("/{command} has no option {name}: (its options: {known}).")
        said = self._say(said, command=" ".join(shown), name=name, known=known)
        # TRANSLATORS: the console: the nearest option names to a mistyped one
        return said + (" " + self._say(N_("Did you mean {near}?"), near=self._or(near)) if near else "")

    def _or(self, names: list[str]) -> str:
        # TRANSLATORS: the console joins the names it suggests: "/alexandros or /alexandros-admin"
        if len(names) == 1:
            return names[0]
        return self._say(N_("{first} or {second}"), first=", ".join(names[:-1]), second=names[-1])

    def _say(self, message: str, **fields: str) -> str:
        """A console sentence in this locale's language (the catalog's message ``message``)."""
        with i18n.speaking(self.locale):
            return _(message).format(**fields)
