"""Migration `origin_announced` (issue 35): whether the owners were told that habicht created
the file lives in the file — a start killed before it told them leaves the telling to the next
— and the outbox row that tells them marks it, in the transaction that queues it."""

from __future__ import annotations

from pathlib import Path

from kit.bot import OWNER, running
from kit.fakes import FakeClock
from kit.migrations import before_migration

from habicht.bot import deliver
from habicht.db import Database


async def test_a_file_dated_before_the_migration_was_told_already(tmp_path: Path) -> None:
    """A file an older habicht created and dated was told by the start that created it: the
    upgrade marks it so, and the bot's start on it tells nobody anything."""
    path = tmp_path / "habicht.sqlite3"
    old = await before_migration(path, "origin_announced")  # dated as habicht then did
    async with old.transaction() as conn:
        await conn.execute("UPDATE origin SET created_at = 1234.5")
    await old.close()
    async with Database(path) as upgraded:
        row = await upgraded.fetchone("SELECT created_at, announced_at FROM origin")
        assert row is not None
        assert tuple(row) == (1234.5, 1234.5)
    async with running(tmp_path, clock=FakeClock(), new_database=True) as bot:
        await deliver(bot.app.bot_data)
        assert bot.app.bot_data.db.created_at is None
        assert bot.api.messages() == []


async def test_the_bots_new_file_is_marked_told_when_the_owners_message_is_queued(
    tmp_path: Path,
) -> None:
    """The bot creates its file untold; once the owners' message is queued the file is
    marked told, so the next start tells nobody anything."""
    clock = FakeClock()
    async with running(tmp_path, clock=clock, new_database=True) as bot:
        db = bot.app.bot_data.db
        assert db.created_at == clock()
        queued = await db.single_value(
            "SELECT created_at FROM notifications WHERE dedupe_key GLOB 'admin:new-database:*'"
        )
        assert await db.single_value("SELECT announced_at FROM origin") == queued
        await deliver(bot.app.bot_data)
        assert len(bot.api.messages(OWNER)) == 1
    clock.advance(60)
    async with running(tmp_path, clock=clock, new_database=True) as bot:
        await deliver(bot.app.bot_data)
        assert bot.app.bot_data.db.created_at is None
        assert bot.api.messages() == []


async def test_a_start_that_died_before_it_told_the_owners_leaves_it_to_the_next(
    tmp_path: Path,
) -> None:
    """A first start that created its file but ended before the owners' message was queued
    (killed, say, while it loaded the chats' settings) leaves the file untold: the next start
    tells the owners — once, dated when the file was created — and health keeps that date."""
    path = tmp_path / "habicht.sqlite3"
    async with Database(path, clock=lambda: 1_600_000_000.0, announce=True) as first:
        assert first.created_at == 1_600_000_000.0
    clock = FakeClock()
    async with running(tmp_path, clock=clock, new_database=True) as bot:
        assert bot.app.bot_data.db.created_at == 1_600_000_000.0
        await deliver(bot.app.bot_data)
        (told,) = bot.api.messages(OWNER)
        assert str(path) in told.text
    async with running(tmp_path, clock=clock, new_database=True) as bot:
        await deliver(bot.app.bot_data)
        assert bot.api.messages() == []
        assert await bot.app.bot_data.db.single_value("SELECT created_at FROM origin") == (
            1_600_000_000.0
        )


async def test_a_file_another_opener_creates_is_told_to_that_opener_only(tmp_path: Path) -> None:
    """A file created by anything but the bot (a test's setup, a tool) is recorded as told:
    the bot's start on it finds nothing new to tell."""
    async with Database(tmp_path / "habicht.sqlite3", clock=lambda: 1234.5) as created:
        assert created.created_at == 1234.5
    async with running(tmp_path, clock=FakeClock(), new_database=True) as bot:
        await deliver(bot.app.bot_data)
        assert bot.api.messages() == []
