"""Issue 20, end to end: the real `habicht run` serves two local watches from one shared
feed, and each alert arrives once, from the feed, long before the searches' safety net."""

from __future__ import annotations

from decimal import Decimal

from kit.e2e import DEADLINE, SEARCH, Alert, World, gpu

from habicht.fakes.telegram import Fault

ANNA, BEN = 401, 402
NUMBERED = f"{SEARCH}+nr"
"""Another local search of the same adverts (`keyword=grafikkarte nr`)."""


def fed(world: World) -> None:
    """habicht started with one card on the site; Anna and Ben watch two local searches of
    it, and the shared feed has been read once."""
    world.site.publish(gpu(1, 300))
    world.start()
    world.subscribe(ANNA)
    world.subscribe(BEN, url=NUMBERED)
    world.wait_for(
        lambda: (
            world.query("SELECT count(*) FROM feeds WHERE last_success_at IS NOT NULL") == [(1,)]
        ),
        "the feed's first read",
    )


def test_two_local_watches_share_the_feed_and_each_alert_arrives_once(world: World) -> None:
    # The searches' own scans wait ten minutes (fed searches are scanned at the scrape
    # interval with the budget left): every alert in this test is the feed's.
    world.overrides.update(
        {
            "HABICHT_FEED_INTERVAL": "1",
            "HABICHT_SCRAPE_INTERVAL": "600",
            "HABICHT_SAFETY_INTERVAL": "3600",
        }
    )
    fed(world)
    own = {url: n for url, n in world.site.hits.items() if "keyword" in url}
    world.site.publish(gpu(2, 250))
    wanted = {Alert(ANNA, "new", "770002"): 1, Alert(BEN, "new", "770002"): 1}
    world.wait_for(lambda: world.alerts() == wanted, "both alerts from the feed")
    sources = world.query("SELECT DISTINCT source FROM notifications WHERE kind = 'new'")
    assert sources == [("feed",)]
    feed_reads = sum(n for url, n in world.site.hits.items() if "keyword" not in url)
    world.wait_for(
        lambda: (
            sum(n for url, n in world.site.hits.items() if "keyword" not in url) >= feed_reads + 3
        ),
        "three more feed reads",
    )
    assert world.alerts() == wanted
    assert {url: n for url, n in world.site.hits.items() if "keyword" in url} == own


def test_a_root_that_lists_nothing_costs_no_alert(world: World) -> None:
    """Issue 26: a willhaben whose marketplace root lists nothing, at the default feed
    settings (a feed a minute, the safety net at 30 min): the feed serves both searches and
    shows none of their adverts, yet new adverts, a drop, an alert through Telegram's 5xx and
    a burst of 75 all arrive once each, as with feeds off — the searches' own scans, at the
    scrape interval while the budget has room, are the truth."""
    world.site.root_lists = lambda advert: False
    fed(world)
    chats = (ANNA, BEN)

    world.site.publish(gpu(2, 250))
    world.site.set_price("770001", Decimal(200))
    first = {Alert(chat, "new", "770002") for chat in chats}
    first |= {Alert(chat, "drop", "770001") for chat in chats}
    world.wait_for(lambda: set(world.alerts()) == first, "the new advert and the drop")

    world.telegram.fail_next(ANNA, Fault.server_error(), Fault.server_error(502))
    world.site.publish(gpu(3, 240))
    retried = first | {Alert(chat, "new", "770003") for chat in chats}
    world.wait_for(lambda: set(world.alerts()) == retried, "the alert through two 5xx")

    world.site.publish(*[gpu(n, 100 + n) for n in range(10, 85)])
    burst = retried | {
        Alert(chat, "new", str(770_000 + n)) for chat in chats for n in range(10, 85)
    }
    world.wait_for(lambda: set(world.alerts()) == burst, "the burst of 75", timeout=2 * DEADLINE)
    assert world.alerts() == dict.fromkeys(burst, 1)
