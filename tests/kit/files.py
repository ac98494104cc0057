"""Database files habicht must not change (issue 27): another application's, and habicht's
own as a `kill -9` leaves it; and the bytes of a folder, to prove nothing in it changed."""

from __future__ import annotations

import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from habicht.db import Database

FOREIGN = {
    # Its table has the name of habicht's outbox: it was refused before, but switched to WAL.
    "notifications": (
        "CREATE TABLE notifications (id INTEGER PRIMARY KEY, recipient TEXT, body TEXT);"
        "INSERT INTO notifications (recipient, body) VALUES ('ops', 'disk 80 %');"
    ),
    # No name in common with habicht: it used to get habicht's tables added to it.
    "recipes": (
        "CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT, minutes INTEGER);"
        "INSERT INTO recipes (name, minutes) VALUES ('Kaiserschmarrn', 30);"
    ),
}
"""Another application's schema and a row of it, by the name of its table."""


def foreign_database(path: Path, table: str) -> None:
    """Another application's SQLite file at `path` with its `table` (a key of FOREIGN), in
    the rollback-journal mode SQLite gives every new file (header bytes 18-19: 01 01)."""
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript(FOREIGN[table])
        conn.commit()
    assert path.read_bytes()[18:20] == b"\x01\x01"


def contents(folder: Path) -> dict[str, bytes]:
    """Every file in `folder` by name, with its bytes: a change, a new file (`-wal`, `-shm`,
    `.lock`) or a missing one shows as a difference."""
    return {child.name: child.read_bytes() for child in sorted(folder.iterdir()) if child.is_file()}


async def crashed_database(path: Path) -> None:
    """habicht's database at `path` as a `kill -9` leaves it: its last commit still in the
    `-wal` file, not yet checkpointed into the database (the next connection to close as the
    last one would write it there)."""
    live = path.with_name("live")
    live.mkdir()
    async with Database(live / path.name) as db:
        async with db.transaction() as conn:
            await conn.execute(
                "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (7, 0, 0)"
            )
        for suffix in ("", "-wal"):  # copied while open: the files a killed process leaves
            shutil.copyfile(live / f"{path.name}{suffix}", f"{path}{suffix}")
    shutil.rmtree(live)
    assert os.stat(f"{path}-wal").st_size > 0
