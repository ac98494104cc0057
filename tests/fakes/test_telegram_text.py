"""What the fake Telegram accepts as text (`habicht.fakes.telegram_text`): Telegram's HTML
and its length in visible characters; and how it shows a text, which an edit is compared by."""

from __future__ import annotations

import pytest
import telegram
from kit.bot_api import CHAT
from telegram.error import (
    BadRequest,
)

from habicht.fakes.telegram import FakeBotAPI
from habicht.fakes.telegram_text import shown_text


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("<b>offen", "can't parse entities"),
        ("<div>x</div>", "can't parse entities"),
        ("AT&T", "can't parse entities"),
        ("1 < 2", "can't parse entities"),
        ("<b></b>", "message text is empty"),
        ("x" * 4097, "message is too long"),
    ],
)
async def test_bad_html_is_refused_like_telegram(
    bot: telegram.Bot, fake: FakeBotAPI, text: str, problem: str
) -> None:
    """Unescaped or unbalanced HTML, empty and over-long texts are a BadRequest."""
    with pytest.raises(BadRequest, match=f"(?i){problem}"):
        await bot.send_message(CHAT, text, parse_mode="HTML")
    assert fake.messages() == []


async def test_long_text_counts_visible_characters(bot: telegram.Bot, fake: FakeBotAPI) -> None:
    """4096 visible characters pass even when the markup makes the text longer."""
    await bot.send_message(CHAT, "<b>" + "&amp;" * 4096 + "</b>", parse_mode="HTML")
    assert len(fake.messages(CHAT)) == 1


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("<b>Sofa</b> &amp; Tisch", "<strong>Sofa</strong> &#38; Tisch"),
        ("<b><i>Sofa</i></b>", "<i><b>Sofa</b></i>"),
        ('<span class="tg-spoiler">€ 90</span>', "<tg-spoiler>€ 90</tg-spoiler>"),
        ("Sofa<b></b>", "Sofa"),
    ],
)
def test_two_spellings_of_one_look_are_shown_alike(one: str, other: str) -> None:
    """HTML that shows the same text with the same formatting is shown alike, as Telegram
    compares an edit with the message it changes."""
    assert shown_text(one, "HTML") == shown_text(other, "HTML")


@pytest.mark.parametrize(
    ("one", "other", "parse_mode"),
    [
        ("<b>Sofa</b>", "<i>Sofa</i>", "HTML"),
        ("<b>Sofa</b> Tisch", "<b>Sofa Tisch</b>", "HTML"),
        ('<a href="https://a.at/1">Sofa</a>', '<a href="https://a.at/2">Sofa</a>', "HTML"),
        ("<b>Sofa</b>", "Sofa", None),
    ],
)
def test_a_different_look_is_shown_differently(
    one: str, other: str, parse_mode: str | None
) -> None:
    """Other formatting, formatting over other characters, another link, or markup that is
    shown as written (no parse mode) is a different look."""
    assert shown_text(one, parse_mode) != shown_text(other, parse_mode)
