"""compose.cluster.yaml, the two-process cluster example (docs/SCALING.md): every bot service reads
as a valid configuration (bot.process.config), they share one shard count and one database, their shard ids
cover every shard exactly once, and only the one-shot ``sync`` service syncs commands."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from bot.process.config import load_config

ROOT = Path(__file__).resolve().parents[2]


def services() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "compose.cluster.yaml").read_text())
    return dict(data["services"])


def environment(service: dict[str, Any]) -> dict[str, str]:
    # Compose's ${VAR:?message} with the values an owner's .env would give, ${VAR:-default} its default.
    values = {"DISCORD_TOKEN": "x" * 59 + ".abc", "POSTGRES_PASSWORD": "secret1"}

    def value(m: re.Match[str]) -> str:
        if m.group(2) and m.group(2).startswith(":-"):
            return m.group(2)[2:]
        return values[m.group(1)]

    return {k: re.sub(r"\$\{(\w+)(:[?-][^}]*)?\}", value, str(v)) for k, v in service["environment"].items()}


def test_the_bot_services_split_the_shards_and_share_one_database() -> None:
    bots = {name: s for name, s in services().items() if name.startswith("bot")}
    assert len(bots) >= 2
    configs = {name: load_config(environment(s)) for name, s in bots.items()}
    counts = {c.shard_count for c in configs.values()}
    assert len(counts) == 1, "every process must use the same shard count"
    (count,) = counts
    assert count is not None
    ids = [i for c in configs.values() for i in c.shard_ids or ()]
    assert sorted(ids) == list(range(count)), "each shard on exactly one process"
    assert len({c.database for c in configs.values()}) == 1
    assert all(str(c.database).startswith("postgresql://") for c in configs.values())
    assert len({str(s["volumes"]) for s in bots.values()}) == len(bots), "a data folder each"
    for s in bots.values():
        assert "--sync" not in " ".join(s.get("command", [])), "a serving process never syncs"
        assert s["depends_on"]["db"]["condition"] == "service_healthy"


def test_only_the_one_shot_sync_service_syncs() -> None:
    all_services = services()
    syncing = [n for n, s in all_services.items() if "--sync" in s.get("command", [])]
    assert syncing == ["sync"]
    sync = all_services["sync"]
    assert sync["restart"] == "no" and sync["profiles"] == ["sync"], "run it by hand, once"
    load_config(environment(sync))
