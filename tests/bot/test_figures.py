"""Issue 21, `/stats <n>` for subscribers and `/filter <n> deal N%`, through the real
Application, a real Bot and the fake Bot API: a watch's going price and figures on one
screen, in both languages, in groups (reading for everyone, `deal` for admins), with bad
input; the owners' `/stats` stays theirs, and shows each feed and the plain flat searches
(issue 29)."""

from __future__ import annotations

import html
import re
from decimal import Decimal
from pathlib import Path

import pytest
from kit import answered
from kit.bot import ALICE, BOB, MARKET, OWNER, SEARCH, Bot, running
from kit.flat_feeds import watched_feeds
from kit.naming import KEYWORDS_NAMED, failing_searches

from habicht.bot.texts import MAX_CAPTION, Lang, Texts, visible_len
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.market.going import PriceStats
from habicht.watches.figures import WatchFigures

GROUP = -1005001


def page_of_30() -> list[FakeAdvert]:
    """24 sofas from € 400 to € 515 (ids as random as willhaben's), two of them bumped, a
    reserved one, two price-less ones, placeholders of € 0 and € 1 and a € 45,000 typo."""
    ids = (str(1_400_000_000 + 104_729 * n) for n in range(30))
    adverts = [
        FakeAdvert(next(ids), f"Sofa {n}", Decimal(400 + 5 * n), bumped=n in (3, 17))
        for n in range(24)
    ]
    adverts.append(FakeAdvert(next(ids), "Sofa reserviert", Decimal(430), reserved=True))
    adverts.append(FakeAdvert(next(ids), "Sofa gratis"))
    adverts.append(FakeAdvert(next(ids), "Sofa VB", price_display="VB"))
    for price in ("0", "1", "45000"):
        adverts.append(FakeAdvert(next(ids), f"Sofa um {price}", Decimal(price)))
    return adverts


async def stats(bot: Bot, chat_id: int, command: str, **say: object) -> str:
    """The answer to `command` (`/stats 1`): a chart captioned with the figures, or the figures
    alone; it comes from a task of its own, after the handler returned."""
    count = len(bot.api.messages(chat_id))
    await bot.say(chat_id, command, **say)
    return (await answered(bot.api, chat_id, count + 1)).text


def lines(text: str) -> list[str]:
    """The text as a subscriber reads it: tags gone, entities decoded."""
    return html.unescape(re.sub(r"<[^>]*>", "", text)).splitlines()


async def test_a_subscriber_sees_the_going_price_and_figures_of_a_watch(bot: Bot) -> None:
    """`/stats 1` after a baseline of 30 adverts, a `deal 20%` and one alert: the median and
    quartiles of the 25 real prices, what the search showed (30, 28 of them priced, 3 left
    out), the alert sent, and the price `deal` lets through."""
    bot.site.set_listings(MARKET, page_of_30())
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    await bot.say(ALICE, "/filter 1 deal 20%")
    assert "💡" not in bot.last(ALICE)  # 24 prices: nothing to warn of
    bargain = FakeAdvert("1622906706", "Sofa Schnäppchen", Decimal(300))
    bot.site.add(MARKET, bargain)
    await bot.scrape()
    assert "Sofa Schnäppchen" in bot.last(ALICE)

    answer = await stats(bot, ALICE, "/stats 1")
    assert lines(answer) == [
        "📊 Suche Nr. 1: sofa",
        "💶 Median € 455 aus 25 Preisen (30 Tage)",
        "↔️ mittlere Hälfte: € 425 bis € 485",
        "🔎 gezeigt in 30 Tagen: 30 Anzeigen, 28 mit Preis"
        " (3 als Platzhalter oder Ausreißer nicht gezählt)",
        "🔔 Alarme in 30 Tagen: neue Anzeigen 1, Preissenkungen 0",
        "🏷 deal 20%: nur Anzeigen bis € 364",
    ]
    assert f'<a href="{SEARCH}&amp;sort=1">sofa</a>' in bot.last(ALICE)  # the search linked


async def test_with_two_days_of_prices_the_figures_come_under_a_chart(bot: Bot) -> None:
    """`/stats 1` once its search has prices of two days: a PNG of the going price day by day,
    captioned with the figures (on the first day there is no line to draw: the text alone)."""
    bot.site.set_listings(MARKET, page_of_30())
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    count = len(bot.api.messages(ALICE))
    await bot.say(ALICE, "/stats 1")
    assert (await answered(bot.api, ALICE, count + 1)).photo is None

    bot.clock.advance(86400)
    await bot.scrape()
    count = len(bot.api.messages(ALICE))
    await bot.say(ALICE, "/stats 1")
    answer = await answered(bot.api, ALICE, count + 1)
    assert answer.photo is not None
    assert (answer.upload or b"")[:8] == b"\x89PNG\r\n\x1a\n"
    assert answer.text.startswith("📊 <b>Suche Nr. 1")
    assert "💶 Median € 457,50 aus 24 Preisen (30 Tage)" in lines(answer.text)


async def test_in_english_with_too_few_prices_deal_waits_and_says_so(tmp_path: Path) -> None:
    """Three prices: `/filter 1 deal 15%` warns that `deal` hides everything until there are
    10, and `/stats 1` says how many there are and what `deal` does meanwhile."""
    async with running(tmp_path, lang="en") as bot:
        bot.site.set_listings(
            MARKET,
            [
                FakeAdvert(str(1_300_000_000 + 7 * n), f"Sofa {n}", Decimal(p))
                for n, p in enumerate((200, 250, 320))
            ],
        )
        await bot.say(ALICE, f"/watch {SEARCH}")
        await bot.baseline()
        await bot.say(ALICE, "/filter 1 deal 15%")
        assert lines(bot.last(ALICE))[-1] == (
            "💡 Search no. 1 has only 3 prices from 30 days. Until it has 10, there is no"
            " median, and deal hides every listing. /stats 1 shows how far it is."
        )
        await bot.say(ALICE, "/filter 1 +sofa")  # deal unchanged: no second warning
        assert "💡" not in bot.last(ALICE)
        answer = await stats(bot, ALICE, "/stats 1")
        assert lines(answer)[1:] == [
            "💶 only 3 prices in 30 days (median €250): alerts compare with the median,"
            " and deal works, from 10",
            "🔎 shown in 30 days: 3 listings, 3 with a price",
            "🔔 alerts in 30 days: new listings 0, price drops 0",
            "🏷 deal 15%: hides everything until the search has 10 prices",
        ]


async def test_a_watch_not_scanned_yet_has_no_figures(bot: Bot) -> None:
    """Before its first scan a watch's search has shown nothing: no prices yet, and why."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    answer = await stats(bot, ALICE, "/stats 1")
    assert lines(answer)[1:] == [
        "💶 noch keine Preise in 30 Tagen: den Vergleich in den Alarmen und deal gibt es ab 10",
        "🔎 gezeigt in 30 Tagen: 0 Anzeigen, 0 mit Preis",
        "🔔 Alarme in 30 Tagen: neue Anzeigen 0, Preissenkungen 0",
    ]


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        ("/stats", "So geht's: <code>/stats n</code>"),
        ("/stats eins", "„eins“ ist keine Suchnummer"),
        ("/stats 1 2", "„1 2“ ist keine Suchnummer"),
        ("/stats ²", "„²“ ist keine Suchnummer"),
        ("/stats 0", "Eine Suche Nr. 0 gibt es nicht"),
        ("/stats 7", "Eine Suche Nr. 7 gibt es nicht"),
        ("/stats <b>", "„&lt;b&gt;“ ist keine Suchnummer"),
    ],
)
async def test_bad_stats_input_gets_the_usage_or_a_hint(
    bot: Bot, command: str, answer: str
) -> None:
    """A subscriber's `/stats` without a number is the usage (not the unknown-command hint,
    and never the owners' overview); anything but a watch's number is named."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(ALICE, command)
    assert answer in bot.last(ALICE)
    assert "Statistik" not in bot.last(ALICE)


@pytest.mark.parametrize(
    ("rules", "answer"),
    [
        ("deal 20", "„deal 20“: sag <code>deal 20%</code> (Prozent unter dem Median)."),
        ("deal 0%", "„deal 0%“: der Prozentsatz muss zwischen 1 und 99 liegen."),
        ("deal 100%", "„deal 100%“: der Prozentsatz muss zwischen 1 und 99 liegen."),
        ("deal", "„deal“: da fehlt ein sinnvoller Betrag"),
    ],
)
async def test_a_bad_deal_is_refused_and_changes_nothing(bot: Bot, rules: str, answer: str) -> None:
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(ALICE, "/filter 1 deal 10%")
    await bot.say(ALICE, f"/filter 1 {rules}")
    assert answer in bot.last(ALICE)
    (watch,) = await bot.app.bot_data.subscriptions.watches(ALICE)
    assert watch.filter.deal == Decimal(10)


async def test_in_a_group_everyone_reads_the_figures_and_only_admins_set_deal(bot: Bot) -> None:
    """A member may read `/stats 1` of the group's watch; a member's `deal` is refused and
    changes nothing, an admin's is set (and a new one replaces it)."""
    bot.api.set_member(GROUP, ALICE, "administrator")
    bot.site.set_listings(MARKET, page_of_30())
    await bot.say(GROUP, f"/watch {SEARCH}", user_id=ALICE, group=True)
    await bot.baseline()
    answer = await stats(bot, GROUP, "/stats 1", user_id=BOB, group=True)
    assert "💶 Median € 457,50 aus 24 Preisen (30 Tage)" in lines(answer)

    await bot.say(GROUP, "/filter 1 deal 20%", user_id=BOB, group=True)
    assert "nur ihre Admins" in bot.last(GROUP)
    (watch,) = await bot.app.bot_data.subscriptions.watches(GROUP)
    assert watch.filter.deal is None
    await bot.say(GROUP, "/filter 1 deal 20%", user_id=ALICE, group=True)
    await bot.say(GROUP, "/filter 1 deal 30%", user_id=ALICE, group=True)
    assert bot.last(GROUP).count("deal") == 1
    answer = await stats(bot, GROUP, "/stats 1", user_id=BOB, group=True)
    assert lines(answer)[-1] == "🏷 deal 30%: nur Anzeigen bis € 320,25"


async def test_the_owners_stats_stays_theirs(bot: Bot) -> None:
    """An owner's `/stats` in private is still the overview, and `/stats 1` their own watch;
    in a group even an owner's bare `/stats` is only the usage (no overview shown there)."""
    await bot.say(OWNER, "/stats")
    assert "Statistik" in bot.last(OWNER)
    await bot.say(OWNER, f"/watch {SEARCH}")
    answer = await stats(bot, OWNER, "/stats 1")
    assert answer.startswith("📊 <b>Suche Nr. 1")
    bot.api.set_member(GROUP, OWNER, "administrator")
    await bot.say(GROUP, "/stats", user_id=OWNER, group=True)
    assert "<code>/stats n</code>" in bot.last(GROUP)


@pytest.mark.parametrize("lang", ["de", "en"])
async def test_the_owners_stats_name_failing_searches_as_list_does(
    tmp_path: Path, lang: Lang
) -> None:
    """Issue 36: the owner's `/stats` names each failing search as `/list` does — a flat to
    rent apart from one to buy, a keyword search by its words, escaped — its URL behind the
    words, not as the text."""
    async with running(tmp_path, site=FakeWillhabenSite(world=True), lang=lang) as bot:
        names = await failing_searches(bot)
        await bot.say(OWNER, "/stats")
        failing = bot.last(OWNER).splitlines()[-3:]
        assert [line[: line.index("</a>") + 4] for line in failing] == names
        streak = {"de": "(fetch, 3 Mal, 1 Abos)", "en": "(fetch, 3 times, 1 watchers)"}[lang]
        assert failing[2].endswith(f">{KEYWORDS_NAMED}</a> {streak}")


async def test_help_and_the_menu_offer_stats(tmp_path: Path) -> None:
    for lang, about in (("de", "Marktpreis"), ("en", "going price")):
        async with running(tmp_path / lang, lang=lang) as bot:
            await bot.say(ALICE, "/help")
            assert f"/stats <i>n</i> — {about}" in bot.last(ALICE)
            menu = {c["command"]: c["description"] for c in bot.api.commands}
            assert about in menu["stats"]
            await bot.say(ALICE, "/filter")
            assert "<code>deal 20%</code>" in bot.last(ALICE)


@pytest.mark.parametrize("lang", ["de", "en"])
def test_the_figures_fit_a_charts_caption(lang: Lang) -> None:
    """The longest `/stats <n>` text (a label of emoji, every figure at its widest, a deal)
    stays within a photo caption's 1,024 UTF-16 units, so a chart can carry it."""
    huge = Decimal("99999999.99")
    going = PriceStats(10**9, huge, huge, huge)
    figures = WatchFigures(shown=10**9, priced=10**9, going=going, new=10**9, drops=10**9)
    widest = [figures, WatchFigures(10**9, 10**9, PriceStats(9, huge, huge, huge), 10**9, 10**9)]
    for shown in widest:
        text = Texts(lang).watch_stats(
            number=10**6,
            label="🛋" * 500,
            url="https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?" + "x" * 900,
            figures=shown,
            deal=Decimal("12.5"),
        )
        assert visible_len(text) <= MAX_CAPTION


OWNERS_FEEDS = {
    "de": [
        "einfach: 2 Suchen, die kein Feed bedienen kann, davon 1 Immobilien, deren neue"
        " Wohnungen eine ganze Abfragerunde warten (≈ 5 min)",
        "📡 Mietwohnungen: bedient 2 von 2 Suchen · Feed-Fehltreffer: 0 · Abdeckungslücken: 0",
        "📡 Eigentumswohnungen: bedient 0 von 2 Suchen · Feed-Fehltreffer: 0"
        " · Abdeckungslücken: 2 · abgeschaltet, noch 23 h",
        "📡 Marktplatz: bedient 2 von 2 Suchen · Feed-Fehltreffer: 0 · Abdeckungslücken: 0",
    ],
    "en": [
        "plain: 2 searches no feed can serve, 1 of them real estate, whose new flats wait a"
        " whole polling round (≈ 5 min)",
        "📡 flats to rent: serves 2 of 2 searches · feed misses: 0 · coverage misses: 0",
        "📡 flats to buy: serves 0 of 2 searches · feed misses: 0 · coverage misses: 2"
        " · switched off for another 23 h",
        "📡 the marketplace: serves 2 of 2 searches · feed misses: 0 · coverage misses: 0",
    ],
}


@pytest.mark.parametrize("lang", ["de", "en"])
async def test_the_owners_stats_show_each_feed_and_the_plain_flat_searches(
    tmp_path: Path, lang: Lang
) -> None:
    """Issue 29: with a marketplace feed, a rent feed and a buy feed switched off, the owner's
    `/stats` names each feed in words with the searches it serves, its misses and how long it
    stays off, and counts the plain searches with the real-estate ones apart: their new flats
    wait a whole polling round."""
    site = FakeWillhabenSite(world=True)
    async with running(
        tmp_path, site=site, feed_interval=60.0, safety_interval=1800.0, lang=lang
    ) as bot:
        await watched_feeds(bot)
        await bot.say(OWNER, "/stats")
        shown = lines(bot.last(OWNER))
        start = next(n for n, line in enumerate(shown) if line.startswith(("einfach", "plain")))
        assert shown[start : start + 4] == OWNERS_FEEDS[lang]
