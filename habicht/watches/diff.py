"""What changed for one watch: new listings and price drops. Pure; no I/O, no clock.

"New" means an advert this watch has not seen and cannot know to be old — never "a newer
date" or "a higher id": bumping moves old adverts to the top and refreshes `PUBLISHED`, and
willhaben's ids are random (about half of all pairs of adverts on a real page have the later
one with the lower id). What a watch can know comes from its baseline, which reads the search
as deep as the scan's page cap allows:

- A *complete* baseline read every advert the search had. Every advert the watch has not seen
  since came into the search after it started: news by membership, whatever its date. Most
  are new on willhaben; some are older adverts that only now match — one that fell under the
  search's `PRICE_TO`, a title edited to hold the keyword, one moved into the category. Such
  an advert (published more than `PUBLISHED_SLACK` seconds before the baseline) is a
  `NewListing` marked `entered`, said as "new in your search · listed 12 Nov"; when habicht
  knows a higher price it had before its current one (from any search it reads), it came in
  by that drop and is a `PriceDrop` marked `entered` ("now within your search"). An advert
  published after the baseline is a `NewListing` whatever prices other reads knew it at: it
  cannot have been in the search before the watch started, and a seller who trims a new
  advert's price before this search first reads it has put up a new advert, not dropped one
  the watch knew (a price rule would otherwise hold back its only alert). A bumped one, whose
  `PUBLISHED` is the bump, may be older: a known higher price still reads as the drop.
- A baseline of a search larger than the page cap (or whose pages shifted while it was read)
  is *incomplete*: adverts beyond it exist that the watch never saw, and any of them can move
  onto the pages a scan reads. Bumping can bring one to the top, looking exactly like a new
  advert that was bumped: the watch cannot tell them apart, so it neither drops the advert
  (it may be new) nor calls it new (it may be old): it is a `BumpedListing`, said as "bumped
  to the top, not seen by this watch before". When an advert above them is sold, the next
  older one moves up — a *slide-in*: never seen, yet not new. So after an incomplete baseline
  an unseen advert published (`PUBLISHED`, true epoch time, unlike the Vienna-time
  `PUBLISHED_String`) more than `PUBLISHED_SLACK` seconds before the baseline is recorded
  silently. The slack keeps an advert published just before the baseline, but not yet in
  willhaben's search index then (or stamped by a clock a little off ours), a new one. For a
  bumped advert `PUBLISHED` is the bump time: bumped before the baseline is old as well.

A reserved advert counts as not on the page: no event while it is reserved, and nothing is
recorded for it, so when it is active again it is judged as if it reappeared — news if the
watch never saw it (unless it slid in), a drop if it now costs less than the last known price.

A price that went down from the last *known* price is a drop (old and new price): the caller
keeps the last known price through a price-less spell, so 500 → no price → 300 is a drop
from 500. Up, unchanged, or no price now: nothing, and the caller records what it saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from habicht.model import Listing

__all__ = ["PUBLISHED_SLACK", "BumpedListing", "Event", "NewListing", "PriceDrop", "diff"]

PUBLISHED_SLACK = 300.0
"""Seconds before a watch's baseline within which an unseen advert may still be new."""


@dataclass(frozen=True, slots=True)
class NewListing:
    """An advert this watch had not seen before, in its search since the watch started.

    `entered`: published before the watch started, so not new on willhaben — it came into the
    search since (a lower price, an edited title, another category).
    """

    listing: Listing
    entered: bool = False


@dataclass(frozen=True, slots=True)
class BumpedListing:
    """An advert this watch had not seen, bumped to the top of a search its baseline could not
    read to the end: new, or an old one from beyond the baseline — the watch cannot tell."""

    listing: Listing


@dataclass(frozen=True, slots=True)
class PriceDrop:
    """An advert this watch had last seen priced at `old` now costs `new` (lower).

    `entered`: the watch had not seen it — it came into the search by this drop, and `old` is
    the price habicht knew it at before (from any search).
    """

    listing: Listing
    old: Decimal
    new: Decimal
    entered: bool = False


Event = NewListing | BumpedListing | PriceDrop


def diff(
    seen: Mapping[str, Decimal | None],
    listings: Iterable[Listing],
    *,
    baseline_at: float | None,
    baseline_complete: bool,
    earlier: Mapping[str, Decimal] | None = None,
) -> list[Event]:
    """The events of the pages a scan read, for one watch.

    `seen` maps the ids this watch has seen to the last price it knew (ids not on the pages
    may be left out); `baseline_at` is when its baseline was recorded (epoch seconds), None
    if not yet; `baseline_complete` whether that baseline read every advert of the search;
    `earlier` maps unseen ids to the price habicht knew before their current one, if any.
    """
    before = earlier or {}
    events: list[Event] = []
    for listing in listings:
        if listing.reserved:
            continue
        if listing.id in seen:
            old = seen[listing.id]
            if old is not None and listing.price is not None and listing.price < old:
                events.append(PriceDrop(listing, old=old, new=listing.price))
            continue
        published_before = _published_before(listing, baseline_at=baseline_at)
        if not baseline_complete and (published_before or listing.bumped):
            if not published_before:  # a slide-in says nothing
                events.append(BumpedListing(listing))
            continue
        old, price = before.get(listing.id), listing.price
        # Published (or bumped) before the watch began: it may have been on willhaben then.
        older = baseline_at is not None and (published_before or listing.bumped)
        if older and old is not None and price is not None and price < old:
            events.append(PriceDrop(listing, old=old, new=price, entered=True))
        else:
            events.append(NewListing(listing, entered=published_before))
    return events


def _published_before(listing: Listing, *, baseline_at: float | None) -> bool:
    """Whether an unseen advert was published (or bumped) before the watch started."""
    published = listing.published_at
    return (
        baseline_at is not None
        and published is not None
        and published < baseline_at - PUBLISHED_SLACK
    )
