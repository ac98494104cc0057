"""Migration 029: a watch made before issue 36 is labelled as a new watch of its search would
be — no lower price bound of 0 — and every other label stays as it was."""

from __future__ import annotations

from pathlib import Path

from kit.migrations import before_migration

from habicht.db import Database
from habicht.willhaben.urls import parse_watch_argument

MARKT = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz"
SEARCHES = [
    (1, f"{MARKT}?PRICE_FROM=0&PRICE_TO=300&keyword=sofa", "sofa (€ 0 - 300)"),
    (2, f"{MARKT}?keyword=tisch&PRICE_FROM=0", "tisch (min € 0)"),
    (3, f"{MARKT}?PRICE_FROM=100&PRICE_TO=900&keyword=rtx", "rtx (€ 100 - 900)"),
    (4, f"{MARKT}?keyword=sofa+%28%E2%82%AC+0+-+300%29", "sofa (€ 0 - 300)"),
]


async def test_migration_029_leaves_out_a_zero_lower_bound_as_new_labels_do(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "zero_price_labels")
    async with old.transaction() as conn:
        await conn.execute("INSERT INTO chats (chat_id, created_at, updated_at) VALUES (7, 0, 0)")
        for search_id, url, label in SEARCHES:
            await conn.execute(
                "INSERT INTO searches (id, url, created_at) VALUES (?, ?, 0)", (search_id, url)
            )
            await conn.execute(
                "INSERT INTO watches (chat_id, search_id, label, created_at) VALUES (7, ?, ?, 0)",
                (search_id, label),
            )
    await old.close()
    async with Database(path) as db:
        rows = await db.fetchall("SELECT label FROM watches ORDER BY search_id")
        labels = [row[0] for row in rows]
    assert labels == ["sofa (max € 300)", "tisch", "rtx (€ 100 - 900)", "sofa (€ 0 - 300)"]
    assert labels[:3] == [parse_watch_argument(url).label for _, url, _ in SEARCHES[:3]]
