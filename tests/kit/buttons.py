"""Reading the inline buttons under a message the fake Bot API recorded."""

from __future__ import annotations

from habicht.fakes.telegram import SentMessage


def buttons(message: SentMessage) -> dict[str, str]:
    """Label → callback data (or URL, for a link button) of the buttons under `message`."""
    assert message.reply_markup is not None, "the message has no buttons"
    return {
        button["text"]: button.get("callback_data") or button["url"]
        for row in message.reply_markup["inline_keyboard"]
        for button in row
    }


def button_data(message: SentMessage, row: int = 0, column: int = 0) -> str:
    """The callback data of one button under `message` (the first one by default)."""
    assert message.reply_markup is not None, "the message has no buttons"
    data: str = message.reply_markup["inline_keyboard"][row][column]["callback_data"]
    return data
