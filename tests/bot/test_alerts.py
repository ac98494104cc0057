"""What the owners are told (`habicht.bot.alerts`), through the real Application and the fake
Bot API: a search failing three scans in a row — in a cycle or a baseline — once, freshness
falling behind and back, a database error and its end, an unexpected error scrubbed of the
token and told at most once a minute per kind; each search named as `/list` names it."""

from __future__ import annotations

from pathlib import Path

import pytest
from kit.bot import ALICE, BOB, OWNER, SEARCH, Bot, running
from kit.naming import KEYWORDS_NAMED, failing_searches
from telegram.ext import CommandHandler

from habicht.bot import SCRAPE, deliver, run_jobs_now
from habicht.bot.alerts import alert_scan
from habicht.bot.texts import Lang, Texts
from habicht.fakes.willhaben_site import FakeWillhabenSite, SiteFault
from habicht.model import Search
from habicht.scraper.scan import ScanSummary


async def test_an_unexpected_error_reaches_the_owner_scrubbed(bot: Bot) -> None:
    """The error handler logs, then tells the owner through the outbox, token scrubbed."""
    token = bot.api.token
    await bot.app.process_error(None, RuntimeError(f"POST /bot{token}/sendMessage <failed>"))
    await deliver(bot.app.bot_data)
    alert = bot.last(OWNER)
    assert "RuntimeError: POST /bot[REDACTED]/sendMessage &lt;failed&gt;" in alert
    assert token not in alert


async def test_a_search_failing_three_cycles_is_reported_once(bot: Bot) -> None:
    """The owner hears of a search after its 3rd failed cycle in a row, not after the 4th,
    and again when it works once more."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    bot.site.intercept(SiteFault.server_error())
    for _ in range(4):
        bot.clock.advance(300)
        await bot.scrape()
    alerts = [m.text for m in bot.api.messages(OWNER)]
    assert len(alerts) == 1
    assert "seit 3 Durchläufen fehl (fetch)" in alerts[0]
    bot.site.intercept(None)
    bot.clock.advance(300)
    await bot.scrape()
    await deliver(bot.app.bot_data)
    assert "Suche läuft wieder" in bot.last(OWNER)


@pytest.mark.parametrize("lang", ["de", "en"])
async def test_the_owner_is_told_of_a_failing_search_by_the_words_of_list(
    tmp_path: Path, lang: Lang
) -> None:
    """Issue 36: the alert for a failing search, and for its recovery, names it as `/list`
    does — a flat to rent apart from one to buy, no "€ 0", a keyword search by its words,
    escaped — with its URL behind the words, not as the text."""
    async with running(tmp_path, site=FakeWillhabenSite(world=True), lang=lang) as bot:
        names = await failing_searches(bot)
        [alert] = [m.text for m in bot.api.messages(OWNER)]
        for name in names:
            assert name in alert
        assert f">{KEYWORDS_NAMED}</a>" in alert
        assert "€ 0" not in alert
        assert "€0" not in alert
        assert "wien (" not in alert  # the raw labels: "wien (€ 0 - 1100)", "wien (max € …)"
        bot.site.intercept(None)
        await bot.scrape()
        await deliver(bot.app.bot_data)
        recovered = bot.last(OWNER)
        for name in names:
            assert name in recovered


async def test_a_search_nobody_watches_any_more_is_named_by_its_url(bot: Bot) -> None:
    """A search unwatched between its scan and the alert has no label left: a flat search is
    still named in words (they come from its URL), any other by its URL."""
    market = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=sofa&sort=1"
    flat = "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien?PRICE_TO=1100&sort=1"
    summary = ScanSummary(recovered=[market, flat])
    await alert_scan(bot.app.bot_data, summary, cycle=0, key="scan:0")
    await deliver(bot.app.bot_data)
    market_link = market.replace("&", "&amp;")
    assert f'<a href="{market_link}">{market_link}</a>' in bot.last(OWNER)
    assert f">{Texts('de').search_name(Search(flat, label=''))}</a>" in bot.last(OWNER)


async def test_a_baseline_scan_tells_the_owner_of_a_streak_it_completes(bot: Bot) -> None:
    """Issue 4: a search whose third failure in a row happens in a new watch's baseline scan
    is reported to the owner once, and not again by the cycles after it."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    bot.site.intercept(SiteFault.server_error())
    for _ in range(2):
        bot.clock.advance(300)
        await bot.scrape()
    await bot.say(BOB, f"/watch {SEARCH}")
    await bot.baseline()
    for _ in range(3):
        bot.clock.advance(300)
        await bot.scrape()
    [alert] = bot.api.messages(OWNER)
    assert "seit 3 Durchläufen" in alert.text


async def test_errors_of_one_kind_are_told_once_a_minute(bot: Bot) -> None:
    """Issue 4: a handler anyone can make fail tells the owner once per error type and
    minute, however often it fails; another type, or a later minute, is told again."""

    async def crash(update: object, context: object) -> None:
        raise ValueError("kaputt")

    async def other(update: object, context: object) -> None:
        raise KeyError("anders")

    bot.app.add_handler(CommandHandler("crash", crash), group=-1)
    bot.app.add_handler(CommandHandler("other", other), group=-1)
    for _ in range(5):
        await bot.say(ALICE, "/crash")
    await bot.say(ALICE, "/other")
    bot.clock.advance(60)
    await bot.say(ALICE, "/crash")
    await deliver(bot.app.bot_data)
    told = [m.text for m in bot.api.messages(OWNER)]
    assert [("ValueError" in t, "KeyError" in t) for t in told] == [
        (True, False),
        (False, True),
        (True, False),
    ]


async def test_the_owner_hears_once_when_freshness_falls_behind_and_once_when_back(
    tmp_path: Path,
) -> None:
    """Five searches at 60 s gap cannot be scanned every 100 s: after an interval of it,
    the owner is told once, with the count and what would fit; removing four searches
    brings freshness back, and that is told once too."""
    async with running(tmp_path, scrape_interval=100.0, fetch_gap=60.0) as bot:
        for n in range(5):
            await bot.say(ALICE, f"/watch sofa {n}")
        for _ in range(150):  # 25 minutes of ticks
            bot.clock.advance(10)
            await run_jobs_now(bot.app, SCRAPE)
        told = [m.text for m in bot.api.messages(OWNER)]
        behind = [t for t in told if "hinken nach" in t]
        assert len(behind) == 1
        assert "die älteste von 5" in behind[0]
        assert "HABICHT_SCRAPE_INTERVAL ≥ 5 min" in behind[0]
        for _ in range(4):
            await bot.say(ALICE, "/unwatch 1")
        for _ in range(150):
            bot.clock.advance(10)
            await run_jobs_now(bot.app, SCRAPE)
        told = [m.text for m in bot.api.messages(OWNER)]
        assert len([t for t in told if "hinken nach" in t]) == 1
        assert len([t for t in told if "wieder aktuell" in t]) == 1


async def test_a_database_error_is_told_once_and_its_end_once(bot: Bot) -> None:
    """Passes stopped by database errors make one owner alert; the first pass through
    after them makes one more."""
    services = bot.app.bot_data
    failing = ScanSummary(database_error="OperationalError: database or disk is full")
    for n in range(3):
        await alert_scan(services, failing, cycle=n, key=f"scan:{n}")
    await alert_scan(services, ScanSummary(scanned=1), cycle=3, key="scan:3")
    await alert_scan(services, ScanSummary(scanned=1), cycle=4, key="scan:4")
    await run_jobs_now(bot.app, "drain")
    told = [m.text for m in bot.api.messages(OWNER)]
    assert len([t for t in told if "Datenbankfehler" in t]) == 1
    assert "database or disk is full" in told[0]
    assert len([t for t in told if "Datenbank arbeitet wieder" in t]) == 1
