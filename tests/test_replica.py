"""The live replica (`habicht.replica`): the real Litestream binary replicating a real
database to a folder, watched and restarted, its age read from the replica itself."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Awaitable, Callable
from contextlib import closing
from pathlib import Path

from habicht.db import Database, examine
from habicht.replica import Replicator, last_written, litestream_binary, shown

DEADLINE = 30.0
"""Seconds a replica may take to show a commit: Litestream syncs every second; generous for
a busy two-core machine."""


async def until(condition: Callable[[], Awaitable[bool]], what: str) -> None:
    """Wait for `condition` with a deadline, checking every tenth of a second."""
    deadline = time.monotonic() + DEADLINE
    while not await condition():
        assert time.monotonic() < deadline, f"waited {DEADLINE:g} s for {what}"
        await asyncio.sleep(0.1)


def restored_chats(replica: str, target: Path) -> list[int]:
    """The chats a fresh restore of `replica` holds (Litestream's own restore)."""
    target.unlink(missing_ok=True)
    subprocess.run(
        [str(litestream_binary()), "restore", "-o", str(target), replica],
        check=True,
        capture_output=True,
    )
    with closing(sqlite3.connect(target)) as conn:
        return [row[0] for row in conn.execute("SELECT chat_id FROM chats ORDER BY chat_id")]


async def add_chat(db: Database, chat_id: int) -> None:
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (?, 0, 0)", (chat_id,)
        )


async def test_commits_reach_the_replica_within_seconds(db: Database, tmp_path: Path) -> None:
    """Every commit is in the replica soon after it was made; the replica's age is read from
    the replica; a database Litestream replicates is still habicht's own."""
    replica = f"file://{tmp_path / 'replica'}"
    assert await last_written(replica) is None
    async with Replicator(db.path, replica) as replicator:
        for chat in (1, 2, 3):
            await add_chat(db, chat)

        async def replicated() -> bool:
            target = tmp_path / "check.sqlite3"
            written = await last_written(replica)
            return written is not None and restored_chats(replica, target) == [1, 2, 3]

        await until(replicated, "the three chats in the replica")
        assert replicator.running
        written = await last_written(replica)
        assert written is not None
        assert time.time() - written < DEADLINE
    assert not replicator.running, "closed with its context"
    assert examine(db.path) is not None  # Litestream's own tables are not taken for another's


async def test_a_litestream_that_dies_is_told_and_started_again(
    db: Database, tmp_path: Path
) -> None:
    """Litestream killed: `on_death` hears its exit code, a new one starts after a pause, and
    a commit made meanwhile still reaches the replica."""
    replica = f"file://{tmp_path / 'replica'}"
    deaths: list[int] = []
    pauses: list[float] = []

    async def no_wait(seconds: float) -> None:
        pauses.append(seconds)

    async with Replicator(db.path, replica, on_death=deaths.append, sleep=no_wait) as replicator:
        first = replicator.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)

        async def restarted() -> bool:
            return replicator.pid not in (None, first)

        await until(restarted, "a new Litestream")
        assert deaths == [-signal.SIGKILL]
        assert pauses == [1.0]
        await add_chat(db, 7)

        async def replicated() -> bool:
            return await last_written(replica) is not None and restored_chats(
                replica, tmp_path / "check.sqlite3"
            ) == [7]

        await until(replicated, "the chat added after the restart in the replica")


def test_a_replica_url_is_shown_without_credentials() -> None:
    assert shown("s3://key:secret@bucket/path") == "s3://bucket/path"
    assert shown("file:///srv/replica") == "file:///srv/replica"
