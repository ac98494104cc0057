"""The queue's `send` on Telegram: one outbox `Message` as a photo with a caption, or as text.

A photo goes by URL: Telegram fetches it from willhaben's image server itself. When Telegram
cannot (the URL is gone, the server answered with a page, not a picture), the same message is
sent as text at once, within the same attempt: a photo Telegram refuses is a reason to drop
the picture, never the alert. Any other failure is the queue's to classify.
"""

from __future__ import annotations

import logging

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest

from habicht.bot.handling import NO_PREVIEW
from habicht.queue import Buttons, Message

__all__ = ["PHOTO_REFUSALS", "keyboard", "refused_photo", "send_message"]

log = logging.getLogger(__name__)

PHOTO_REFUSALS = (
    "wrong file identifier/http url specified",
    "failed to get http url content",
    "wrong type of the web page content",
)
"""What Telegram answers (400 Bad Request, case-folded here) when it cannot use a photo URL."""


def refused_photo(error: BadRequest) -> bool:
    """Whether Telegram refused the photo itself (the message would go through as text)."""
    folded = str(error).casefold()
    return any(refusal in folded for refusal in PHOTO_REFUSALS)


def keyboard(buttons: Buttons) -> InlineKeyboardMarkup | None:
    """The inline keyboard of stored buttons (None: no buttons)."""
    if not buttons:
        return None
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(button.text, url=button.url, callback_data=button.data)
                for button in row
            ]
            for row in buttons
        ]
    )


async def send_message(bot: Bot, message: Message, *, preview: bool = True) -> None:
    """Send `message` as queued: its photo with the text as caption, falling back to text
    if Telegram refuses the photo; `preview` shows the first link's preview in a text."""
    markup = keyboard(message.buttons)
    if message.photo_url is not None:
        try:
            await bot.send_photo(
                message.chat_id,
                message.photo_url,
                caption=message.text,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                message_thread_id=message.thread_id,
                disable_notification=message.disable_notification,
            )
            return
        except BadRequest as exc:
            if not refused_photo(exc):
                raise
            log.info("photo refused for chat %d (%s): sent as text", message.chat_id, exc)
    await bot.send_message(
        message.chat_id,
        message.text,
        parse_mode=ParseMode.HTML,
        reply_markup=markup,
        message_thread_id=message.thread_id,
        disable_notification=message.disable_notification,
        link_preview_options=None if preview else NO_PREVIEW,
    )
