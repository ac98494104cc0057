"""The scheduler through the real Application (issue 11): no amplification from commands,
/stats and health JSON. Its owner alerts for freshness and database errors are in
tests/bot/test_alerts.py; retention and metrics have their own tests (tests/test_retention.py,
tests/test_metrics.py)."""

from __future__ import annotations

import json

from kit.bot import ALICE, BOB, OWNER, SEARCH, Bot

from habicht.bot import SCRAPE, run_jobs_now
from habicht.health import check_health


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
