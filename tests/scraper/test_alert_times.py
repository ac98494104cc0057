"""How fresh new-listing alerts are (`habicht.scraper.alert_times`, issue 20): first read →
queued and PUBLISHED → queued over the last hour, bumped adverts and old ones that come into a
search left out — the real Application over the fake Bot API and the fake willhaben world."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

from kit.bot import ALICE, BOB, OWNER
from kit.feeding import CAROL, TICK, fed, feeding, health

from habicht.metrics import Metrics


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
