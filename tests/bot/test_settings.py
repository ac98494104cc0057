"""Per-chat settings (issue 13): language and alert style, `/settings` and its buttons (the
language a first message sets: test_presence.py; their storage: test_preferences.py; a blocked
chat that writes again: test_reactivation.py)."""

from __future__ import annotations

from decimal import Decimal

from kit.bot import ALICE, BOB, MARKET, OWNER, SEARCH, Bot, settings_message
from kit.buttons import buttons

from habicht.bot import deliver
from habicht.fakes import FakeAdvert


async def test_settings_switch_the_language_of_replies_and_alerts(bot: Bot) -> None:
    """Pressing "English" edits the settings message into English; replies and alerts queued
    afterwards are English too, while the other chat stays German."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(BOB, f"/watch {SEARCH}")
    await bot.baseline()
    message = await settings_message(bot, ALICE)
    assert "Einstellungen dieses Chats" in message.text
    choices = buttons(message)
    assert "✓ 🇩🇪 Deutsch" in choices
    assert all(len(data.encode()) <= 64 for data in choices.values())
    await bot.press(ALICE, message.message_id, choices["🇬🇧 English"])
    edited = bot.api.edits[-1]
    assert (edited.chat_id, edited.message_id) == (ALICE, message.message_id)
    assert "Settings of this chat" in edited.text
    assert "✓ 🇬🇧 English" in buttons(edited)

    await bot.say(ALICE, "/list")
    assert "Your searches" in bot.last(ALICE)
    bot.site.add(MARKET, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    await bot.scrape()
    assert "💶 €90" in bot.last(ALICE)
    assert "💶 € 90" in bot.last(BOB)


async def test_compact_alerts_are_one_line_without_a_preview(bot: Bot) -> None:
    """With "compact" chosen, a new listing and a drop are one line each, sent without a
    link preview; the other chat keeps the multi-line alert with its preview."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(BOB, f"/watch {SEARCH}")
    await bot.baseline()
    message = await settings_message(bot, ALICE)
    await bot.press(ALICE, message.message_id, buttons(message)["📝 Kompakt"])
    assert "Alarme: 📝 Kompakt" in bot.api.edits[-1].text

    bot.site.set_price("1001", Decimal(80))
    bot.site.set_listings(
        MARKET, [*bot.site.listings(MARKET), FakeAdvert("1002", "Neues Sofa", Decimal(90))]
    )
    await bot.scrape()
    alerts = bot.api.messages(ALICE)[-2:]
    assert all("\n" not in alert.text for alert in alerts)
    assert any("Neues Sofa</a> · € 90 · " in alert.text for alert in alerts)
    assert any("<s>€ 100</s> → <b>€ 80</b>" in alert.text for alert in alerts)
    assert all(alert.params["link_preview_options"] for alert in alerts)
    assert "\n" in bot.last(BOB)
    assert "link_preview_options" not in bot.api.messages(BOB)[-1].params


async def test_pressing_the_current_choice_changes_nothing(bot: Bot) -> None:
    """A second press of what is already chosen is answered without an edit (Telegram
    refuses an edit into the same text), and forged data changes nothing."""
    message = await settings_message(bot, ALICE)
    await bot.press(ALICE, message.message_id, buttons(message)["📝 Kompakt"])
    edits, answers = len(bot.api.edits), len(bot.api.callback_answers)
    await bot.press(ALICE, message.message_id, buttons(bot.api.edits[-1])["✓ 📝 Kompakt"])
    for forged in ("set:lang:fr", "set:style:", "set:", "set:alert_style:compact"):
        await bot.press(ALICE, message.message_id, forged)
    assert len(bot.api.edits) == edits
    assert len(bot.api.callback_answers) == answers + 5  # every press is answered
    assert bot.app.bot_data.preferences.of(ALICE).alert_style == "compact"


async def test_an_owner_gets_replies_and_alerts_in_their_chats_language(bot: Bot) -> None:
    """An owner whose chat is English gets /queue and the dead-message alert in English,
    while the subscribers' default stays German."""
    await bot.say(OWNER, "/start", lang="en")
    await bot.say(OWNER, "/queue")
    assert "pending: 0" in bot.last(OWNER)
    await bot.say(ALICE, f"/watch {SEARCH}")
    assert "Suche Nr. 1" in bot.last(ALICE)
    bot.api.block(ALICE)
    await bot.baseline()
    await deliver(bot.app.bot_data)  # the alert about a drain's dead rows goes out next drain
    assert "Dead messages: 1 (blocked: 1)" in bot.last(OWNER)
