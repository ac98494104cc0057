"""A storage fault in the running bot (issue 27): the scheduler pauses instead of spinning,
one log line tells it, the owners hear of it once each way, in their own language, straight
through the Bot (the outbox is what cannot be written), and nothing found meanwhile is lost."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path

import pytest
from kit import answered
from kit.bot import ALICE, BOB, MARKET, OWNER, SEARCH, Bot, running
from kit.faults import FullDisk, HeldLock

from habicht.fakes import FakeAdvert
from habicht.watchdog import Watchdog, stall_thresholds


@pytest.fixture
async def owners(tmp_path: Path) -> AsyncIterator[Bot]:
    """The bot with two owners: OWNER (German, the default) and BOB, whose app is English;
    ALICE watches SEARCH, baselined."""
    async with running(tmp_path, admin_ids=frozenset({OWNER, BOB})) as bot:
        await bot.say(BOB, "/start", lang="en")
        await bot.say(ALICE, f"/watch {SEARCH}")
        await bot.baseline()
        yield bot


ADMIN_ROWS = "SELECT count(*) FROM notifications WHERE kind = 'admin'"
"""Owner messages queued in the outbox: a storage fault's notice is never one."""


async def test_a_refused_heartbeat_pauses_the_scheduler_and_the_owners_hear_once_each_way(
    owners: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    """The disk fills up: each scheduler pass's first write — its heartbeat — is refused, so
    no pass fetches willhaben or logs again, and the watchdog, told the jobs are alive, does
    not take the pause for a stall; each owner is told once in their language, not through
    the outbox. Space again: the next pass runs, and each owner hears once more."""
    bot, services = owners, owners.app.bot_data
    services.watchdog = Watchdog(stall_thresholds(services.settings), clock=bot.clock)
    await bot.scrape()  # every job has a heartbeat row: its next start is an update
    fetches = len(bot.site.log)
    path = str(services.settings.db)
    fault = FullDisk(services.db, on="UPDATE ON main.heartbeats")
    await fault.start()
    caplog.set_level(logging.INFO)
    caplog.clear()
    for _ in range(4):  # 20 minutes: more than the watchdog's 15
        await bot.scrape()
    assert len(bot.site.log) == fetches
    assert services.watchdog.stalled() is None
    german = await answered(bot.api, OWNER, 1)
    english = await answered(bot.api, BOB, 2)  # after its /start answer
    assert german.text == (
        f"🗄 Die Platte der Datenbank ist voll (<code>{path}</code>): Meldungen werden"
        " zurückgehalten, nichts geht verloren; Platz freigeben, dann geht es weiter."
    )
    assert english.text == (
        f"🗄 The database disk is full (<code>{path}</code>): alerts are held, nothing is lost;"
        " free space to resume."
    )
    assert await services.db.single_value(ADMIN_ROWS) == 0
    errors = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.name, r.levelname) for r in errors] == [("habicht.storage", "ERROR")]

    await fault.end()
    await bot.scrape()  # five minutes later: long settled
    assert len(bot.site.log) > fetches
    back = await answered(bot.api, OWNER, 2)
    assert back.text.startswith(f"✅ Die Datenbank nimmt wieder Daten an (<code>{path}</code>")
    assert (await answered(bot.api, BOB, 3)).text.startswith("✅ The database takes writes again")
    await bot.scrape()
    assert [len(bot.api.messages(owner)) for owner in (OWNER, BOB)] == [2, 3]


async def test_a_page_the_full_disk_refuses_is_read_again_and_its_alert_arrives_once(
    owners: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    """A pass whose page cannot be recorded stops quietly: the one storage line, no database
    alert through the outbox (the owners hear through the Bot); when space is back the same
    advert is read again and alerted once."""
    bot, services = owners, owners.app.bot_data
    fault = FullDisk(services.db, on="INSERT ON main.listings")
    await fault.start()
    bot.site.add(MARKET, FakeAdvert("2001", "Neues Sofa", Decimal(80)))
    caplog.set_level(logging.INFO)
    caplog.clear()
    await bot.scrape()
    assert "voll" in (await answered(bot.api, OWNER, 1)).text
    errors = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.name, r.levelname) for r in errors] == [("habicht.storage", "ERROR")]
    assert await services.db.single_value(ADMIN_ROWS) == 0

    await fault.end()
    await bot.scrape()
    await bot.scrape()
    alerts = [m.text for m in bot.api.messages(ALICE) if "Neues Sofa" in m.text]
    assert len(alerts) == 1
    assert not any("Datenbankfehler" in m.text for m in bot.api.messages(OWNER))


async def test_a_command_the_database_refuses_is_one_line_not_an_error_report(
    owners: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    """Another program holds the write lock while a subscriber sends a command: no error
    report with a traceback, nothing queued for the owners — a warning line, and the owners
    told of the lock, in words, through the Bot."""
    bot, services = owners, owners.app.bot_data
    lock = HeldLock(services.db)
    await lock.start()
    caplog.set_level(logging.INFO)
    caplog.clear()
    try:
        await bot.say(ALICE, "/pause 1")
        told = await answered(bot.api, OWNER, 1)
    finally:
        await lock.end()
    assert told.text.startswith("🗄 Die Datenbank ist von einem anderen Programm gesperrt")
    records = [(r.name, r.levelname) for r in caplog.records if r.levelno >= logging.WARNING]
    assert ("habicht.storage", "ERROR") in records
    assert all(level == "WARNING" for name, level in records if name != "habicht.storage")
    assert "the database refuses writes (database is locked)" in caplog.text
    assert "error while handling" not in caplog.text
    assert await services.db.single_value(ADMIN_ROWS) == 0
