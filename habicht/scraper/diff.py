"""What changed for one watch: new listings and price drops. Pure; no I/O, no clock.

"New" means an advert id this watch has not seen — never "a newer date": bumping moves old
adverts to the top and refreshes `PUBLISHED`. A bumped advert the watch has not seen yet
whose id is below every id the watch has seen is older than the watch's first page
(willhaben numbers adverts in order), so it is recorded silently rather than sent as new.

A price that went down is a drop (old and new price); up, unchanged, gained or lost a price:
nothing, and the caller records the current price as the one seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from habicht.scraper.parse import Listing

__all__ = ["Event", "NewListing", "PriceDrop", "diff"]


@dataclass(frozen=True, slots=True)
class NewListing:
    """An advert this watch had not seen before."""

    listing: Listing


@dataclass(frozen=True, slots=True)
class PriceDrop:
    """An advert this watch had seen at `old` now costs `new` (lower)."""

    listing: Listing
    old: Decimal
    new: Decimal


Event = NewListing | PriceDrop


def diff(
    seen: Mapping[str, Decimal | None],
    listings: Iterable[Listing],
    *,
    oldest_seen: int | None,
) -> list[Event]:
    """The events of one page for a watch.

    `seen` maps the ids this watch has seen to the price it last saw (ids not on the page
    may be left out); `oldest_seen` is the lowest numeric id it has ever seen, None if none.
    """
    events: list[Event] = []
    for listing in listings:
        if listing.id not in seen:
            older = (
                oldest_seen is not None and listing.id.isdigit() and int(listing.id) < oldest_seen
            )
            if not (listing.bumped and older):
                events.append(NewListing(listing))
            continue
        old = seen[listing.id]
        if old is not None and listing.price is not None and listing.price < old:
            events.append(PriceDrop(listing, old=old, new=listing.price))
    return events
