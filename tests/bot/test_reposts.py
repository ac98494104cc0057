"""Reposts through the real Application (issue 21): the alert says so in the chat's language
and style, a cheaper repost reads as the drop, `/filter <n> -reposts` hides them (admins only
in a group) and /list counts what it hid."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from kit.bot import ALICE, BOB, MARKET, SEARCH, Bot, running

from habicht.fakes import FakeAdvert

SELLER = "27149817"
GROUP = -1005021


def kivik(ad_id: str, price: int) -> FakeAdvert:
    return FakeAdvert(ad_id, "IKEA Kivik Sofa grau", Decimal(price), seller=SELLER)


async def gone(bot: Bot) -> None:
    """Alice watches SEARCH, whose baseline holds the seller's sofa at € 400; then the sofa
    leaves the pages."""
    bot.site.add(MARKET, kivik("1622906706", 400))
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    bot.site.remove(MARKET, "1622906706")
    await bot.scrape()


async def reposted(bot: Bot, *, price: int) -> list[str]:
    """The sofa gone, then back as a new advert at `price`: the alerts of that scrape."""
    await gone(bot)
    return await back(bot, price=price)


async def back(bot: Bot, *, price: int) -> list[str]:
    """The sofa as a new advert at `price` beside another seller's new sofa: the alerts."""
    before = len(bot.api.messages(ALICE))
    bot.site.add(
        MARKET,
        kivik("1898765432", price),
        FakeAdvert("1712345678", "Ledersofa braun", Decimal(300), seller="555"),
    )
    await bot.scrape()
    return [message.text for message in bot.api.messages(ALICE)[before:]]


async def test_a_repost_says_when_it_was_first_seen_and_at_what_price(bot: Bot) -> None:
    alerts = await reposted(bot, price=400)
    [sofa] = [alert for alert in alerts if "Kivik" in alert]
    assert "🔁 Erneut eingestellt · zuerst gesehen am 14. Nov. 2023 zu € 400" in sofa
    [other] = [alert for alert in alerts if "Ledersofa" in alert]
    assert "🔁" not in other


async def test_a_cheaper_repost_reads_as_the_drop_from_the_old_price(bot: Bot) -> None:
    alerts = await reposted(bot, price=350)
    [sofa] = [alert for alert in alerts if "Kivik" in alert]
    assert "<s>€ 400</s> → <b>€ 350</b>" in sofa
    assert "🔁 Erneut eingestellt" in sofa
    told = len(bot.api.messages(ALICE))
    await bot.scrape()
    assert len(bot.api.messages(ALICE)) == told  # told once


async def test_in_english_and_compact(tmp_path: Path) -> None:
    async with running(tmp_path, lang="en") as english:
        await english.app.bot_data.preferences.set_alert_style(ALICE, "compact")
        alerts = await reposted(english, price=350)
    [sofa] = [alert for alert in alerts if "Kivik" in alert]
    assert "<s>€400</s> → <b>€350</b>" in sofa
    assert "🔁 reposted" in sofa
    assert "\n" not in sofa


async def test_in_english_in_full(tmp_path: Path) -> None:
    async with running(tmp_path, lang="en") as english:
        alerts = await reposted(english, price=400)
    [sofa] = [alert for alert in alerts if "Kivik" in alert]
    assert "🔁 Reposted · first seen 14 Nov 2023 at €400" in sofa


async def test_minus_reposts_hides_them_and_list_counts_it(bot: Bot) -> None:
    await gone(bot)
    await bot.say(ALICE, "/filter 1 -reposts")
    assert "<code>-reposts</code>" in bot.last(ALICE)
    alerts = await back(bot, price=350)
    assert len(alerts) == 1
    assert "Ledersofa" in alerts[0]
    await bot.say(ALICE, "/list")
    assert "1 durch „-reposts“" in bot.last(ALICE)


async def test_reposts_without_the_minus_is_no_rule(bot: Bot) -> None:
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(ALICE, "/filter 1 reposts")
    assert "„reposts“ ist keine Regel" in bot.last(ALICE)
    await bot.say(ALICE, "/filter")
    assert "<code>-reposts</code> keine erneut eingestellten Anzeigen" in bot.last(ALICE)


async def test_in_a_group_only_admins_hide_reposts(bot: Bot) -> None:
    bot.api.set_member(GROUP, ALICE, "administrator")
    await bot.say(GROUP, f"/watch {SEARCH}", user_id=ALICE, group=True)
    await bot.say(GROUP, "/filter 1 -reposts", user_id=BOB, group=True)
    assert "nur ihre Admins" in bot.last(GROUP)
    (watch,) = await bot.app.bot_data.subscriptions.watches(GROUP)
    assert not watch.filter.no_reposts
    await bot.say(GROUP, "/filter 1 -reposts", user_id=ALICE, group=True)
    (watch,) = await bot.app.bot_data.subscriptions.watches(GROUP)
    assert watch.filter.no_reposts
    await bot.say(GROUP, "/list", user_id=BOB, group=True)  # reading is for everyone
    assert "<code>-reposts</code>" in bot.last(GROUP)
