"""What an alert says beside the advert itself: how far away it is, how its price compares
with the going price of its search, and whether it is a repost of an advert seen before.

A read of a search yields its `SearchFacts` once (the going price, the reposts among its
adverts), shared by every watch of the search; a watch adds what is its own (the distance
from the place its `near` rule names) when it judges an advert. The scan and `/preview` build
notes the same way, so a preview says what an alert would.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal

import aiosqlite

from habicht.market.going import PriceStats, going_price
from habicht.market.places import Fetch, Point, distance_km, places_of, reader
from habicht.market.reposts import Repost, find_reposts
from habicht.model import Listing

__all__ = [
    "NO_NOTES",
    "AlertNotes",
    "Repost",
    "SearchFacts",
    "chat_location",
    "search_facts",
    "watch_notes",
]


@dataclass(frozen=True, slots=True)
class AlertNotes:
    """The lines an alert carries besides the advert; each None when it has nothing to say.

    `km`: the distance from the centre of the watch's `near` rule; `going`: its search's going
    price (only once it has `MIN_PRICES` prices); `repost`: the advert this one reposts;
    `living_area`: the advert's own m², which a going price per m² (real estate) divides by.
    """

    km: float | None = None
    going: PriceStats | None = None
    repost: Repost | None = None
    living_area: int | None = None

    def compared(self, price: Decimal | None) -> Decimal | None:
        """What the going price compares of the advert at `price` — the price, or per m² for
        real estate — when it is one the going price would count; None when there is no going
        price, no price, no area to divide by, or a placeholder or an outlier (the alert then
        says nothing of the going price, and `deal` passes the advert over)."""
        if self.going is None:
            return None
        value = self.going.measure(price, self.living_area)
        return value if value is not None and self.going.comparable(value) else None


NO_NOTES = AlertNotes()
"""An alert with nothing to say beside the advert."""


@dataclass(frozen=True, slots=True)
class SearchFacts:
    """What one read of a search tells every watch of it, worked out once per read."""

    going: PriceStats | None = None
    reposts: Mapping[str, Repost] = field(default_factory=dict)

    def notes(self, listing: Listing) -> AlertNotes:
        """The notes every watch of the search gives `listing` (a watch may add its own)."""
        going = self.going if self.going is not None and self.going.enough else None
        area = None if listing.estate is None else listing.estate.living_area
        return AlertNotes(going=going, repost=self.reposts.get(listing.id), living_area=area)


async def search_facts(
    conn: aiosqlite.Connection,
    search_id: int,
    listings: list[Listing],
    *,
    now: float,
    read_at: float | None = None,
    gone_before: float | None = None,
) -> SearchFacts:
    """The facts of a read of search `search_id` that showed `listings` (already recorded as
    shown, so the going price counts them). The read began at `read_at` (now, unless told):
    the reposts are among the adverts it showed first, of adverts the search last showed
    before `gone_before` (`read_at`, unless told; `find_reposts`)."""
    read_at = now if read_at is None else read_at
    return SearchFacts(
        going=await going_price(conn, search_id, now=now),
        reposts=await find_reposts(
            conn,
            search_id,
            listings,
            now=now,
            read_at=read_at,
            gone_before=read_at if gone_before is None else gone_before,
        ),
    )


async def watch_notes(
    conn: aiosqlite.Connection,
    centre: str | None,
    chat_id: int,
    listings: list[Listing],
    facts: SearchFacts,
) -> dict[str, AlertNotes]:
    """The notes of each of `listings` for one watch (its chat, the centre of its filter's
    `near` rule: a postcode or `here`, None without the rule): the search's facts, and what is
    the watch's own: with a centre, each advert's distance from it (None when it cannot be
    placed). The filter reads these notes (`WatchFilter.hidden_by`), so it is not asked here."""
    notes = {listing.id: facts.notes(listing) for listing in listings}
    if centre is None or not listings:
        return notes
    point = await _centre(conn, centre, chat_id)
    if point is None:  # not placed (any more): nothing is measured, `near` hides all
        return notes
    km = await distances(conn, point, listings)
    return {ad_id: replace(note, km=km[ad_id]) for ad_id, note in notes.items()}


async def chat_location(fetch: Fetch, chat_id: int) -> Point | None:
    """The location chat `chat_id` last shared, None if it never did: what `near here`
    measures from. The chat's row is the watches' (issue 37), so the market, below them,
    gets the point handed in (`market.places.locate`, `distance_km`) and never reads it."""
    rows = await fetch("SELECT lat, lon FROM chats WHERE chat_id = ?", (chat_id,))
    if not rows or rows[0]["lat"] is None or rows[0]["lon"] is None:
        return None
    return rows[0]["lat"], rows[0]["lon"]


async def _centre(conn: aiosqlite.Connection, centre: str, chat_id: int) -> Point | None:
    """Where a `near` rule measures from: the chat's shared location, or a postcode's place."""
    fetch = reader(conn)
    if centre == "here":
        return await chat_location(fetch, chat_id)
    place = (await places_of(fetch, [centre])).get(centre)
    return None if place is None else place.point


async def distances(
    conn: aiosqlite.Connection, centre: Point, listings: list[Listing]
) -> dict[str, float | None]:
    """How far each advert is from `centre` in km: at its coordinates, else at its postcode's
    place; None when it has neither."""
    unplaced = [ad.postcode for ad in listings if ad.coordinates is None and ad.postcode]
    places = await places_of(reader(conn), unplaced) if unplaced else {}
    out: dict[str, float | None] = {}
    for listing in listings:
        place = places.get(listing.postcode or "")
        point = listing.coordinates or (None if place is None else place.point)
        out[listing.id] = None if point is None else distance_km(centre, point)
    return out
