"""The scheduler through the real Application (issue 11): no amplification from commands,
owner alerts for freshness and database errors, /stats and health JSON. Retention and
metrics have their own tests (tests/test_retention.py, tests/test_metrics.py)."""

from __future__ import annotations

import json
from pathlib import Path

from kit.bot import ALICE, BOB, OWNER, SEARCH, Bot, running

from habicht.bot import SCRAPE, run_jobs_now
from habicht.bot.alerts import alert_scan
from habicht.health import check_health
from habicht.scraper.scan import ScanSummary


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
