"""Issue 20, end to end: the real `habicht run` serves two local watches from one shared
feed, and each alert arrives once, from the feed, long before the searches' safety net."""

from __future__ import annotations

from e2e.harness import SEARCH, Alert, World, gpu

ANNA, BEN = 401, 402
NUMBERED = f"{SEARCH}+nr"
"""Another local search of the same adverts (`keyword=grafikkarte nr`)."""


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
