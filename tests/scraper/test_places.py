"""Issue 36: a flat search whose area no advert attribute decides learns its places from its
own reads, for good — from flats that certainly belong to it, never from a placement or a
project — and a feed read's matcher gets them in one query."""

from __future__ import annotations

from decimal import Decimal

from kit.listings import flat as a_flat

from habicht.db import Database
from habicht.model import Estate, EstateUnit, Listing
from habicht.scraper.places import learn_places, teaches, with_learned
from habicht.willhaben.estate import EstateSearch
from habicht.willhaben.local import local_search
from habicht.willhaben.urls import normalise_search_url

RENT = "https://www.willhaben.at/iad/immobilien/mietwohnungen"
TOWNS = normalise_search_url(f"{RENT}/mietwohnung-angebote?areaId=31703&areaId=317&PRICE_TO=1000")
"""Mödling and its Bezirk, rents up to € 1,000: an area to learn."""
VIENNA = normalise_search_url(f"{RENT}/wien")


def flat(ad_id: str, place: str | None, price: str = "900", **estate: object) -> Listing:
    """A flat to rent in Lower Austria at `place` (its `LOCATION_ID`)."""
    facts = {"ad_type": 2, "state": "Niederösterreich", "location_id": place, **estate}
    return a_flat(Estate(**facts), ad_id=ad_id, price=price)  # type: ignore[arg-type]


def town_search() -> EstateSearch:
    search = local_search(TOWNS)
    assert isinstance(search, EstateSearch)
    assert search.learned
    return search


def test_only_a_flat_that_fits_every_other_parameter_teaches_its_place() -> None:
    """A flat the search listed teaches its `LOCATION_ID` when it fits every decidable
    parameter but the area: not the paid placement, not a flat over the price cap (a
    placement without its marker ignores the filters), not a building project, not a flat
    of the other category nor one that names no place."""
    search = town_search()
    assert teaches(search, flat("1", "31703")) == "31703"
    project = flat("2", "31704", ad_type=16, units=(EstateUnit(2, Decimal(900), 50, "2X2"),))
    assert search.learning({"31704"}).matches(project)  # fed, once its place is known
    silent = [
        flat("3", "31705", placement=True),
        flat("4", "31706", price="1000.01"),
        project,
        flat("5", "31707", ad_type=1),
        flat("6", None),
    ]
    assert [listing.id for listing in silent if teaches(search, listing)] == []


async def test_a_read_teaches_its_search_places_for_good(db: Database) -> None:
    """Each own read records the places it teaches, the first time kept; a search whose
    area is known learns nothing; a feed read's text of them (space-separated) gives the
    matcher its places."""
    async with db.transaction() as conn:
        await conn.execute("INSERT INTO searches (id, url, created_at) VALUES (1, ?, 0)", (TOWNS,))
        await conn.execute("INSERT INTO searches (id, url, created_at) VALUES (2, ?, 0)", (VIENNA,))
        read = [flat("1", "31703"), flat("2", "31705", price="2000")]
        await learn_places(conn, 1, TOWNS, read, now=10.0)
        await learn_places(conn, 2, VIENNA, [flat("3", "117224", state="Wien")], now=10.0)
    async with db.transaction() as conn:
        await learn_places(conn, 1, TOWNS, [flat("4", "31703"), flat("5", "31712")], now=20.0)
    rows = await db.fetchall("SELECT * FROM search_places ORDER BY location_id")
    assert [tuple(row) for row in rows] == [(1, "31703", 10.0), (1, "31712", 20.0)]
    learned = with_learned(town_search(), "31703 31712")
    assert isinstance(learned, EstateSearch)
    assert learned.locations == {"31703", "31712"}
    assert with_learned(town_search(), None) == town_search()
    vienna = local_search(VIENNA)
    assert vienna is not None
    assert with_learned(vienna, "31703") is vienna
