"""/filter and /history through the real Application, a real Bot and a fake Bot API."""

from __future__ import annotations

from pathlib import Path

import pytest
from botkit import ALICE, BOB, SEARCH, Bot, running

from habicht.bot.filtering import advert_id


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
