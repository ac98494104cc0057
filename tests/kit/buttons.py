"""Reading the inline buttons under a message the fake Bot API recorded."""

from __future__ import annotations

import base64
import hashlib
import hmac

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


def legacy_button(token: str, action: str, watch_id: int) -> str:
    """The callback data an alert button of `watch_id` carried before issue 35, when the tag
    was an HMAC of (action, watch id) alone under a key from the bot `token` — the formula
    as it shipped, restated so the tests need no signer that can still make such data."""
    key = hashlib.sha256(b"habicht alert buttons\0" + token.encode()).digest()
    mac = hmac.new(key, f"{action}:{watch_id}".encode(), hashlib.sha256).digest()
    return f"w:{action}:{watch_id}:{base64.urlsafe_b64encode(mac[:9]).decode()}"
