"""Flats for the fake willhaben: built by hand (`flat`, `project`), drawn at random
(`random_flat`), and a world that publishes and bumps them at willhaben's pace (`FlatWorld`).

Volumes follow REALESTATE.md: Austria holds about 19,000 flats to rent and 40,000 for sale;
the Vienna rental page moved about 12 entries an hour on a Saturday, two thirds of them bumps,
and Vienna holds a quarter of the rentals — so Austria-wide about 48 entries an hour. Places
are drawn with Vienna's districts weighted by their size and the Bundesländer by theirs.
Everything random comes from one `random.Random`, so a seed gives the same world every time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from habicht.fakes.willhaben_estate import (
    BUY,
    PLACES,
    RENT,
    FakeEstate,
    FakeUnit,
    Place,
    district,
)
from habicht.fakes.willhaben_pages import FakeAdvert

__all__ = [
    "PLACEMENTS",
    "EstateVolumes",
    "FlatWorld",
    "Happening",
    "flat",
    "place_weights",
    "project",
    "random_flat",
    "random_id",
]

_DISTRICT_WEIGHTS = (1, 7, 6, 2.5, 3.5, 2, 2.2, 1.7, 3, 13, 7, 6, 3, 6, 5, 7, 4, 3, 5, 6, 12, 15, 7)
"""Vienna's districts' shares of the city's flats (about their population)."""
_STATE_WEIGHTS = {"900": 26, "3": 20, "4": 15, "6": 13, "7": 8, "5": 7, "2": 6, "8": 3, "1": 2}
"""The Bundesländer's shares of Austria's flats, Vienna's a quarter as on the real pages."""


def place_weights() -> list[float]:
    """Each of `PLACES`' share of the flats: a district its part of Vienna's, a town an even
    part of its Bundesland's."""
    vienna = sum(_DISTRICT_WEIGHTS)
    towns: dict[str, int] = {}
    for place in PLACES[23:]:
        towns[place.state_area] = towns.get(place.state_area, 0) + 1
    return [w / vienna * _STATE_WEIGHTS["900"] for w in _DISTRICT_WEIGHTS] + [
        _STATE_WEIGHTS[p.state_area] / towns[p.state_area] for p in PLACES[23:]
    ]


_WEIGHTS = place_weights()


def flat(
    ad_id: str,
    title: str,
    price: Decimal | int | str | None,
    *,
    category: int = RENT,
    place: Place | int = 7,
    living_area: int | None = 50,
    rooms: int | None = 2,
    property_type: str | None = "3",
    free_areas: tuple[str, ...] = (),
    features: tuple[str, ...] = (),
    placement: bool = False,
    available_today: bool = False,
    **advert: Any,
) -> FakeAdvert:
    """A flat to rent (`category` RENT) or to buy (BUY), `price` the rent or the price, in a
    Vienna district (`place` its number) or any `Place`; `advert` the `FakeAdvert` fields
    (`published_ms`, `bumped`, `reserved`, `private`, `body` …). Its `LOCATION`, `POSTCODE`
    and `STATE` are the place's; a company lets or sells it unless `private=True`; its
    description is its title unless `body` says more (a marketplace advert's default text
    would put "Versand" into every flat's words)."""
    where = district(place) if isinstance(place, int) else place
    estate = FakeEstate(
        category=category,
        place=where,
        living_area=living_area,
        rooms=rooms,
        property_type=property_type,
        free_areas=free_areas,
        features=features,
        placement=placement,
        available_today=available_today,
    )
    return _advert(ad_id, title, price, estate, advert)


def project(
    ad_id: str,
    title: str,
    units: tuple[FakeUnit, ...],
    *,
    category: int = BUY,
    place: Place | int = 22,
    **advert: Any,
) -> FakeAdvert:
    """A building project (`adTypeId` 16) of `units`, priced "ab €" its cheapest unit's."""
    where = district(place) if isinstance(place, int) else place
    estate = FakeEstate(
        category=category,
        place=where,
        living_area=None,
        rooms=None,
        property_type=None,
        project=True,
        units=units,
    )
    cheapest = min((unit.price for unit in units), default=None)
    return _advert(ad_id, title, cheapest, estate, advert)


def _advert(
    ad_id: str, title: str, price: Decimal | int | str | None, estate: FakeEstate, fields: Any
) -> FakeAdvert:
    place = estate.place
    fields.setdefault("private", False)
    fields.setdefault("body", title)
    if place.county is not None:  # FakeAdvert's default is in Vienna
        fields.setdefault("coordinates", None)
    return FakeAdvert(
        ad_id,
        title,
        None if price is None else Decimal(price),
        location=place.location,
        postcode=place.postcode,
        state=place.state,
        estate=estate,
        **fields,
    )


def random_id(rand: random.Random) -> str:
    """An advert id as real ones are: anywhere from 5·10^8 to 2.2·10^9, unrelated to age."""
    return str(rand.randrange(500_000_000, 2_200_000_000))


_ROOMS = (1, 2, 3, 4, 5, 6, 7, 11, None)
_ROOM_WEIGHTS = (15, 40, 27, 11, 3, 1.5, 0.5, 0.2, 2)
_TYPES = ("3", "110", "105", "101", "102", "111", "113", "100", "16", "27", "112")
_TYPE_WEIGHTS = (68, 9, 5, 3, 2, 4, 4, 2, 1, 1, 0.5)
_FREE_CHANCES = {"20": 0.35, "10": 0.2, "30": 0.12, "60": 0.1, "40": 0.04, "50": 0.02}
_FEATURE_CHANCES = {
    "4": 0.55,
    "250": 0.5,
    "27": 0.6,
    "24": 0.35,
    "25": 0.25,
    "15": 0.15,
    "23": 0.15,
    "28": 0.12,
    "26": 0.03,
}
_ADJECTIVES = ("Helle", "Ruhige", "Moderne", "Sonnige", "Charmante", "Neue", "Großzügige")
_WORDS = ("Altbau", "Neubau", "Erstbezug", "provisionsfrei", "Fernwärme", "Hofseitig", "Klima")
_FREE_NAMES = {"10": "Terrasse", "20": "Balkon", "30": "Loggia", "40": "Dachterrasse"}
_FREE_NAMES |= {"50": "Wintergarten", "60": "Garten"}


def _chosen(rand: random.Random, chances: dict[str, float]) -> tuple[str, ...]:
    return tuple(key for key, chance in chances.items() if rand.random() < chance)


def _price(rand: random.Random, category: int, area: int, place: Place) -> Decimal:
    """A rent of about € 10 to 25 a m² (Vienna dearer), or a price of € 2,500 to 9,000 a m²;
    a third of the rents in cents, as management companies write them."""
    dear = 1.25 if place.county is None else 1.0
    if category == RENT:
        rent = area * rand.lognormvariate(2.65, 0.25) * dear
        if rand.random() < 0.33:
            return Decimal(f"{rent:.2f}")
        return Decimal(round(rent))
    return Decimal(round(area * rand.lognormvariate(8.2, 0.3) * dear, -3))


def random_flat(
    rand: random.Random,
    *,
    category: int = RENT,
    published_ms: int | None = None,
    place: Place | None = None,
) -> FakeAdvert:
    """A flat drawn as the fake world draws them: a place by weight, rooms, a living area of
    about 20 m² + 22 m² a room, a type, free areas, features, a price by the m², a seller
    (a third private); a few have a word only the whole description holds."""
    where = place or rand.choices(PLACES, _WEIGHTS)[0]
    rooms = rand.choices(_ROOMS, _ROOM_WEIGHTS)[0]
    area = max(14, round(rand.gauss(20 + 22 * (rooms or 2), 9)))
    kind = rand.choices(_TYPES, _TYPE_WEIGHTS)[0]
    free = _chosen(rand, _FREE_CHANCES)
    word = rand.choice(_WORDS)
    extra = f" mit {_FREE_NAMES[free[0]]}" if free else ""
    title = f"{rand.choice(_ADJECTIVES)} {rooms or ''}-Zimmer-Wohnung{extra} in {where.name}"
    body = f"{title}. {word}, " + "schöne Lage, gute Anbindung, " * rand.randrange(1, 12)
    if rand.random() < 0.1:
        body += f"{rand.choice(_WORDS)}."
    return flat(
        random_id(rand),
        title.replace(" -Zimmer", " Zimmer"),
        _price(rand, category, area, where),
        category=category,
        place=where,
        living_area=area,
        rooms=rooms,
        property_type=kind,
        free_areas=free,
        features=_chosen(rand, _FEATURE_CHANCES),
        available_today=rand.random() < 0.3,
        published_ms=published_ms,
        private=rand.random() < 0.35,
        body=body,
    )


def random_project(
    rand: random.Random, *, category: int = BUY, published_ms: int | None = None
) -> FakeAdvert:
    """A building project of 2 to 6 random units in one place."""
    where = rand.choices(PLACES, _WEIGHTS)[0]
    units = []
    for floor in range(1, rand.randrange(3, 8)):
        unit = random_flat(rand, category=category, place=where)
        assert unit.estate is not None
        assert unit.price is not None
        estate = unit.estate
        units.append(
            FakeUnit(
                random_id(rand),
                unit.price,
                estate.living_area or 50,
                estate.rooms,
                estate.property_type or "3",
                estate.free_areas,
                estate.features,
                floor,
            )
        )
    name = rand.choice(("Wohnpark", "Wohnen am", "Quartier", "Residenz"))
    return project(
        random_id(rand),
        f"{name} {where.name} - Erstbezug",
        tuple(units),
        category=category,
        place=where,
        published_ms=published_ms,
    )


PLACEMENTS = (
    flat("1695000001", "Luxuriöse Stadtwohnung im Herzen Wiens", 1695, place=1, living_area=68,
         rooms=2, free_areas=("20",), features=("4", "27"), placement=True),
    flat("1695000002", "Penthouse mit Dachterrasse und Blick über Wien", 3950, place=19,
         living_area=120, rooms=4, property_type="102", free_areas=("10", "40"),
         placement=True),
    flat("1695000003", "Erstbezug: Smart Living an der U2", 1049, place=22, living_area=45,
         rooms=2, free_areas=("30",), features=("4", "250"), placement=True),
    flat("1695000004", "Eigentum mit Garten in Döbling", 689000, category=BUY, place=19,
         living_area=92, rooms=3, free_areas=("60",), placement=True),
    flat("1695000005", "Anlegerwohnung in Graz, provisionsfrei", 229000, category=BUY,
         place=PLACES[36], living_area=48, rooms=2, placement=True),
)  # fmt: skip
"""The paid placements the site shows on top of real-estate pages unless told others: three
rentals (the issue's € 1,695 Vienna flat first), two for sale."""


@dataclass(frozen=True)
class EstateVolumes:
    """How much the flat world holds and moves.

    `*_stock` flats are there before the start (by default a tenth of Austria's: a page of
    200 answers the same however big the stock); `*_per_hour` entries reach the top of the
    category's newest-first page an hour, `bump_share` of them bumps of flats already there;
    as many flats leave as arrive. `late_share` of the new flats show `late_seconds` after
    their `PUBLISHED` (REALESTATE.md, trap 4); `reserved_per_hour` flats are marked reserved;
    `project_share` of the new adverts are building projects.
    """

    rent_stock: int = 1900
    buy_stock: int = 4000
    rent_per_hour: float = 48.0
    buy_per_hour: float = 60.0
    bump_share: float = 2 / 3
    late_share: float = 0.1
    late_seconds: tuple[float, float] = (120.0, 600.0)
    reserved_per_hour: float = 2.0
    project_share: float = 0.02


@dataclass(frozen=True)
class Happening:
    """One thing the flat world does `at` (epoch seconds): "publish" `advert` (whose
    `PUBLISHED` may be earlier: late visibility), "bump", "reserve" or "withdraw" `ad_id`."""

    at: float
    kind: str
    ad_id: str
    advert: FakeAdvert | None = None


class FlatWorld:
    """Flats to rent and to buy across Austria on a `FakeWillhabenSite`: the stock is
    published at once (up to 60 days old), then `advance(now)` plays what happened until
    `now` — new flats, bumps, reservations, flats that leave — from `start` for `hours`."""

    def __init__(
        self,
        site: Any,
        *,
        start: float,
        hours: float = 3.0,
        seed: int = 29,
        volumes: EstateVolumes = EstateVolumes(),
    ) -> None:
        """`site`: a `FakeWillhabenSite` (anything with its `publish`, `bump`, `set_reserved`
        and `withdraw`)."""
        self.site = site
        self.start = start
        rand = random.Random(seed)
        self.stock: list[FakeAdvert] = []
        self.happenings: list[Happening] = []
        for category, stock, per_hour in (
            (RENT, volumes.rent_stock, volumes.rent_per_hour),
            (BUY, volumes.buy_stock, volumes.buy_per_hour),
        ):
            old = [
                random_flat(rand, category=category, published_ms=_ms(start - age))
                for age in (rand.uniform(0, 60 * 86400) for _ in range(stock))
            ]
            self.stock += old
            self.happenings += _script(rand, category, old, start, hours, per_hour, volumes)
        self.happenings.sort(key=lambda happening: happening.at)
        self._next = 0
        site.publish(*self.stock)

    def begin(self, at: float) -> None:
        """Play the script from `at` on instead of the `start` it was drawn for — a benchmark's
        world starts once every watch has its baseline, a moment known only then. Every
        happening moves by the difference, and each new flat's `PUBLISHED` with it; the stock
        stays as it was published. Only before anything was played."""
        assert self._next == 0, "the world has begun"
        shift = at - self.start
        self.start = at
        self.happenings = [
            replace(
                happening,
                at=happening.at + shift,
                advert=None
                if happening.advert is None
                else replace(
                    happening.advert,
                    published_ms=(happening.advert.published_ms or 0) + _ms(shift),
                ),
            )
            for happening in self.happenings
        ]

    @property
    def done(self) -> bool:
        """Whether every happening was played."""
        return self._next >= len(self.happenings)

    def advance(self, now: float) -> list[Happening]:
        """Play every happening due by `now`; the ones played."""
        played = []
        while self._next < len(self.happenings) and self.happenings[self._next].at <= now:
            happening = self.happenings[self._next]
            self._next += 1
            if happening.kind == "publish":
                self.site.publish(happening.advert)
            elif happening.kind == "bump":
                self.site.bump(None, happening.ad_id, published_ms=_ms(happening.at))
            elif happening.kind == "reserve":
                self.site.set_reserved(happening.ad_id, True)
            else:
                self.site.withdraw(happening.ad_id)
            played.append(happening)
        return played

    def published(self) -> list[FakeAdvert]:
        """The new adverts of the script, in the order they show."""
        return [h.advert for h in self.happenings if h.advert is not None]


def _ms(seconds: float) -> int:
    return int(seconds * 1000)


def _script(
    rand: random.Random,
    category: int,
    old: list[FakeAdvert],
    start: float,
    hours: float,
    per_hour: float,
    volumes: EstateVolumes,
) -> list[Happening]:
    live = [advert.id for advert in old]  # bumped, reserved, withdrawn: only flats shown
    happenings: list[Happening] = []
    at = start + rand.expovariate(per_hour / 3600)
    while at < start + hours * 3600:
        if rand.random() < volumes.bump_share and live:
            happenings.append(Happening(at, "bump", rand.choice(live)))
        else:
            if rand.random() < volumes.project_share:
                advert = random_project(rand, category=category, published_ms=_ms(at))
            else:
                advert = random_flat(rand, category=category, published_ms=_ms(at))
            shows = at
            if rand.random() < volumes.late_share:
                shows += rand.uniform(*volumes.late_seconds)
            happenings.append(Happening(shows, "publish", advert.id, advert))
            if live:
                happenings.append(Happening(at, "withdraw", live.pop(rand.randrange(len(live)))))
        if rand.random() < volumes.reserved_per_hour / per_hour and live:
            happenings.append(Happening(at, "reserve", rand.choice(live)))
        at += rand.expovariate(per_hour / 3600)
    return happenings
