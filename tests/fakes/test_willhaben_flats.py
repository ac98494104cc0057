"""Flats by hand and the random flat world: places, volumes as REALESTATE.md measured them,
bumps, late visibility, and the same world for the same seed (issue 29)."""

from __future__ import annotations

from collections import Counter

import httpx
from kit.flats import UNDECIDABLE, random_flats, random_searches

from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_estate import BUY, PLACES, RENT, SEGMENTS, slug
from habicht.fakes.willhaben_flats import EstateVolumes, FlatWorld, Happening, flat
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.fakes.willhaben_world import lister
from habicht.willhaben.parse import parse_search_page

START = 1_787_400_000.0
VIENNA_RENTALS = "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien?rows=200"


def test_a_flat_by_hand_takes_its_place_from_the_district_or_town() -> None:
    neubau = flat("1", "Altbau", 900, place=7)
    assert (neubau.location, neubau.postcode, neubau.state) == (
        "Wien, 07. Bezirk, Neubau",
        "1070",
        "Wien",
    )
    graz = flat("2", "Graz", 700, place=next(p for p in PLACES if p.name == "Graz"))
    assert (graz.location, graz.postcode, graz.state, graz.coordinates) == (
        "Graz",
        "8010",
        "Steiermark",
        None,
    )


def _ids(world: FlatWorld) -> list[tuple[float, str, str]]:
    return [(h.at, h.kind, h.ad_id) for h in world.happenings]


def test_the_same_seed_makes_the_same_world() -> None:
    small = EstateVolumes(rent_stock=50, buy_stock=50)
    one = FlatWorld(FakeWillhabenSite(), start=START, seed=7, volumes=small)
    again = FlatWorld(FakeWillhabenSite(), start=START, seed=7, volumes=small)
    other = FlatWorld(FakeWillhabenSite(), start=START, seed=8, volumes=small)
    assert [a.id for a in one.stock] == [a.id for a in again.stock]
    assert _ids(one) == _ids(again)
    assert _ids(one) != _ids(other)


def test_a_world_begun_later_plays_the_same_script_later() -> None:
    """`begin`: a benchmark starts the world once the baselines are done — every happening
    and every new flat's `PUBLISHED` move by the delay, late flats stay as late, the stock
    stays; nothing is played before the new start, and then the world is done."""
    small = EstateVolumes(rent_stock=50, buy_stock=50)
    drawn = FlatWorld(FakeWillhabenSite(), start=START, seed=7, volumes=small)
    world = FlatWorld(FakeWillhabenSite(), start=START, seed=7, volumes=small)
    world.begin(START + 3600)
    assert [a.published_ms for a in world.stock] == [a.published_ms for a in drawn.stock]
    assert [(h.at - 3600, h.kind, h.ad_id) for h in world.happenings] == _ids(drawn)
    assert [_delay(h) for h in world.happenings if h.advert] == [
        _delay(h) for h in drawn.happenings if h.advert
    ]
    assert world.advance(START + 3599) == []
    assert not world.done
    assert world.advance(world.happenings[-1].at) == world.happenings
    assert world.done


def test_volumes_are_willhabens() -> None:
    """Vienna's rental page moves about 12 entries an hour, two thirds of them bumps
    (REALESTATE.md); flats for sale move too; a few projects, a few flats shown late."""
    world = FlatWorld(FakeWillhabenSite(), start=START, hours=24, seed=3)
    stock = {advert.id: advert for advert in world.stock}
    vienna = Counter[str]()
    for happening in world.happenings:
        advert = happening.advert or stock.get(happening.ad_id)
        assert advert is not None
        assert advert.estate is not None
        if advert.estate.category == RENT and advert.state == "Wien":
            vienna[happening.kind] += 1
    entries = vienna["publish"] + vienna["bump"]
    assert 9 <= entries / 24 <= 16
    assert 0.58 <= vienna["bump"] / entries <= 0.75
    new = world.published()
    assert {a.estate.category for a in new if a.estate} == {RENT, BUY}
    assert any(a.estate and a.estate.project for a in new)
    late = [h for h in world.happenings if _shown_late(h)]
    assert 0.05 <= len(late) / len(new) <= 0.15
    assert all(120 <= _delay(h) <= 600 for h in late)


def _delay(happening: Happening) -> float:
    """Seconds between a new flat's `PUBLISHED` and its showing."""
    assert happening.advert is not None
    return happening.at - (happening.advert.published_ms or 0) / 1000


def _shown_late(happening: Happening) -> bool:
    return happening.kind == "publish" and _delay(happening) > 1


def _place_page(site: FakeWillhabenSite, advert: FakeAdvert) -> list[str]:
    """The ids on the first 200 rows of the search for the flat's category and place."""
    estate = advert.estate
    assert estate is not None
    path = f"{SEGMENTS[estate.category]}/{slug(advert.state)}/{estate.place.segment}"
    url = f"https://www.willhaben.at/iad/immobilien/{path}?rows=200"
    page = parse_search_page(site.handle(httpx.Request("GET", url)).content)
    return [listing.id for listing in page.listings]


def test_the_world_plays_on_the_site_newest_first_with_bumps_and_late_flats() -> None:
    site = FakeWillhabenSite()
    site.placements = ()
    world = FlatWorld(site, start=START, hours=3, seed=5)
    played = world.advance(START + 3 * 3600)
    assert played == world.happenings
    listings = parse_search_page(site.handle(httpx.Request("GET", VIENNA_RENTALS)).content)
    dates = [listing.published_at or 0 for listing in listings.listings]
    assert dates == sorted(dates, reverse=True)
    bumped = {h.ad_id for h in played if h.kind == "bump"}
    assert any(listing.id in bumped and listing.bumped for listing in listings.listings)
    late = next(h for h in played if _shown_late(h))
    assert late.advert is not None
    site = FakeWillhabenSite()
    world = FlatWorld(site, start=START, hours=3, seed=5)
    world.advance(late.at - 1)
    assert late.ad_id not in _place_page(site, late.advert)
    world.advance(late.at)
    assert late.ad_id in _place_page(site, late.advert)


def test_random_flats_and_searches_are_the_same_for_a_seed() -> None:
    assert random_flats(4, 200) == random_flats(4, 200)
    assert random_searches(4, 50) == random_searches(4, 50)
    assert random_searches(4, 50) != random_searches(5, 50)


def test_random_searches_cover_the_forms_and_about_15_percent_are_undecidable() -> None:
    """Every form a subscriber pastes, each filter, and undecidable searches that list
    flats too; the site answers every one (a placement on top)."""
    searches = random_searches(1, 300)
    flats = random_flats(1, 3000)
    undecidable = [s for s in searches if s.undecidable]
    assert 0.1 <= len(undecidable) / len(searches) <= 0.2
    assert {s.undecidable for s in undecidable} == set(UNDECIDABLE)
    text = " ".join(s.url for s in searches)
    for part in (
        "/mietwohnungen/wien/wien-",
        "/eigentumswohnung/wien?",
        "/mietwohnungen/tirol",
        "mietwohnung-angebote?areaId=1172",
        "areaId=900",
        "PRICE_TO=",
        "ESTATE_SIZE/LIVING_AREA_FROM=",
        "NO_OF_ROOMS_BUCKET=",
        "PROPERTY_TYPE=",
        "FREE_AREA/FREE_AREA_TYPE=",
        "ESTATE_PREFERENCE=",
        "ISPRIVATE=",
    ):
        assert part in text, part
    counts = {s.url: sum(map(lister(httpx.URL(s.url)), flats)) for s in searches}
    assert sum(1 for s in undecidable if counts[s.url]) >= len(undecidable) / 2
    assert sum(1 for count in counts.values() if count) >= 0.6 * len(searches)
    site = FakeWillhabenSite(world=True)
    site.publish(*flats[:100])
    for search in searches[:20]:
        assert site.handle(httpx.Request("GET", search.url)).status_code == 200
