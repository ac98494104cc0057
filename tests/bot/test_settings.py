"""Per-chat settings (issue 13): language and alert style, `/settings` and its buttons, the
migration that stores them, and a blocked chat that writes again."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from kit.bot import ALICE, BOB, MARKET, OWNER, SEARCH, Bot, running, settings_message
from kit.buttons import buttons
from kit.migrations import before_migration

from habicht.bot import deliver
from habicht.bot.preferences import Preferences, language_of
from habicht.clock import system_clock
from habicht.db import Database, latest_version
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


async def test_the_language_comes_from_the_users_telegram(tmp_path: Path) -> None:
    """A chat's first message sets its language from the sender's `language_code`, HABICHT_LANG
    applies to other languages, and a language once known is kept; the command menu is there
    in each language."""
    async with running(tmp_path, lang="de") as bot:
        assert bot.api.commands_by_lang["en"][0]["description"].startswith("watch a")
        assert bot.api.commands[0]["description"].startswith("willhaben-Suche")
        await bot.say(ALICE, "/start", lang="en-GB")
        assert bot.last(ALICE).startswith("👋 Hi!")
        await bot.say(ALICE, "/help", lang="de")  # known already: stays English
        assert "this help" in bot.last(ALICE)
        await bot.say(BOB, "/help", lang="fr")
        assert "diese Hilfe" in bot.last(BOB)
        await bot.say(BOB, "/help", lang="en")  # unknown until now: English from here on
        assert "this help" in bot.last(BOB)
        prefs = bot.app.bot_data.preferences
        assert (prefs.of(ALICE).lang, prefs.of(BOB).lang) == ("en", "en")
    assert [language_of(code) for code in ("de-AT", "EN", "fr", "", None)] == [
        "de",
        "en",
        None,
        None,
        None,
    ]


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


async def test_settings_survive_the_upgrade_from_the_previous_schema(tmp_path: Path) -> None:
    """A database of the schema before the settings keeps its chats and watches; they get
    the default settings (language unknown, photo alerts) and no topic."""
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "_chat_settings.sql")
    async with old.transaction() as conn:
        await conn.execute(
            "INSERT INTO chats (chat_id, status, created_at, updated_at)"
            " VALUES (1, 'active', 0, 0), (2, 'blocked', 0, 0)"
        )
        await conn.execute("INSERT INTO searches (id, url, created_at) VALUES (7, ?, 0)", (SEARCH,))
        await conn.execute(
            "INSERT INTO watches (chat_id, search_id, label, created_at) VALUES (1, 7, 'sofa', 0)"
        )
    await old.close()
    async with Database(path) as upgraded:
        assert await upgraded.user_version() == latest_version()
        rows = await upgraded.fetchall(
            "SELECT chat_id, status, lang, alert_style FROM chats ORDER BY chat_id"
        )
        assert [tuple(row) for row in rows] == [
            (1, "active", None, "photo"),
            (2, "blocked", None, "photo"),
        ]
        assert await upgraded.single_value("SELECT thread_id FROM watches") is None
        prefs = await Preferences(upgraded, clock=system_clock, default_lang="en").load()
        assert prefs.known(1)
        assert prefs.lang(1) == "en"
        await prefs.set_alert_style(2, "compact")
        assert await upgraded.single_value("SELECT alert_style FROM chats WHERE chat_id = 2") == (
            "compact"
        )


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
