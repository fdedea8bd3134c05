"""storage.sql: the one SQL text both backends run (issue 31), and each backend's SQL where it differs."""

from __future__ import annotations

from storage.base import ShardSlice
from storage.core import StoreCore
from storage.sql import POSTGRES, SQLITE, dollars


def test_placeholders_are_numbered_for_postgresql_in_order_and_by_number() -> None:
    assert (
        dollars("SELECT 1 FROM t WHERE a = ? AND b IN (?, ?)")
        == "SELECT 1 FROM t WHERE a = $1 AND b IN ($2, $3)"
    )
    assert dollars("UPDATE t SET a = ?1, b = ?2 WHERE c = ?1 OR d = ?2") == (
        "UPDATE t SET a = $1, b = $2 WHERE c = $1 OR d = $2"
    )
    assert dollars("x = ?::text[]") == "x = $1::text[]"
    postgres_own = POSTGRES.advance
    assert dollars(postgres_own) == postgres_own  # PostgreSQL's own statements pass unchanged


def test_a_list_is_one_array_in_postgresql_and_one_mark_an_element_in_sqlite() -> None:
    assert SQLITE.any_of("id", [4, 5, 6]) == ("id IN (?, ?, ?)", [4, 5, 6])
    assert POSTGRES.any_of("id", (4, 5, 6)) == ("id = ANY(?)", [[4, 5, 6]])
    sql, args = SQLITE.contains_any("payload", ["7", "Ann"])
    assert sql == "(instr(payload, ?) > 0 OR instr(payload, ?) > 0)" and args == ["7", "Ann"]
    sql, args = POSTGRES.contains_any("payload", ["7", "Ann"])
    assert "unnest(?::text[])" in sql and args == [["7", "Ann"]]


def test_the_shard_filter_numbers_its_arguments_from_where_the_statement_leaves_off() -> None:
    class Store(StoreCore):
        sql = SQLITE

    where, args = Store()._shard_filter(ShardSlice(count=4, ids=(1, 3)), "d.guild_id", 5)
    assert where == " AND (CASE WHEN d.guild_id IS NULL THEN 0 ELSE (d.guild_id >> 22) % ?5 END) IN (?6, ?7)"
    assert args == [4, 1, 3]
    assert Store()._shard_filter(None, "d.guild_id", 5) == ("", [])
