"""A seeded fuzzer of the whole bot through the offline Discord (issue 11): random slash commands (values
random, long, unicode, or taken from the bot's own autocomplete), buttons and selects of any message a
member can see (current or stale, or with a custom_id of an older version), and modal submits the bot never
showed, from random members in two channels of one server and one channel of another.

After every interaction it checks:
- the interaction was answered (an autocomplete with its choices), and no error was logged;
- the generic apologies (private.oops(), private.oops_applied()) never appear;
- an interaction that changed no game answered privately (a refusal is ephemeral), but for the nudge and
  the board, public by design;
- nobody changed what they may not: a game changes only in the interaction's server, and only by a seated
  player, its creator (start), someone with Manage Channels (abandon), Manage Server (purge, finished
  games only), or the user forgetting themselves (only their own id goes); seats change only by the actor.

`run_fuzz(seed, steps, db)` returns the counts; tests/bot/test_fuzz.py runs a few hundred steps in CI,
benchmarks/bench_fuzz.py many more, also on a packaged map and with German-speaking members and server.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from bot.outbox.posting import META_FOLLOW_UP
from bot.texts import private
from bot.words import i18n
from engine.maps import Map
from offline import OfflineDiscord
from offline.faults import ProcessKilled
from offline.payloads import DEFAULT_MEMBER_PERMISSIONS, FakeUser
from offline.records import HarnessError, InteractionResult, StoredMessage
from offline.world import _current
from tests.bot.driver import WALLS_MAP, Clock, bot_factory
from tests.bot.fuzz_crashes import Crashes
from tests.bot.fuzz_disk import FullDisk
from tests.bot.fuzz_faults import Outage

MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADMINISTRATOR = 1 << 3
PLAYERS = ("ann", "ben", "cyd", "dot", "eve")

# Strings a player might type, and strings nobody should.
PLAUSIBLE = [
    "A1",
    "B2",
    "D7",
    "1",
    "2",
    "3",
    "n1",
    "j",
    "supply",
    "face-up 1",
    "P1",
    "off",
    "-",
    "22:00-08:00",
    "Europe/Paris",
    "Europe",
    "UTC",
    "0",
    "-1",
    "Q9",
    "lyre",
    "horse",
    "amphora",
]
ODD = [
    "\u202eevil",
    "a\u0000b",
    "😀" * 40,
    "ἀλέξανδρος",
    "\u200b",
    "<@1>",
    "@everyone",
    "`code`",
    "**b**",
    "../../etc/passwd",
    "%s%s%n",
    "{}",
    "[]",
    "null",
    "DROP TABLE games;",
    "\n\n",
    "ﷺ" * 50,
    "𝕏" * 100,
]


# Commands whose success is public without changing a game: the nudge pings, the board is posted again,
# the ratings and a replay are for everyone to see.
PUBLIC_BY_DESIGN = {
    "alexandros nudge",
    "alexandros board",
    "alexandros ratings leaderboard",
    "alexandros ratings stats",
    "alexandros replay",
    "alexandros game handover",  # the offer is public: the new holder accepts it with its button
    "alexandros game replace",
}

# How often each command is typed, against 1 for the others: enough tables open and start, and games are
# not abandoned or purged before they get going.
WEIGHTS = {
    "alexandros new": 3.0,
    "alexandros table join": 5.0,
    "alexandros table start": 4.0,
    "alexandros move": 4.0,
    "alexandros end": 3.0,
    "alexandros take": 2.0,
    "alexandros abandon": 0.2,
    "alexandros me forget": 0.5,
    "alexandros-admin purge": 0.3,
    "alexandros-admin sync": 0.1,
}


@dataclass
class Counts:
    interactions: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    answers: Counter[str] = field(default_factory=Counter)  # ephemeral / public / autocomplete / update
    changed: int = 0  # interactions that changed a game
    timers: int = 0  # duties the bot handled when time passed (reminders, deadlines, posts)
    games: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    faults: int = 0  # failures armed at Discord's seam (tests/bot/fuzz_faults.py)
    faulted: int = 0  # interactions in which Discord failed a request
    kills: int = 0  # the bot's process killed at a request (tests/bot/fuzz_crashes.py)
    restarts: int = 0  # the bot restarted by its host between steps
    cut_off: int = 0  # interactions in which the process died
    killed_at: Counter[str] = field(default_factory=Counter)  # the request each kill came at
    disk_armed: int = 0  # times the store's next writes were made to fail (tests/bot/fuzz_disk.py)
    writes_failed: int = 0
    disk_full: int = 0  # interactions in which a write failed

    def summary(self) -> str:
        return (
            f"{self.interactions} interactions in {self.seconds:.1f} s: kinds {dict(self.kinds)}; answers "
            f"{dict(self.answers)}; {self.changed} changed a game; {self.timers} duties after time passed; "
            f"{self.games} games {dict(self.statuses)}; "
            + (f"{self.faults} failures armed, {self.faulted} interactions met one; " if self.faults else "")
            + (
                f"{self.kills} kills ({self.cut_off} within an interaction) at {dict(self.killed_at)}, "
                f"{self.restarts} restarts; "
                if self.kills or self.restarts
                else ""
            )
            + (
                f"disk full {self.disk_armed} times, {self.writes_failed} writes failed, "
                f"{self.disk_full} interactions met one; "
                if self.disk_armed
                else ""
            )
            + f"{len(self.problems)} problems"
        )


def random_text(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.35:
        return rng.choice(PLAUSIBLE)
    if pick < 0.55:
        return rng.choice(ODD)
    if pick < 0.75:
        n = rng.choice((1, 5, 40, 120, 300, 1000))
        return "".join(
            chr(
                rng.choice(
                    (
                        rng.randint(32, 126),
                        rng.randint(0x370, 0x3FF),
                        rng.randint(0x1F300, 0x1F64F),
                        rng.randint(0x4E00, 0x4E80),
                    )
                )
            )
            for _ in range(n)
        )
    return rng.choice(PLAUSIBLE) * rng.randint(20, 300)


# The delivery worker's own bookkeeping: which message is a game's turn post or status message, which duty
# went last as a follow-up. A commit wakes the worker, which delivers every due duty, of other games too:
# that is not the asker changing them (a slower store, such as PostgreSQL, lets it land in the next step).
DELIVERY_META = {"turn_post", "status_post", "status_unpin", "pin_refused", META_FOLLOW_UP}


def _snapshot_key(rec: Any, meta: dict[str, Any]) -> tuple[Any, ...]:
    return (
        rec.status,
        rec.version,
        rec.seats,
        rec.created_by,
        rec.options,
        rec.waiting_on,
        sorted((k, v) for k, v in meta.items() if k not in DELIVERY_META),
    )


_KEY_FIELDS = ("status", "version", "seats", "created_by", "options", "waiting_on", "meta")


def _what_changed(before: tuple[Any, ...] | None, after: tuple[Any, ...] | None) -> str:
    """What of a game's snapshot key (``_snapshot_key``) changed, for a problem's report."""
    if before is None or after is None:
        return "created" if before is None else "deleted"
    changed = [(name, b, a) for name, b, a in zip(_KEY_FIELDS, before, after, strict=True) if b != a]
    return "; ".join(f"{name} {b!r:.120} -> {a!r:.120}" for name, b, a in changed)


def _delivering() -> bool:
    """Whether this runs within one of the delivery worker's deliveries (a deadline played, a turn skipped):
    the bot's own work, though the worker's task may have been started within someone's interaction (a
    commit wakes it), whose context it then carries. Told by the calls running now (an awaiting coroutine's
    frame is the caller of the one it awaits), whatever wraps the delivery (fuzz_faults does)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_qualname.startswith("Deliveries._deliver"):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


class _Commits:
    """The game of every commit the pipeline makes (``Pipeline.on_events``), and whether an interaction made
    it. The bot's own work (a computer's turn, a deadline) runs in the delivery worker, outside any
    interaction: when it lands while someone's interaction runs (a slower store, such as PostgreSQL, makes
    that likelier), that person did not make it."""

    def __init__(self) -> None:
        self.commits: list[tuple[int, bool]] = []

    def watch(self, pipeline: Any) -> Callable[[], None]:
        """Note the pipeline's commits (after whatever it told before); returns how to stop."""
        before = pipeline.on_events

        def on_events(game_id: int, version: int, events: tuple[Any, ...]) -> None:
            self.commits.append((game_id, _current.get() is not None and not _delivering()))
            if before is not None:
                before(game_id, version, events)

        pipeline.on_events = on_events

        def stop() -> None:
            pipeline.on_events = before

        return stop

    def bots_own(self, since: int) -> set[int]:
        """The games only the bot's own work changed since the ``since``-th commit."""
        made = self.commits[since:]
        return {g for g, by_someone in made if not by_someone} - {g for g, by_someone in made if by_someone}


class Fuzzer:
    def __init__(
        self,
        d: OfflineDiscord,
        rng: random.Random,
        channels: list[int],
        members: list[FakeUser],
        clock: Clock,
        outage: Outage | None = None,
        crashes: Crashes | None = None,
        disk: FullDisk | None = None,
    ) -> None:
        self.d = d
        self.clock = clock
        self.outage = outage  # Discord failing now and then (tests/bot/fuzz_faults.py)
        self.crashes = crashes  # the bot's process killed, or restarted (tests/bot/fuzz_crashes.py)
        self.disk = disk  # the store's writes failing now and then (tests/bot/fuzz_disk.py)
        self.rng = rng
        self.channels = channels
        self.members = members
        self.counts = Counts()
        self.commits = _Commits()
        self._mark = 0  # the commits before the last snapshot
        self.unwatch: Callable[[], None] = lambda: None

    def watch(self) -> None:
        """Note the running bot's commits (``commits``), from now on."""
        self.unwatch()
        self.unwatch = self.commits.watch(self.d.bot.pipeline)

    async def _new_bot(self, start: Callable[[], Awaitable[Any]]) -> None:
        self.unwatch()
        await start()
        self.watch()
        if self.outage is not None:
            self.outage.attach()
        if self.disk is not None:
            self.disk.attach()

    async def alive(self) -> None:
        """A new bot, if the last one's process died (tests/bot/fuzz_crashes.py)."""
        if self.crashes is not None and self.d.dead:
            await self._new_bot(self.crashes.revive)

    # --- the world's state, before and after ------------------------------------------------------------

    async def snapshot(self) -> dict[int, Any]:
        await self.alive()
        self._mark = len(self.commits.commits)
        store = self.d.bot.store
        out: dict[int, Any] = {}
        for rec in await store.list_games():
            out[rec.id] = (rec, _snapshot_key(rec, await store.get_game_meta(rec.id)))
        return out

    def guild_of(self, channel_id: int) -> int | None:
        ch = self.d.channels.get(channel_id)
        if ch is None:
            return None
        parent = ch.get("parent_id")
        if parent and int(parent) in self.d.channels and ch.get("type") in (11, 12):
            return self.guild_of(int(parent))
        return int(ch["guild_id"]) if ch.get("guild_id") else None

    def may(self, user: FakeUser, bit: int) -> bool:
        return bool(user.permissions & (bit | ADMINISTRATOR))

    def check_changes(
        self,
        label: str,
        user: FakeUser,
        channel_id: int,
        before: dict[int, Any],
        after: dict[int, Any],
        bots_own: Collection[int] = (),
    ) -> bool:
        """Problems for every change the actor was not allowed to make (``bots_own``: games only the bot's
        own work changed meanwhile, judged by nobody); True if anything changed."""
        changed = False
        guild = self.guild_of(channel_id)
        for gid in set(before) | set(after):
            b, a = before.get(gid), after.get(gid)
            if b is not None and a is not None and b[1] == a[1]:
                continue
            if gid in bots_own and b is not None and a is not None:
                continue
            changed = True
            meta_before = dict(b[1][6]) if b is not None else {}
            meta_after = dict(a[1][6]) if a is not None else {}
            problem = self._judge(
                label, user, channel_id, guild, b and b[0], a and a[0], meta_before, meta_after
            )
            if problem:
                what = _what_changed(b[1] if b else None, a[1] if a else None)
                self.counts.problems.append(f"{label}: game {gid}: {problem} [{what}]")
        return changed

    def _judge(
        self,
        label: str,
        user: FakeUser,
        channel_id: int,
        guild: int | None,
        b: Any,
        a: Any,
        meta_before: dict[str, Any] | None = None,
        meta_after: dict[str, Any] | None = None,
    ) -> str | None:
        uid = user.id
        if b is None:  # a new game
            if a.created_by != uid:
                return "created for someone else"
            if a.guild_id != guild:
                return "created in another server"
            ch = self.d.channels.get(a.channel_id, {})
            if a.channel_id != channel_id and int(ch.get("parent_id") or 0) != channel_id:
                return "created in another channel"
            return None
        if a is None:  # deleted
            if "purge" not in label:
                return "deleted by something else than a purge"
            if not self.may(user, MANAGE_GUILD):
                return "purged without Manage Server"
            if b.guild_id != guild:
                return "purged in another server"
            if b.status not in ("finished", "abandoned"):
                return "purged while not over"
            return None
        seated_before = uid in b.user_ids
        forgotten = (
            not seated_before
            and uid not in a.user_ids
            and (b.created_by == uid or str(uid) in str(b.options))
        )
        named = str(uid) in str(b.options) or str(uid) in str(meta_before or {})
        if "forget" in label and (seated_before or b.created_by == uid or named):
            # A moderator who paused a game or offered a seat there is named in it without a seat (issue 27).
            # Forgetting oneself reaches every game: only the actor's own id may go, nothing else moves.
            if a.version != b.version or a.status != b.status:
                return "a forget changed the game itself"
            if b.status in ("lobby", "playing") and seated_before:
                return "forgotten while seated in a game not over"
            others_b = {u for u in b.user_ids if u != uid}
            if (
                # the forgotten id becomes a pseudonym (a large negative id); computer seats stay (-1 to -99)
                others_b != {u for u in a.user_ids if u > -100}
                or uid in a.user_ids
                or str(uid) in str(a.options)
                or str(uid) in str(meta_after or {})
            ):
                return "a forget touched someone else, or left the user"
            return None
        del forgotten
        if a.guild_id != guild:
            return f"changed from another server ({a.guild_id}, asked in {guild})"
        gone = set(b.user_ids) ^ set(a.user_ids)
        if label.startswith("alx:seatok:"):
            # Accepting a seat offered to you (by its holder, the creator or a moderator): one seat changes
            # hands, to you; whether the offer was real is bot.commands.seats' check
            # (tests/bot/test_seats.py).
            if uid not in a.user_ids or len(set(b.user_ids) - set(a.user_ids)) > 1:
                return "a seat accepted by someone else than its taker"
            return None
        if label == "alexandros table add-computer":
            # The creator seats a computer player in the lobby: one new seat, a computer's (negative id).
            if b.created_by != uid:
                return "a computer seated by someone else than the creator"
            added, lost = set(a.user_ids) - set(b.user_ids), set(b.user_ids) - set(a.user_ids)
            if b.status != "lobby" or a.status != "lobby" or lost or len(added) != 1 or min(added) >= 0:
                return "seating a computer changed more than one new computer seat"
            return None
        if gone - {uid}:
            return f"seats of others changed: {sorted(gone - {uid})}"
        if b.status == "lobby" and a.status == "playing" and b.created_by != uid:
            return "started by someone else than its creator"
        if a.status == "abandoned" and b.status != "abandoned":
            if b.created_by != uid and not self.may(user, MANAGE_CHANNELS):
                return "abandoned without permission"
            return None
        if label == "alexandros game replace":
            # The creator or a member with Manage Channels offers a gone player's seat to someone else,
            # whether seated or not: only the offer is written (game meta); the seat changes hands when the
            # offer is accepted (alx:seatok, above).
            if b.created_by != uid and not self.may(user, MANAGE_CHANNELS):
                return "a seat offered by someone not allowed to"
            if (a.version, a.seats, a.status, a.options) != (b.version, b.seats, b.status, b.options):
                return "an offer changed more than the game's meta"
            return None
        if label in ("alexandros game pause", "alexandros game resume"):
            # The creator or a member with Manage Channels may pause a game they do not play in.
            if b.created_by != uid and not self.may(user, MANAGE_CHANNELS):
                return "paused or resumed without permission"
            if (a.seats, a.status) != (b.seats, b.status):
                return "a pause changed more than the game's options"
            if a.version != b.version:
                # Resumed at an autoplay table, the turns of players marked absent are played at once by
                # the computer (bot.outbox.pipeline.deadline_for), up to the first player who is not absent.
                absent = set((meta_before or {}).get("absent") or ())
                autoplay = a.options.get("deadline_policy") == "autoplay"
                if label != "alexandros game resume" or not autoplay or not absent:
                    return "a pause changed more than the game's options"
                if a.waiting_on in absent:
                    return "a resume played on past a player who is not absent"
            return None
        if not seated_before and not (b.status == "lobby" and uid in a.user_ids):
            return "changed by someone not seated"
        return None

    # --- one step --------------------------------------------------------------------------------------

    async def step(self) -> None:
        rng = self.rng
        await self.alive()
        if self.crashes is not None and self.crashes.maybe_arm():
            await self._new_bot(self.d.restart)
        user, channel = rng.choice(self.members), rng.choice(self.channels)
        # Half the time the player a game waits for acts in its channel, so that games move on and reach
        # their ends (and their selects, previews and stale buttons get pressed).
        playing = await self.d.bot.store.list_games(status="playing")
        if playing and rng.random() < 0.5:
            game = rng.choice(playing)
            by_id = {m.id: m for m in self.members}
            if game.waiting_on in by_id and game.channel_id in self.d.channels:
                user, channel = by_id[game.waiting_on], game.channel_id
        if self.outage is not None:
            self.outage.maybe_arm()
        if self.disk is not None:
            self.disk.maybe_arm()
        if rng.random() < 0.03:  # time passes: a purge finds old games, a nudge is allowed again
            self.clock.now += rng.choice((60.0, 3600.0, 2 * 86400.0, 40 * 86400.0))
            # What came due (reminders, deadlines: a turn skipped or played by the computer) is the bot's
            # own doing, not the next actor's: it happens here, outside any interaction.
            try:
                self.counts.timers += await self.d.bot.deliveries.drain()
            except (ProcessKilled, asyncio.CancelledError):
                # The process died within (fuzz_crashes): its store's group commit takes the end for a
                # cancellation, and says so to the finishes it was writing.
                if not self.d.dead or asyncio.current_task().cancelling():  # type: ignore[union-attr]
                    raise
            except Exception as error:
                # The disk was full (fuzz_disk): the worker's round fails, as Deliveries.run_forever's
                # does (logged there), and the next round takes it up.
                if not (self.disk is not None and FullDisk.its_own(error)):
                    raise
        pick = rng.random()
        if pick < 0.45:
            await self.slash(user, channel)
        elif pick < 0.75:
            await self.component(user, select=False)
        elif pick < 0.9:
            await self.component(user, select=True)
        elif pick < 0.95:
            await self.autocomplete(user)
        else:
            await self.modal(user)

    async def observe(
        self, kind: str, label: str, user: FakeUser, channel_id: int, run: Any, before: dict[int, Any]
    ) -> None:
        writes_failed = self.disk.failed if self.disk is not None else 0
        try:
            r: InteractionResult = await run
        except HarnessError as err:
            if "lacks the permissions" in str(err) or "no option" in str(err) or "is outside" in str(err):
                return  # the client would not send it
            raise
        died = self.d.dead  # the bot's process died within this interaction (tests/bot/fuzz_crashes.py)
        self.counts.cut_off += died
        # The store failed a write of this interaction's (tests/bot/fuzz_disk.py): the bot may apologise.
        full = self.disk is not None and self.disk.failed > writes_failed
        self.counts.disk_full += full
        c = self.counts
        c.interactions += 1
        c.kinds[kind] += 1
        own = self.commits.bots_own(self._mark)
        after = await self.snapshot()
        changed = self.check_changes(label, user, channel_id, before, after, own)
        c.changed += changed
        where = f"{label} by {user.name} in {channel_id}"
        # Discord failed a request of this interaction (tests/bot/fuzz_faults.py): the bot may apologise then,
        # and if it was the interaction's own answer, whether the member saw one is up to Discord. The bot
        # must still log no error, and change nothing it may not.
        failed = self.outage is not None and self.outage.failed(r)
        if not r.answered and not (failed and Outage.answer_failed(r)) and not died:
            c.problems.append(f"{where}: not answered")
            return
        for e in r.errors:
            if not (self.disk is not None and FullDisk.its_own(e)):
                c.problems.append(f"{where}: error logged: {e}")
        for v in r.violations:
            c.problems.append(f"{where}: Discord limit broken: {v}")
        if not r.answered:
            return
        texts_seen = [r.content or ""] + [(q.content or "") for q in r.requests if q.is_message]
        if not (failed or died or full) and any(apology in t for t in texts_seen for apology in _apologies()):
            c.problems.append(f"{where}: the generic error")
        if r.type == 8:
            c.answers["autocomplete"] += 1
        elif r.ephemeral:
            c.answers["ephemeral"] += 1
        else:
            c.answers["public" if r.type in (4, 5) else "update"] += 1
            if not changed and label not in PUBLIC_BY_DESIGN and not (failed or died or full):
                c.problems.append(
                    f"{where}: answered publicly without changing anything: {(r.content or '')[:120]!r}"
                )

    async def slash(self, user: FakeUser, channel: int | None = None) -> None:
        rng, d = self.rng, self.d
        channel = channel or rng.choice(self.channels)
        paths = d.command_paths(channel_id=channel)
        path = rng.choices(paths, [WEIGHTS.get(p, 1.0) for p in paths])[0]
        options: dict[str, Any] = {}
        for o in d.command_options(path, channel_id=channel):
            if not o.get("required") and rng.random() < 0.5:
                continue
            value = await self.value(user, path, o, options, channel)
            if value is not None:
                options[o["name"]] = value
        before = await self.snapshot()
        await self.observe(
            "slash",
            path,
            user,
            channel,
            d.slash(user, path, options, channel_id=channel, check=False),
            before,
        )

    async def value(
        self, user: FakeUser, path: str, o: dict[str, Any], given: dict[str, Any], channel: int
    ) -> Any:
        rng = self.rng
        t = o["type"]
        if o.get("choices"):
            return rng.choice(o["choices"])["value"]
        if t == 5:
            return rng.random() < 0.5
        if t in (4, 10):
            lo, hi = o.get("min_value", -5), o.get("max_value", 1000)
            n = rng.choice((lo, hi, rng.uniform(lo, hi)))
            return int(n) if t == 4 else round(float(n), 3)
        if t == 3:
            if o.get("autocomplete") and not self.d.dead and rng.random() < 0.6:
                got = await self.d.autocomplete(
                    user, path, focused=o["name"], value="", options=given, channel_id=channel, check=False
                )
                if got:
                    return rng.choice(got)["value"]
            text = random_text(rng)
            return text[: o.get("max_length", 6000)] or "x"
        if t in (6, 9):  # a user (or a mentionable): any member, the asker included
            return rng.choice(self.members)
        return None

    def visible(self, user: FakeUser, select: bool) -> list[tuple[StoredMessage, dict[str, Any]]]:
        out = []
        for m in self.d.messages.values():
            if m.deleted or (m.ephemeral and m.ephemeral_to != user.id):
                continue
            for comp in m.walk_components():
                if (
                    comp.get("custom_id")
                    and (comp.get("type") in (3, 5, 6, 7, 8)) == select
                    and not comp.get("disabled")
                ):
                    out.append((m, comp))
        return out

    async def component(self, user: FakeUser, select: bool) -> None:
        rng, d = self.rng, self.d
        found = self.visible(user, select)
        if not found:
            await self.slash(user)
            return
        if not select:  # mostly the buttons that move a game: join, start, the turn's
            moving = [
                f
                for f in found
                if f[1]["custom_id"].split(":")[1] in ("join", "start", "move", "acts", "end")
            ]
            if moving and rng.random() < 0.6:
                found = moving
        msg, comp = rng.choice(found[-30:] if rng.random() < 0.7 else found)  # mostly recent ones
        cid = comp["custom_id"]
        before = await self.snapshot()
        kind = "select" if select else "button"
        if rng.random() < 0.15:
            # What an older version of the bot put there: another version, another game, an unknown kind.
            parts = cid.split(":")
            mutation = rng.choice(("version", "game", "kind", "junk"))
            if mutation == "version" and len(parts) > 3:
                parts[3] = str(rng.randint(0, 500))
            elif mutation == "game" and len(parts) > 2:
                parts[2] = str(rng.randint(0, 10**18))
            elif mutation == "kind" and len(parts) > 1:
                parts[1] = rng.choice(("zz", "old", "mv", "x"))
            else:
                parts.append(random_text(rng)[:20].replace(":", ""))
            stale = ":".join(parts)[:100]
            # The message as an older version of the bot left it: the component carried this custom_id.
            comp["custom_id"] = stale
            try:
                if select:
                    first = [o["value"] for o in comp.get("options") or []][:1]
                    run = d.select(user, msg.id, stale, first, check=False)
                else:
                    run = d.click(user, msg.id, stale, check=False)
                await self.observe(f"stale-{kind}", stale, user, msg.channel_id, run, before)
            finally:
                comp["custom_id"] = cid
            return
        if not select:
            await self.observe(
                kind, cid, user, msg.channel_id, d.click(user, msg.id, cid, check=False), before
            )
            return
        values = [o["value"] for o in comp.get("options") or []]
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        n = rng.randint(lo, max(lo, min(hi, len(values))))
        chosen = rng.sample(values, min(n, len(values)))
        await self.observe(
            kind, cid, user, msg.channel_id, d.select(user, msg.id, cid, chosen, check=False), before
        )

    async def autocomplete(self, user: FakeUser) -> None:
        rng, d = self.rng, self.d
        channel = rng.choice(self.channels)
        candidates = [
            (p, o)
            for p in d.command_paths(channel_id=channel)
            for o in d.command_options(p, channel_id=channel)
            if o.get("autocomplete")
        ]
        path, o = rng.choice(candidates)
        before = await self.snapshot()
        self.counts.interactions += 1
        self.counts.kinds["autocomplete"] += 1
        got = await d.autocomplete(
            user, path, focused=o["name"], value=random_text(rng)[:100], channel_id=channel, check=False
        )
        self.counts.answers["autocomplete"] += 1
        for e in self.d.history[-1].errors:
            self.counts.problems.append(f"autocomplete {path} {o['name']}: error logged: {e}")
        if len(got) > 25 or any(len(c["name"]) > 100 or len(str(c["value"])) > 100 for c in got):
            self.counts.problems.append(f"autocomplete {path} {o['name']}: over Discord's limits")
        if self.check_changes(f"autocomplete {path}", user, channel, before, await self.snapshot()):
            self.counts.problems.append(f"autocomplete {path}: changed a game")

    async def modal(self, user: FakeUser) -> None:
        """A modal submit the bot never showed (one an older version showed before a restart)."""
        rng = self.rng
        channel = rng.choice(self.channels)
        cid = rng.choice(("alx:old:1", "alxm:guards:1:2", "modal:" + random_text(rng)[:40], "x"))
        data = {
            "custom_id": cid[:100],
            "components": [
                {"type": 1, "components": [{"type": 4, "custom_id": "f", "value": random_text(rng)[:400]}]}
            ],
        }
        before = await self.snapshot()
        await self.observe(
            "modal", cid, user, channel, self.d.stale(user, 5, data, channel_id=channel, check=False), before
        )


@cache
def _apologies() -> tuple[str, ...]:
    """The generic apologies in every language the bot speaks (a German member reads them in German)."""
    out: list[str] = []
    for lang in i18n.LANGUAGES:
        with i18n.speaking(lang):
            out += [private.oops(), private.oops_applied()]
    return tuple(out)


async def run_fuzz(
    seed: int,
    steps: int,
    db: str,
    *,
    seconds: float | None = None,
    game_map: Map = WALLS_MAP,
    german: bool = False,
    faults: float = 0.0,
    kills: float = 0.0,
    disk: float = 0.0,
) -> Counts:
    """`steps` random interactions (or until `seconds` pass) on a fresh bot; returns the counts. ``german``:
    every other player and the admin speak German, and so does the second server. ``faults``: the chance,
    each step, that Discord fails one more request (tests/bot/fuzz_faults.py), checked once it is well.
    ``kills``: the chance, each step, that the bot's process is armed to die at a request, or is restarted
    (tests/bot/fuzz_crashes.py), checked as ``faults`` are. ``disk``: the chance, each step, that the store's
    next writes fail as on a full disk (tests/bot/fuzz_disk.py), checked the same way."""
    rng = random.Random(seed)
    clock = Clock()
    d = OfflineDiscord(
        bot_factory(db, game_map, seed, clock=clock),
        guild_name="first server",
        channel_name="game",
        loggers=("bot",),
        watched_tasks=("alx-",),
        strict=False,
    )
    second = d.add_guild("second server")
    channels = [d.channel_id, d.add_channel("game-2"), d.add_channel("elsewhere", guild_id=second)]
    members = [d.member(n) for n in PLAYERS]
    members.append(d.member("mod", permissions=DEFAULT_MEMBER_PERMISSIONS | MANAGE_CHANNELS))
    members.append(d.member("admin", permissions=DEFAULT_MEMBER_PERMISSIONS | MANAGE_GUILD | MANAGE_CHANNELS))
    if german:
        d.set_guild_locale("de", second)
        for member in [*members[2:-2:2], members[-1]]:
            member.locale = "de"
    started = time.monotonic()
    async with d:
        outage = Outage(d, random.Random(seed + 1), faults) if faults or kills or disk else None
        crashes = Crashes(d, random.Random(seed + 2), kills) if kills else None
        full_disk = FullDisk(d, random.Random(seed + 3), disk) if disk else None
        fuzzer = Fuzzer(d, rng, channels, members, clock, outage, crashes, full_disk)
        fuzzer.watch()
        try:
            for _ in range(steps):
                await fuzzer.step()
                if seconds is not None and time.monotonic() - started > seconds:
                    break
            await fuzzer.alive()
            if full_disk is not None:
                full_disk.settle()
                fuzzer.counts.disk_armed, fuzzer.counts.writes_failed = full_disk.armed, full_disk.failed
            if outage is not None:
                fuzzer.counts.problems += await outage.settle(clock)
                fuzzer.counts.faults, fuzzer.counts.faulted = outage.armed, outage.excused
            if crashes is not None:
                fuzzer.counts.problems += await crashes.waiting_on_nobody()
                fuzzer.counts.kills, fuzzer.counts.restarts = crashes.kills, crashes.restarts
                fuzzer.counts.killed_at = crashes.at
        finally:
            fuzzer.unwatch()
            if outage is not None:
                outage.close()
            if crashes is not None:
                crashes.close()
        counts = fuzzer.counts
        # What the bot logged as an error outside any interaction (the delivery worker's rounds after time
        # passed, a restart): its own work failing, with nobody to answer.
        counts.problems += [
            f"error logged outside any interaction: {e}"[:3000]
            for e in d.take_errors()
            if not (full_disk is not None and FullDisk.its_own(e))
        ]
        games = await d.bot.store.list_games()
        counts.games = len(games)
        counts.statuses = Counter(g.status for g in games)
    counts.seconds = time.monotonic() - started
    return counts
