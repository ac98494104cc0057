"""Events for one watch: unseen ids are new, lower prices are drops, nothing else speaks."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from habicht.scraper import PUBLISHED_SLACK, Listing, NewListing, PriceDrop, diff

BASELINE = 1_700_000_000.0


def listing(
    ad_id: str, price: str | None, *, bumped: bool = False, published_at: float | None = None
) -> Listing:
    return Listing(
        id=ad_id,
        title=f"Anzeige {ad_id}",
        price=None if price is None else Decimal(price),
        price_display=None,
        location=None,
        postcode=None,
        url=f"https://www.willhaben.at/iad/kaufen-und-verkaufen/d/x-{ad_id}/",
        image_url=None,
        published_at=published_at,
        bumped=bumped,
    )


def test_unseen_ids_are_new_in_page_order() -> None:
    """Every id the watch has not seen is a NewListing, in the order of the page."""
    page = [listing("30", "5"), listing("10", "7"), listing("20", None)]
    assert diff({"10": Decimal(7)}, page, oldest_seen=10, baseline_at=BASELINE) == [
        NewListing(page[0]),
        NewListing(page[2]),
    ]


def test_a_lower_price_is_a_drop_with_old_and_new() -> None:
    """A seen advert whose price went down is a PriceDrop from the last seen price."""
    page = [listing("10", "350.50")]
    assert diff({"10": Decimal(400)}, page, oldest_seen=10, baseline_at=BASELINE) == [
        PriceDrop(page[0], old=Decimal(400), new=Decimal("350.50"))
    ]


def test_rises_unchanged_and_missing_prices_say_nothing() -> None:
    """Up, unchanged, a price gained, a price lost: no events."""
    seen = {"1": Decimal(10), "2": Decimal(10), "3": None, "4": Decimal(10)}
    page = [listing("1", "12"), listing("2", "10.00"), listing("3", "5"), listing("4", None)]
    assert diff(seen, page, oldest_seen=1, baseline_at=BASELINE) == []


def test_a_seen_bumped_advert_is_not_new() -> None:
    """Moving to the top by bumping does not make a seen advert new."""
    seen = {"10": Decimal(5), "11": Decimal(5)}
    assert diff(seen, [listing("10", "5", bumped=True)], oldest_seen=10, baseline_at=BASELINE) == []


def test_an_old_bumped_advert_the_watch_never_saw_is_not_new() -> None:
    """A bumped advert older than the watch's whole first page is recorded silently, though
    bumping made its PUBLISHED fresh; an unbumped lower id is new (ids are not in publish
    order)."""
    seen: dict[str, Decimal | None] = {}  # the watch saw ids 500 and 600, none on this page
    fresh = BASELINE + 600
    old_bump = listing("420", "9", bumped=True, published_at=fresh)
    fresh_bump = listing("700", "9", bumped=True, published_at=fresh)
    low_id_but_new = listing("410", "9", published_at=fresh)
    page = [old_bump, fresh_bump, low_id_but_new]
    assert diff(seen, page, oldest_seen=500, baseline_at=BASELINE) == [
        NewListing(fresh_bump),
        NewListing(low_id_but_new),
    ]


def test_an_unseen_advert_published_before_the_baseline_slid_in_and_is_not_new() -> None:
    """An unseen advert published more than PUBLISHED_SLACK before the watch's baseline
    existed when it started: it slid onto the page when a newer one went, so it is not new
    (review of issue 3); one published within the slack, or without a date, still is."""
    slid_in = listing("410", "9", published_at=BASELINE - PUBLISHED_SLACK - 1)
    just_before = listing("411", "9", published_at=BASELINE - PUBLISHED_SLACK + 1)
    undated = listing("412", "9")
    page = [slid_in, just_before, undated]
    assert diff({}, page, oldest_seen=500, baseline_at=BASELINE) == [
        NewListing(just_before),
        NewListing(undated),
    ]


def test_a_first_look_makes_everything_new() -> None:
    """With nothing seen, every listing is new (the scan turns that into a silent baseline)."""
    page = [listing("1", "1"), replace(listing("2", "2"), bumped=True)]
    assert diff({}, page, oldest_seen=None, baseline_at=None) == [
        NewListing(page[0]),
        NewListing(page[1]),
    ]
