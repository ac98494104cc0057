"""Heartbeats and the verdict of `habicht health`."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest
from kit.bot import running
from kit.fakes import FakeClock
from kit.files import FOREIGN, contents, crashed_database, foreign_database
from kit.flat_feeds import BUY, DAY, feed_of, watched_feeds

from habicht.cli import main
from habicht.config import Settings
from habicht.db import Database, latest_version
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.health import PROGRESS_EVERY, Job, check_health, heartbeat, probe, record_start
from habicht.replica import Replicator, last_written
from habicht.storage import StatusFile, StorageFault
from habicht.watchdog import Watchdog

SETTINGS = Settings(scrape_interval=60, queue_interval=10)  # stale after 180 s and 30 s


async def _both_ran(db: Database, clock: FakeClock) -> None:
    for job in ("scrape", "drain"):
        async with heartbeat(db, job, clock=clock):
            clock.advance(1)


async def test_fresh_cycles_are_healthy(db: Database) -> None:
    """Both jobs finished recently: healthy, with their times in the report."""
    clock = FakeClock()
    await _both_ran(db, clock)
    report = await check_health(db, SETTINGS, now=clock() + 29)
    assert report.healthy, report.reason
    data = report.as_dict()
    assert data["status"] == "healthy"
    assert data["jobs"]["drain"]["ok"] is True
    assert data["jobs"]["drain"]["running"] is False
    assert data["jobs"]["scrape"]["age_seconds"] == 30.0
    assert data["queue"] == {"pending": 0, "retrying": 0, "sending": 0, "dead": 0}


async def test_a_storage_fault_the_bot_waits_out_is_named_first(db: Database) -> None:
    """Issue 27: the fault the running bot published beside the database is in the report —
    its kind, file and SQLite's words — and first in the reason; the verdict stays the
    heartbeats' (a restart cures no full disk). Once it is over, the report names none."""
    clock = FakeClock()
    await _both_ran(db, clock)
    status = StatusFile(db.path).open()
    status.publish(StorageFault("full", "data/h.sqlite3", "database or disk is full", 1e9))
    report = await check_health(db, SETTINGS, now=clock())
    assert report.healthy
    assert report.reason == "the database disk is full (data/h.sqlite3): free space to resume"
    assert report.as_dict()["storage_fault"] == {
        "kind": "full",
        "path": "data/h.sqlite3",
        "error": "database or disk is full",
        "since": "2001-09-09T01:46:40+00:00",
        "message": "the database disk is full (data/h.sqlite3): free space to resume",
    }
    clock.advance(200)
    stale = await check_health(db, SETTINGS, now=clock())
    assert stale.reason.startswith("the database disk is full (data/h.sqlite3): free space to")
    assert "; scrape: " in stale.reason
    status.close()
    assert (await check_health(db, SETTINGS, now=clock())).as_dict()["storage_fault"] is None


async def test_nothing_recorded_is_unhealthy(db: Database) -> None:
    """Before any cycle ran the verdict is unhealthy, naming what has not run."""
    report = await check_health(db, SETTINGS, now=FakeClock()())
    assert not report.healthy
    assert "no scrape cycle has run yet" in report.reason


@pytest.mark.parametrize(
    ("job", "other", "late", "limit"), [("scrape", "drain", 182, 180), ("drain", "scrape", 32, 30)]
)
async def test_a_stale_job_is_unhealthy(
    db: Database, job: Job, other: Job, late: float, limit: int
) -> None:
    """A job whose last finish is older than 3 intervals makes the verdict unhealthy, though
    the other job is fresh."""
    clock = FakeClock()
    await _both_ran(db, clock)
    clock.advance(late)
    async with heartbeat(db, other, clock=clock):
        pass
    report = await check_health(db, SETTINGS, now=clock())
    assert not report.healthy
    assert report.reason.startswith(f"{job}: ")  # and only it: no "; " and the other
    assert report.reason.endswith(f"s without a finished cycle (more than {limit} s)")


async def test_progress_keeps_a_long_run_alive(db: Database) -> None:
    """A run that records progress stays healthy long past 3 intervals after its start, and
    goes stale 3 intervals after its last progress."""
    clock = FakeClock()
    await _both_ran(db, clock)
    async with heartbeat(db, "drain", clock=clock) as beat:
        for _ in range(10):
            clock.advance(PROGRESS_EVERY)
            beat.progress()
            await beat.settle()
            assert (await check_health(db, SETTINGS, now=clock() + 29)).healthy
        report = await check_health(db, SETTINGS, now=clock() + 31)
        assert report.reason == "drain: 31 s running without finishing (more than 30 s)"
        assert report.as_dict()["jobs"]["drain"]["progress_at"] is not None


async def test_progress_is_written_at_most_every_few_seconds(db: Database) -> None:
    """Progress beats the watchdog every time but writes the database at most every
    PROGRESS_EVERY seconds: a drain's thirty sends a second are not thirty writes."""
    clock = FakeClock()
    dog = Watchdog({"drain": 10}, clock=clock)
    async with heartbeat(db, "drain", clock=clock, watchdog=dog) as beat:
        started = clock()
        for _ in range(29):  # 29 progress calls in 14.5 s: written at 5 and 10 s only
            clock.advance(PROGRESS_EVERY / 10)
            beat.progress()
            await beat.settle()
        clock.advance(9)
        assert dog.stalled() is None
        row = await db.fetchone("SELECT progress_at FROM heartbeats WHERE job = 'drain'")
        assert row is not None
        assert row[0] == started + 2 * PROGRESS_EVERY


async def test_a_run_that_never_finishes_goes_stale_from_its_start(db: Database) -> None:
    """A job started but not finished is alive until 3 intervals after its start."""
    clock = FakeClock()
    await _both_ran(db, clock)
    clock.advance(1)
    await record_start(db, "drain", now=clock())
    assert (await check_health(db, SETTINGS, now=clock() + 25)).healthy
    report = await check_health(db, SETTINGS, now=clock() + 31)
    assert "drain: 31 s running without finishing" in report.reason
    assert report.as_dict()["jobs"]["drain"]["running"] is True


async def test_a_failed_cycle_is_reported_but_alive(db: Database) -> None:
    """A cycle that raised is recorded ok=false and still counts as the process being alive."""
    clock = FakeClock()
    await _both_ran(db, clock)
    with pytest.raises(RuntimeError):
        async with heartbeat(db, "scrape", clock=clock):
            raise RuntimeError("boom")
    report = await check_health(db, SETTINGS, now=clock())
    assert report.healthy
    assert report.as_dict()["jobs"]["scrape"]["ok"] is False


async def test_heartbeat_tells_the_watchdog(db: Database) -> None:
    """A finished run beats the watchdog, so a stall is measured from it."""
    clock = FakeClock()
    dog = Watchdog({"scrape": 10}, clock=clock)
    clock.advance(9)
    async with heartbeat(db, "scrape", clock=clock, watchdog=dog):
        clock.advance(5)
    clock.advance(9)
    assert dog.stalled() is None


async def test_queue_counts_and_failing_searches(db: Database) -> None:
    """Queue counts per state and searches failing for an active watch are in the report."""
    now = FakeClock()()
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (1, ?, ?)",
            (now, now),
        )
        await conn.executemany(
            "INSERT INTO searches (id, url, created_at, consecutive_failures, last_error_kind,"
            " last_error) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (1, "https://www.willhaben.at/iad/a", now, 3, "blocked", "403"),
                (2, "https://www.willhaben.at/iad/b", now, 0, None, None),
                (3, "https://www.willhaben.at/iad/c", now, 5, "layout", "no data"),
            ],
        )
        await conn.executemany(
            "INSERT INTO watches (chat_id, search_id, label, status, created_at)"
            " VALUES (1, ?, 'x', ?, ?)",
            [(1, "active", now), (2, "active", now), (3, "paused", now)],
        )
        await conn.executemany(
            "INSERT INTO notifications (chat_id, kind, text, dedupe_key, status, attempts,"
            " max_attempts, next_attempt_at, created_at, queued_at, updated_at)"
            " VALUES (1, 'info', 'x', ?, ?, ?, 5, ?, ?, ?, ?)",
            [
                (f"k{i}", status, attempts, now, now, now, now)
                for i, (status, attempts) in enumerate(
                    [("pending", 0), ("pending", 2), ("sending", 1), ("dead", 5), ("sent", 1)]
                )
            ],
        )
    data = (await check_health(db, SETTINGS, now=now)).as_dict()
    assert data["queue"] == {"pending": 2, "retrying": 1, "sending": 1, "dead": 1}
    [failing] = data["failing_searches"]
    assert failing["url"] == "https://www.willhaben.at/iad/a"
    assert failing["consecutive_failures"] == 3
    assert failing["error_kind"] == "blocked"


async def test_probe_never_creates_a_database(tmp_path: Path) -> None:
    """A missing database is unhealthy and stays missing."""
    path = tmp_path / "missing.sqlite3"
    report = await probe(Settings(db=path), now=0)
    assert not report.healthy
    assert "no database" in report.reason
    assert not path.exists()


async def test_probe_refuses_an_unmigrated_database(tmp_path: Path) -> None:
    """A file at another schema version is unhealthy, not migrated by the health check."""
    path = tmp_path / "old.sqlite3"
    await (await Database(path).open(target=latest_version() - 1)).close()
    report = await probe(Settings(db=path), now=0)
    assert not report.healthy
    assert f"schema version {latest_version() - 1}, expected {latest_version()}" in report.reason
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (latest_version() - 1,)


async def test_probe_leaves_an_empty_file_empty(tmp_path: Path) -> None:
    """Issue 27: an empty file (one `sqlite3.connect` made) is unhealthy, and stays 0 bytes:
    the health check never sets up a database."""
    path = tmp_path / "empty.sqlite3"
    sqlite3.connect(path).close()
    report = await probe(Settings(db=path), now=0)
    assert not report.healthy
    assert report.reason == f"the database {path} is empty; check HABICHT_DB"
    assert path.stat().st_size == 0


async def test_probe_reports_an_unreadable_file(tmp_path: Path) -> None:
    """A file that is not SQLite is unhealthy with the reason, not a traceback."""
    path = tmp_path / "garbage.sqlite3"
    path.write_bytes(b"not a database" * 100)
    report = await probe(Settings(db=path), now=0)
    assert not report.healthy
    assert "cannot read database" in report.reason


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory without .env and HABICHT_DB pointing into it."""
    monkeypatch.chdir(tmp_path)
    for name, _, _ in Settings.documented():
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "habicht.sqlite3"
    monkeypatch.setenv("HABICHT_DB", str(path))
    monkeypatch.setenv("HABICHT_QUEUE_INTERVAL", "10")
    return path


async def test_cli_exit_codes_and_json(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`habicht health` prints JSON always and exits 1 unhealthy, 0 healthy."""
    assert await _main_in_thread(["health"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "unhealthy"
    assert "no database" in data["reason"]

    async with Database(env) as db:
        for job in ("scrape", "drain"):
            async with heartbeat(db, job, clock=time.time):
                pass
    assert await _main_in_thread(["health"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "healthy"
    assert set(data) == {
        "status",
        "reason",
        "checked_at",
        "database",
        "jobs",
        "queue",
        "failing_searches",
        "freshness",
        "feeds",
        "alert_freshness",
        "storage_fault",
        "following",
        "replica",
    }
    assert data["following"] == {
        "followed": 0,
        "page_checks_hour": 0,
        "edits_sent": 0,
        "edits_impossible": 0,
        "gone_found": 0,
    }
    assert data["freshness"] == {
        "searches": 0,
        "stalest_seconds": None,
        "p95_seconds": None,
        "interval_seconds": 300.0,
        "behind": False,
    }


@pytest.mark.parametrize("table", sorted(FOREIGN))
async def test_health_reports_another_applications_file_and_leaves_it_alone(
    env: Path, table: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27: `habicht health` on another application's SQLite file — with a table named
    like habicht's outbox, or none in common — is unhealthy with the reason, and not a byte
    of that file changes (it used to switch it to WAL: header bytes 18-19 01 01 → 02 02)."""
    foreign_database(env, table)
    before = contents(env.parent)
    assert await _main_in_thread(["health"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "unhealthy"
    assert data["reason"].startswith(f"{env} is not habicht's database")
    assert table in data["reason"]
    assert data["database"] == {"path": str(env), "created_at": None, "age_seconds": None}
    assert contents(env.parent) == before


async def test_health_never_writes_to_habichts_database(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27: `habicht health` on the file a killed bot left, its last commit still in
    `-wal`, reads it and changes neither the database nor its `-wal` (closing a read-write
    connection last would have checkpointed one into the other)."""
    await crashed_database(env)
    before = {name: data for name, data in contents(env.parent).items() if "-shm" not in name}
    assert await _main_in_thread(["health"]) == 1  # no cycle recorded
    assert json.loads(capsys.readouterr().out)["reason"].startswith("no scrape cycle has run")
    after = {name: data for name, data in contents(env.parent).items() if "-shm" not in name}
    assert after == before


async def test_health_says_when_habicht_created_the_database(tmp_path: Path) -> None:
    """Issue 27: the report dates the database (a date after the last deployment means a
    new, empty one: the data volume is not mounted); a file from before that record has none."""
    path = tmp_path / "habicht.sqlite3"
    async with Database(path, clock=lambda: 1_700_000_000.0):
        pass
    report = (await probe(Settings(db=path), now=1_700_000_090.0)).as_dict()
    assert report["database"] == {
        "path": str(path),
        "created_at": "2023-11-14T22:13:20+00:00",
        "age_seconds": 90.0,
    }
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("DELETE FROM origin")
    report = (await probe(Settings(db=path), now=1_700_000_090.0)).as_dict()
    assert report["database"] == {"path": str(path), "created_at": None, "age_seconds": None}


async def _main_in_thread(argv: list[str]) -> int:
    """`main` runs its own event loop, so it cannot run inside the test's."""
    return await asyncio.to_thread(main, argv)


async def test_the_feeds_section_shows_each_feed_and_the_plain_real_estate_searches(
    tmp_path: Path,
) -> None:
    """Issue 29: with a marketplace feed, a rent feed and a buy feed switched off, `feeds`
    lists each — its name in words, its URL, the searches it is for and serves, its misses and
    its day off — and counts the plain searches with the real-estate ones apart."""
    site = FakeWillhabenSite(world=True)
    async with running(tmp_path, site=site, feed_interval=60.0, safety_interval=1800.0) as bot:
        await watched_feeds(bot)
        services = bot.app.bot_data
        report = await check_health(services.db, services.settings, now=bot.clock())
    feeds = json.loads(json.dumps(report.as_dict()))["feeds"]
    assert (feeds["searches_plain"], feeds["searches_plain_real_estate"]) == (2, 1)
    shown = [
        (feed["name"], feed["searches"], feed["searches_served"], feed["coverage_misses"])
        for feed in feeds["per_feed"]
    ]
    assert shown == [
        ("flats to rent", 2, 2, 0),
        ("flats to buy", 2, 0, 2),
        ("marketplace", 2, 2, 0),
    ]
    assert [feed["off"] for feed in feeds["per_feed"]] == [False, True, False]
    rent, buy, market = (feed["off_for_seconds"] for feed in feeds["per_feed"])
    assert (rent, market) == (None, None)
    assert DAY - 300 - 10 <= buy <= DAY - 300  # a pass (and its sends' pacing) later
    assert feeds["per_feed"][1]["url"] == feed_of(BUY)


async def test_a_replica_that_lags_or_holds_nothing_is_unhealthy(
    db: Database, tmp_path: Path
) -> None:
    """Issue 35: with HABICHT_REPLICA set, health says when the replica was last written; it
    is unhealthy while the replica holds nothing, healthy once Litestream wrote to it, and
    unhealthy again once that is more than HABICHT_REPLICA_LAG ago."""
    settings = Settings(
        scrape_interval=60, queue_interval=10, replica=str(tmp_path / "replica"), replica_lag=60
    )
    clock = FakeClock(time.time())
    await _both_ran(db, clock)
    empty = await check_health(db, settings, now=clock())
    assert not empty.healthy
    assert "holds nothing yet" in empty.reason
    url = settings.replica_url
    assert url is not None
    async with Replicator(db.path, url):
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO chats (chat_id, created_at, updated_at) VALUES (1,0,0)")
        deadline = time.monotonic() + 30
        while await last_written(url) is None:
            assert time.monotonic() < deadline, "the replica was not written within 30 s"
            await asyncio.sleep(0.1)
    written = await check_health(db, settings, now=clock())
    assert written.healthy, written.reason
    replica = written.as_dict()["replica"]
    assert replica["url"] == url
    assert replica["lag_seconds"] < 30
    assert replica["max_lag_seconds"] == 60
    later = await check_health(db, settings, now=clock() + 120)
    assert "the replica" in later.reason
    assert "last written" in later.reason
