"""The scheduler through the real Application (issue 11): no amplification from commands,
owner alerts for freshness and database errors, daily retention, /stats, health JSON and
the metrics endpoint over real HTTP."""

from __future__ import annotations

import json
import socket
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from kit.bot import ALICE, BOB, MARKET, OWNER, SEARCH, Bot, running
from telegram.error import Forbidden, RetryAfter

from habicht.bot import RETENTION, SCRAPE, run_jobs_now
from habicht.bot.alerts import alert_scan
from habicht.config import ConfigError
from habicht.db import Database, latest_version, migrations
from habicht.fakes import FakeAdvert
from habicht.health import check_health
from habicht.metrics import Metrics
from habicht.queue import Message, Outgoing
from habicht.retention import LISTING_DAYS
from habicht.scraper.scan import ScanSummary

DAY = 86400.0


async def test_resume_ten_times_queues_one_scan(bot: Bot) -> None:
    """Issue 11: /resume x 10 fetches willhaben once (the resumed watch's baseline), and
    /watch of a search the chat already watches fetches nothing."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    await bot.say(ALICE, "/pause")
    before = len(bot.site.log)
    for _ in range(10):
        await bot.say(ALICE, "/resume")
        await bot.baseline()
    assert len(bot.site.log) - before == 1
    for _ in range(3):
        await bot.say(ALICE, f"/watch {SEARCH}")
        await bot.baseline()
    assert len(bot.site.log) - before == 1
    assert "beobachtest du schon: Nr. 1" in bot.last(ALICE)


async def test_the_owner_hears_once_when_freshness_falls_behind_and_once_when_back(
    tmp_path: Path,
) -> None:
    """Five searches at 60 s gap cannot be scanned every 100 s: after an interval of it,
    the owner is told once, with the count and what would fit; removing four searches
    brings freshness back, and that is told once too."""
    async with running(tmp_path, scrape_interval=100.0, fetch_gap=60.0) as bot:
        for n in range(5):
            await bot.say(ALICE, f"/watch sofa {n}")
        for _ in range(150):  # 25 minutes of ticks
            bot.clock.advance(10)
            await run_jobs_now(bot.app, SCRAPE)
        told = [m.text for m in bot.api.messages(OWNER)]
        behind = [t for t in told if "hinken nach" in t]
        assert len(behind) == 1
        assert "die älteste von 5" in behind[0]
        assert "HABICHT_SCRAPE_INTERVAL ≥ 5 min" in behind[0]
        for _ in range(4):
            await bot.say(ALICE, "/unwatch 1")
        for _ in range(150):
            bot.clock.advance(10)
            await run_jobs_now(bot.app, SCRAPE)
        told = [m.text for m in bot.api.messages(OWNER)]
        assert len([t for t in told if "hinken nach" in t]) == 1
        assert len([t for t in told if "wieder aktuell" in t]) == 1


async def test_a_database_error_is_told_once_and_its_end_once(bot: Bot) -> None:
    """Passes stopped by database errors make one owner alert; the first pass through
    after them makes one more."""
    services = bot.app.bot_data
    failing = ScanSummary(database_error="OperationalError: database or disk is full")
    for n in range(3):
        await alert_scan(services, failing, cycle=n, key=f"scan:{n}")
    await alert_scan(services, ScanSummary(scanned=1), cycle=3, key="scan:3")
    await alert_scan(services, ScanSummary(scanned=1), cycle=4, key="scan:4")
    await run_jobs_now(bot.app, "drain")
    told = [m.text for m in bot.api.messages(OWNER)]
    assert len([t for t in told if "Datenbankfehler" in t]) == 1
    assert "database or disk is full" in told[0]
    assert len([t for t in told if "Datenbank arbeitet wieder" in t]) == 1


async def test_retention_purges_old_notifications_and_keeps_their_keys(bot: Bot) -> None:
    """The daily job deletes sent rows older than HABICHT_RETENTION_DAYS; their keys stay
    tombstoned, so the same alert is never queued again; adverts no search returned for
    90 days are forgotten with what watches saw of them, fresher ones stay."""
    services = bot.app.bot_data
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()  # advert 1001 is seen now
    store = services.store
    await store.enqueue(Outgoing(ALICE, "new", "old alert", "new:42:2002"))
    await run_jobs_now(bot.app, "drain")
    bot.clock.advance((LISTING_DAYS + 1) * DAY)
    bot.site.set_listings(MARKET, [FakeAdvert("2001", "Neueres Sofa", Decimal(50))])
    await bot.scrape()  # 2001 seen now, 1001 not for 91 days
    await run_jobs_now(bot.app, RETENTION)
    db = services.db
    keys = [row[0] for row in await db.fetchall("SELECT dedupe_key FROM notifications")]
    assert "new:42:2002" not in keys
    assert not await store.enqueue(Outgoing(ALICE, "new", "old alert", "new:42:2002"))
    assert [r[0] for r in await db.fetchall("SELECT ad_id FROM listings")] == ["2001"]
    seen = await db.fetchall("SELECT ad_id FROM watch_listings")
    assert [row[0] for row in seen] == ["2001"]


async def test_a_tombstone_goes_once_its_advert_is_off_every_page_for_the_retention_days(
    bot: Bot,
) -> None:
    """Issue 19, case 13: an alert's purged key stays tombstoned while its advert is still
    on a page, and goes once the advert has not been on any page for HABICHT_RETENTION_DAYS;
    an owner message's key goes that many days after its purge. The advert, back later, is
    still known to the watch: no second alert."""
    services = bot.app.bot_data
    days = services.settings.retention_days
    db = services.db
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    sofa = FakeAdvert("1002", "Neues Sofa", Decimal(90))
    bot.site.add(MARKET, sofa)
    await bot.scrape()
    await services.store.enqueue(Outgoing(OWNER, "admin", "note", "admin:note:1001"))
    await run_jobs_now(bot.app, "drain")
    assert "Neues Sofa" in bot.last(ALICE)

    async def tombstones() -> list[str]:
        rows = await db.fetchall("SELECT dedupe_key FROM notification_tombstones ORDER BY 1")
        return [row[0] for row in rows]

    bot.clock.advance((days + 1) * DAY)
    await bot.scrape()  # still on the page
    await run_jobs_now(bot.app, RETENTION)
    assert f"new:1002:{ALICE}" in await tombstones()
    assert "admin:note:1001" in await tombstones()

    bot.site.remove(MARKET, sofa.id)
    bot.clock.advance((days + 1) * DAY)
    await bot.scrape()
    await run_jobs_now(bot.app, RETENTION)
    assert f"new:1002:{ALICE}" not in await tombstones()
    assert "admin:note:1001" not in await tombstones()

    sent = len(bot.api.messages(ALICE))
    bot.site.add(MARKET, sofa)
    await bot.scrape()
    assert len(bot.api.messages(ALICE)) == sent


async def test_stats_and_health_show_freshness(bot: Bot) -> None:
    """/stats and the health JSON say how long the stalest search has waited."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(BOB, "/watch tisch")
    await bot.baseline()
    bot.clock.advance(250)
    await bot.say(OWNER, "/stats")
    assert "Aktualität: älteste Suche vor 4 min" in bot.last(OWNER)
    services = bot.app.bot_data
    report = await check_health(services.db, services.settings, now=bot.clock())
    fresh = json.loads(json.dumps(report.as_dict()))["freshness"]
    assert fresh["searches"] == 2
    assert fresh["stalest_seconds"] >= 250
    assert fresh["interval_seconds"] == 300
    assert not fresh["behind"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_the_metrics_endpoint_answers_over_http(tmp_path: Path) -> None:
    """With HABICHT_METRICS_PORT set, GET /metrics on 127.0.0.1 shows fetches, sends,
    queue depth, staleness and the detection-to-delivery histogram."""
    port = free_port()
    async with running(tmp_path, metrics_port=port) as bot:
        await bot.say(ALICE, f"/watch {SEARCH}")
        await bot.baseline()
        bot.site.add(MARKET, FakeAdvert("1002", "Neues Sofa", Decimal(70)))
        await bot.scrape()
        await run_jobs_now(bot.app, SCRAPE)  # refreshes the gauges after that drain
        async with httpx.AsyncClient() as http:
            response = await http.get(f"http://127.0.0.1:{port}/metrics")
        assert response.status_code == 200
        text = response.text
        assert 'habicht_fetches_total{outcome="ok"} 2.0' in text
        assert 'habicht_sends_total{outcome="sent"} 2.0' in text  # baseline note, alert
        assert 'habicht_notifications{status="sent"} 2.0' in text
        assert 'habicht_scan_staleness_seconds{quantile="max"}' in text
        assert "habicht_searches_active 1.0" in text
        assert "habicht_delivery_seconds_count 2.0" in text
        # Issue 20: the new advert's alert is one freshness sample (no PUBLISHED on its page).
        assert 'habicht_alert_freshness_seconds_count{since="first_seen"} 1.0' in text
        assert 'habicht_alert_freshness_seconds_count{since="published"}' not in text
        assert "habicht_feed_misses_total 0.0" in text
    async with httpx.AsyncClient() as http:  # the endpoint closed with the bot
        with pytest.raises(httpx.ConnectError):
            await http.get(f"http://127.0.0.1:{port}/metrics")


async def test_the_scheduler_migration_keeps_old_searches(tmp_path: Path) -> None:
    """A file from before the scheduler migration keeps its searches, which have no scan
    request pending after the upgrade."""
    (version,) = [v for v, name, _ in migrations() if name.endswith("_scheduler.sql")]
    path = tmp_path / "old.sqlite3"
    old = await Database(path).open(target=version - 1)
    async with old.transaction() as conn:
        await conn.execute(
            "INSERT INTO searches (url, created_at, last_attempt_at) VALUES ('u', 1, 2)"
        )
    await old.close()
    async with Database(path) as upgraded:
        assert await upgraded.user_version() == latest_version()
        row = await upgraded.fetchone(
            "SELECT url, last_attempt_at, scan_requested_at FROM searches"
        )
        assert row is not None
        assert tuple(row) == ("u", 2, None)


async def test_a_metrics_port_in_use_stops_the_startup_with_one_line(tmp_path: Path) -> None:
    """A port another program holds is a configuration error naming both settings."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(ConfigError, match="HABICHT_METRICS_PORT"):
            async with running(tmp_path, metrics_port=port):
                pass


async def test_sends_are_counted_by_what_their_error_meant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The send wrapper counts a success as `sent` and a failure by its classified outcome,
    and passes the error on to the drain unchanged."""
    monkeypatch.setenv("PTB_TIMEDELTA", "true")  # RetryAfter with a timedelta, no warning
    metrics = Metrics(since=0.0)
    failures = iter(
        [None, RetryAfter(timedelta(seconds=5)), Forbidden("bot was blocked by the user"), None]
    )

    async def send(message: Message) -> None:
        failure = next(failures)
        if failure is not None:
            raise failure

    counted = metrics.sending(send)
    raised: list[type[Exception]] = []
    for _ in range(4):
        try:
            await counted(Message(ALICE, "x"))
        except (RetryAfter, Forbidden) as exc:
            raised.append(type(exc))
    assert raised == [RetryAfter, Forbidden]
    samples = {
        s.labels["outcome"]: s.value
        for family in metrics.registry.collect()
        if family.name == "habicht_sends"
        for s in family.samples
        if s.name == "habicht_sends_total"
    }
    assert samples == {"sent": 2.0, "retry_after": 1.0, "dead": 1.0}


async def test_a_pass_with_nothing_due_still_beats(bot: Bot) -> None:
    """The scheduler's tick records its heartbeat even when no search is due, so a quiet
    bot stays healthy and only a stalled scheduler goes stale."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    requests = len(bot.site.log)
    bot.clock.advance(60)  # nothing is due for another 240 s
    await run_jobs_now(bot.app, SCRAPE)
    assert len(bot.site.log) == requests
    services = bot.app.bot_data
    report = await check_health(services.db, services.settings, now=bot.clock())
    assert report.jobs["scrape"].finished_at == bot.clock()
    later = bot.clock() + 3 * services.settings.scrape_interval + 1
    stalled = await check_health(services.db, services.settings, now=later)
    assert not stalled.healthy
    assert "scrape" in stalled.reason
