"""Coverage (`habicht.scraper.coverage`, issue 26): a feed that does not list what its
searches find is switched off and the owner told once — the real Application over the fake Bot
API and the fake willhaben world."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from kit.bot import ALICE, BOB, OWNER
from kit.feeding import fed, feeding, health

from habicht.metrics import Metrics


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
