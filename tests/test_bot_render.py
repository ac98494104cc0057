"""The scraper's events become final, escaped message texts."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from habicht.bot.render import MessageRenderer
from habicht.bot.texts import MAX_MESSAGE, Texts, utf16_len
from habicht.scraper import Listing


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
    text = MessageRenderer(Texts("de")).new_listing(listing())
    assert text.startswith(
        '🆕 <b><a href="https://www.willhaben.at/iad/kaufen-und-verkaufen/d/sofa-123/">'
        "&lt;b&gt;Sofa &amp; Tisch&lt;/b&gt;</a></b>"
    )
    assert "€ 120" in text
    assert "Wien, 07. Bezirk" in text


def test_a_price_less_listing_shows_what_willhaben_says() -> None:
    """Without a price, the page's own wording (or "price on request") is shown."""
    text = MessageRenderer(Texts("en")).new_listing(listing(price=None))
    assert "💶 price on request" in text


def test_a_drop_and_a_baseline_read_as_such() -> None:
    """A drop shows both prices and the percentage; a baseline says how many it watches."""
    renderer = MessageRenderer(Texts("de"))
    drop = renderer.price_drop(listing(), Decimal(150), Decimal(120))
    assert "<s>€ 150</s> → <b>€ 120</b> (-20 %)" in drop
    assert "ich beobachte jetzt 24 Anzeigen" in renderer.baseline("Sofa <alt>", 24)
    assert "Sofa &lt;alt&gt;" in renderer.baseline("Sofa <alt>", 24)


def test_a_bumped_unknown_listing_says_what_it_is_not_new() -> None:
    """Issue 9: an advert the watch cannot tell new from old reads "bumped to the top, not
    seen by this watch before", not as a new listing."""
    for lang, words in (("de", "Nach oben geschoben"), ("en", "Bumped to the top")):
        text = MessageRenderer(Texts(lang)).new_listing(listing(), bumped=True)
        assert text.startswith("🔝 ")
        assert words in text
        assert "🆕" not in text


@pytest.mark.parametrize("bumped", [False, True])
def test_no_site_supplied_value_can_make_a_message_too_long(bumped: bool) -> None:
    """Issue 9: title, willhaben's price wording and place all have budgets: whatever the page
    holds, the text stays inside Telegram's limit."""
    huge = replace(
        listing(title="<&>" * 5000, price=None),
        price_display="VB " + "€" * 10_000,
        location="Wien " * 5000,
    )
    text = MessageRenderer(Texts("de")).new_listing(huge, bumped=bumped)
    assert utf16_len(text) <= MAX_MESSAGE
    assert "💶 VB €€€" in text
    assert "€" * 100 not in text
