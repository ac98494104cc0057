"""The scraper's events become final, escaped message texts."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from habicht.bot.preferences import AlertStyle
from habicht.bot.render import MessageRenderer
from habicht.bot.signing import Signer
from habicht.bot.texts import MAX_CAPTION, MAX_MESSAGE, Html, Lang, Texts, utf16_len, visible_len
from habicht.market.history import PricePoint
from habicht.model import Listing, Search

SIGNER = Signer("123:test-token")
IMAGE = "https://cache.willhaben.at/mmo/3/123/sofa_hoved.jpg"


def renderer(lang: Lang = "de", *, style: AlertStyle = "photo") -> MessageRenderer:
    return MessageRenderer(Texts(lang), signer=SIGNER, style=style)


def listing(title: str = "<b>Sofa & Tisch</b>", price: Decimal | None = Decimal(120)) -> Listing:
    return Listing(
        id="123",
        title=title,
        price=price,
        price_display=None if price is None else f"€ {price}",
        location="Wien, 07. Bezirk",
        postcode="1070",
        url="https://www.willhaben.at/iad/kaufen-und-verkaufen/d/sofa-123/",
        image_url=None,
        published_at=None,
        bumped=False,
    )


def test_a_new_listing_links_its_title_and_escapes_it() -> None:
    """`<b>&` in a title arrives as text inside the link that Telegram previews."""
    text = renderer().new_listing(listing(), watch_id=1).text
    assert text.startswith(
        '🆕 <b><a href="https://www.willhaben.at/iad/kaufen-und-verkaufen/d/sofa-123/">'
        "&lt;b&gt;Sofa &amp; Tisch&lt;/b&gt;</a></b>"
    )
    assert "€ 120" in text
    assert "Wien, 07. Bezirk" in text


def test_a_price_less_listing_shows_what_willhaben_says() -> None:
    """Without a price, the page's own wording (or "price on request") is shown."""
    text = renderer("en").new_listing(listing(price=None), watch_id=1).text
    assert "💶 price on request" in text


def test_a_drop_and_a_baseline_read_as_such() -> None:
    """A drop shows both prices and the percentage; a baseline says how many it watches."""
    german = renderer()
    drop = german.price_drop(listing(), Decimal(150), Decimal(120), watch_id=1).text
    assert "<s>€ 150</s> → <b>€ 120</b> (-20 %)" in drop
    sofa = Search(
        url="https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=sofa",
        label="Sofa <alt>",
    )
    assert "ich beobachte jetzt 24 Anzeigen" in german.baseline(sofa, 24)
    assert "Sofa &lt;alt&gt;" in german.baseline(sofa, 24)


def test_a_flat_search_s_baseline_names_it_in_words() -> None:
    """A real-estate search is named as /list names it, not by the words of its URL."""
    flats = Search(
        url="https://www.willhaben.at/iad/immobilien/mietwohnungen/wien/wien-1090-alsergrund"
        "?PRICE_TO=950&sort=1",
        label="wien 1090 alsergrund (max € 950)",
    )
    text = renderer().baseline(flats, 3)
    assert "Mietwohnung · Wien 1090 · bis € 950" in text
    assert "alsergrund (max" not in text


def test_a_bumped_unknown_listing_says_what_it_is_not_new() -> None:
    """Issue 9: an advert the watch cannot tell new from old reads "bumped to the top, not
    seen by this watch before", not as a new listing."""
    for lang, words in (("de", "Nach oben geschoben"), ("en", "Bumped to the top")):
        text = renderer(lang).new_listing(listing(), watch_id=1, bumped=True).text
        assert text.startswith("🔝 ")
        assert words in text
        assert "🆕" not in text


# 12 Nov 2026, 09:30 in Vienna (08:30 UTC): the day an older advert was listed.
LISTED = 1_794_472_200.0


@pytest.mark.parametrize(
    ("lang", "note"),
    [
        ("de", "<i>Neu in deiner Suche · eingestellt am 12. Nov. 2026</i>"),
        ("en", "<i>New in your search · listed 12 Nov 2026</i>"),
    ],
)
def test_an_older_advert_that_entered_the_search_says_when_it_was_listed(
    lang: Lang, note: str
) -> None:
    """Issue 18: an advert listed before the watch started that only now matches is news to
    the watch, and says so with the day it was listed (in Vienna); a bumped one's date is its
    bump, so it says only that it is new in the search."""
    older = replace(listing(), published_at=LISTED)
    text = renderer(lang).new_listing(older, watch_id=1, entered=True).text
    assert text.startswith("🆕 ")
    assert text.endswith("\n" + note)
    compact = renderer(lang, style="compact").new_listing(older, watch_id=1, entered=True).text
    assert compact.endswith(" · " + note)
    assert renderer(lang).digest_line(older, entered=True).endswith(" · " + note)
    bumped = renderer(lang).new_listing(replace(older, bumped=True), watch_id=1, entered=True)
    assert bumped.text.endswith(note.split(" · ")[0] + "</i>")
    assert "·" not in bumped.text.splitlines()[-1]


@pytest.mark.parametrize(
    ("lang", "prices", "note"),
    [
        ("de", "<s>€ 600</s> → <b>€ 480</b>", "Jetzt in deiner Suche"),
        ("en", "<s>€600</s> → <b>€480</b>", "Now within your search"),
    ],
)
def test_a_drop_that_brought_an_advert_into_the_search_says_so(
    lang: Lang, prices: str, note: str
) -> None:
    """Issue 18: a drop under a search's price cap reads old → new and "now within your
    search", in the alert and in its digest line."""
    drop = (
        renderer(lang)
        .price_drop(listing(), Decimal(600), Decimal(480), watch_id=1, entered=True)
        .text
    )
    assert prices in drop
    assert f"<i>{note}" in drop
    line = renderer(lang).digest_line(listing(), drop=(Decimal(600), Decimal(480)), entered=True)
    assert f"<i>{note}" in line
    assert note not in renderer(lang).price_drop(listing(), Decimal(6), Decimal(4), watch_id=1).text


@pytest.mark.parametrize("bumped", [False, True])
def test_no_site_supplied_value_can_make_a_message_too_long(bumped: bool) -> None:
    """Issue 9: title, willhaben's price wording and place all have budgets: whatever the page
    holds, the text stays inside Telegram's limit."""
    huge = replace(
        listing(title="<&>" * 5000, price=None),
        price_display="VB " + "€" * 10_000,
        location="Wien " * 5000,
    )
    text = renderer().new_listing(huge, watch_id=1, bumped=bumped).text
    assert utf16_len(text) <= MAX_MESSAGE
    assert "💶 VB €€€" in text
    assert "€" * 100 not in text


def _longest(bumped: bool) -> Listing:
    """An advert whose every site-supplied value is far over its budget, in characters that
    count 2 UTF-16 units (an emoji) and in ones HTML escapes (`<&>`)."""
    return replace(
        listing(title="😀<&>" * 2000, price=None),
        price_display="VB " + "😀" * 10_000,
        location="😀 Wien " * 5000,
        image_url=IMAGE,
        url="https://www.willhaben.at/iad/" + "x" * 3000,
    )


@pytest.mark.parametrize("lang", ["de", "en"])
@pytest.mark.parametrize(("bumped", "entered"), [(False, False), (True, False), (False, True)])
def test_a_photo_alert_always_fits_its_caption_and_keeps_its_photo(
    lang: Lang, bumped: bool, entered: bool
) -> None:
    """Issue 13: a photo alert is the advert's image with the text as caption; the budgets
    keep the longest page under Telegram's 1,024-unit caption limit, so the photo is kept."""
    longest = replace(_longest(bumped), published_at=LISTED)
    alert = renderer(lang).new_listing(longest, watch_id=1, bumped=bumped, entered=entered)
    assert alert.photo_url == IMAGE
    assert 300 < visible_len(Html(alert.text)) <= MAX_CAPTION  # every budget filled
    path = [PricePoint(float(n), Decimal(1_000_000 - n)) for n in range(40)]
    drop = renderer(lang).price_drop(
        _longest(False), Decimal(9_999_999), Decimal(1), watch_id=1, path=path, entered=entered
    )
    assert drop.photo_url == IMAGE
    assert visible_len(Html(drop.text)) <= MAX_CAPTION


def test_compact_alerts_and_adverts_without_an_image_are_text() -> None:
    """No image, or a chat that chose compact alerts: a text message, with the buttons."""
    with_image = replace(listing(), image_url=IMAGE)
    assert renderer().new_listing(listing(), watch_id=1).photo_url is None
    compact = renderer(style="compact").new_listing(with_image, watch_id=1)
    assert compact.photo_url is None
    assert "\n" not in compact.text
    assert compact.buttons == renderer().new_listing(with_image, watch_id=1).buttons


def test_every_alert_has_open_pause_mute_and_remove_buttons_within_64_bytes() -> None:
    """The listing's URL button on its own row; the three watch buttons below, each with
    callback data of at most 64 bytes that `Signer` accepts — and only for that watch."""
    alert = renderer("en").new_listing(
        replace(listing(), image_url=IMAGE), watch_id=9_223_372_036_854_775_807
    )
    (open_row, actions) = alert.buttons
    assert [(b.text, b.url) for b in open_row] == [("🔗 Open", listing().url)]
    assert [b.text for b in actions] == ["⏸ Pause", "🔕 Mute 24 h", "🗑 Remove"]
    for button, action in zip(actions, "pmr", strict=True):
        assert button.data is not None
        assert len(button.data.encode()) <= 64
        assert SIGNER.check(button.data) == (action, 9_223_372_036_854_775_807)
        assert Signer("another token").check(button.data) is None


@pytest.mark.parametrize(
    "forged",
    ["w:p:1:", "w:p:2:AAAAAAAAAAAA", "w:x:1:AAAAAAAAAAAA", "w:p:-1:x", "w:p:1e3:x", "w:"],
)
def test_forged_button_data_is_refused(forged: str) -> None:
    """Data made up by a client — another watch's id, a made-up tag or action — is None."""
    assert SIGNER.check(forged) is None
    genuine = SIGNER.data("p", 1)
    assert SIGNER.check(genuine.replace("w:p:1:", "w:p:2:")) is None
    assert SIGNER.check(genuine.replace("w:p:", "w:r:")) is None
