"""/filter and /history through the real Application, a real Bot and a fake Bot API."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from kit import answered
from kit.bot import ALICE, BOB, MARKET, SEARCH, Bot, running

from habicht.bot.handlers.filtering import advert_id
from habicht.fakes import FakeAdvert


async def test_filter_rules_are_set_shown_added_to_and_cleared(bot: Bot) -> None:
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(ALICE, "/filter 1")
    assert "hat keinen Filter" in bot.last(ALICE)

    await bot.say(ALICE, "/filter 1 -defekt max 1.200")
    assert "<code>-defekt</code> <code>max 1200</code>" in bot.last(ALICE)
    await bot.say(ALICE, "/filter 1 +Käse drop 10% max € 99,90")
    await bot.say(ALICE, "/filter 1")
    shown = bot.last(ALICE)
    assert "Filter von Suche Nr. 1" in shown
    for rule in ("-defekt", "+Käse", "max 99.9", "drop 10%"):
        assert f"<code>{rule}</code>" in shown
    assert "max 1200" not in shown  # a new maximum replaces the old one

    await bot.say(ALICE, "/list")
    assert "🔎 <code>+Käse</code> <code>-defekt</code>" in bot.last(ALICE)

    await bot.say(ALICE, "/filter 1 clear")
    assert "gelöscht" in bot.last(ALICE)
    await bot.say(ALICE, "/filter 1")
    assert "hat keinen Filter" in bot.last(ALICE)


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        ("/filter", "<code>/filter n Regeln…</code>"),
        ("/filter eins", "„eins“ ist keine Suchnummer"),
        ("/filter 7 -defekt", "Eine Suche Nr. 7 gibt es nicht"),
        ("/filter 1 billig", "„billig“ ist keine Regel"),
        ("/filter 1 drop 50", "„drop 50“: sag <code>drop 10%</code>"),
        ("/filter 1 max viel", "„max viel“: da fehlt ein sinnvoller Betrag"),
        ("/filter 1 min 500 max 400", "min ist größer als max"),
        ("/filter 1 <b>", "„&lt;b&gt;“ ist keine Regel"),
    ],
)
async def test_bad_filter_input_gets_a_clear_answer_and_changes_nothing(
    bot: Bot, command: str, answer: str
) -> None:
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(ALICE, "/filter 1 -kaputt")
    await bot.say(ALICE, command)
    assert answer in bot.last(ALICE)
    await bot.say(ALICE, "/filter 1")
    assert bot.last(ALICE).endswith("<code>-kaputt</code>")


async def test_a_filter_belongs_to_its_chat(bot: Bot) -> None:
    """Two chats watching one search each have their own filter (and share the fetch)."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(BOB, f"/watch {SEARCH}")
    await bot.say(ALICE, "/filter 1 -defekt")
    await bot.say(BOB, "/filter 1")
    assert "hat keinen Filter" in bot.last(BOB)


async def test_filter_replies_are_in_english_when_the_bot_speaks_english(tmp_path: Path) -> None:
    async with running(tmp_path, lang="en") as english:
        await english.say(ALICE, f"/watch {SEARCH}")
        await english.say(ALICE, "/filter 1 drop 5")
        assert "say <code>drop 10%</code> or <code>drop 50€</code>" in english.last(ALICE)


@pytest.mark.parametrize(
    ("pasted", "code"),
    [
        ("1622906706", "1622906706"),
        (
            "https://www.willhaben.at/iad/immobilien/d/mietwohnungen/wien/wien-1070-neubau/"
            "helle-2-zimmer-wohnung-1622906706/",
            "1622906706",
        ),
        ("https://www.willhaben.at/iad/share/987654321", "987654321"),
        ("willhaben.at/iad/kaufen-und-verkaufen/wien/2-zimmer-95640092/?adId=95640092", "95640092"),
        ("sofa", None),
        ("", None),
    ],
)
def test_an_advert_code_is_found_in_what_people_paste(pasted: str, code: str | None) -> None:
    assert advert_id(pasted) == code


async def test_history_of_an_unknown_advert_or_without_one(bot: Bot) -> None:
    await bot.say(ALICE, "/history")
    assert "So geht's" in bot.last(ALICE)
    await bot.say(ALICE, "/history 424242")
    assert "in keiner deiner Suchen" in bot.last(ALICE)


def sofa(ad_id: str, price: int | None, title: str = "Sofa", **details: Any) -> FakeAdvert:
    return FakeAdvert(ad_id, title, None if price is None else Decimal(price), **details)


async def watching(bot: Bot, *rules: str) -> None:
    """Alice watches SEARCH (baseline: the site's adverts) with `rules` as the filter."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    if rules:
        await bot.say(ALICE, f"/filter 1 {' '.join(rules)}")


async def alerts_after_scrape(bot: Bot) -> list[str]:
    before = len(bot.api.messages(ALICE))
    bot.clock.advance(300)
    await bot.scrape()
    return [message.text for message in bot.api.messages(ALICE)[before:]]


async def test_a_filtered_advert_is_not_alerted_is_counted_and_stays_seen(bot: Bot) -> None:
    await watching(bot, "-defekt", "+sofa")
    bot.site.add(
        MARKET,
        sofa("2001", 50, "Sofa, DEFEKT"),
        sofa("2002", 60, "Ledersofa", body="Leider defekte Feder"),
        sofa("2003", 70, "Tisch"),
        sofa("2004", 80, "Schönes Sofa"),
    )
    alerts = await alerts_after_scrape(bot)
    assert len(alerts) == 1
    assert "Schönes Sofa" in alerts[0]

    await bot.say(ALICE, "/list")
    listing = bot.last(ALICE)
    assert "2 durch „-defekt“" in listing
    assert "1 durch „+sofa“" in listing

    await bot.say(ALICE, "/filter 1 clear")  # loosening the filter floods nothing
    assert await alerts_after_scrape(bot) == []


async def test_the_listing_rules_judge_a_drop_by_the_advert_as_it_is_now(bot: Bot) -> None:
    """Hidden at € 500 by `max 400`, announced when it drops to € 380."""
    await watching(bot, "max", "400")
    bot.site.add(MARKET, sofa("2001", 500))
    assert await alerts_after_scrape(bot) == []
    bot.site.set_price("2001", Decimal(380))
    [alert] = await alerts_after_scrape(bot)
    assert "<s>€ 500</s> → <b>€ 380</b>" in alert


async def test_seller_and_price_presence_rules(bot: Bot) -> None:
    await watching(bot, "private", "priced")
    bot.site.add(
        MARKET,
        sofa("2001", 90, private=False),
        sofa("2002", None, "Sofa zu verschenken"),
        sofa("2003", 95, "Privatsofa"),
    )
    [alert] = await alerts_after_scrape(bot)
    assert "Privatsofa" in alert


async def test_a_drop_smaller_than_the_rule_is_held_back_and_a_bigger_one_sent(bot: Bot) -> None:
    await watching(bot, "drop", "10%")  # the baseline holds Altes Sofa at € 100
    bot.site.set_price("1001", Decimal(95))
    assert await alerts_after_scrape(bot) == []
    bot.site.set_price("1001", Decimal(80))
    [alert] = await alerts_after_scrape(bot)
    assert "<s>€ 100</s> → <b>€ 80</b>" in alert  # from the price the chat knows (issue 18)
    await bot.say(ALICE, "/list")
    assert "1 durch „drop 10%“" in bot.last(ALICE)


async def test_a_target_price_fires_once_when_it_is_crossed(bot: Bot) -> None:
    await watching(bot, "below", "70")
    prices = [90, 69, 60]
    sent = []
    for price in prices:
        bot.site.set_price("1001", Decimal(price))
        sent.append(await alerts_after_scrape(bot))
    assert [len(alerts) for alerts in sent] == [0, 1, 0]
    assert "<s>€ 100</s> → <b>€ 69</b>" in sent[1][0]  # the chat was never told of € 90


async def test_lowest_sends_only_new_lowest_prices(bot: Bot) -> None:
    await watching(bot, "lowest")
    sent = []
    for price in (80, 120, 90, 70):
        bot.site.set_price("1001", Decimal(price))
        sent.append(len(await alerts_after_scrape(bot)))
    assert sent == [1, 0, 0, 1]  # 120 → 90 is a drop, but not below 80


async def test_a_drop_alert_shows_the_way_the_price_went(bot: Bot) -> None:
    await watching(bot)
    for price in (90, 95):
        bot.site.set_price("1001", Decimal(price))
        await alerts_after_scrape(bot)
    bot.clock.advance(2 * 86400)
    bot.site.set_price("1001", Decimal(75))
    [alert] = await alerts_after_scrape(bot)
    assert "📈 € 100 → € 90 → € 95 → € 75 in 2 Tg" in alert

    count = len(bot.api.messages(ALICE))
    await bot.say(ALICE, "/history https://www.willhaben.at/iad/kaufen-und-verkaufen/d/x-1001/")
    history = (await answered(bot.api, ALICE, count + 1)).text  # a chart's caption
    assert history.index("€ 75") < history.index("€ 95") < history.index("€ 100")


async def test_two_watches_of_one_search_with_different_filters_share_one_fetch(
    bot: Bot,
) -> None:
    await watching(bot, "-sofa")
    await bot.say(BOB, f"/watch {SEARCH}")
    await bot.baseline()
    await bot.say(BOB, "/filter 1 +sofa")
    bot.site.add(MARKET, sofa("2001", 40, "Sofa blau"))
    bot.site.log.clear()
    alice = await alerts_after_scrape(bot)
    assert len(bot.site.log) == 1
    assert alice == []
    assert "Sofa blau" in bot.last(BOB)
