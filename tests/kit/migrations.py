"""Old database files for the migration tests: a file as it was before a migration ran."""

from __future__ import annotations

from pathlib import Path

import aiosqlite

from habicht.db import Database, migrations


def migration_version(name: str) -> int:
    """The version of the bundled migration whose file name contains `name` (by name, as
    the lead renumbers migrations on merge)."""
    (version,) = [version for version, file, _ in migrations() if name in file]
    return version


async def before_migration(path: Path, name: str) -> Database:
    """`path` opened and migrated up to just before the migration `name`: the old file a
    migration test fills with old rows (close it, then open it as today's habicht would)."""
    return await Database(path).open(target=migration_version(name) - 1)


async def seed_sofa_watch(
    conn: aiosqlite.Connection, *, baseline_at: float | None = None, alert_at: float | None = None
) -> None:
    """The rows most old files hold: chat 7 watching search 1 ("sofa", baselined at
    `baseline_at`) and, when `alert_at` is given, one new-listing alert of advert 11 queued
    then — in the columns every version has."""
    await conn.execute("INSERT INTO chats (chat_id, created_at, updated_at) VALUES (7, 0, 0)")
    await conn.execute(
        "INSERT INTO searches (id, url, created_at) VALUES (1, 'https://x.test/s', 0)"
    )
    await conn.execute(
        "INSERT INTO watches (chat_id, search_id, label, baseline_at, created_at)"
        " VALUES (7, 1, 'sofa', ?, 0)",
        (baseline_at,),
    )
    if alert_at is not None:
        await conn.execute(
            "INSERT INTO notifications (chat_id, kind, ad_id, text, dedupe_key, max_attempts,"
            " next_attempt_at, created_at, queued_at, updated_at)"
            " VALUES (7, 'new', '11', '🆕 <b>Sofa</b>', 'new:11:7', 5, ?, ?, ?, ?)",
            (alert_at,) * 4,
        )
