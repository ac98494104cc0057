"""What changed for one watch: new listings and price drops. Pure; no I/O, no clock.

"New" means an advert id this watch has not seen — never "a newer date": bumping moves old
adverts to the top and refreshes `PUBLISHED`. Two kinds of unseen adverts are nevertheless
old, and are recorded silently instead of sent:

- Slide-ins. The watch sees one result page, newest first. When an advert on it is sold, the
  next older one moves up onto the page: never seen, yet not new. An unseen advert published
  (`PUBLISHED`, true epoch time, unlike the Vienna-time `PUBLISHED_String`) more than
  `PUBLISHED_SLACK` seconds before the watch's baseline already existed when the watch
  started, so it can only be a slide-in. The slack keeps an advert published just before the
  baseline, but not yet in willhaben's search index then (or stamped by a clock a little off
  ours), a new one; a slide-in from that short window needs a full page of adverts published
  after it within it. Ids cannot decide this: willhaben's ids are not strictly in publish
  order (see the fixture), so an unseen advert with an older id may really be new.
- Old bumped adverts. Bumping refreshes `PUBLISHED`, so the date rule cannot see that a
  bumped advert is old. A bumped advert the watch has not seen whose id is below every id the
  watch has seen is older than the watch's first page, and is recorded silently.

An advert without `PUBLISHED` is judged by the id rules alone.

A price that went down is a drop (old and new price); up, unchanged, gained or lost a price:
nothing, and the caller records the current price as the one seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from habicht.scraper.parse import Listing

__all__ = ["PUBLISHED_SLACK", "Event", "NewListing", "PriceDrop", "diff"]

PUBLISHED_SLACK = 300.0
"""Seconds before a watch's baseline within which an unseen advert may still be new."""


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
    baseline_at: float | None,
) -> list[Event]:
    """The events of one page for a watch.

    `seen` maps the ids this watch has seen to the price it last saw (ids not on the page
    may be left out); `oldest_seen` is the lowest numeric id it has ever seen, None if none;
    `baseline_at` is when its first page was recorded (epoch seconds), None if not yet.
    """
    events: list[Event] = []
    for listing in listings:
        if listing.id not in seen:
            if not _existed_before(listing, oldest_seen=oldest_seen, baseline_at=baseline_at):
                events.append(NewListing(listing))
            continue
        old = seen[listing.id]
        if old is not None and listing.price is not None and listing.price < old:
            events.append(PriceDrop(listing, old=old, new=listing.price))
    return events


def _existed_before(
    listing: Listing, *, oldest_seen: int | None, baseline_at: float | None
) -> bool:
    """Whether an unseen advert provably predates the watch: a slide-in or an old bump."""
    published = listing.published_at
    slid_in = (
        baseline_at is not None
        and published is not None
        and published < baseline_at - PUBLISHED_SLACK
    )
    older_id = (
        oldest_seen is not None
        and listing.id.isascii()
        and listing.id.isdigit()
        and int(listing.id) < oldest_seen
    )
    old_bump = listing.bumped and older_id
    return slid_in or old_bump
