"""What changed for one watch: new listings and price drops. Pure; no I/O, no clock.

"New" means an advert id this watch has not seen and cannot know to be old — never "a newer
date" or "a higher id": bumping moves old adverts to the top and refreshes `PUBLISHED`, and
willhaben's ids are random (about half of all pairs of adverts on a real page have the later
one with the lower id). What a watch can know comes from its baseline, which reads the search
as deep as the scan's page cap allows:

- A *complete* baseline read every advert the search had. Every advert the watch has not
  seen since appeared after it started: new, bumped or not.
- A baseline of a search larger than the page cap is *incomplete*: adverts beyond it exist
  that the watch never saw. Bumping can bring one of them to the top, looking exactly like a
  new advert that was bumped. The watch cannot tell them apart, so it neither drops the
  advert (it may be new) nor calls it new (it may be old): it is a `BumpedListing`, said as
  "bumped to the top, not seen by this watch before". An unseen advert that is not bumped
  sits where its `PUBLISHED` puts it, so it is new unless that date says otherwise:
- Slide-ins. When an advert on the pages a scan reads is sold, the next older one moves up:
  never seen, yet not new. An unseen advert published (`PUBLISHED`, true epoch time, unlike
  the Vienna-time `PUBLISHED_String`) more than `PUBLISHED_SLACK` seconds before the watch's
  baseline already existed when the watch started, and is recorded silently. The slack keeps
  an advert published just before the baseline, but not yet in willhaben's search index then
  (or stamped by a clock a little off ours), a new one. For a bumped advert `PUBLISHED` is
  the bump time: bumped before the baseline is old as well.

A reserved advert counts as not on the page: no event while it is reserved, and nothing is
recorded for it, so when it is active again it is judged as if it reappeared — new if the
watch never saw it, a drop if it now costs less than the last known price.

A price that went down from the last *known* price is a drop (old and new price): the caller
keeps the last known price through a price-less spell, so 500 → no price → 300 is a drop
from 500. Up, unchanged, or no price now: nothing, and the caller records what it saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from habicht.scraper.parse import Listing

__all__ = ["PUBLISHED_SLACK", "BumpedListing", "Event", "NewListing", "PriceDrop", "diff"]

PUBLISHED_SLACK = 300.0
"""Seconds before a watch's baseline within which an unseen advert may still be new."""


@dataclass(frozen=True, slots=True)
class NewListing:
    """An advert this watch had not seen before, and new since the watch started."""

    listing: Listing


@dataclass(frozen=True, slots=True)
class BumpedListing:
    """An advert this watch had not seen, bumped to the top of a search its baseline could not
    read to the end: new, or an old one from beyond the baseline — the watch cannot tell."""

    listing: Listing


@dataclass(frozen=True, slots=True)
class PriceDrop:
    """An advert this watch had last seen priced at `old` now costs `new` (lower)."""

    listing: Listing
    old: Decimal
    new: Decimal


Event = NewListing | BumpedListing | PriceDrop


def diff(
    seen: Mapping[str, Decimal | None],
    listings: Iterable[Listing],
    *,
    baseline_at: float | None,
    baseline_complete: bool,
) -> list[Event]:
    """The events of the pages a scan read, for one watch.

    `seen` maps the ids this watch has seen to the last price it knew (ids not on the pages
    may be left out); `baseline_at` is when its baseline was recorded (epoch seconds), None
    if not yet; `baseline_complete` whether that baseline read every advert of the search.
    """
    events: list[Event] = []
    for listing in listings:
        if listing.reserved:
            continue
        if listing.id in seen:
            old = seen[listing.id]
            if old is not None and listing.price is not None and listing.price < old:
                events.append(PriceDrop(listing, old=old, new=listing.price))
        elif not _slid_in(listing, baseline_at=baseline_at):
            unsure = listing.bumped and not baseline_complete
            events.append(BumpedListing(listing) if unsure else NewListing(listing))
    return events


def _slid_in(listing: Listing, *, baseline_at: float | None) -> bool:
    """Whether an unseen advert was published (or bumped) before the watch started."""
    published = listing.published_at
    return (
        baseline_at is not None
        and published is not None
        and published < baseline_at - PUBLISHED_SLACK
    )
