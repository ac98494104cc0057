"""Places a flat search learns from its own reads: the `LOCATION_ID`s of the flats it listed.

A flat search for a town, a Bezirk outside Vienna or a mix of areas (`estate.EstateSearch
.learned`) names a place by an `areaId`, or a town by its path, that no saved page ties to an
advert attribute. What the
search itself listed is certain, though: a flat its own read shows lies in its area, and so
does every flat with the same `LOCATION_ID` (the one assumption, `willhaben.estate`'s module
docstring). So each own read (`scraper.scan`) records the `LOCATION_ID`s of the flats it
listed (`learn_places`), for good; a feed read hands them to the matcher (`with_learned`), and
a new flat in a learned place that fits every other parameter is alerted from the feed. A
flat in a place not learned yet is no local match — its search's own scan sends it and learns
its place — so learning is never a false match, only a first flat that comes later.

Learned only from what certainly belongs to the search: `stray` has dropped the paid
placement and what the decidable parameters rule out before, and of the rest only a flat
(not a building project, whose place the page may state for the project rather than the
unit listed) that fits every decidable parameter but its area and words teaches its place —
a placement without its marker, which ignores the filters, so hardly ever teaches one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import aiosqlite

from habicht.model import Listing
from habicht.willhaben.estate import EstateSearch
from habicht.willhaben.local import AnyLocal, local_search

__all__ = ["learn_places", "teaches", "with_learned"]


def teaches(search: EstateSearch, listing: Listing) -> str | None:
    """The `LOCATION_ID` a flat the search `search` listed teaches it, or None (module
    docstring). Its words are no test here: a flat listed for a word further down its
    description than the snippet lies in the search's area all the same."""
    estate = listing.estate
    if estate is None or estate.project or estate.location_id is None:
        return None
    fits = replace(search, words=(), learned=False).matches(listing)
    return estate.location_id if fits else None


async def learn_places(
    conn: aiosqlite.Connection, search_id: int, url: str, listings: Iterable[Listing], *, now: float
) -> None:
    """Record, inside the caller's transaction, the places the search's own read of
    `listings` (its adverts after `stray`) teaches it; a place learned before keeps the time
    it was first learned. Nothing for a search whose area is known or that is not local."""
    search = local_search(url)
    if not isinstance(search, EstateSearch) or not search.learned:
        return
    places = {place for listing in listings if (place := teaches(search, listing))}
    await conn.executemany(
        "INSERT INTO search_places (search_id, location_id, learned_at) VALUES (?, ?, ?)"
        " ON CONFLICT (search_id, location_id) DO NOTHING",
        [(search_id, place, now) for place in sorted(places)],
    )


def with_learned(search: AnyLocal, places: str | None) -> AnyLocal:
    """`search` with the places it learned, `places` as `_SERVED` in `scraper.feeds` selects
    them (space-separated `LOCATION_ID`s, None for none): for a feed read's matcher."""
    if not isinstance(search, EstateSearch) or not search.learned:
        return search
    return search.learning(places.split() if places else ())
