"""`habicht restore` (`habicht.restore`): the database back from a backup file or the live
replica, never beside a running bot, its WAL handled, and the owners told once — on real
SQLite files and the real Litestream binary."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest
from kit.bot import OWNER, running

from habicht.bot import DRAIN, run_jobs_now
from habicht.cli import main
from habicht.config import Settings
from habicht.db import Database, DatabaseError, backup
from habicht.instance import single_instance
from habicht.message import Outgoing
from habicht.queue import NotificationStore
from habicht.replica import ReplicaError, Replicator, last_written
from habicht.restore import restore

T = 1_700_000_000.0


async def chat(db: Database, chat_id: int, *, at: float = T) -> None:
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (?, ?, ?)",
            (chat_id, at, at),
        )


def write(path: Path, data: bytes) -> None:
    path.write_bytes(data)


def read(path: Path) -> bytes:
    return path.read_bytes()


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def chats(path: Path) -> list[int]:
    with closing(sqlite3.connect(path)) as conn:
        return [row[0] for row in conn.execute("SELECT chat_id FROM chats ORDER BY chat_id")]


async def test_a_backup_comes_back_with_the_old_database_kept_aside(tmp_path: Path) -> None:
    """Restored from a `habicht backup` file: the backup's chats and waiting alerts, its
    restore recorded with the alerts that wait; the database it replaced, WAL and all,
    kept beside it — and a stray WAL never applied to the restored file."""
    path = tmp_path / "habicht.sqlite3"
    settings = Settings(db=path)
    async with Database(path) as db:
        await chat(db, 1)
        store = NotificationStore(db, clock=lambda: T, max_attempts=5, ttl=86400)
        await store.enqueue(Outgoing(1, "new", "waiting", "new:9:1", ad_id="9"))
        backup(path, tmp_path / "copy.sqlite3")
        await chat(db, 2)  # after the backup: gone once it is restored
    stray = b"not a WAL of the restored file"
    write(Path(f"{path}-wal"), stray)
    done = await restore(settings, backup=tmp_path / "copy.sqlite3", clock=lambda: T + 60)
    assert done.aside is not None
    assert read(Path(f"{done.aside}-wal")) == stray, "moved aside with its database"
    assert chats(path) == [1]
    assert (done.pending, done.source) == (1, str(tmp_path / "copy.sqlite3"))
    assert done.moment == T
    assert chats(done.aside) == [1, 2]
    async with Database(path) as db:
        [row] = await db.fetchall("SELECT source, moment, pending, announced_at FROM restores")
        assert tuple(row) == (str(tmp_path / "copy.sqlite3"), T, 1, None)


async def test_a_restore_is_refused_beside_a_running_bot(tmp_path: Path) -> None:
    """The lock `habicht run` holds: the restore refuses, and nothing changes."""
    path = tmp_path / "habicht.sqlite3"
    async with Database(path) as db:
        await chat(db, 1)
    backup(path, tmp_path / "copy.sqlite3")
    with single_instance(path), pytest.raises(DatabaseError, match="another habicht run"):
        await restore(Settings(db=path), backup=tmp_path / "copy.sqlite3")
    assert chats(path) == [1]
    assert names(tmp_path) == [
        "copy.sqlite3",
        "habicht.sqlite3",
        "habicht.sqlite3.lock",
    ]


async def test_a_file_that_is_no_habicht_backup_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "habicht.sqlite3"
    async with Database(path) as db:
        await chat(db, 1)
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database")
    with pytest.raises(DatabaseError):
        await restore(Settings(db=path), backup=notes)
    assert chats(path) == [1]
    assert notes.read_text() == "not a database"


async def test_the_replica_comes_back_latest_or_as_it_was_at_a_moment(tmp_path: Path) -> None:
    """From HABICHT_REPLICA: the latest state, or — with a moment — the state then."""
    path = tmp_path / "habicht.sqlite3"
    settings = Settings(db=path, replica=str(tmp_path / "replica"))
    url = settings.replica_url
    assert url is not None
    async with Database(path) as db, Replicator(path, url):
        await chat(db, 1)
        await until_written(url, after=time.time())
        between = datetime.now(UTC)
        await asyncio.sleep(1.1)  # the replica's moments are whole seconds
        await chat(db, 2)
        await until_written(url, after=time.time())
    done = await restore(settings)
    assert chats(path) == [1, 2]
    assert done.source == url
    await restore(settings, at=between)
    assert chats(path) == [1]


async def until_written(url: str, *, after: float) -> None:
    """Until Litestream wrote to the replica at or after `after` (its stamps are seconds)."""
    deadline = time.monotonic() + 30
    while (await last_written(url) or 0) < int(after):
        assert time.monotonic() < deadline, "the replica was not written within 30 s"
        await asyncio.sleep(0.1)


async def test_without_a_replica_or_a_backup_it_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ReplicaError, match="HABICHT_REPLICA is not set"):
        await restore(Settings(db=tmp_path / "habicht.sqlite3"))


async def test_the_first_start_after_a_restore_tells_the_owners_once(tmp_path: Path) -> None:
    """The owner hears to which moment, how many alerts waited, that later ones may repeat;
    a second start says nothing more."""
    async with running(tmp_path) as bot:
        path = bot.app.bot_data.settings.db
        await bot.say(OWNER, "/start")
    backup(path, tmp_path / "copy.sqlite3")
    await restore(Settings(db=path), backup=tmp_path / "copy.sqlite3")
    async with running(tmp_path) as bot:
        await run_jobs_now(bot.app, DRAIN)
        told = [m.text for m in bot.api.messages(OWNER) if m.text.startswith("♻️")]
        assert len(told) == 1
        assert "wiederhergestellt" in told[0]
        assert "0 Alarme warteten" in told[0]
        assert "ein zweites Mal" in told[0]
    async with running(tmp_path) as bot:
        await run_jobs_now(bot.app, DRAIN)
        assert not any(m.text.startswith("♻️") for m in bot.api.messages(OWNER))


def test_the_command_says_in_one_line_what_it_did_or_why_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`habicht restore`: no replica set is one line and exit 2, a bad --time too; --from a
    backup restores and says from what, to which moment, and where the old file went."""
    path = tmp_path / "habicht.sqlite3"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HABICHT_DB", str(path))
    monkeypatch.delenv("HABICHT_REPLICA", raising=False)
    assert main(["restore"]) == 2
    assert capsys.readouterr().err == (
        "habicht: error: HABICHT_REPLICA is not set: say where the replica is, or restore"
        " --from a backup file\n"
    )
    assert main(["restore", "--time", "yesterday"]) == 2
    assert "--time must be ISO 8601" in capsys.readouterr().err
    asyncio.run(_one_chat(path))
    backup(path, tmp_path / "copy.sqlite3")
    assert main(["restore", "--from", str(tmp_path / "copy.sqlite3")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        f"restored {path} from {tmp_path / 'copy.sqlite3'}: as of an unknown moment (the file"
        " holds no dated write), 0 alerts waiting (the next start tells the owners)"
    )
    assert f"the database it replaced is at {path}.before-restore-" in out


async def _one_chat(path: Path) -> None:
    async with Database(path) as db:
        await chat(db, 1)
