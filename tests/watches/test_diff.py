"""Events for one watch: unseen ids are new unless the watch can know them old, lower prices
than the last known one are drops, reserved adverts are not there, nothing else speaks."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from habicht.model import Listing
from habicht.watches.diff import PUBLISHED_SLACK, BumpedListing, NewListing, PriceDrop, diff

BASELINE = 1_700_000_000.0
FRESH = BASELINE + 600


def listing(
    ad_id: str,
    price: str | None,
    *,
    bumped: bool = False,
    reserved: bool = False,
    published_at: float | None = None,
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
        reserved=reserved,
    )


def test_unseen_ids_are_new_in_page_order() -> None:
    """Every id the watch has not seen is a NewListing, in the order of the page."""
    page = [listing("30", "5"), listing("10", "7"), listing("20", None)]
    assert diff({"10": Decimal(7)}, page, baseline_at=BASELINE, baseline_complete=True) == [
        NewListing(page[0]),
        NewListing(page[2]),
    ]


def test_a_lower_price_is_a_drop_with_old_and_new() -> None:
    """A seen advert whose price went down is a PriceDrop from the last known price."""
    page = [listing("10", "350.50")]
    assert diff({"10": Decimal(400)}, page, baseline_at=BASELINE, baseline_complete=True) == [
        PriceDrop(page[0], old=Decimal(400), new=Decimal("350.50"))
    ]


def test_rises_unchanged_and_missing_prices_say_nothing() -> None:
    """Up, unchanged, a price gained, a price lost: no events."""
    seen = {"1": Decimal(10), "2": Decimal(10), "3": None, "4": Decimal(10)}
    page = [listing("1", "12"), listing("2", "10.00"), listing("3", "5"), listing("4", None)]
    assert diff(seen, page, baseline_at=BASELINE, baseline_complete=True) == []


@pytest.mark.parametrize("complete", [True, False])
def test_a_seen_bumped_advert_is_not_new(complete: bool) -> None:
    """Moving to the top by bumping does not make a seen advert new."""
    seen = {"10": Decimal(5), "11": Decimal(5)}
    page = [listing("10", "5", bumped=True, published_at=FRESH)]
    assert diff(seen, page, baseline_at=BASELINE, baseline_complete=complete) == []


def test_an_id_lower_than_every_id_seen_says_nothing_about_age() -> None:
    """Issue 9: ids are random, so an unseen advert with an id below every id the watch has
    seen is new like any other — bumped or not, after a baseline that read the search."""
    seen = {"900000000": Decimal(5), "2100000000": Decimal(5)}
    low = listing("500000001", "9", published_at=FRESH)
    low_bumped = listing("500000002", "9", bumped=True, published_at=FRESH)
    assert diff(seen, [low, low_bumped], baseline_at=BASELINE, baseline_complete=True) == [
        NewListing(low),
        NewListing(low_bumped),
    ]


def test_an_unseen_bumped_advert_beyond_an_incomplete_baseline_is_said_as_such() -> None:
    """Issue 9: when the baseline could not read the whole search, an unseen bumped advert
    may be new or an old one from beyond it: a BumpedListing, neither dropped nor called new;
    an unseen unbumped one sits at its true date and is new."""
    bumped = listing("700", "9", bumped=True, published_at=FRESH)
    plain = listing("410", "9", published_at=FRESH)
    assert diff({}, [bumped, plain], baseline_at=BASELINE, baseline_complete=False) == [
        BumpedListing(bumped),
        NewListing(plain),
    ]


def test_after_an_incomplete_baseline_an_advert_published_before_it_slid_in() -> None:
    """An unseen advert published (or bumped) more than PUBLISHED_SLACK before a baseline that
    could not read the whole search may have been beyond it: it slid onto the pages read when
    a newer one went, so it is not new (review of issue 3) — even when habicht knew it dearer;
    one published within the slack, or undated, still is."""
    slid_in = listing("410", "9", published_at=BASELINE - PUBLISHED_SLACK - 1)
    bumped_before = listing("413", "9", bumped=True, published_at=BASELINE - PUBLISHED_SLACK - 1)
    just_before = listing("411", "9", published_at=BASELINE - PUBLISHED_SLACK + 1)
    undated = listing("412", "9")
    page = [slid_in, bumped_before, just_before, undated]
    earlier = {"410": Decimal(20), "413": Decimal(20)}
    assert diff({}, page, baseline_at=BASELINE, baseline_complete=False, earlier=earlier) == [
        NewListing(just_before),
        NewListing(undated),
    ]


def test_after_a_complete_baseline_every_unseen_advert_is_news_whatever_its_date() -> None:
    """Issue 18: a complete baseline saw everything the search held, so an unseen advert came
    into it since — an older one is `entered` (it only now matches: a lower price, an edited
    title); one habicht knew at a higher price came in by that drop. Those published since
    the baseline are plain news, and a price habicht knew lower is no drop."""
    older = listing("410", "9", published_at=BASELINE - 30 * 86400)
    bumped_before = listing("413", "9", bumped=True, published_at=BASELINE - 86400)
    cheaper = listing("414", "480", published_at=BASELINE - 30 * 86400)
    dearer = listing("415", "520", published_at=BASELINE - 30 * 86400)
    fresh = listing("416", "9", published_at=FRESH)
    page = [older, bumped_before, cheaper, dearer, fresh]
    earlier = {"414": Decimal(600), "415": Decimal(500)}
    assert diff({}, page, baseline_at=BASELINE, baseline_complete=True, earlier=earlier) == [
        NewListing(older, entered=True),
        NewListing(bumped_before, entered=True),
        PriceDrop(cheaper, old=Decimal(600), new=Decimal(480), entered=True),
        NewListing(dearer, entered=True),
        NewListing(fresh),
    ]


def test_an_advert_published_since_the_baseline_is_news_whatever_price_it_was_known_at() -> None:
    """Issue 26: an unbumped advert published since the baseline cannot have been in the
    search before, so it is a new listing even when another read (a feed, another search)
    knew it dearer — its seller trimmed it before this search first read it. Judged as a
    drop, a `below` or `drop` rule would hold back its only alert. A bumped one, whose date is
    the bump, may be older: it stays "bumped" after an incomplete baseline."""
    cheaper = listing("414", "480", published_at=FRESH)
    bumped = listing("417", "480", bumped=True, published_at=FRESH)
    earlier = {"414": Decimal(600), "417": Decimal(600)}
    for complete in (False, True):
        events = diff(
            {}, [cheaper, bumped], baseline_at=BASELINE, baseline_complete=complete, earlier=earlier
        )
        assert events[0] == NewListing(cheaper)
    assert diff(
        {}, [cheaper, bumped], baseline_at=BASELINE, baseline_complete=False, earlier=earlier
    ) == [NewListing(cheaper), BumpedListing(bumped)]


def test_a_reserved_advert_is_not_on_the_page() -> None:
    """Issue 9: a reserved advert, seen or not, cheaper or not, speaks not at all."""
    seen = {"1": Decimal(500)}
    page = [listing("1", "300", reserved=True), listing("2", "9", reserved=True)]
    assert diff(seen, page, baseline_at=BASELINE, baseline_complete=True) == []


def test_a_first_look_makes_everything_new() -> None:
    """With nothing seen, every listing is new (the scan turns that into a silent baseline)."""
    page = [listing("1", "1"), replace(listing("2", "2"), bumped=True)]
    assert diff({}, page, baseline_at=None, baseline_complete=True) == [
        NewListing(page[0]),
        NewListing(page[1]),
    ]
