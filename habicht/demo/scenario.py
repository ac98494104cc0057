"""The demo's story: who subscribes to what, and what happens on willhaben and in Telegram
before each scrape cycle.

Only data and how to apply it to the two fakes; the pipeline under it is the real one. The
faults are the ones issue 6 asks to see handled: a 429 with `retry_after`, two 5xx before
success, and a subscriber who blocked the bot — plus one willhaben hiccup the scraper's own
retry absorbs.

Every advert has a real place (`PLACES`), so the flat share's `near 1070 30` keeps only sofas
within 30 km of its flat and its alerts say how far; the sofa search shows enough priced
adverts for its alerts to compare each price with the search's going price (issue 21).

Lena hunts a flat to rent (issue 29): a 2-3 room flat in 1070 or 1080 up to € 1,200 from 50 m²,
pasted as willhaben writes it (`areaId`s), and a smaller one near her work in 1090 (a place in
the path). The world's flats (`FLATS`) are built as real ones (`habicht.fakes.willhaben_flats`),
so each search lists exactly the ones that fit; over the cycles some new flats fit and some do
not, one is bumped, one's rent drops, the first she is told of is reserved and then taken off
(issue 34: her alert follows it, edited twice) — and every flat page starts with a paid
placement that fits neither of her searches and rotates between reads (`Promoted`): it must
never reach her.

The simulated willhaben is a *world* (issue 20): one catalogue that answers every search by
filtering it, as willhaben does, so the marketplace's newest adverts — the feed both searches
share — and the searches themselves agree. Both searches are local (the marketplace with
words and a price cap), so while both have a watch one feed request a minute serves all
their watches; when the pressed buttons leave one search without an active watch, the other
is polled on its own again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal

from habicht.clock import Clock
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import FakeBotAPI, Fault
from habicht.fakes.willhaben_estate import euros
from habicht.fakes.willhaben_flats import PLACEMENTS, flat
from habicht.fakes.willhaben_site import FakeWillhabenSite, SiteFault
from habicht.willhaben.urls import parse_watch_argument

__all__ = [
    "ANNA",
    "BEN",
    "CARLA",
    "CYCLES",
    "DORA",
    "EMIL",
    "FLAT",
    "FLATS",
    "GPU",
    "HOME",
    "LENA",
    "NEAR_WORK",
    "NIGHT",
    "OWNER",
    "PEOPLE",
    "SEARCHES",
    "SHOWN",
    "SOFA",
    "Appears",
    "BlocksBot",
    "Bumped",
    "Change",
    "Person",
    "Presses",
    "Promoted",
    "RefusesPhoto",
    "Repriced",
    "Reserved",
    "SearchSpec",
    "Sold",
    "TakenDown",
    "TelegramTrouble",
    "Vacant",
    "WillhabenTrouble",
    "World",
    "names",
]


@dataclass(frozen=True)
class Person:
    """A Telegram user in a private chat (chat id = user id) — or, with `user_id`, writing in
    the group `chat_id` — and what they first send there."""

    name: str
    chat_id: int
    says: tuple[str, ...] = ()
    user_id: int | None = None

    @property
    def sender(self) -> int:
        return self.chat_id if self.user_id is None else self.user_id


@dataclass(frozen=True)
class SearchSpec:
    """A search on the simulated willhaben: `/watch` gets `argument`; `adverts` are there
    before anyone watches it, newest first."""

    name: str
    argument: str
    adverts: tuple[FakeAdvert, ...]

    @property
    def url(self) -> str:
        """The normalised URL habicht stores and fetches, under which the fake site serves it."""
        return parse_watch_argument(self.argument).url


PLACES: Mapping[str, tuple[str, tuple[float, float]]] = {
    "Wien, 02. Bezirk": ("1020", (48.2167, 16.3958)),
    "Wien, 07. Bezirk": ("1070", (48.2011, 16.3496)),
    "Wien, 10. Bezirk": ("1100", (48.1736, 16.3795)),
    "Wien, 15. Bezirk": ("1150", (48.1962, 16.3254)),
    "Wien, 16. Bezirk": ("1160", (48.2125, 16.3095)),
    "Wien, 21. Bezirk": ("1210", (48.2775, 16.4103)),
    "Mödling": ("2340", (48.0856, 16.2831)),
    "Baden": ("2500", (48.0069, 16.2308)),
    "Wiener Neustadt": ("2700", (47.8151, 16.2465)),
    "St. Pölten": ("3100", (48.2047, 15.6256)),
    "Klosterneuburg": ("3400", (48.3053, 16.3256)),
    "Tulln": ("3430", (48.3320, 16.0587)),
    "Krems": ("3500", (48.4106, 15.6100)),
    "Linz": ("4020", (48.3069, 14.2858)),
    "Steyr": ("4400", (48.0427, 14.4213)),
    "Wels": ("4600", (48.1575, 14.0289)),
    "Salzburg": ("5020", (47.8095, 13.0550)),
    "Innsbruck": ("6020", (47.2692, 11.4041)),
    "Dornbirn": ("6850", (47.4125, 9.7417)),
    "Bregenz": ("6900", (47.5031, 9.7471)),
    "Graz": ("8010", (47.0707, 15.4395)),
    "Klagenfurt": ("9020", (46.6247, 14.3053)),
    "Villach": ("9500", (46.6111, 13.8558)),
}
"""Where the demo's adverts are: each place's postcode and coordinates, as willhaben gives them."""


def _ad(ad_id: int, title: str, price: int, location: str, body: str | None = None) -> FakeAdvert:
    postcode, coordinates = PLACES[location]
    return FakeAdvert(
        str(ad_id),
        title,
        Decimal(price),
        location=location,
        postcode=postcode,
        coordinates=coordinates,
        body=body,
    )


def _sofa(ad_id: int, title: str, price: int, location: str) -> FakeAdvert:
    """A sofa whose title may not say "Sofa" as a word (a "Ledersofa"): its description does,
    so willhaben's search for the word lists it, and the feed's snippet shows it."""
    return _ad(ad_id, title, price, location, f"{title}. Ein Sofa zum Abholen in {location}.")


GPU = SearchSpec(
    "rtx 3070",
    "rtx 3070 max 400",
    (
        _ad(918_200_104, "RTX 3070 Founders Edition", 380, "Wien, 02. Bezirk"),
        _ad(918_200_103, "ASUS TUF RTX 3070 OC - wie neu", 399, "Graz"),
        _ad(918_200_102, "Gigabyte RTX 3070 Eagle OC 8GB", 360, "Linz"),
        _ad(918_200_101, "MSI GeForce RTX 3070 Gaming X Trio", 390, "Wien, 07. Bezirk"),
    ),
)
SOFA = SearchSpec(
    "sofa",
    # Pasted with a tracking parameter, which habicht drops when it normalises the URL.
    "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=sofa&utm_source=app",
    (
        _sofa(918_300_103, "Ledersofa braun, 3-Sitzer", 300, "Salzburg"),
        _sofa(918_300_102, "Schlafsofa mit Bettkasten", 180, "Wien, 10. Bezirk"),
        _sofa(918_300_101, "Ecksofa grau", 250, "St. Pölten"),
        _sofa(918_300_098, "Couch dreisitzig blau", 230, "Tulln"),
        _sofa(918_300_097, "Sofa Vintage 60er", 280, "Baden"),
        _sofa(918_300_096, "Ecksofa Leder schwarz", 380, "Innsbruck"),
        _sofa(918_300_095, "Zweisitzer Cord", 190, "Klosterneuburg"),
        _sofa(918_300_094, "Schlafcouch ausziehbar", 130, "Graz"),
        _sofa(918_300_093, "Sofa Kivik hellgrau", 160, "Wien, 15. Bezirk"),
        _sofa(918_300_092, "Wohnlandschaft U-Form", 450, "Linz"),
        _sofa(918_300_091, "Zweisitzer Leinen beige", 210, "Mödling"),
    ),
)
HOME = SearchSpec(
    "flats 1070, 1080",
    # As willhaben's search page writes it, page state (`sfId`, `isNavigation`) and all.
    "https://www.willhaben.at/iad/immobilien/mietwohnungen/mietwohnung-angebote"
    "?sfId=5b1d2a6e-3c0f-4e0e-9d7c-2b1f0c6a9e11&isNavigation=true&areaId=117229"
    "&areaId=117230&NO_OF_ROOMS_BUCKET=2X2&NO_OF_ROOMS_BUCKET=3X3&PRICE_TO=1200"
    "&ESTATE_SIZE/LIVING_AREA_FROM=50",
    (),
)
"""Lena's flat: 2-3 rooms in Neubau or Josefstadt, up to € 1,200, from 50 m²."""
NEAR_WORK = SearchSpec(
    "flats 1090",
    "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien/wien-1090-alsergrund?PRICE_TO=950",
    (),
)
"""Or a smaller one in Alsergrund, near her work, up to € 950: the place in the path."""
SEARCHES = (GPU, SOFA, HOME, NEAR_WORK)


def _flat(
    ad_id: int, title: str, rent: str, district: int, area: int, rooms: int, *free: str
) -> FakeAdvert:
    """A flat to rent in Vienna's `district`; `free` its free areas (20 Balkon, 30 Loggia)."""
    return flat(
        str(ad_id), title, rent, place=district, living_area=area, rooms=rooms, free_areas=free
    )


FLATS = (
    _flat(1_750_400_111, "Helle 2-Zimmer-Wohnung mit Balkon", "890", 7, 55, 2, "20"),
    _flat(1_750_400_112, "Altbau 3 Zimmer nahe Siebensterngasse", "1190", 7, 78, 3),
    _flat(1_750_400_113, "Ruhige 2-Zimmer-Wohnung, hofseitig", "960", 7, 62, 2),
    _flat(1_750_400_114, "Josefstadt: 2 Zimmer mit Balkon", "870", 8, 58, 2, "20"),
    _flat(1_750_400_115, "3-Zimmer-Altbau, Lange Gasse", "1150", 8, 74, 3),
    _flat(1_750_400_116, "Kompakte 2-Zimmer-Wohnung", "790", 8, 51, 2),
    _flat(1_750_400_117, "Sonnige 3 Zimmer, Dachgeschoß", "1200", 7, 80, 3),
    _flat(1_750_400_118, "2 Zimmer beim Volkstheater", "780", 7, 50, 2),
    _flat(1_750_400_119, "Josefstadt 3 Zimmer mit Loggia", "1080", 8, 70, 3, "30"),
    _flat(1_750_400_120, "Charmante 2-Zimmer-Wohnung", "1020", 8, 66, 2),
    _flat(1_750_400_121, "Neubau: 2 Zimmer, Einbauküche", "940.50", 7, 60, 2),
    _flat(1_750_400_131, "Stilaltbau 2 Zimmer, Spittelberg", "1350", 7, 68, 2),
    _flat(1_750_400_132, "Garconniere in der Josefstadt", "640", 8, 38, 1),
    _flat(1_750_400_133, "Familienwohnung 4 Zimmer", "1180", 7, 98, 4),
    _flat(1_750_400_134, "Mariahilf: 2 Zimmer beim Naschmarkt", "950", 6, 60, 2),
    _flat(1_750_400_141, "2 Zimmer beim Alten AKH", "890", 9, 52, 2),
    _flat(1_750_400_142, "Garconniere Alsergrund", "620", 9, 35, 1),
    _flat(1_750_400_143, "3 Zimmer am Servitenviertel", "1390", 9, 85, 3),
)
"""Flats to rent before the story: eleven that Lena's `HOME` lists (enough for its going price
per m²), four that miss it by price, rooms and size, or district, and three in Alsergrund."""

OWNER = Person("owner", 100)
ANNA = Person("Anna", 201, ("/start", f"/watch {GPU.argument}"))
BEN = Person("Ben", 202, ("/start", f"/watch {SOFA.argument}"))
CARLA = Person("Carla", 203, ("/start", f"/watch {GPU.argument}"))
FLAT = -100_204
"""The flat share's group: Dora administers it, Emil is a member."""
DORA = Person("Dora", FLAT, (f"/watch {SOFA.argument}", "/filter 1 near 1070 30"), user_id=204)
"""The flat share is in Vienna's 7th district: its sofa must be within 30 km of it."""
EMIL = Person("Emil", FLAT, user_id=205)
LENA = Person(
    "Lena", 206, ("/start", f"/watch {HOME.argument}", f"/watch {NEAR_WORK.argument}", "/list")
)
PEOPLE = (ANNA, BEN, CARLA, DORA, LENA, OWNER)
SHOWN = frozenset({"/list"})
"""Commands whose reply the story shows in full: Lena's searches named in words."""


@dataclass(frozen=True)
class Appears:
    """A new advert on top of a search."""

    search: SearchSpec
    advert: FakeAdvert


@dataclass(frozen=True)
class Repriced:
    """An advert's price changes (everywhere it is listed)."""

    ad_id: str
    price: Decimal


@dataclass(frozen=True)
class Sold:
    """An advert leaves a search: no message, a vanished listing is not news."""

    search: SearchSpec
    ad_id: str


@dataclass(frozen=True)
class Reserved:
    """The landlord marks a flat reserved: it stays in every search, shown as reserved."""

    ad_id: str


@dataclass(frozen=True)
class TakenDown:
    """The advert is taken off willhaben (let, deleted): it leaves every search, and its own
    page answers `status` from then on — the answer a page check takes as missing."""

    ad_id: str
    status: int = 404


@dataclass(frozen=True)
class Vacant:
    """A new flat to rent: the world lists it in every search it fits, and in no other."""

    advert: FakeAdvert


@dataclass(frozen=True)
class Bumped:
    """The landlord bumps a flat: its `PUBLISHED` becomes now, so it tops every page listing it."""

    ad_id: str


@dataclass(frozen=True)
class Promoted:
    """willhaben sells one more paid placement: the flat pages show the placements in turn on
    top, whatever their filters."""

    advert: FakeAdvert


@dataclass(frozen=True)
class BlocksBot:
    """The person blocks the bot: every later send to their chat gets 403."""

    person: Person


@dataclass(frozen=True)
class TelegramTrouble:
    """Telegram answers the person's next sends with `faults`, in order."""

    person: Person
    faults: tuple[Fault, ...]


@dataclass(frozen=True)
class WillhabenTrouble:
    """willhaben answers the next fetches (whatever they ask for) with `faults`, in order."""

    faults: tuple[SiteFault, ...]


@dataclass(frozen=True)
class RefusesPhoto:
    """Telegram cannot fetch this advert's picture ("failed to get HTTP URL content")."""

    advert: FakeAdvert


@dataclass(frozen=True)
class Presses:
    """The person presses the pause (`p`), mute (`m`) or remove (`r`) button under the
    latest alert in their chat."""

    person: Person
    action: str


Change = (
    Appears
    | Vacant
    | Bumped
    | Promoted
    | Repriced
    | Sold
    | Reserved
    | TakenDown
    | BlocksBot
    | TelegramTrouble
    | WillhabenTrouble
    | RefusesPhoto
    | Presses
)

_EVGA = _ad(918_200_121, "EVGA RTX 3070 XC3 Ultra", 330, "Klagenfurt")
_LET = _flat(1_750_400_151, "Neubau: 3 Zimmer mit Balkon", "1100", 7, 72, 3, "20")
"""Lena's first flat alert (issue 34): reserved the cycle after, let and taken off the one
after that, so her alert is edited twice — reserved, then gone once two page checks an
interval apart found its page missing (the first one at the end of the cycle it went, the
second at the end of the last cycle: the one before is over before the interval is)."""

CYCLES: tuple[tuple[Change, ...], ...] = (
    (
        Appears(GPU, _ad(918_200_111, "Palit RTX 3070 GamingPro", 340, "Innsbruck")),
        Appears(GPU, _ad(918_200_112, "Zotac RTX 3070 Twin Edge", 320, "Wien, 15. Bezirk")),
        Repriced("918200101", Decimal(349)),
        Appears(SOFA, _ad(918_300_111, "Sofa & Sessel <Set>", 220, "Wien, 16. Bezirk")),
        BlocksBot(CARLA),
        TelegramTrouble(ANNA, (Fault.flood(30),)),
        TelegramTrouble(BEN, (Fault.server_error(502), Fault.server_error(503))),
        Vacant(_LET),
        Vacant(_flat(1_750_400_152, "Josefstadt: 2 Zimmer, saniert", "1290", 8, 56, 2)),
    ),
    (
        RefusesPhoto(_EVGA),
        Appears(GPU, _EVGA),
        Repriced("918300103", Decimal(240)),
        Promoted(PLACEMENTS[2]),
        Vacant(_flat(1_750_400_161, "Alsergrund: 2 Zimmer beim WUK", "760", 9, 48, 2)),
        Reserved(_LET.id),
    ),
    (
        WillhabenTrouble((SiteFault.server_error(503),)),
        Appears(SOFA, _sofa(918_300_131, "Zweisitzer Samt grün", 150, "Bregenz")),
        Repriced("918200101", Decimal(319)),
        Repriced("1750400112", Decimal(1090)),
        Bumped("1750400114"),
        TakenDown(_LET.id),
    ),
    (
        Presses(EMIL, "r"),
        Presses(ANNA, "p"),
        Sold(GPU, "918200104"),
        Appears(SOFA, _sofa(918_300_141, "Couch im Landhausstil", 120, "Krems")),
        Vacant(_flat(1_750_400_171, "Mariahilf: 2 Zimmer mit Balkon", "900", 6, 58, 2, "20")),
        Vacant(_flat(1_750_400_172, "Josefstadt: 2 Zimmer mit Balkon", "820", 8, 54, 2, "20")),
    ),
    (),  # a quiet cycle: nothing changed, nothing is sent
)
"""What changes before each scrape cycle, one tuple per cycle."""

NIGHT: tuple[tuple[str, tuple[Change, ...]], ...] = (
    (
        "23:10",
        (
            Appears(SOFA, _ad(918_300_151, "Chesterfield Sofa dunkelgrün", 450, "Graz")),
            Appears(SOFA, _ad(918_300_152, "Sofa mit Schlaffunktion", 199, "Wien, 21. Bezirk")),
            Appears(SOFA, _ad(918_300_153, "Kleines Sofa für Kinderzimmer", 60, "Villach")),
        ),
    ),
    (
        "02:40",
        (
            Appears(SOFA, _ad(918_300_161, "Big Sofa XXL", 390, "Wiener Neustadt")),
            Appears(SOFA, _ad(918_300_162, "Retro Sofa 70er", 140, "Steyr")),
            Appears(SOFA, _sofa(918_300_163, "Outdoor Loungesofa", 230, "Dornbirn")),
        ),
    ),
)
"""The night after the story, in Vienna: Ben has quiet hours (`/quiet 22-7`); what appears at
each of these times is held, and at 07:00 it arrives as one digest."""


class World:
    """The simulated willhaben and the fake Telegram, changed one `Change` at a time; an
    advert appears with `PUBLISHED` at the `clock`'s time, the searches' first ones a day
    before the story, newest first."""

    def __init__(self, site: FakeWillhabenSite, api: FakeBotAPI, clock: Clock) -> None:
        self.site = site
        self.api = api
        self.clock = clock
        self.adverts: dict[str, FakeAdvert] = {}
        for adverts in (*(search.adverts for search in SEARCHES), FLATS):
            for age, advert in enumerate(adverts, start=1):
                self._publish(advert, at=clock() - 86400 - 3600 * age)
        site.placements = PLACEMENTS[:1]
        api.set_member(FLAT, DORA.sender, "creator")

    def _publish(self, advert: FakeAdvert, *, at: float) -> None:
        published = replace(advert, published_ms=int(at * 1000))
        self.site.publish(published)
        self.adverts[advert.id] = published

    def apply(self, change: Change) -> str:
        """Make the change; a sentence saying what happened."""
        match change:
            case Appears(search=search, advert=advert):
                self._publish(advert, at=self.clock())
                return f'willhaben: new on "{search.name}": {advert.title}, € {advert.price}'
            case Vacant(advert=advert):
                self._publish(advert, at=self.clock())
                return f"willhaben: a new flat to rent: {_flat_words(advert)}"
            case Bumped(ad_id=ad_id):
                bumped = self.site.bump(None, ad_id, published_ms=int(self.clock() * 1000))
                self.adverts[ad_id] = bumped
                return f"willhaben: bumped to the top: {bumped.title}"
            case Promoted(advert=advert):
                self.site.placements = (*self.site.placements, advert)
                return (
                    f"willhaben: one more paid placement, on top of every flat page in turn:"
                    f" {_flat_words(advert)}"
                )
            case Repriced(ad_id=ad_id, price=price):
                old = self.adverts[ad_id]
                self.adverts[ad_id] = self.site.set_price(ad_id, price)
                return f"willhaben: {old.title}: € {old.price} → € {price}"
            case Reserved(ad_id=ad_id):
                self.adverts[ad_id] = self.site.set_reserved(ad_id, True)
                return f"willhaben: reserved: {self.adverts[ad_id].title}"
            case TakenDown(ad_id=ad_id, status=status):
                self.site.take_down(ad_id, status=status)
                return (
                    f"willhaben: taken off, its page answers {status}: {self.adverts[ad_id].title}"
                )
            case Sold(search=search, ad_id=ad_id):
                self.site.withdraw(ad_id)
                return f'willhaben: sold, gone from "{search.name}": {self.adverts[ad_id].title}'
            case BlocksBot(person=person):
                self.api.block(person.chat_id)
                return f"telegram: {person.name} blocks the bot"
            case TelegramTrouble(person=person, faults=faults):
                self.api.fail_next(person.chat_id, *faults)
                return f"telegram: will answer {person.name}'s next sends with {_faults(faults)}"
            case WillhabenTrouble(faults=faults):
                self.site.fail_next(*faults)
                statuses = ", ".join(str(fault.status) for fault in faults)
                return f"willhaben: will answer the next fetch with {statuses}"
            case RefusesPhoto(advert=advert):
                url = f"https://cache.willhaben.at/mmo/{advert.image_path}"
                self.api.refuse_photo(url, "Bad Request: failed to get HTTP URL content")
                return f"telegram: cannot fetch the photo of {advert.title}"
            case Presses(person=person, action=action):
                data, message_id = self._button(person.chat_id, action)
                self.api.push_callback(person.chat_id, person.sender, data, message_id=message_id)
                return f"telegram: {person.name} presses a button under the latest alert"

    def _button(self, chat_id: int, action: str) -> tuple[str, int]:
        """The callback data of the `action` button under the chat's latest alert, and the
        alert's message id."""
        for message in reversed(self.api.messages(chat_id)):
            for row in (message.reply_markup or {}).get("inline_keyboard", []):
                for button in row:
                    if str(button.get("callback_data", "")).startswith(f"w:{action}:"):
                        return str(button["callback_data"]), message.message_id
        raise LookupError(f"no alert with a {action!r} button in chat {chat_id}")


def _flat_words(advert: FakeAdvert) -> str:
    """A flat as the story names it: "Neubau: 3 Zimmer mit Balkon, € 1.100 · 1070 · 72 m² ·
    3 Zimmer" (the demo's flats all say their rent, area and rooms)."""
    assert advert.estate is not None
    assert advert.price is not None
    estate = advert.estate
    return (
        f"{advert.title}, {euros(advert.price)} · {estate.place.postcode}"
        f" · {estate.living_area} m² · {estate.rooms} Zimmer"
    )


def _faults(faults: Iterable[Fault]) -> str:
    return ", then ".join(f"{fault.status} {fault.description}" for fault in faults)


def names() -> Mapping[int, str]:
    """Chat id → the person's name (the group's: "flat share")."""
    return {person.chat_id: person.name for person in PEOPLE} | {FLAT: "flat share"}
