"""The scraper's events become final, escaped message texts."""

from __future__ import annotations

from decimal import Decimal

from habicht.bot.render import MessageRenderer
from habicht.bot.texts import Texts
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
