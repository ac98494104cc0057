"""Issue 21, the going price as alerts say it: one line "≈ 18 % under the median of 46
(€ 450, 30 days)" in German and English, under, over or at the median, in the photo caption,
the compact line and the digest line; a drop measured at its new price; none for a price the
going price does not count. Last, the line in a real alert through the Application."""

from __future__ import annotations

from decimal import Decimal

import pytest
from kit import sofa
from kit.bot import ALICE, MARKET, SEARCH, Bot

from habicht.bot.preferences import AlertStyle
from habicht.bot.render import MessageRenderer
from habicht.bot.signing import Signer
from habicht.bot.texts import Lang, Texts
from habicht.fakes import FakeAdvert
from habicht.market.going import PriceStats
from habicht.watches.notes import AlertNotes

SIGNER = Signer("123:test-token")
NOTES = AlertNotes(going=PriceStats(46, Decimal(450), Decimal(400), Decimal(520)))


def renderer(lang: Lang, style: AlertStyle = "photo") -> MessageRenderer:
    return MessageRenderer(Texts(lang), signer=SIGNER, style=style)


@pytest.mark.parametrize(
    ("lang", "price", "line"),
    [
        ("de", "369", "📊 ≈ 18 % unter dem Median von 46 (€ 450, 30 Tage)"),
        ("en", "369", "📊 ≈ 18% under the median of 46 (€450, 30 days)"),
        ("de", "540", "📊 ≈ 20 % über dem Median von 46 (€ 450, 30 Tage)"),
        ("en", "540", "📊 ≈ 20% over the median of 46 (€450, 30 days)"),
        ("de", "451", "📊 ≈ am Median von 46 (€ 450, 30 Tage)"),
        ("en", "448", "📊 ≈ at the median of 46 (€450, 30 days)"),
    ],
)
def test_a_new_listing_says_where_its_price_stands(lang: Lang, price: str, line: str) -> None:
    """The line under the place: under, over, or at the median (within half a percent)."""
    text = renderer(lang).new_listing(sofa(price), watch_id=1, notes=NOTES).text
    assert text.splitlines()[-1] == line


@pytest.mark.parametrize(
    ("lang", "compact"),
    [("de", "📊 -18 % zum Median"), ("en", "📊 -18% vs median")],
)
def test_compact_alerts_and_digest_lines_say_it_short(lang: Lang, compact: str) -> None:
    """One line: `· 📊 -18 % zum Median` after the place, in compact alerts and digests."""
    new = renderer(lang, "compact").new_listing(sofa("369"), watch_id=1, notes=NOTES).text
    assert new.endswith(f" · {compact}")
    assert "\n" not in new
    line = renderer(lang).digest_line(sofa("369"), notes=NOTES)
    assert line.endswith(f" · {compact}")
    over = renderer(lang).digest_line(sofa("540"), notes=NOTES)
    assert over.endswith("+20 % zum Median" if lang == "de" else "+20% vs median")
    at = renderer(lang).digest_line(sofa("450"), notes=NOTES)
    assert at.endswith("±0 % zum Median" if lang == "de" else "±0% vs median")


@pytest.mark.parametrize("style", ["photo", "compact"])
def test_a_drop_is_measured_at_its_new_price(style: AlertStyle) -> None:
    """From € 500 (over the median) to € 369: the line speaks of € 369, 18 % under."""
    drop = renderer("de", style).price_drop(
        sofa("369"), Decimal(500), Decimal(369), watch_id=1, notes=NOTES
    )
    assert ("-18 % zum Median" if style == "compact" else "≈ 18 % unter dem Median") in drop.text
    line = renderer("de").digest_line(sofa("369"), drop=(Decimal(500), Decimal(369)), notes=NOTES)
    assert line.endswith("📊 -18 % zum Median")


@pytest.mark.parametrize("price", [None, "0", "1", "9", "45000"])
def test_no_line_for_a_price_the_going_price_does_not_count(price: str | None) -> None:
    """A price-less advert, a placeholder and an outlier are not "100 % under the median"."""
    for style in ("photo", "compact"):
        text = renderer("de", style).new_listing(sofa(price), watch_id=1, notes=NOTES).text
        assert "Median" not in text
    assert "Median" not in renderer("de").digest_line(sofa(price), notes=NOTES)


def test_no_line_without_a_going_price() -> None:
    assert "📊" not in renderer("en").new_listing(sofa("369"), watch_id=1).text


async def test_a_real_alert_carries_the_line(bot: Bot) -> None:
    """Through the Application: a watch's search shows 21 adverts from € 400 to € 500; a new
    one at € 369 arrives as a photo whose caption says where it stands against the 22 prices
    (median € 447.50), and a drop of another to € 300 says it at € 300."""
    around = [
        FakeAdvert(str(1_500_000_000 + 7919 * n), f"Sofa {n}", Decimal(400 + 5 * n))
        for n in range(21)
    ]
    bot.site.set_listings(MARKET, around)
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    fresh = FakeAdvert("1622906706", "Sofa neu", Decimal(369))
    bot.site.set_listings(MARKET, [fresh, *around])
    await bot.scrape()
    alert = bot.api.messages(ALICE)[-1]
    assert alert.photo is not None
    assert alert.text.splitlines()[-1] == "📊 ≈ 18 % unter dem Median von 22 (€ 447,50, 30 Tage)"
    bot.site.set_price(around[0].id, Decimal(300))
    await bot.scrape()
    drop = bot.api.messages(ALICE)[-1]
    assert "<b>€ 300</b>" in drop.text
    assert "📊 ≈ 33 % unter dem Median von 22 (€ 447,50, 30 Tage)" in drop.text
