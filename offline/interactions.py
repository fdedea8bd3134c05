"""The offline Discord, layer 6 of 7: what a user does (slash, autocomplete, click, select, modal
submit, a stale click), dispatched to the bot as the gateway would, and settled once its handlers end.

One layer of `OfflineDiscord` (offline/offline.py), each on the one before: world, commands, recorder,
routes, interaction_payloads, interactions; offline.py adds the bot's lifecycle and the seams.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import time
from collections.abc import Callable, Iterable
from typing import Any

from . import limits
from .interaction_payloads import _SELECT_TYPES, InteractionPayloads
from .payloads import (
    DM,
    FakeUser,
)
from .records import (
    HarnessError,
    InteractionResult,
    LoggedError,
    StoredMessage,
)
from .world import _current, _Interaction


class Interactions(InteractionPayloads):
    """What a user does, dispatched to the bot, and the wait for its handlers."""

    async def slash(
        self,
        user: FakeUser,
        command: str,
        options: dict[str, Any] | None = None,
        *,
        channel_id: int | None = None,
        check: bool | None = None,
        wait: bool = True,
        **kw_options: Any,
    ) -> InteractionResult:
        """Run a slash command, e.g. ``slash(alice, "alexandros new", players=3)``.

        ``command`` is the command path with spaces, dots or slashes. Options are given as keywords (or in
        ``options`` when a name clashes); users may be :class:`FakeUser` or ids, attachments
        ``SentFile``/``(filename, bytes)``. Values are checked the way the Discord client would
        (required options, choices, min/max) so a test cannot send what no user could.
        """
        channel = self._channel(channel_id)
        root, leaf, chain, scope = self._resolve_command(command, channel)
        self._check_can_see(user, root)
        given = {**(options or {}), **kw_options}
        resolved: dict[str, dict[str, Any]] = {}
        opts = self._build_options(leaf, given, resolved, in_guild=channel["type"] != DM, strict=True)
        data = self._command_data(root, chain, opts, scope, resolved)
        payload = self._interaction_payload(2, user, int(channel["id"]), data)
        return await self.dispatch(payload, user, check=check, wait=wait)

    def parse_command(self, text: str, *, channel_id: int | None = None) -> tuple[str, dict[str, Any]]:
        """Parse what a user would type, ``/demo new players:3 note:"two words" who:@bob``.

        Returns the command path and typed option values (integers, numbers, booleans, members by
        ``@name`` or ``<@id>``, channels by ``#name``, roles by ``@name``), ready for :meth:`slash`.
        """
        try:
            tokens = shlex.split(text.strip().lstrip("/"))
        except ValueError as exc:
            raise HarnessError(f"cannot parse {text!r}: {exc}") from None
        split = next((i for i, t in enumerate(tokens) if ":" in t), len(tokens))
        path = " ".join(tokens[:split])
        defs = {o["name"]: o for o in self.command_options(path, channel_id=channel_id)}
        options: dict[str, Any] = {}
        for token in tokens[split:]:
            name, _, raw = token.partition(":")
            if name not in defs:
                raise HarnessError(f"/{path} has no option {name!r}; options: {sorted(defs)}")
            options[name] = self._parse_value(defs[name]["type"], raw)
        return path, options

    def _parse_value(self, otype: int, raw: str) -> Any:
        try:
            if otype == 4:
                return int(raw)
            if otype == 10:
                return float(raw)
        except ValueError:
            raise HarnessError(f"{raw!r} is not a number") from None
        if otype == 5:
            return raw.lower() in ("true", "yes", "1", "on")
        if otype in (6, 8, 9):
            m = re.fullmatch(r"<@[!&]?(\d+)>", raw)
            if m:
                return int(m[1])
            name = raw.lstrip("@")
            role = next((int(r["id"]) for r in self.roles.values() if r["name"] == name), None)
            if otype != 6 and role is not None:
                return role
            return self.member(name)
        if otype == 7:
            name = raw.lstrip("#")
            found = [int(c["id"]) for c in self.channels.values() if c.get("name") == name]
            if not found:
                raise HarnessError(f"no channel named {name!r}")
            return found[0]
        return raw

    async def slash_text(self, user: FakeUser, text: str, **kwargs: Any) -> InteractionResult:
        """:meth:`slash` from a typed line (see :meth:`parse_command`), for consoles and readable tests."""
        path, options = self.parse_command(text, channel_id=kwargs.get("channel_id"))
        return await self.slash(user, path, options, **kwargs)

    async def autocomplete(
        self,
        user: FakeUser,
        command: str,
        focused: str,
        value: str = "",
        options: dict[str, Any] | None = None,
        *,
        channel_id: int | None = None,
        check: bool | None = None,
    ) -> list[dict[str, Any]]:
        """Type ``value`` into option ``focused`` of ``command``; returns the choices the bot offered.

        ``options`` holds the other options already filled in (and may hold the focused value instead of
        ``value``). The full :class:`InteractionResult` is ``self.history[-1]``.
        """
        channel = self._channel(channel_id)
        root, leaf, chain, scope = self._resolve_command(command, channel)
        self._check_can_see(user, root)
        given = dict(options or {})
        typed = str(given.pop(focused, value))
        odef = next((o for o in leaf.get("options") or [] if o["name"] == focused), None)
        if odef is None:
            raise HarnessError(f"/{command} has no option {focused!r}")
        if not odef.get("autocomplete"):
            raise HarnessError(f"option {focused!r} of /{command} has no autocomplete")
        resolved: dict[str, dict[str, Any]] = {}
        opts = self._build_options(leaf, given, resolved, in_guild=channel["type"] != DM, strict=False)
        opts.append({"name": focused, "type": odef["type"], "value": typed, "focused": True})
        data = self._command_data(root, chain, opts, scope, resolved)
        payload = self._interaction_payload(4, user, int(channel["id"]), data)
        result = await self.dispatch(payload, user, check=check)
        return result.choices or []

    async def click(
        self,
        user: FakeUser,
        message_id: int | StoredMessage | None,
        custom_id: str,
        *,
        check: bool | None = None,
        wait: bool = True,
    ) -> InteractionResult:
        """Click the button ``custom_id`` on a message (``None``: the newest message that has it)."""
        msg, comp = self._component(user, message_id, custom_id)
        if comp.get("type") != 2:
            raise HarnessError(f"{custom_id!r} is not a button (type {comp.get('type')})")
        data = {"custom_id": custom_id, "component_type": 2}
        if "id" in comp:
            data["id"] = comp["id"]
        payload = self._interaction_payload(3, user, msg.channel_id, data, message=msg)
        return await self.dispatch(payload, user, check=check, message_id=msg.id, wait=wait)

    async def select(
        self,
        user: FakeUser,
        message_id: int | StoredMessage | None,
        custom_id: str,
        values: Iterable[Any],
        *,
        check: bool | None = None,
        wait: bool = True,
    ) -> InteractionResult:
        """Submit a select menu with ``values`` (option values; users/roles/channels for entity selects)."""
        msg, comp = self._component(user, message_id, custom_id)
        ctype = comp.get("type")
        if ctype not in _SELECT_TYPES:
            raise HarnessError(f"{custom_id!r} is not a select (type {ctype})")
        vals = list(values)
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        if not lo <= len(vals) <= hi:
            raise HarnessError(f"select {custom_id!r} takes {lo}..{hi} values, got {len(vals)}")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
        resolved: dict[str, dict[str, Any]] = {}
        if ctype == 3:
            allowed = [o["value"] for o in comp.get("options") or []]
            bad = [v for v in vals if v not in allowed]
            if bad:
                raise HarnessError(f"select {custom_id!r} has no option(s) {bad}; options are {allowed}")
            data["values"] = vals
        else:
            data["values"] = [self._resolve_entity(v, resolved, in_guild=True) for v in vals]
            data["resolved"] = resolved
        payload = self._interaction_payload(3, user, msg.channel_id, data, message=msg)
        return await self.dispatch(payload, user, check=check, message_id=msg.id, wait=wait)

    async def modal_submit(
        self,
        user: FakeUser,
        values: dict[str, Any] | None = None,
        *,
        custom_id: str | None = None,
        check: bool | None = None,
        wait: bool = True,
        **kw_values: Any,
    ) -> InteractionResult:
        """Fill in and submit the last modal the bot showed ``user`` (or the one with ``custom_id``).

        ``values`` maps text-input custom_ids to text (select custom_ids to lists of values). Inputs left
        out keep their pre-filled value; required empty inputs and lengths are checked as the client does.
        """
        shown = self._modals.get(user.id) or []
        pending = next((m for m in reversed(shown) if custom_id in (None, m.data.get("custom_id"))), None)
        if pending is None:
            raise HarnessError(
                f"no modal{'' if custom_id is None else ' ' + repr(custom_id)} is open for {user.name}"
            )
        given = {**(values or {}), **kw_values}
        unknown = set(given) - {
            c.get("custom_id") for c in limits._walk(pending.data.get("components") or [])
        }
        if unknown:
            raise HarnessError(f"modal {pending.data.get('custom_id')!r} has no input(s) {sorted(unknown)}")
        resolved: dict[str, Any] = {}
        components = self._modal_components(pending.data, given, resolved)
        shown.remove(pending)
        msg = self.messages.get(pending.message_id) if pending.message_id else None
        data: dict[str, Any] = {"custom_id": pending.data["custom_id"], "components": components}
        if resolved:
            data["resolved"] = resolved
        payload = self._interaction_payload(5, user, pending.channel_id, data, message=msg)
        return await self.dispatch(payload, user, check=check, message_id=pending.message_id, wait=wait)

    async def stale(
        self,
        user: FakeUser,
        itype: int,
        data: dict[str, Any],
        *,
        channel_id: int | None = None,
        message: StoredMessage | None = None,
        check: bool | None = None,
    ) -> InteractionResult:
        """An interaction the current bot did not offer, as Discord still delivers it: a component of a
        message an older version of the bot sent (``itype`` 3, on ``message``), or the submit of a modal
        it showed before a restart (``itype`` 5). ``data`` is sent as given (custom_id, values,
        components)."""
        cid = message.channel_id if message is not None else int(self._channel(channel_id)["id"])
        payload = self._interaction_payload(itype, user, cid, data, message=message)
        mid = message.id if message is not None else None
        return await self.dispatch(payload, user, check=check, message_id=mid)

    async def gateway_event(self, event: str, data: dict[str, Any]) -> None:
        """Feed a raw gateway event (``"MESSAGE_DELETE"``, ``"THREAD_DELETE"``…) and wait for its listeners.

        Errors the listeners log are reported when the harness closes (or with :meth:`take_errors`).
        """
        if self.bot is None:
            raise HarnessError("the bot is not running")
        parser = self.bot._connection.parsers.get(event)
        if parser is None:
            raise HarnessError(f"discord.py has no parser for gateway event {event!r}")
        before = self._tasks.mark()
        parser(data)
        await self._settle(before)

    async def delete_message(self, message_id: int | StoredMessage) -> None:
        """A user (a moderator) deletes a message: it disappears and the bot gets MESSAGE_DELETE."""
        msg = self.message(message_id)
        msg.deleted = True
        data = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
        if "guild_id" in msg.json:
            data["guild_id"] = msg.json["guild_id"]
        await self.gateway_event("MESSAGE_DELETE", data)

    def open_modal(self, user: FakeUser) -> dict[str, Any] | None:
        """The modal currently shown to ``user`` (as the bot sent it), if any."""
        shown = self._modals.get(user.id) or []
        return shown[-1].data if shown else None

    async def dispatch(
        self,
        payload: dict[str, Any],
        user: FakeUser,
        *,
        check: bool | None = None,
        message_id: int | None = None,
        expect_answer: bool = True,
        wait: bool = True,
    ) -> InteractionResult:
        """Feed a raw INTERACTION_CREATE payload to the bot and wait until its handlers finish.

        ``check`` (default: the harness's ``strict``) raises :class:`HarnessError` on logged errors, limit
        violations or a missing answer. ``wait=False`` returns as soon as the interaction is answered, for
        handlers that stay suspended on purpose (``await view.wait()``); what they do later is still
        recorded in ``requests`` and in this result's ``requests``.
        """
        if check is None:
            check = self.strict
        bot = self.bot
        if bot is None:
            raise HarnessError("the bot is not running")
        if self.dead:
            raise HarnessError("the bot's process died (a kill): revive() it first")
        iid = int(payload["id"])
        result = InteractionResult(iid, payload["type"], user.id, int(payload["channel_id"]), payload)
        inter = _Interaction(result, user, payload["token"], time.monotonic(), message_id=message_id)
        self._interactions[iid] = inter
        self._by_token[inter.token] = inter
        before = self._tasks.mark()
        reset = _current.set(inter)
        try:
            bot._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        finally:
            _current.reset(reset)
        try:
            await self._settle(before, until=None if wait else (lambda: inter.acknowledged))
        finally:
            inter.done = True
        result.duration = time.monotonic() - inter.started
        if inter.original_id is not None:
            result.response_message = self.messages.get(inter.original_id)
        result.errors = [e for e in self.errors if e.interaction_id == iid]
        self._unreported_errors = [e for e in self._unreported_errors if e.interaction_id != iid]
        result.violations += [f"#{r.seq} {r.kind}: {v}" for r in result.requests for v in r.violations]
        result.warnings = [w for w in self.warnings if w.interaction_id == iid]
        if expect_answer and not result.answered:
            result.violations.append(
                "the interaction was not answered (the user sees 'This interaction failed')"
                + self._unanswered_hint(payload)
            )
        self.history.append(result)
        if check and (result.errors or result.violations):
            problems = [str(e) for e in result.errors] + result.violations
            raise HarnessError(
                f"interaction {iid} (type {result.interaction_type}) failed:\n" + "\n".join(problems), result
            )
        return result

    def _unanswered_hint(self, payload: dict[str, Any]) -> str:
        """Why discord.py may have dropped the interaction silently (best effort, reads private state)."""
        data = payload.get("data") or {}
        try:
            store = self.bot._connection._view_store  # type: ignore[union-attr]
            if payload["type"] == 3:
                cid, key = data["custom_id"], (data["component_type"], data["custom_id"])
                if any(p.fullmatch(cid) for p in store._dynamic_items):
                    return ""
                mid = int(payload["message"]["id"]) if "message" in payload else None
                if key in store._views.get(mid, {}) or key in store._views.get(None, {}):
                    return ""
                return f"; no View or DynamicItem of the running bot handles custom_id {cid!r}"
            if payload["type"] == 5 and data["custom_id"] not in store._modals:
                return f"; the running bot has no modal {data['custom_id']!r} (shown by an earlier process?)"
        except (AttributeError, KeyError, TypeError):
            return ""
        return ""

    def _watched(self, task: asyncio.Task[Any]) -> bool:
        return task.get_name().startswith(self.watched_tasks)

    async def _settle(self, before: int, until: Callable[[], bool] | None = None) -> None:
        """Wait for the watched handler tasks started since the mark ``before`` (and those they start)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settle_timeout
        current = asyncio.current_task()
        while True:
            pending = [
                t for t in self._tasks.since(before) if t is not current and not t.done() and self._watched(t)
            ]
            if not pending or self.dead or (until is not None and until()):
                return  # (a dead process's tasks are for revive() to stop)
            remaining = deadline - loop.time()
            if remaining <= 0:
                names = sorted(t.get_name() for t in pending)
                raise HarnessError(
                    f"handlers still running after {self.settle_timeout}s: {names} "
                    "(a handler awaiting a later interaction needs wait=False)"
                )
            # With a stop condition, poll it between short waits.
            await asyncio.wait(pending, timeout=remaining if until is None else min(remaining, 0.005))

    def _add_error(self, error: LoggedError) -> None:
        self.errors.append(error)
        self._unreported_errors.append(error)
