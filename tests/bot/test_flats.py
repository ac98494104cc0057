"""Issue 29, what a flat hunter sees: a real-estate alert says rent or price, living area,
rooms, district, € per m² and the free areas in every form (photo caption, text, compact,
digest line), compares per m² with the going price, reads a cheaper rent as a drop; /list
names a real-estate search in words. German and English, site text escaped."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from kit.bot import ALICE, BOB, running

from habicht.bot.preferences import AlertStyle
from habicht.bot.render import MessageRenderer
from habicht.bot.signing import Signer
from habicht.bot.texts import MAX_CAPTION, Html, Lang, Texts, visible_len
from habicht.market.going import PriceStats
from habicht.model import Estate, Listing
from habicht.watches.figures import WatchFigures
from habicht.watches.notes import AlertNotes, SearchFacts

SIGNER = Signer("123:test-token")
IMAGE = "https://cache.willhaben.at/mmo/1/234/567/wohnung_hoved.jpg"
GOING = PriceStats(25, Decimal("19.2"), Decimal("17.5"), Decimal("21"), per_m2=True)
"""A Neubau search of 45 m² flats at about € 864: € 19.20 a m²."""


def renderer(lang: Lang = "de", style: AlertStyle = "photo") -> MessageRenderer:
    return MessageRenderer(Texts(lang), signer=SIGNER, style=style)


def neubau(price: str = "1004", **estate: object) -> Listing:
    """A 100 m² three-room rental in 1070 Neubau with a terrace and a balcony."""
    facts = Estate(
        ad_type=2,
        state="Wien",
        location_id="117229",
        living_area=100,
        rooms="3X3",
        property_type="3",
        free_areas=frozenset({"20", "10"}),
    )
    return Listing(
        id="1234567890",
        title="Helle 3-Zimmer <Altbau> & Balkon",
        price=Decimal(price),
        price_display=f"€ {price}",
        location="Wien, 07. Bezirk, Neubau",
        postcode="1070",
        url="https://www.willhaben.at/iad/immobilien/d/mietwohnungen/wien/wien-1070-neubau/1234567890/",
        image_url=IMAGE,
        published_at=None,
        bumped=False,
        estate=replace(facts, **estate),  # type: ignore[arg-type]
    )


def notes_of(listing: Listing) -> AlertNotes:
    """What a read of the search gives `listing` (its living area with the going price)."""
    return SearchFacts(going=GOING).notes(listing)


@pytest.mark.parametrize(
    ("lang", "lines"),
    [
        (
            "de",
            [
                "💶 € 1.004",
                "📍 1070 Neubau",
                "🏠 Miete · 100 m² · 3 Zimmer · € 10,04/m² · Terrasse, Balkon",
                "📊 ≈ 48 % unter dem Median von 25 (€ 19,20/m², 30 Tage)",
            ],
        ),
        (
            "en",
            [
                "💶 €1,004",
                "📍 1070 Neubau",
                "🏠 rent · 100 m² · 3 rooms · €10.04/m² · terrace, balcony",
                "📊 ≈ 48% under the median of 25 (€19.20/m², 30 days)",
            ],
        ),
    ],
)
def test_a_flat_alert_says_what_flat_hunters_decide_on(lang: Lang, lines: list[str]) -> None:
    """The photo alert's caption: rent, district, m², rooms, € per m², free areas, and the
    going price per m² — under it, though its rent is over the median rent of small flats."""
    flat = neubau()
    alert = renderer(lang).new_listing(flat, watch_id=1, notes=notes_of(flat))
    assert alert.photo_url == IMAGE
    assert alert.text.split("\n")[1:] == lines
    assert "Helle 3-Zimmer &lt;Altbau&gt; &amp; Balkon" in alert.text


def test_the_compact_line_and_the_digest_line_say_it_too() -> None:
    flat = neubau()
    compact = renderer("de", "compact").new_listing(flat, watch_id=1, notes=notes_of(flat))
    line = renderer("en").digest_line(flat, notes=notes_of(flat))
    assert compact.photo_url is None
    assert "\n" not in compact.text
    assert compact.text.endswith(
        " · € 1.004 · 1070 Neubau · 🏠 Miete · 100 m² · 3 Zimmer · € 10,04/m² · Terrasse, Balkon"
        " · 📊 -48 % zum Median/m²"
    )
    assert line.endswith(
        " · €1,004 · 1070 Neubau · 🏠 rent · 100 m² · 3 rooms · €10.04/m² · terrace, balcony"
        " · 📊 -48% vs median/m²"
    )


@pytest.mark.parametrize("lang", ["de", "en"])
def test_a_cheaper_rent_reads_as_a_drop(lang: Lang) -> None:
    """A rent from € 1,100 to € 1,004: old struck through, new, percent, then the flat's
    district and facts at the new rent."""
    flat = neubau()
    drop = renderer(lang).price_drop(
        flat, Decimal(1100), Decimal(1004), watch_id=1, notes=notes_of(flat)
    )
    first, *rest = drop.text.split("\n")[1:]
    assert first.startswith("💶 <s>€")
    assert "(-9 %)" in first if lang == "de" else "(-9%)" in first
    assert rest[0] == "📍 1070 Neubau"
    assert rest[1].startswith("🏠 Miete · 100 m²" if lang == "de" else "🏠 rent · 100 m²")
    assert "/m²" in rest[2]


def test_a_flat_to_buy_outside_vienna_and_what_it_does_not_say() -> None:
    """A flat for sale in Innsbruck is placed by its postcode and LOCATION (escaped); rooms,
    area and free areas it does not say are left out, and without an area there is no € per
    m² and no going-price line."""
    flat = replace(
        neubau("350000", ad_type=1, location_id=None, living_area=None, rooms="0X0"),
        location="Tirol, <Innsbruck>",
        postcode="6020",
    )
    flat = replace(flat, estate=replace(flat.estate or Estate(), free_areas=frozenset()))
    text = renderer("de").new_listing(flat, watch_id=1, notes=notes_of(flat)).text
    assert text.split("\n")[1:] == ["💶 € 350.000", "📍 6020 &lt;Innsbruck&gt;", "🏠 Kauf"]


def test_the_going_price_of_anything_else_stays_plain() -> None:
    """A sofa among sofas: the median is a price, said without m²."""
    sofa = replace(neubau("380"), estate=None, title="Sofa")
    plain = AlertNotes(going=PriceStats(12, Decimal(450), Decimal(400), Decimal(500)))
    text = renderer("en").new_listing(sofa, watch_id=1, notes=plain).text
    assert "📊 ≈ 16% under the median of 12 (€450, 30 days)" in text
    assert "m²" not in text
    assert "🏠" not in text


@pytest.mark.parametrize("lang", ["de", "en"])
def test_the_longest_flat_alert_keeps_its_photo(lang: Lang) -> None:
    """Every value a flat adds is bounded: a huge LOCATION and title still fit a caption."""
    flat = replace(
        neubau(location_id=None, rooms="10X", free_areas=frozenset({"10", "20", "30", "40"})),
        title="😀<&>" * 2000,
        location="😀 Wien " * 5000,
    )
    alert = renderer(lang).new_listing(flat, watch_id=1, notes=notes_of(flat), entered=True)
    assert alert.photo_url == IMAGE
    assert visible_len(Html(alert.text)) <= MAX_CAPTION


RENT = "https://www.willhaben.at/iad/immobilien/mietwohnungen/mietwohnung-angebote"


async def test_list_names_a_flat_search_in_words(tmp_path: Path) -> None:
    """/list through the real Application: a real-estate search in words, in the chat's
    language (a filter it cannot name as "+ more filters"); a marketplace search keeps its
    label."""
    flats = (
        f"{RENT}?areaId=117229&areaId=117230&NO_OF_ROOMS_BUCKET=2X2&NO_OF_ROOMS_BUCKET=3X3"
        "&PRICE_TO=1200&ESTATE_SIZE%2FLIVING_AREA_FROM=50"
    )
    tirol = "https://www.willhaben.at/iad/immobilien/eigentumswohnung/tirol/?PLOT%2FAREA_FROM=300"
    async with running(tmp_path) as bot:
        for chat, lang in ((ALICE, "de"), (BOB, "en")):
            for search in (flats, tirol, "sofa"):
                await bot.say(chat, f"/watch {search}", lang=lang)
            await bot.say(chat, "/list", lang=lang)
        german, english = bot.last(ALICE), bot.last(BOB)
    assert "Mietwohnung · Wien 1070, 1080 · 2\u20133 Zimmer · bis € 1.200 · ab 50 m²</a>" in german
    assert "Eigentumswohnung · Tirol · + weitere Filter</a>" in german
    assert "Flat to rent · Wien 1070, 1080 · 2\u20133 rooms · up to €1,200 · from 50 m²" in english
    assert "Flat to buy · Tirol · + more filters</a>" in english
    assert ">sofa</a>" in german
    assert ">sofa</a>" in english
    assert "mietwohnung angebote" not in german  # the label a URL gave before


def test_stats_of_a_flat_search_are_per_m2() -> None:
    """/stats <n> of a flat search: median, quartiles and the `deal` price per m²."""
    figures = WatchFigures(shown=30, priced=28, going=GOING, new=3, drops=1)
    text = Texts("en").watch_stats(
        number=1, label="Neubau", url=RENT, figures=figures, deal=Decimal(20)
    )
    assert "€19.20/m²" in text
    assert "€17.50/m² to €21/m²" in text
    assert "€15.36/m² or less" in text


async def test_preview_stats_and_the_buttons_name_a_flat_search_as_list_does(
    tmp_path: Path,
) -> None:
    """Issue 36 ("one name for a search, everywhere"): /preview, /stats <n> and the answer
    of an alert's button name a flat search in /list's words, not its raw label; a lower
    price bound of 0 (willhaben's empty field) is not named."""
    flats = f"{RENT}?areaId=117229&PRICE_FROM=0&PRICE_TO=1100"
    words = "Mietwohnung · Wien 1070 · bis € 1.100"
    async with running(tmp_path) as bot:
        await bot.say(ALICE, f"/watch {flats}")
        await bot.say(ALICE, "/list")
        assert words in bot.last(ALICE)
        assert "€ 0" not in bot.last(ALICE)
        await bot.say(ALICE, "/preview 1")
        assert words in bot.last(ALICE)
        await bot.say(ALICE, "/stats 1")
        assert words in bot.last(ALICE)
        watch = (await bot.app.bot_data.subscriptions.watches(ALICE))[0]
        signer = bot.app.bot_data.signer
        await bot.press(ALICE, bot.api.messages(ALICE)[-1].message_id, signer.data("p", watch.id))
        answers = [answer.get("text", "") for answer in bot.api.callback_answers]
        assert any(words in text for text in answers), answers
