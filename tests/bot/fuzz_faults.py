"""Discord failing under the fuzzer (tests/bot/fuzz.py, ``faults=``): transient failures at the offline
Discord's HTTP seam, armed at random while the fuzzer plays, and what must hold once Discord is well again.

A failure is a 5xx, a 429 past discord.py's patience, a timeout or a dropped connection, on a channel post,
an edit, a pin, a follow-up or an interaction's own answer; some come after Discord did the work (the reply
lost: the message stands). While they last, the fuzzer's checks hold as before, but for an interaction whose
own answer Discord failed (the member sees "This interaction failed"; the bot cannot answer it any more),
and but for the apology of one in which Discord failed any request (bot.commands.answers.guarded).

Once they stop (``settle``), the delivery worker is given time to retry, and then:
- no duty that fell due is still waiting (nothing stuck behind a failure);
- every game in play, not paused, shows a turn post whose buttons carry the game's version (the turn post
  caught up), unless one of its deliveries was given up (past a day of failures, as designed);
- no duty made two messages (a try Discord made though its reply was lost, and another: the retry must
  find it, or its nonce must make it the same message).
"""

from __future__ import annotations

import logging
import random
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from bot.games.seat_rules import is_paused
from bot.outbox.pipeline import META_TURN_POST
from offline import OfflineDiscord
from offline.records import InteractionResult

# The failures a host meets: Discord's 5xx, a rate limit that outlasts discord.py's patience, the network.
TRANSIENT = ("500", "502", "503", "504", "429", "timeout", "disconnect")
# Failures after which the work may have been done all the same (a 429 never does it).
MAY_HAVE_WORKED = {"500", "502", "503", "504", "timeout", "disconnect"}
# What they hit: the delivery worker's channel posts, edits and pins, its follow-ups on an interaction's
# token (bot.outbox.lanes), DM channels, an interaction's own answer, and the reads and thread requests.
TARGETS = (
    "channel_message",
    "edit_message",
    "followup",
    "edit_followup",
    "pin",
    "unpin",
    "dm_channel",
    "callback",
    "edit_original",
    "history",  # where a retry looks for a follow-up it may have made (bot.outbox.posting._made_before)
    "thread",
    "edit_channel",
    "get_message",
    "delete_message",
)
ANSWERS = {"callback", "edit_original"}  # an interaction's own answer
_DUTY: ContextVar[int | None] = ContextVar("fuzz_duty", default=None)  # the duty being delivered


class _GivenUp(logging.Handler):
    """The games whose deliveries the worker gave up (``Deliveries``' warning): their posts may lag, by
    design, until the game's next change."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.games: set[int] = set()

    def emit(self, record: logging.LogRecord) -> None:
        if "given up after" in record.msg and isinstance(record.args, tuple) and len(record.args) > 2:
            game = record.args[2]
            if isinstance(game, int):
                self.games.add(game)


@dataclass
class Outage:
    """Arms failures at the HTTP seam (``rate``: the chance, each step, of one more) and checks the
    aftermath (``settle``)."""

    d: OfflineDiscord
    rng: random.Random
    rate: float
    armed: int = 0
    excused: int = 0  # interactions in which Discord failed a request
    by_kind: dict[str, int] = field(default_factory=dict)
    _given_up: _GivenUp = field(default_factory=_GivenUp)

    outcomes: dict[int, str] = field(default_factory=dict)  # every finished duty's outcome, by its id
    duty_of: dict[int, int] = field(default_factory=dict)  # the duty each request was made for, by its seq

    def __post_init__(self) -> None:
        logging.getLogger("bot").addHandler(self._given_up)
        self.attach()
        # Every request a delivery makes is that duty's: each duty is delivered in a task of its own.
        record = self.d._record

        def recorded(*args: Any, **kwargs: Any) -> Any:
            req = record(*args, **kwargs)
            duty = _DUTY.get()
            if duty is not None:
                self.duty_of[req.seq] = duty
            return req

        self.d._record = recorded  # type: ignore[method-assign]

    def attach(self) -> None:
        """Watch the running bot's finished duties and tag its deliveries' requests; again after a restart
        (tests/bot/fuzz_crashes.py), as a new bot has a new store and worker."""
        store = self.d.bot.store
        finish = store.finish_duty

        async def noted(duty_id: int, owner: str, now: float, outcome: str = "sent") -> bool:
            done = await finish(duty_id, owner, now, outcome)
            if done:
                self.outcomes[duty_id] = outcome
            return done

        store.finish_duty = noted  # type: ignore[method-assign]
        deliveries, deliver = self.d.bot.deliveries, self.d.bot.deliveries._deliver

        async def tagged(duty: Any, now: float) -> None:
            reset = _DUTY.set(duty.id)
            try:
                await deliver(duty, now)
            finally:
                _DUTY.reset(reset)

        deliveries._deliver = tagged  # type: ignore[method-assign]

    def close(self) -> None:
        logging.getLogger("bot").removeHandler(self._given_up)

    def maybe_arm(self) -> None:
        rng = self.rng
        if rng.random() >= self.rate:
            return
        kind, error = rng.choice(TARGETS), rng.choice(TRANSIENT)
        lost = error in MAY_HAVE_WORKED and rng.random() < 0.4
        self.d.fail(
            kind, error, rng.choice((1, 1, 2, 3)), retry_after=rng.choice((0.05, 0.5, 2.0)), lost_reply=lost
        )
        self.armed += 1
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1

    def failed(self, r: InteractionResult) -> bool:
        """Whether Discord failed a request this interaction made (its answer, a post, a thread...)."""
        failed = any(q.fault is not None for q in r.requests)
        self.excused += failed
        return failed

    @staticmethod
    def answer_failed(r: InteractionResult) -> bool:
        """Whether Discord failed this interaction's own answer (its callback, or the edit of its defer)."""
        return any(q.fault is not None and q.kind in ANSWERS for q in r.requests)

    async def settle(self, clock: Any) -> list[str]:
        """Discord is well again: disarm, let the worker retry (its back-off is at most 5 minutes), check."""
        d = self.d
        d.faults.clear()
        for _ in range(12):
            clock.now += 300.0
            await d.bot.deliveries.drain()
        return [*await self._stuck(clock.now), *await self._stale_turn_posts(), *self._twice()]

    async def _stuck(self, now: float) -> list[str]:
        store = self.d.bot.store
        out = []
        for game_id in [None, *(g.id for g in await store.list_games())]:
            for duty in await store.pending_duties(game_id):
                if duty.due_at <= now:
                    out.append(
                        f"after the outage: duty {duty.id} ({duty.kind}) of game {game_id} still waits"
                    )
        return out

    async def _stale_turn_posts(self) -> list[str]:
        store = self.d.bot.store
        out = []
        for game in await store.list_games(status="playing"):
            if is_paused(game.options) or game.id in self._given_up.games:
                continue
            post = (await store.get_game_meta(game.id)).get(META_TURN_POST)
            if not isinstance(post, dict):
                out.append(f"after the outage: game {game.id} has no turn post")
                continue
            msg = self.d.messages.get(int(post["message"]))
            if msg is None or msg.deleted:
                out.append(f"after the outage: game {game.id}'s turn post {post['message']} is gone")
                continue
            shown = {int(c.rsplit(":", 1)[1]) for c in msg.custom_ids if c.startswith(f"alx:end:{game.id}:")}
            if shown != {game.version}:
                out.append(f"after the outage: game {game.id}'s turn post shows {shown}, not {game.version}")
        return out

    def _twice(self) -> list[str]:
        """Duties that made more than one message (a try Discord made though its reply was lost, and another
        one): each post is one message, however many times it is tried."""
        made: dict[int, set[int]] = {}
        for q in self.d.requests:
            duty = self.duty_of.get(q.seq)
            if duty is not None and q.public_post and q.message_id is not None:
                made.setdefault(duty, set()).add(q.message_id)
        return [
            f"duty {duty} ({self.outcomes.get(duty)}) posted {len(ids)} messages: {sorted(ids)}"
            for duty, ids in made.items()
            if len(ids) > 1
        ]
