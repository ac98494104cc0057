"""The container's health check against the real process: healthy while it runs, unhealthy
with a reason once it has been stopped for longer than 3 intervals."""

from __future__ import annotations

from kit.e2e import SEARCH, World, gpu


def test_health_follows_the_running_process(world: World) -> None:
    """`habicht health` exits 0 with both cycles' times while habicht runs, and 1 naming the
    stale cycle after it stopped."""
    world.site.set_listings(SEARCH, [gpu(1, 300)])
    world.start()
    world.subscribe(301)
    world.wait_for(lambda: world.health()[0] == 0, "a healthy verdict")
    _, report = world.health()
    assert report["jobs"]["scrape"]["finished_at"]
    assert report["jobs"]["drain"]["finished_at"]
    assert set(report["queue"]) == {"pending", "retrying", "sending", "dead"}

    assert world.terminate() == 0
    world.wait_for(lambda: world.health()[0] == 1, "an unhealthy verdict after the stop")
    _, report = world.health()
    assert report["status"] == "unhealthy"
    assert "without a finished cycle" in report["reason"]
