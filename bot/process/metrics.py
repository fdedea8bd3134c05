"""What the bot counts for its host's Prometheus (served at ``/metrics`` by bot.web): actions, refusals,
how long interactions take, the outbox's sends by kind, queue depths, games by status, web watchers, the
data disk's free bytes and the event loop's late wake-ups.

One registry per process (``REGISTRY``, not prometheus_client's global one, so a test's bots and an
embedding program do not mix). Counting costs a microsecond or two; nothing here does I/O. The gauges
that describe a running bot (queue depths, watchers) are read when scraped (``set_function``) from the
objects the bot wires in (``bot.client``), the games by status by bot.web before each scrape.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

__all__ = [
    "ACTIONS",
    "CORES_APART",
    "DISK_FREE",
    "DUTIES",
    "DUTIES_PENDING",
    "GAMES",
    "INTERACTION_SECONDS",
    "LOOP_LATE",
    "LOOP_STALLS",
    "QUEUE",
    "REFUSALS",
    "REGISTRY",
    "WATCHERS",
]

REGISTRY = CollectorRegistry(auto_describe=True)

ACTIONS = Counter(
    "alexandros_actions", "Changes committed to games (each an action of the engine)", registry=REGISTRY
)
REFUSALS = Counter(
    "alexandros_refusals", "Interactions refused, by the refusal's kind (its code's first part)", ["kind"],
    registry=REGISTRY,
)  # fmt: skip
INTERACTION_SECONDS = Histogram(
    "alexandros_interaction_seconds",
    "Time from an interaction's arrival to the end of its handler",
    ["type"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
    registry=REGISTRY,
)
DUTIES = Counter(
    "alexandros_duties", "Outbox duties by what became of an attempt (sent, retried, failed) and kind",
    ["outcome", "kind"], registry=REGISTRY,
)  # fmt: skip
DUTIES_PENDING = Gauge(
    "alexandros_duties_pending",
    "Outbox duties claimed by this process and not yet finished",
    registry=REGISTRY,
)
QUEUE = Gauge("alexandros_queue_depth", "Work waiting for a worker, by queue", ["queue"], registry=REGISTRY)
GAMES = Gauge("alexandros_games", "Games in the store by status", ["status"], registry=REGISTRY)
WATCHERS = Gauge("alexandros_web_watchers", "Open live pages of the web face", registry=REGISTRY)
DISK_FREE = Gauge(
    "alexandros_disk_free_bytes",
    "Free bytes on the data folder's disk (bot.process.disk_room)",
    registry=REGISTRY,
)
LOOP_LATE = Histogram(
    "alexandros_loop_late_seconds",
    "How late the event loop woke a task that sleeps 0.1 s, each wake-up (bot.process.loop_watch)",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
    registry=REGISTRY,
)
LOOP_STALLS = Counter(
    "alexandros_loop_stalls",
    "Wake-ups of the event loop 0.1 s late or more, by what held it (machine, bot, blocked, waiting)",
    ["cause"],
    registry=REGISTRY,
)

CORES_APART = Gauge(
    "alexandros_cores_kept_apart",
    "1 while the bot's process and its workers run on cores of their own, 0 while the system places them "
    "(bot.process.cores, ALEXANDROS_PIN_CORES)",
    registry=REGISTRY,
)


def refusal_kind(code: str) -> str:
    """A refusal's label: the first part of its code (``move/not-closest`` -> ``move``), so the label's
    values stay few whatever codes exist."""
    return code.split("/", 1)[0] or "other"
