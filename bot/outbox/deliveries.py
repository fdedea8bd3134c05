"""The delivery worker: sends the outbox's duties to Discord, in order per channel, until each is done.

Duties are written by the commit that causes them (bot.outbox.pipeline, bot.outbox.duties). The worker claims
due ones under a lease (storage ``claim_duties``: a channel's duties one at a time, oldest first, only for
this process's shards), sends each, and marks it done. What can go wrong, and what happens then:

- Discord 5xx, a timeout or a dropped connection: tried again with exponential back-off (1 s, 2 s, 4 s …
  at most 5 minutes) for as long as ``give_up_after`` (a day) from when the duty fell due, so that a turn
  post, its ping or a reminder outlives an outage of Discord or of the host's network; then given up.
- A bug of ours (any other exception): the same back-off, but ``max_attempts`` times at most (about 18
  minutes), so that one duty that can never be sent does not hold its channel's later duties for a day.
- 429 Too Many Requests: tried again after its Retry-After, as long as a 5xx. (discord.py paces the
  per-route buckets and waits out a global 429 by itself; this catches what it gives up on.)
- Discord's global limit (50 requests a second per bot): the worker paces its own sends below it
  (``rate``, 45 a second by default, in a token bucket), so that a backlog of reminders drains at full
  speed without a storm of 429s; interaction answers are not counted by Discord and are not paced, nor
  are the posts and turn post edits that go out on an interaction's lane (bot.outbox.lanes).
- 403 or 404 (channel deleted, permission missing): given up at once, logged with its game. The game
  goes on: its reminders and deadlines are duties of their own and still fall due, and a reminder given
  up still plans the next one (bot.outbox.timers ``given_up``).
- The process dies mid-send: the lease runs out and the duty is sent again. A new message carries a
  nonce made from the duty's id, which Discord enforces (``enforce_nonce``), so the retry returns the
  message the first attempt made instead of posting it twice; edits are the same edit again.
- Leases are short (``LEASE``, 12 s), so that a dead process's channels go on within 20 s, and renewed
  while a delivery runs (every ``RENEW_EVERY``, 4 s, one write for all this worker holds), so that a long
  delivery (a slow picture, Discord slow to answer) keeps its duty and is never sent twice. A send is cut
  off after ``SEND_TIMEOUT`` (30 s) and tried again, so that a send that never ends does not hold its
  channel for ever under a lease renewed for ever.
- The store fails (a full disk, a lost database): the round is logged and started again after a short
  back-off (``STORE_BACKOFF``, doubling up to ``STORE_BACKOFF_CAP``), for as long as it fails; the worker
  is never left dead. A duty whose outcome could not be written stays leased and is sent again once its
  lease runs out (the nonce makes that the same message).

What a post, a turn post's edit or the lobby's edit is on Discord (its picture, buttons, ping, lane) is
bot.outbox.posting's; timers (reminders, deadlines) are handed to bot.outbox.timers, which decides whether
they still apply, and other kinds to the handlers registered in ``Deliveries.handlers``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import discord

from storage import Duty, GameStore, LeaseLost, ShardSlice

from ..games.pictures import Pictures
from ..process import metrics, outages
from ..process.tasks import wait_for_event
from ..words import i18n
from . import duties as dt
from .lanes import Lanes
from .posting import Posting

log = logging.getLogger("bot.outbox.deliveries")

Clock = Callable[[], float]

BACKOFF_CAP = 300.0  # seconds
LEASE = 12.0  # seconds a claimed duty is this worker's unless renewed: at most a dead worker's channels wait
RENEW_EVERY = 4.0  # seconds between renewals of what is being delivered: one may fail, the next is in time
SEND_TIMEOUT = 30.0  # seconds a send may take before it is cut off and tried again
STORE_BACKOFF = 0.5  # seconds before a round the store failed is tried again, doubling ...
STORE_BACKOFF_CAP = 15.0  # ... up to this


class Retry(Exception):
    """Send again later (``after`` seconds from now). ``discord``: the failure was Discord's or the
    network's (5xx, 429, a timeout), not a bug of ours, and is tried again for longer."""

    def __init__(self, after: float, why: str, discord: bool = True) -> None:
        super().__init__(why)
        self.after = after
        self.discord = discord


class GiveUp(Exception):
    """This duty cannot be delivered; log it and move on."""


class TimerHandler(Protocol):
    async def handle(self, duty: Duty, now: float) -> str: ...

    async def given_up(self, duty: Duty, now: float) -> None: ...


def classify(error: BaseException, attempts: int) -> Retry | GiveUp:
    """What a failed send means: try again after a while, or give up."""
    backoff = min(BACKOFF_CAP, 2.0 ** max(0, attempts - 1))
    if isinstance(error, discord.RateLimited):
        return Retry(max(error.retry_after, 0.5), f"rate limited for {error.retry_after:.1f} s")
    if isinstance(error, discord.HTTPException):
        if error.status == 429:
            told = _retry_after(error)  # Retry-After may be 0.0 (a token is nearly due): not the back-off
            after = backoff if told is None else max(told, 0.05)
            return Retry(after, f"429 Too Many Requests (retry after {after:.1f} s)")
        if error.status >= 500:
            return Retry(backoff, f"{error.status} {error.text or 'server error'}")
        return GiveUp(f"{error.status} {error.text or type(error).__name__} (code {error.code})")
    if isinstance(error, outages.NETWORK):
        return Retry(backoff, f"{type(error).__name__}: {error}")
    return Retry(backoff, f"{type(error).__name__}: {error}", discord=False)


def _retry_after(error: discord.HTTPException) -> float | None:
    headers = getattr(error.response, "headers", None) or {}
    try:
        return float(str(headers.get("Retry-After")))
    except ValueError:
        return None


class Pacer:
    """At most ``rate`` starts a second on average, with bursts of ``burst`` (a token bucket)."""

    def __init__(self, rate: float, burst: float = 10.0) -> None:
        self.rate = rate
        self.burst = burst
        self._next = 0.0  # when the next start is due, ignoring bursts

    async def wait(self) -> None:
        now = asyncio.get_running_loop().time()
        slot = max(self._next, now - self.burst / self.rate)
        self._next = slot + 1.0 / self.rate
        if slot > now:
            await asyncio.sleep(slot - now)


class Deliveries:
    """Claims and sends duties. ``wake()`` after a commit; ``run_forever()`` for timers and retries."""

    def __init__(
        self,
        client: discord.Client,
        store: GameStore,
        pictures: Pictures,
        clock: Clock,
        *,
        shards: ShardSlice | None = None,
        lease: float = LEASE,
        renew_every: float | None = None,
        send_timeout: float = SEND_TIMEOUT,
        batch: int = 100,
        rate: float | None = 45.0,
        max_attempts: int = 12,
        give_up_after: float = 86400.0,
        keep_done_days: float = 30.0,
        owner: str | None = None,
        lanes: Lanes | None = None,
    ) -> None:
        self.store = store
        self.posting = Posting(client, store, pictures, clock, lanes)  # what each of its own kinds sends
        self.clock = clock
        self.shards = shards
        self.lease = lease
        self.renew_every = renew_every if renew_every is not None else min(RENEW_EVERY, lease / 3)
        self.send_timeout = send_timeout
        self.batch = batch  # claimed at once and sent side by side (two seconds of sends at ``rate``)
        self.pacer = Pacer(rate) if rate else None
        self.max_attempts = max_attempts  # for a bug of ours; Discord's failures: give_up_after
        self.give_up_after = give_up_after
        self.keep_done_days = keep_done_days
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self.timers: TimerHandler | None = None
        # Duty kinds handled elsewhere, by kind (bot.outbox.notices: ``dm``; bot.commands.dashboard:
        # ``status``; ratings and replays: ``rate``, ``replay``), registered by bot.client.
        self.handlers: dict[str, Callable[[Duty, float], Awaitable[str]]] = {}
        self._wake = asyncio.Event()
        self._drain: asyncio.Task[int] | None = None
        self._sending: set[asyncio.Future[None]] = set()  # every duty being delivered, whichever round
        self._held: dict[int, Duty] = {}  # claimed and not finished nor given back: renewed while here
        self._renewer: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()  # nothing held: the renewer ends at once instead of at its next turn
        self._closed = asyncio.Event()  # cuts a back-off short when closing
        self._again = False
        # The rounds running now, each told of a commit (``wake``) by its own nudge: a round waiting for a
        # slow delivery (a computer thinking) claims the commit's duties at once, not after that delivery.
        self._nudges: set[Callable[[], None]] = set()
        self.closing = False
        self.delivered = 0
        self.failed = 0
        self.paced = 0  # deliveries that waited for the pacer (those counted against the global limit)

    # --- scheduling ------------------------------------------------------------------------------------

    @property
    def in_flight(self) -> int:
        """Duties claimed by this worker and not yet finished (bot.process.metrics)."""
        return len(self._sending)

    def wake(self) -> None:
        """A commit wrote duties: deliver them now (in a task of its own, named for the test harness)."""
        self._wake.set()
        if self.closing:
            return
        for nudge in self._nudges:
            nudge()
        if self._drain is not None and not self._drain.done():
            self._again = True
            return
        self._drain = asyncio.get_running_loop().create_task(self._drain_loop(), name="alx-deliver")

    async def _drain_loop(self) -> int:
        """The commits' delivery task, supervised: a round that fails (the store's error: a full disk) is
        logged and started again after a back-off, until it succeeds or the worker closes."""
        total, failures = 0, 0
        while True:
            self._again = False
            try:
                total += await self.drain()
            except Exception:  # noqa: BLE001 - logged; the worker must not be left dead
                failures += 1
                wait = self._store_backoff(failures)
                log.exception("the delivery round failed (%d in a row); again in %.1f s", failures, wait)
                if await self._rest(wait):
                    return total
                self._again = True
                continue
            failures = 0
            if not self._again or self.closing:
                return total

    @staticmethod
    def _store_backoff(failures: int) -> float:
        return min(STORE_BACKOFF_CAP, STORE_BACKOFF * 2.0 ** max(0, failures - 1))

    async def _rest(self, seconds: float) -> bool:
        """Wait `seconds`, or less if the worker closes meanwhile; True when it is closing."""
        if not self.closing:
            await wait_for_event(self._closed, seconds)
        return self.closing

    async def drain(self, now: float | None = None, rounds: int = 10_000) -> int:
        """Deliver every duty due by ``now`` (or by the clock, if later); returns how many were handled.

        A drain started by ``wake`` that is still running is waited for too, so that when this returns,
        everything due has been handled (tests and the first round after a start rely on it), but for
        computers still thinking when ``rounds`` claims were made: those land by themselves.
        """
        handled = 0
        flying: set[asyncio.Future[None]] = set()  # posts, edits and the like in flight
        thinking: set[asyncio.Future[None]] = set()  # deadlines in flight: a computer may think for seconds
        landed: list[asyncio.Future[None]] = []  # done since the loop last looked
        wake = asyncio.Event()
        nudged = [False]  # a commit since the last claim

        def land(sending: asyncio.Future[None]) -> None:
            flying.discard(sending)
            thinking.discard(sending)
            landed.append(sending)
            wake.set()

        def nudge() -> None:
            nudged[0] = True
            wake.set()

        def look() -> None:
            done, landed[:] = list(landed), []
            for task in done:
                task.result()

        self._nudges.add(nudge)
        try:
            more = True  # the last claim found something: claim again as soon as there is room
            for _ in range(rounds):
                if self.closing:  # what is claimed now would be cut off by the store's closing
                    break
                at = self.clock() if now is None else max(now, self.clock())
                nudged[0] = False  # before the claim: a commit during it is claimed by the next one
                claimed = await self.store.claim_duties(
                    at, self.owner, self.lease, self.batch - len(flying), self.shards
                )
                # A duty this worker is still delivering, claimed again because its lease ran out (the loop
                # stalled past it): the lease is this worker's again, and the delivery under way finishes
                # it. A second one could post it twice (one as a follow-up, the other in the channel).
                claimed = [d for d in claimed if d.id not in self._held]
                self._hold(claimed)
                for d in claimed:
                    sending = asyncio.ensure_future(self._deliver(d, at))
                    self._sending.add(sending)
                    sending.add_done_callback(self._sending.discard)
                    sending.add_done_callback(land)
                    (thinking if d.kind == dt.DEADLINE else flying).add(sending)
                handled += len(claimed)
                more = bool(claimed)
                if not flying and not thinking:
                    break
                # No waiting for a whole batch: a slow picture must not hold up the sends behind it. Claim
                # again once half the room is free (everything done, when the last claim found nothing).
                # Each delivery says when it lands (``land``): asyncio.wait on the whole batch added and
                # removed a callback on every duty in flight each time one landed (4 % of the event loop's
                # time). A deadline is not waited for here: a computer thinks for seconds in its delivery.
                while flying and (not more or len(flying) > self.batch // 2):
                    wake.clear()
                    if not landed:
                        await wake.wait()
                    look()
                if thinking and not flying and not more:
                    # Only computers thinking: claim again at the next commit (as a new round would without
                    # them), or when one of them lands. Claiming at every commit while they thought (20
                    # computer tables are always thinking) made more claims of fewer duties: people's
                    # interaction p99 1.29x that without them in bench_computers, where a claim on each
                    # commit beside pictures alone had cost bench_bot about 30 %.
                    wake.clear()
                    if not landed and not nudged[0]:
                        await wake.wait()
                    look()
            else:
                # The round's limit, reached while computers think (20 tables keep a round going): they go on
                # without it, and their commits wake the next. Waiting for all of them held every commit's
                # posts behind the computers' whole queue.
                thinking.clear()
            if flying or thinking:
                await asyncio.gather(*flying, *thinking)
        finally:
            self._nudges.discard(nudge)
        for task in landed:  # what landed while the round claimed, or after its last look
            task.result()
        running = self._drain
        if running is not None and not running.done() and running is not asyncio.current_task():
            handled += await asyncio.shield(running)
        return handled

    async def run_forever(self, poll: float = 60.0) -> None:
        """Deliver as duties fall due: timers, retries after back-off, duties other processes left. Duties
        another process commits for this one's shards wake it at once where the store can hear them
        (PostgreSQL); elsewhere, or while it cannot, ``poll`` bounds the wait."""
        try:
            await self.store.listen_for_duties(self.shards, self.wake)
        except Exception:  # the worker still polls
            log.exception("cannot listen for other processes' duties")
        purged_at, failures = 0.0, 0
        while not self.closing:
            try:
                await self.drain()
                now = self.clock()
                if now - purged_at > 3600:
                    purged_at = now
                    await self.store.purge_done_duties(now - self.keep_done_days * 86400)
                nxt = await self.store.next_duty_at(self.shards)
                wait = poll if nxt is None else min(poll, max(0.05, nxt - self.clock()))
                failures = 0
            except Exception:  # the worker must outlive any one failure: soon again, not after a poll
                failures += 1
                wait = min(poll, self._store_backoff(failures))
                log.exception("the delivery round failed (%d in a row); again in %.1f s", failures, wait)
            self._wake.clear()
            await wait_for_event(self._wake, wait)

    async def close(self, timeout: float = 10.0) -> None:
        """Claim nothing more, and let every duty in flight finish (at most ``timeout`` s), whichever round
        started it (a commit's, or ``run_forever``'s for timers and retries): the store closes next, and a
        send cut off from it would stay leased until the next start, and be sent again then."""
        self.closing = True
        self._closed.set()
        waiting: set[asyncio.Future[Any]] = set(self._sending)
        if self._drain is not None and not self._drain.done():
            waiting.add(asyncio.shield(self._drain))
        try:
            if not waiting:
                return
            done, pending = await asyncio.wait(waiting, timeout=timeout)
            for task in done:
                if not task.cancelled() and task.exception() is not None:
                    log.warning("a delivery failed while closing", exc_info=task.exception())
            if pending:
                log.warning("closing with %d delivery(ies) still running after %.0f s", len(pending), timeout)
        finally:
            # What is still held stays leased until its lease runs out (the store closes next).
            if self._renewer is not None:
                self._renewer.cancel()

    # --- leases ------------------------------------------------------------------------------------------

    def _hold(self, claimed: list[Duty]) -> None:
        """Keep the leases of these claimed duties while they are delivered (``_renew``)."""
        for d in claimed:
            self._held[d.id] = d
        if not self._held:
            return
        self._idle.clear()
        if self._renewer is None or self._renewer.done():
            # Not an "alx-" task: the test harness waits for those after each interaction.
            self._renewer = asyncio.get_running_loop().create_task(self._renew(), name="bot-renew-leases")

    async def _renew(self) -> None:
        """Every ``renew_every`` seconds while this worker holds duties, extend their leases by ``lease``
        from now: one write for all of them. A failed renewal is logged; the next one may still be in time
        (two fit in a lease), and a lease lost meanwhile is told by the store's writes (LeaseLost)."""
        while self._held:
            await wait_for_event(self._idle, self.renew_every)
            ids = list(self._held)
            if not ids:
                return
            try:
                kept = await self.store.renew_duties(ids, self.owner, self.clock() + self.lease)
            except Exception:  # noqa: BLE001 - logged; the renewals go on
                log.exception("renewing the leases of %d duty(ies) failed", len(ids))
                continue
            lost = [i for i in ids if i not in kept and self._held.pop(i, None) is not None]
            if lost:  # another worker answers for them now (this one stalled past the lease): not renewed
                log.warning("duty(ies) %s: lease lost before their delivery ended", lost)

    # --- one duty -------------------------------------------------------------------------------------------

    async def _deliver(self, duty: Duty, now: float) -> None:
        try:
            await self._deliver_once(duty, now)
        except Exception:  # noqa: BLE001 - the store failed to record the outcome (a full disk)
            # The duty stays leased, undone: once its lease runs out it is sent again, with the same nonce.
            log.exception("duty %s (%s) of game %s: its outcome could not be written", duty.id, duty.kind,
                          duty.game_id)  # fmt: skip
        finally:
            self._held.pop(duty.id, None)
            if not self._held:
                self._idle.set()

    async def _deliver_once(self, duty: Duty, now: float) -> None:
        # A deadline sends nothing itself; a post or edit a lane will carry is not counted by Discord.
        if self.pacer is not None and duty.kind != dt.DEADLINE and not self.posting.on_a_lane(duty):
            self.paced += 1
            await self.pacer.wait()
        try:
            # In this task (asyncio.timeout), not a task of its own (wait_for): one task fewer a duty.
            async with asyncio.timeout(self.send_timeout):
                outcome = await self._send(duty, now)
        except LeaseLost:
            # Another worker took the duty over (this one stalled past its lease) and answers for it now.
            log.warning("duty %s (%s) of game %s: lease lost mid-delivery", duty.id, duty.kind, duty.game_id)
            return
        except Exception as error:  # noqa: BLE001 - every failure is classified, none may stop the worker
            verdict = error if isinstance(error, Retry | GiveUp) else classify(error, duty.attempts)
            if isinstance(verdict, Retry) and self._tried_again(duty, verdict, now):
                log.warning(
                    "duty %s (%s) of game %s in channel %s failed (attempt %d), retrying in %.1f s: %s",
                    duty.id, duty.kind, duty.game_id, duty.channel_id, duty.attempts, verdict.after, verdict,
                )  # fmt: skip
                await self.store.retry_duty(duty.id, self.owner, now + verdict.after, str(verdict))
                metrics.DUTIES.labels("retried", duty.kind).inc()
                return
            self.failed += 1
            metrics.DUTIES.labels("failed", duty.kind).inc()
            # A warning, not an error: Discord said no for good (a deleted channel, a missing permission),
            # or kept failing past every retry; the game goes on, and its timers still fall due.
            log.warning(
                "duty %s (%s) of game %s in channel %s given up after %d attempt(s): %s",
                duty.id, duty.kind, duty.game_id, duty.channel_id, duty.attempts, verdict,
            )  # fmt: skip
            await self.store.finish_duty(duty.id, self.owner, self.clock(), f"failed: {verdict}"[:500])
            if self.timers is not None and duty.kind == dt.REMIND:
                await self.timers.given_up(duty, now)
            return
        self.delivered += 1
        metrics.DUTIES.labels("sent", duty.kind).inc()
        await self.store.finish_duty(duty.id, self.owner, self.clock(), outcome)

    def _tried_again(self, duty: Duty, retry: Retry, now: float) -> bool:
        """Whether a failed duty is tried again: Discord's failures for ``give_up_after`` from when it fell
        due, a bug of ours ``max_attempts`` times."""
        if retry.discord:
            return now - max(duty.due_at, duty.created_at) < self.give_up_after
        return duty.attempts < self.max_attempts

    async def _send(self, duty: Duty, now: float) -> str:
        handler = self.posting.kinds.get(duty.kind) or self.handlers.get(duty.kind)
        if handler is not None:
            # What the worker words itself (buttons' labels, a picture's words) speaks the game's language.
            with i18n.speaking(duty.payload.get("locale") or i18n.SOURCE):
                return await handler(duty, now)
        if self.timers is not None and duty.kind in (dt.REMIND, dt.DEADLINE):
            return await self.timers.handle(duty, now)
        raise GiveUp(f"no handler for duty kind {duty.kind!r}")
