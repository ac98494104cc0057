"""What the fake Telegram accepts as text (`habicht.fakes.telegram_text`): Telegram's HTML
and its length in visible characters."""

from __future__ import annotations

import pytest
import telegram
from kit.bot_api import CHAT
from telegram.error import (
    BadRequest,
)

from habicht.fakes.telegram import FakeBotAPI


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
