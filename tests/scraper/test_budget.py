"""What the politeness budget serves, feeds and searches apart (`habicht.scraper.budget`,
issue 20): a feed miss in /stats, the health JSON and the metrics, /stats and health telling
feeds and searches apart, and the "behind" alert counting only the requests that compete — the
real Application over the fake Bot API and the fake willhaben world, real SQLite files."""

from __future__ import annotations

from pathlib import Path

from kit.bot import BOB, OWNER
from kit.feeding import CARDS, CAROL, FEED, fed, feeding, health

from habicht.fakes.willhaben_site import SiteFault
from habicht.metrics import Metrics
from habicht.scraper.alert_times import latency


async def test_a_feed_miss_shows_in_stats_health_and_the_metrics(tmp_path: Path) -> None:
    """An advert whose keyword is only beyond the snippet reaches Bob by his search's own
    scan: one feed miss in /stats, in the health JSON and in habicht_feed_misses_total —
    and, the budget having room, within one scrape interval of its publication, not at the
    safety net (issue 26)."""
    async with feeding(tmp_path) as world:
        await fed(world)
        services = world.bot.app.bot_data
        metrics = services.metrics = Metrics(since=world.bot.clock())
        body = "Top Zustand. " + "x " * 150 + "Ideal zum Gaming."
        hidden = world.advert("Grafikkarte", age=5, body=body)
        world.site.publish(hidden)
        await world.ticks(60)
        assert not [m for m in world.bot.api.messages(BOB) if "Grafikkarte" in m.text]
        await world.ticks(300)
        assert any(hidden.title in m.text for m in world.bot.api.messages(BOB))

        await world.bot.say(OWNER, "/stats")
        assert "Feed-Fehltreffer: 1" in world.bot.last(OWNER)
        feeds = (await health(world))["feeds"]
        assert feeds["feed_misses"] == 1
        assert (feeds["searches_fed"], feeds["searches_polled"], feeds["feeds"]) == (2, 0, 1)
        assert feeds["feed_failures"] == 0
        assert feeds["feed_age_seconds"] <= 60
        assert metrics.registry.get_sample_value("habicht_feed_misses_total") == 1.0
        late = await latency(services.db, now=world.bot.clock())
        assert late.alerts == 1
        assert late.published_p95 is not None
        assert late.published_p95 <= 300 + 60  # its search's own scan, one interval late


async def test_stats_and_health_tell_feeds_and_searches_apart(tmp_path: Path) -> None:
    """/stats and the health JSON say how many searches the live feed serves, how many are
    polled on their own, and the feed's last read and failing streak."""
    async with feeding(tmp_path) as world:
        await fed(world)
        await world.bot.say(CAROL, f"/watch {CARDS}?areaId=900")
        await world.bot.baseline()
        world.site.fail_next(*[SiteFault.server_error()] * 300, url=FEED)
        await world.ticks(180)
        await world.bot.say(OWNER, "/stats")
        text = world.bot.last(OWNER)
        feeds = (await health(world))["feeds"]
        assert (feeds["searches_fed"], feeds["searches_polled"]) == (2, 1)
        assert feeds["feed_failures"] >= 2
        assert feeds["feed_age_seconds"] >= 180
        assert feeds["polled_stalest_seconds"] <= 300
        assert feeds["safety_stalest_seconds"] >= 180  # the safety net is due every 30 min
        assert "1 Suchen einzeln abgefragt (älteste vor " in text
        assert "; 1 Feed(s) bedienen 2 Suchen (gelesen vor 3 min" in text
        streak = f"{feeds['feed_failures']} Mal in Folge fehlgeschlagen"
        assert f"{streak}), deren eigene Abfrage alle 30 min (älteste vor " in text


async def test_the_behind_alert_counts_only_the_requests_that_compete(tmp_path: Path) -> None:
    """Twelve searches polled on their own every 100 s at a 20 s gap do not fit beside the
    feed (every minute) and the safety net of the two searches it serves: the owner is told
    the searches and the feed apart, the 14 requests an interval that compete for 5 places,
    and what would fit them all: a gap of 1 / (12/100 + 2/1800 + 1/60) ≈ 7.3 s, or the
    interval the feed and safety net leave for twelve searches, 12 · 20 / (1 - 20 · (2/1800
    + 1/60)) ≈ 372 s."""
    async with feeding(tmp_path, scrape_interval=100.0, fetch_gap=20.0) as world:
        await fed(world)
        for n in range(12):
            await world.bot.say(CAROL, f"/watch {CARDS}?areaId={900 + n}")
        await world.ticks(1500)
        told = [m.text for m in world.bot.api.messages(OWNER) if "hinken nach" in m.text]
        assert len(told) == 1
        assert "12 Suchen einzeln abgefragt (älteste vor " in told[0]
        assert "; 1 Feed(s) bedienen 2 Suchen (gelesen vor " in told[0]
        assert "Bei 20.0 s pro Abruf passen 5 Abrufe in ein Intervall, 14 stehen an" in told[0]
        assert "HABICHT_FETCH_GAP=7.3 oder HABICHT_SCRAPE_INTERVAL ≥ 6 min" in told[0]
