"""Migration 022 (issue 35): `watches` is rebuilt with AUTOINCREMENT, so a removed watch's id
is never handed out again; every row of the watches and of the tables that refer to them
(`watch_listings` and `filter_hits`, which cascade on delete, and the outbox's owners)
survives it unchanged, and every table keeps its columns, keys and indexes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kit.fakes import FakeClock
from kit.migrations import before_migration, migration_version, seed_sofa_watch

from habicht.db import Database
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.urls import parse_watch_argument

_TABLES = ("watches", "watch_listings", "filter_hits", "notification_watches")
_NAMES = (
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite^_%' ESCAPE '^'"
    " ORDER BY name"
)
_PRAGMAS = ("pragma_table_info", "pragma_foreign_key_list", "pragma_index_list")


async def _rows(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    return {
        table: [tuple(row) for row in await db.fetchall(f"SELECT * FROM {table} ORDER BY 1, 2")]
        for table in _TABLES
    }


async def _structure(db: Database) -> dict[str, list[list[tuple[Any, ...]]]]:
    """Every table's columns (name, type, NOT NULL, default, key), foreign keys and indexes."""
    found = {}
    for (table,) in await db.fetchall(_NAMES):
        found[table] = [
            [tuple(row) for row in await db.fetchall(f"SELECT * FROM {pragma}(?)", (table,))]
            for pragma in _PRAGMAS
        ]
    return found


async def _old_file(path: Path) -> tuple[dict[str, list[tuple[Any, ...]]], dict[str, Any]]:
    """A file as it was before 022, with chat 7's watch 1 ("sofa": filtered, muted, paused,
    in a topic, with a queued alert) and watch 2 ("tisch"), what they saw and hid, and the
    alert owed by both. Its rows and its structure."""
    old = await before_migration(path, "lasting_watch_ids")
    async with old.transaction() as conn:
        await seed_sofa_watch(conn, baseline_at=1.0, alert_at=5.0)
        await conn.execute(
            'UPDATE watches SET filters = \'{"max": "90"}\', muted_until = 9, thread_id = 4,'
            " baseline_complete = 1, baseline_failures = 2, status = 'paused'"
        )
        await conn.execute(
            "INSERT INTO searches (id, url, created_at) VALUES (2, 'https://x.test/t', 0)"
        )
        await conn.execute(
            "INSERT INTO watches (chat_id, search_id, label, created_at) VALUES (7, 2, 'tisch', 3)"
        )
        await conn.execute(
            "INSERT INTO watch_listings (watch_id, ad_id, last_price, told_price, first_seen_at,"
            " own) VALUES (2, '11', '100', '120', 2, 0), (1, '12', NULL, NULL, 3, 1)"
        )
        await conn.execute(
            "INSERT INTO filter_hits (watch_id, ad_id, rule, hit_at) VALUES (2, '13', 'max', 4)"
        )
        await conn.execute("INSERT INTO notification_watches VALUES (1, 1), (1, 2)")
    rows, structure = await _rows(old), await _structure(old)
    await old.close()
    return rows, structure


async def test_migration_022_keeps_every_watch_and_every_row_that_refers_to_one(
    tmp_path: Path,
) -> None:
    """Every column of every watch, what each has seen and hidden, and who owes the queued
    alert come through the rebuild as they were; so do the columns, keys and indexes of
    every table (compared at 022 itself: later migrations change other tables)."""
    path = tmp_path / "old.sqlite3"
    rows, structure = await _old_file(path)
    assert [len(rows[table]) for table in _TABLES] == [2, 2, 1, 2]
    db = await Database(path).open(target=migration_version("lasting_watch_ids"))
    try:
        assert await _rows(db) == rows
        assert await _structure(db) == structure
        assert await db.fetchall("PRAGMA foreign_key_check") == []
    finally:
        await db.close()


async def test_after_migration_022_a_removed_watchs_id_is_never_handed_out_again(
    tmp_path: Path,
) -> None:
    """The upgraded file's newest watch removed, the next watch gets a new id (before, SQLite
    gave it the removed one's); removing a watch still takes what it saw with it."""
    path = tmp_path / "old.sqlite3"
    await _old_file(path)
    async with Database(path) as db:
        subs = Subscriptions(db, clock=FakeClock())
        removed = await subs.remove_watch(7, 2)
        assert removed is not None
        assert removed.id == 2
        assert await db.single_value("SELECT count(*) FROM watch_listings WHERE watch_id = 2") == 0
        assert await db.single_value("SELECT count(*) FROM filter_hits") == 0
        added = await subs.add_watch(7, parse_watch_argument("fahrrad"), max_watches=5)
        assert added.id == 3
