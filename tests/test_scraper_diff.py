"""Events for one watch: unseen ids are new, lower prices are drops, nothing else speaks."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from habicht.scraper import Listing, NewListing, PriceDrop, diff


def listing(ad_id: str, price: str | None, *, bumped: bool = False) -> Listing:
    return Listing(
        id=ad_id,
        title=f"Anzeige {ad_id}",
        price=None if price is None else Decimal(price),
        price_display=None,
        location=None,
        postcode=None,
        url=f"https://www.willhaben.at/iad/kaufen-und-verkaufen/d/x-{ad_id}/",
        image_url=None,
        published_at=None,
        bumped=bumped,
    )


def test_unseen_ids_are_new_in_page_order() -> None:
    """Every id the watch has not seen is a NewListing, in the order of the page."""
    page = [listing("30", "5"), listing("10", "7"), listing("20", None)]
    assert diff({"10": Decimal(7)}, page, oldest_seen=10) == [
        NewListing(page[0]),
        NewListing(page[2]),
    ]


def test_a_lower_price_is_a_drop_with_old_and_new() -> None:
    """A seen advert whose price went down is a PriceDrop from the last seen price."""
    page = [listing("10", "350.50")]
    assert diff({"10": Decimal(400)}, page, oldest_seen=10) == [
        PriceDrop(page[0], old=Decimal(400), new=Decimal("350.50"))
    ]


def test_rises_unchanged_and_missing_prices_say_nothing() -> None:
    """Up, unchanged, a price gained, a price lost: no events."""
    seen = {"1": Decimal(10), "2": Decimal(10), "3": None, "4": Decimal(10)}
    page = [listing("1", "12"), listing("2", "10.00"), listing("3", "5"), listing("4", None)]
    assert diff(seen, page, oldest_seen=1) == []


def test_a_seen_bumped_advert_is_not_new() -> None:
    """Moving to the top by bumping does not make a seen advert new."""
    seen = {"10": Decimal(5), "11": Decimal(5)}
    assert diff(seen, [listing("10", "5", bumped=True)], oldest_seen=10) == []


def test_an_old_bumped_advert_the_watch_never_saw_is_not_new() -> None:
    """A bumped advert older than the watch's whole first page is recorded silently."""
    seen: dict[str, Decimal | None] = {}  # the watch saw ids 500 and 600, none on this page
    old_bump = listing("420", "9", bumped=True)
    fresh_bump = listing("700", "9", bumped=True)
    old_plain = listing("410", "9")
    assert diff(seen, [old_bump, fresh_bump, old_plain], oldest_seen=500) == [
        NewListing(fresh_bump),
        NewListing(old_plain),
    ]


def test_a_first_look_makes_everything_new() -> None:
    """With nothing seen, every listing is new (the scan turns that into a silent baseline)."""
    page = [listing("1", "1"), replace(listing("2", "2"), bumped=True)]
    assert diff({}, page, oldest_seen=None) == [NewListing(page[0]), NewListing(page[1])]
