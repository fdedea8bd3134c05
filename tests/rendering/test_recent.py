"""rendering.recent.Recent: the renderer's bounded memory, by count or by weight (bytes)."""

from __future__ import annotations

from rendering.recent import Recent


def test_a_count_bound_forgets_the_least_recently_used_first() -> None:
    kept: Recent[str, int] = Recent(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # "b" is now the least recently used
    kept.put("c", 3)
    assert kept.get("b") is None and kept.get("a") == 1 and kept.get("c") == 3
    assert len(kept) == 2 and kept.weight == 2


def test_a_weight_bound_keeps_entries_weighing_at_most_its_size_together() -> None:
    kept: Recent[str, bytes] = Recent(10, len)
    kept.put("a", b"1234")
    kept.put("b", b"1234")
    assert kept.weight == 8
    kept.put("a", b"12")  # replaced: its old weight is not counted twice
    assert kept.weight == 6 and len(kept) == 2
    kept.put("c", b"12345")  # 11 > 10: "b" (the least recently used) goes
    assert kept.get("b") is None and kept.get("a") == b"12" and kept.get("c") == b"12345"
    assert kept.weight == 7
    kept.put("d", b"x" * 11)  # heavier than the whole bound: nothing stays
    assert len(kept) == 0 and kept.weight == 0
    kept.put("e", b"1")
    kept.clear()
    assert len(kept) == 0 and kept.weight == 0 and kept.hits == kept.misses == 0
