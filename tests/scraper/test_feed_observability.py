"""Issue 20, for the owner and the operator: feed misses in /stats, the health JSON and the
metrics; how fresh new-listing alerts are (first read → queued, PUBLISHED → queued, bumped
adverts left out); the "behind" alert and /stats speaking of feeds and searches apart — the
real Application over the fake Bot API and the fake willhaben world, real SQLite files."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

from kit.bot import ALICE, BOB, OWNER
from kit.feeding import CARDS, CAROL, FEED, TICK, fed, feeding, health

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


async def test_alert_freshness_over_the_last_hour_leaves_bumped_adverts_out(
    tmp_path: Path,
) -> None:
    """Each new-listing alert of a new advert is a sample, per chat: from first read to
    enqueue (0 when the feed alerts at the read) and from PUBLISHED to enqueue; a bumped
    new advert's alert and an advert without PUBLISHED give no PUBLISHED sample, and an
    hour later the window is empty — in /stats, the health JSON and the metrics histogram,
    which sees every sample once."""
    async with feeding(tmp_path) as world:
        await world.bot.say(CAROL, "/watch rtx 3080")
        await fed(world)
        services = world.bot.app.bot_data
        metrics = services.metrics = Metrics(since=world.bot.clock())
        card = world.advert("RTX 3080 Gaming", age=30, price=Decimal(450))
        world.site.publish(card)
        await world.ticks(60)
        bumped = world.advert("RTX 3080 Top", age=0, bumped=True)
        undated = world.advert("RTX 3080 ohne Datum", age=None)
        world.site.publish(bumped, undated)
        await world.ticks(60)
        for chat in (ALICE, BOB, CAROL):
            assert any(card.title in m.text for m in world.bot.api.messages(chat))
        assert any(bumped.title in m.text for m in world.bot.api.messages(ALICE))

        data = (await health(world))["alert_freshness"]
        # card: Alice, Bob, Carol; undated: Alice, Carol (no PUBLISHED); bumped: none.
        assert (data["alerts"], data["published_alerts"]) == (5, 3)
        assert data["seen_p50_seconds"] == data["seen_p95_seconds"] == 0
        assert 30 <= data["published_p50_seconds"] <= 30 + 60 + TICK
        await world.bot.say(OWNER, "/stats")
        assert "neue Anzeigen (1 h): 5; erstmals gelesen → eingereiht: 0 s (p50)" in (
            world.bot.last(OWNER)
        )
        await metrics.refresh(services.db, now=world.bot.clock(), interval=300.0)
        await metrics.refresh(services.db, now=world.bot.clock(), interval=300.0)
        count = "habicht_alert_freshness_seconds_count"
        assert metrics.registry.get_sample_value(count, {"since": "first_seen"}) == 5.0
        assert metrics.registry.get_sample_value(count, {"since": "published"}) == 3.0

        world.bot.clock.advance(3601)
        assert (await health(world))["alert_freshness"]["alerts"] == 0
        await world.bot.say(OWNER, "/stats")
        assert "neue Anzeigen (1 h): 0; erstmals gelesen → eingereiht: — (p50)" in (
            world.bot.last(OWNER)
        )


async def test_an_old_advert_that_comes_into_a_search_is_no_sample(tmp_path: Path) -> None:
    """An old advert whose seller adds "Gaming" to its title comes into Bob's search and is
    alerted to him as new there, but it is not new on willhaben: its alert measures no
    freshness."""
    async with feeding(tmp_path) as world:
        old = world.advert("Grafikkarte", age=40 * 86400, price=Decimal(450))
        world.site.publish(old)
        await fed(world)
        world.site.publish(replace(old, title="Gaming Grafikkarte"))
        await world.ticks(1800)
        assert any("Gaming Grafikkarte" in m.text for m in world.bot.api.messages(BOB))
        assert (await health(world))["alert_freshness"]["alerts"] == 0


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


async def test_a_feed_that_does_not_list_its_searches_is_switched_off_and_the_owner_told_once(
    tmp_path: Path,
) -> None:
    """Issue 26: a willhaben whose marketplace root lists nothing. Alice's and Bob's own scans
    still find every card (the budget has room, so within the scrape interval); they count
    as coverage misses, the feed is switched off and the owner is told once, in words — and
    /stats, the health JSON and habicht_coverage_misses_total count them."""
    async with feeding(tmp_path) as world:
        world.site.root_lists = lambda advert: False
        await fed(world)
        services = world.bot.app.bot_data
        metrics = services.metrics = Metrics(since=world.bot.clock())
        cards = []
        for n in range(12):  # a card every 100 s for 20 minutes
            card = world.advert(f"RTX 3080 Gaming {n}", price=Decimal(450))
            world.site.publish(card)
            cards.append(card)
            await world.ticks(100)
        await world.ticks(300)
        for chat in (ALICE, BOB):
            texts = "\n".join(message.text for message in world.bot.api.messages(chat))
            assert all(card.title in texts for card in cards)
        told = [m.text for m in world.bot.api.messages(OWNER) if "Marktplatz-Feed" in m.text]
        assert told == [
            "📡 Der Marktplatz-Feed listet nicht, was 2 Suchen finden; sie werden wieder"
            " einzeln abgefragt."
        ]
        await world.bot.say(OWNER, "/stats")
        assert "Abdeckungslücken: " in world.bot.last(OWNER)
        feeds = (await health(world))["feeds"]
        assert feeds["coverage_misses"] >= 2
        assert feeds["feeds_off"] == 1
        assert (feeds["searches_fed"], feeds["searches_polled"], feeds["feeds"]) == (0, 2, 0)
        counted = metrics.registry.get_sample_value("habicht_coverage_misses_total")
        assert counted == feeds["coverage_misses"]
