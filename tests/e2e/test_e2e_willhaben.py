"""willhaben misbehaving, end to end: a changed layout and a block never read as "no
listings", the owner is told, and habicht stops fetching while it is blocked."""

from __future__ import annotations

from kit.e2e import ADMIN, SEARCH, Alert, World, gpu

from habicht.fakes.willhaben_site import SiteFault

ANNA = 401


def test_a_changed_layout_tells_the_owner_and_raises_no_false_alerts(world: World) -> None:
    """Three cycles of an unrecognised page alert the owner once; when the page is back,
    only the advert that is really new is announced."""
    world.site.set_listings(SEARCH, [gpu(1, 300), gpu(2, 250)])
    world.start()
    world.subscribe(ANNA)
    world.site.fail_next(*[SiteFault.changed_layout()] * 4, url=SEARCH)
    world.wait_for(
        lambda: any(text.startswith("⚠️") for text in world.messages(ADMIN)),
        "the owner's alert about the failing search",
    )
    world.wait_for(lambda: not world.site.faults_pending(SEARCH), "the page to be back")
    world.site.add(SEARCH, gpu(3, 199))
    world.wait_for(lambda: Alert(ANNA, "new", "770003") in world.alerts(), "the real new advert")
    seen = world.site.hits[SEARCH]
    world.wait_for(lambda: world.site.hits[SEARCH] >= seen + 2, "two more cycles")
    assert world.alerts() == {Alert(ANNA, "new", "770003"): 1}
    assert sum(text.startswith("⚠️") for text in world.messages(ADMIN)) == 1


def test_a_block_pauses_all_fetching_and_tells_the_owner(world: World) -> None:
    """willhaben's block page stops every request to willhaben for the pause, tells the owner
    once, and sends no alerts."""
    world.site.set_listings(SEARCH, [gpu(1, 300)])
    world.start()
    world.subscribe(ANNA)
    world.site.fail_next(SiteFault.block_page(), url=SEARCH)
    world.wait_for(
        lambda: any(text.startswith("⛔") for text in world.messages(ADMIN)),
        "the owner's alert about the block",
    )
    blocked_at = world.site.hits[SEARCH]
    since = world.scrape_finished_at()
    world.wait_for(lambda: world.scrape_finished_at() >= since + 3, "3 s more of scrape cycles")
    assert world.site.hits[SEARCH] == blocked_at
    assert world.alerts() == {}
