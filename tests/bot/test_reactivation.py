"""A chat back from a block (`habicht.bot.reactivation`) through the real Application: active
again and welcomed back with what was resumed, while an owner who never started the bot was
never blocked and is not welcomed."""

from __future__ import annotations

from decimal import Decimal

from kit.bot import ALICE, MARKET, OWNER, SEARCH, Bot

from habicht.bot import deliver
from habicht.bot.alerts import tell_owners
from habicht.bot.texts import Html
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import Fault


async def _owner_alert(bot: Bot, fault: Fault) -> None:
    """An owner alert goes out and Telegram answers `fault` for it."""
    await tell_owners(bot.app.bot_data, lambda texts: Html("🔧 test alert"), key="test")
    bot.api.fail_next(OWNER, fault)
    await deliver(bot.app.bot_data)


async def test_an_owner_who_never_started_the_bot_is_not_blocked_nor_welcomed(
    bot: Bot,
) -> None:
    """Issue 19 (11): a 403 "bot can't initiate conversation" (the owner never sent /start)
    kills that alert but blocks nobody; the owner's first /queue is answered with the queue
    alone — no "welcome back" to someone who never left."""
    await _owner_alert(bot, Fault.not_started())
    services = bot.app.bot_data
    assert not await services.subscriptions.is_blocked(OWNER)
    [dead] = await services.store.dead(10)
    assert (dead.chat_id, dead.dead_reason) == (OWNER, "not_started")
    await bot.say(OWNER, "/queue")
    texts = [m.text for m in bot.api.messages(OWNER)]
    assert len(texts) == 1
    assert "Warteschlange" in texts[0]


async def test_a_chat_back_from_a_block_hears_what_was_resumed(bot: Bot) -> None:
    """Issue 19 (11): a chat that blocked the bot and writes again is told how many of its
    watches run again (a paused one stays paused and is not counted), then its command is
    answered; one without watches (an owner who blocked the bot) gets no greeting at all."""
    for keyword in ("sofa", "tisch", "lampe"):
        await bot.say(ALICE, f"/watch {keyword}")
    await bot.say(ALICE, "/pause 3")
    await bot.baseline()
    bot.api.block(ALICE)
    bot.site.add(MARKET, FakeAdvert("1003", "Neues Sofa", Decimal(90)))
    await bot.scrape()
    assert await bot.app.bot_data.subscriptions.is_blocked(ALICE)
    bot.api.unblock(ALICE)
    sent = len(bot.api.messages(ALICE))
    await bot.say(ALICE, "/list")
    greeting, answer = [m.text for m in bot.api.messages(ALICE)[sent:]]
    assert greeting == "👋 Willkommen zurück! Deine 2 Suchen sind wieder aktiv."
    assert "lampe" in answer  # /list answered as usual

    await _owner_alert(bot, Fault.blocked())
    assert await bot.app.bot_data.subscriptions.is_blocked(OWNER)
    sent = len(bot.api.messages(OWNER))
    await bot.say(OWNER, "/queue")
    texts = [m.text for m in bot.api.messages(OWNER)[sent:]]
    assert len(texts) == 1
    assert "Warteschlange" in texts[0]
    assert not await bot.app.bot_data.subscriptions.is_blocked(OWNER)


async def test_a_blocked_chat_writing_hallo_is_active_again(bot: Bot) -> None:
    """A chat that unblocked the bot and writes anything is active again, is told so, and its
    watch starts over with a silent baseline — no flood of what appeared meanwhile."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    subscriptions = bot.app.bot_data.subscriptions
    bot.api.block(ALICE)
    bot.site.add(MARKET, FakeAdvert("1003", "Neues Sofa", Decimal(90)))
    await bot.scrape()
    assert await subscriptions.is_blocked(ALICE)
    bot.api.unblock(ALICE)
    bot.site.add(MARKET, FakeAdvert("1004", "Noch ein Sofa", Decimal(95)))

    await bot.say(ALICE, "hallo")
    assert not await subscriptions.is_blocked(ALICE)
    texts = [m.text for m in bot.api.messages(ALICE)]
    assert "Willkommen zurück" in texts[-2]
    assert "willhaben-Link" in texts[-1]  # "hallo" still gets its hint
    await bot.baseline()
    assert "ich beobachte jetzt 3 Anzeigen" in bot.last(ALICE)
    assert not any("Sofa</a>" in m.text for m in bot.api.messages(ALICE))
