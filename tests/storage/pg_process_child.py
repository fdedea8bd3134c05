"""Child process of the multi-process PostgreSQL tests: one bot process's view of the shared store.

Usage: python pg_process_child.py MODE URL ARGS...

deliver OWNER LEASE [SHARD_COUNT SHARD_ID,...]
                        claim due duties (real clock; of its shards only, if given) and "send" them until
                        none of them is left: prints `sent <duty id> <time_ns>` BEFORE finishing each one,
                        `lost <id>` if its lease was lost, then `done`.
hang OWNER LEASE LIMIT  claim up to LIMIT duties, print `claimed <id> ...`, then wait to be killed
                        (a process that dies mid-delivery: after claiming, before finishing).
race GAME ROUNDS NAME   per round: load the game, print `loaded <version>`, wait for `go` on stdin,
                        append one event; print `won <version>` or `conflict <expected> <actual>`.
"""

from __future__ import annotations

import asyncio
import sys
import time

from storage import Duty, PostgresGameStore, ShardSlice, VersionConflict, open_postgres_store


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def deliver(store: PostgresGameStore, owner: str, lease: float, shards: ShardSlice | None) -> None:
    async def send(duty: Duty) -> None:
        say(f"sent {duty.id} {time.time_ns()}")
        if not await store.finish_duty(duty.id, owner, time.time()):
            say(f"lost {duty.id}")

    while True:
        batch = await store.claim_duties(time.time(), owner, lease, limit=50, shards=shards)
        if batch:
            await asyncio.gather(*(send(d) for d in batch))
            continue
        ready = await store.next_duty_at(shards)
        if ready is None:
            say("done")
            return
        # Duties are left but not claimable yet: other processes hold them, or a lease must run out.
        await asyncio.sleep(min(max(ready - time.time(), 0.005), 0.05))


async def hang(store: PostgresGameStore, owner: str, lease: float, limit: int) -> None:
    batch = await store.claim_duties(time.time(), owner, lease, limit=limit)
    say("claimed " + " ".join(str(d.id) for d in batch))
    await asyncio.sleep(3600)


async def race(store: PostgresGameStore, game_id: int, rounds: int, name: str) -> None:
    loop = asyncio.get_running_loop()
    for _ in range(rounds):
        loaded = await store.load_snapshot(game_id)
        assert loaded is not None
        version, state = loaded
        say(f"loaded {version}")
        line = await loop.run_in_executor(None, sys.stdin.readline)
        assert line.strip() == "go", line
        try:
            record = await store.append(
                game_id, version, [{"by": name}], {"count": state["count"] + 1}, time.time()
            )
        except VersionConflict as conflict:
            say(f"conflict {conflict.expected} {conflict.actual}")
        else:
            say(f"won {record.version}")


async def main(mode: str, url: str, args: list[str]) -> None:
    store = await open_postgres_store(url, max_size=10)
    say("ready")
    try:
        if mode == "deliver":
            shards = None
            if len(args) > 2:
                shards = ShardSlice(int(args[2]), tuple(int(x) for x in args[3].split(",")))
            await deliver(store, args[0], float(args[1]), shards)
        elif mode == "hang":
            await hang(store, args[0], float(args[1]), int(args[2]))
        elif mode == "race":
            await race(store, int(args[0]), int(args[1]), args[2])
        else:
            raise SystemExit(f"unknown mode {mode}")
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
