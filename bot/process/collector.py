"""The garbage collector of the bot's long-lived processes (its own, its workers'), set once each is warm."""

from __future__ import annotations

import gc

# The youngest generation, in allocations. An interaction allocates thousands of short-lived objects
# (discord.py's models, payloads, engine values), so the default threshold (700) ran a young collection
# every few hundred microseconds: 0.5-0.8 ms of CPU per action in bench_bot. Larger, most young ones are
# gone before a collection looks at them; but a young collection's time is that of the young objects still
# alive, and bursts of them (1,000 live pages told of a change) made it the loop's longest stall. Since the
# cycles made per action are let go (bot.texts.freeing), 10,000 gives bench_bot as many actions a second as
# 20,000 (132, 119 vs 127, 131) and bench_web's longest stall with 1,000 pages 34-43 ms against 44-51
# (alternating, quiet). A render worker so: bench_bot's 1,711 pictures redrawn took 0.13-0.14 s of
# collections against 0.06-0.075 s, at the same peak memory (177 MB).
YOUNG_COLLECTION = 10_000


def warmed_up() -> None:
    """Everything alive now (maps, distance tables, the renderer's caches, discord.py's state) lives as long
    as the process: moved out of the collector's view, it keeps full collections short (in the bot's process
    they run on the event loop: one 25-35 ms stall per game without this). Young collections come every
    ``YOUNG_COLLECTION`` allocations from now on."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION, 20, 10)
