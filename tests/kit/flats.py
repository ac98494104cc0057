"""Random flats and random real-estate searches, deterministic by seed (issue 29): the
material of "local ⊆ listed, and listed minus local only where a parameter is not decidable".

`random_flats(seed, count)` draws flats to rent and to buy across Austria as the fake world
does (`habicht.fakes.willhaben_flats.random_flat`), with a few building projects, bumped and
reserved adverts among them. `random_searches(seed, count)` draws search URLs as subscribers
paste them: every form willhaben writes (category path with `areaId`, path places), Zipf over
Vienna's districts, price caps, room buckets, living areas, types, free areas, features, the
Bundesländer — and about 15 % with a parameter REALESTATE.md cannot decide, named in
`FlatSearch.undecidable`. The truth is `habicht.fakes.willhaben_world.listed(advert, url)`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from urllib.parse import urlencode

from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_estate import (
    BUY,
    FEATURES,
    PATHS,
    PLACES,
    PROPERTY_TYPES,
    RENT,
    ROOM_BUCKETS,
    SEGMENTS,
    STATES,
    slug,
)
from habicht.fakes.willhaben_flats import place_weights, random_flat, random_project

__all__ = ["SITE", "UNDECIDABLE", "FlatSearch", "random_flats", "random_searches"]

SITE = "https://www.willhaben.at"
START_MS = 1_787_400_000_000
"""The newest flat's `PUBLISHED` (2026-08-22, the saved page's day)."""
UNDECIDABLE = (
    "keyword",
    "AVAILABLETODAY",
    "town",
    "town path",
    "county",
    "mixed",
    "PLOT/AREA_FROM",
)
"""What `FlatSearch.undecidable` may name: a `keyword`, `AVAILABLETODAY`, the `areaId` of a
town, a town by its path below its Bundesland (`/steiermark/graz`), the `areaId` of a Bezirk
outside Vienna, a Bundesland's `areaId` mixed with a district's (trap 5), a plot area."""
_KEYWORDS = ("Altbau", "Erstbezug", "provisionsfrei", "Balkon", "Neubau", "Klima", "Garten")
_DISTRICTS_BY_SIZE = sorted(range(23), key=lambda n: -place_weights()[n])
"""Vienna's districts (index into `PLACES`), the most flats first: the Zipf ranks."""


@dataclass(frozen=True)
class FlatSearch:
    """A drawn search: its `url`; `undecidable` the kind of parameter REALESTATE.md cannot
    decide it holds (one of `UNDECIDABLE`), None if every parameter is decidable; `several`
    whether it names several free areas or several features, where REALESTATE.md does not
    know "any" from "all" (the world's choice: `EstateQuery`)."""

    url: str
    undecidable: str | None
    several: bool


def random_flats(seed: int, count: int = 3000) -> list[FakeAdvert]:
    """`count` flats (three in five to rent), published over 30 days before `START_MS`; two
    in a hundred building projects, two thirds bumped, three in a hundred reserved."""
    rand = random.Random(seed)
    flats = []
    for _ in range(count):
        category = RENT if rand.random() < 0.6 else BUY
        published = START_MS - rand.randrange(30 * 86_400_000)
        if rand.random() < 0.02:
            advert = random_project(rand, category=category, published_ms=published)
        else:
            advert = random_flat(rand, category=category, published_ms=published)
        flats.append(replace(advert, bumped=rand.random() < 2 / 3, reserved=rand.random() < 0.03))
    return flats


def random_searches(seed: int, count: int = 300) -> list[FlatSearch]:
    """`count` real-estate searches (see the module docstring)."""
    rand = random.Random(seed)
    return [_search(rand) for _ in range(count)]


def _district(rand: random.Random) -> int:
    """A district's index into `PLACES`, Zipf by size: the biggest most often."""
    weights = [1 / (rank + 1) for rank in range(23)]
    return rand.choices(_DISTRICTS_BY_SIZE, weights)[0]


def _where(rand: random.Random, category: int) -> tuple[str, list[tuple[str, str]]]:
    """The path and the `areaId`s of a search, in one of the forms willhaben writes."""
    segment = f"/iad/immobilien/{SEGMENTS[category]}"
    form = rand.random()
    if form < 0.35:
        districts = {_district(rand) for _ in range(rand.choice((1, 1, 2, 3)))}
        return PATHS[category], [("areaId", PLACES[n].location_id) for n in sorted(districts)]
    if form < 0.5:
        place = PLACES[_district(rand)]
        return f"{segment}/wien/{place.segment}", []
    if form < 0.6:
        return f"{segment}/wien", []
    if form < 0.7:
        return PATHS[category], [("areaId", "900")]
    states = [area for area in STATES if area != "900"]
    if form < 0.8:
        chosen = sorted(set(rand.sample(states, rand.choice((1, 1, 2)))), key=int)
        return PATHS[category], [("areaId", area) for area in chosen]
    if form < 0.9:
        return f"{segment}/{slug(STATES[rand.choice(states)])}", []
    return PATHS[category], []


def _filters(rand: random.Random, category: int) -> tuple[list[tuple[str, str]], bool]:
    params: list[tuple[str, str]] = []
    rent = category == RENT
    if rand.random() < 0.6:
        cap = rand.randrange(500, 2600, 50) if rent else rand.randrange(150_000, 900_000, 10_000)
        params.append(("PRICE_TO", f"{cap - 0.01:.2f}" if rand.random() < 0.1 else str(cap)))
    if rand.random() < 0.15:
        params.append(("PRICE_FROM", str(rand.randrange(300, 900, 50) if rent else 100_000)))
    if rand.random() < 0.4:
        params.append(("ESTATE_SIZE/LIVING_AREA_FROM", str(rand.randrange(25, 100, 5))))
    if rand.random() < 0.15:
        params.append(("ESTATE_SIZE/LIVING_AREA_TO", str(rand.randrange(50, 150, 5))))
    if rand.random() < 0.45:
        first = rand.randrange(0, 5)
        buckets = ROOM_BUCKETS[first : first + rand.choice((1, 1, 2, 3))]
        params += [("NO_OF_ROOMS_BUCKET", bucket) for bucket in buckets]
    if rand.random() < 0.15:
        types = rand.sample(sorted(PROPERTY_TYPES), rand.choice((1, 1, 2)))
        params += [("PROPERTY_TYPE", kind) for kind in types]
    several = False
    for name, ids, chance in (
        ("FREE_AREA/FREE_AREA_TYPE", ("10", "20", "30", "40", "60"), 0.25),
        ("ESTATE_PREFERENCE", tuple(FEATURES), 0.15),
    ):
        if rand.random() < chance:
            chosen = rand.sample(ids, rand.choice((1, 1, 1, 2)))
            several |= len(chosen) > 1
            params += [(name, value) for value in chosen]
    if rand.random() < 0.1:
        params.append(("ISPRIVATE", rand.choice(("0", "1"))))
    return params, several


def _undecidable(
    rand: random.Random, path: str, areas: list[tuple[str, str]]
) -> tuple[str, str, list[tuple[str, str]]]:
    """One parameter REALESTATE.md cannot decide: its kind, the path, the `areaId`s."""
    kind = rand.choice(UNDECIDABLE)
    towns = PLACES[23:]
    if kind == "keyword":
        return kind, path, [*areas, ("keyword", rand.choice(_KEYWORDS))]
    if kind == "AVAILABLETODAY":
        return kind, path, [*areas, ("AVAILABLETODAY", "true")]
    if kind == "PLOT/AREA_FROM":
        return kind, path, [*areas, ("PLOT/AREA_FROM", "100")]
    base = path.split("/")[3]
    path = PATHS[RENT if base == SEGMENTS[RENT] else BUY]
    if kind == "town":
        return kind, path, [("areaId", rand.choice(towns).location_id)]
    if kind == "town path":
        town = rand.choice(towns)
        return kind, f"{path.rsplit('/', 1)[0]}/{slug(town.state)}/{town.segment}", []
    if kind == "county":
        return kind, path, [("areaId", str(rand.choice(towns).county))]
    return kind, path, [("areaId", "900"), ("areaId", PLACES[_district(rand)].location_id)]


def _search(rand: random.Random) -> FlatSearch:
    category = RENT if rand.random() < 0.6 else BUY
    path, areas = _where(rand, category)
    filters, several = _filters(rand, category)
    kind = None
    if rand.random() < 0.15:
        kind, path, areas = _undecidable(rand, path, areas)
    params = areas + filters
    if rand.random() < 0.3:
        params += [("sort", "1"), ("rows", "30"), ("isNavigation", "true")]
    query = urlencode(params, safe="/")
    return FlatSearch(f"{SITE}{path}" + (f"?{query}" if query else ""), kind, several)
