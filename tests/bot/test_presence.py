"""What every message tells the bot first (`habicht.bot.handlers.presence`, issue 13): a chat's
first message sets its language from the sender's Telegram."""

from __future__ import annotations

from pathlib import Path

from kit.bot import ALICE, BOB, running

from habicht.bot.preferences import language_of


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
