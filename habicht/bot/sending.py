"""The queue's `send` on Telegram: one outbox `Message` as a photo with a caption, or as text
— or, for an edit row, the edit of a message sent earlier.

A photo goes by URL: Telegram fetches it from willhaben's image server itself. When Telegram
cannot (the URL is gone, the server answered with a page, not a picture), the same message is
sent as text at once, within the same attempt: a photo Telegram refuses is a reason to drop
the picture, never the alert. What Telegram made of it (`Delivered`: the message id, photo
or text) goes back to the queue, which keeps it so the alert can be edited later.

An edit changes the caption of a photo, the text of a text, and the buttons. Telegram's "message
is not modified" means the message already says it: done. Any other failure is the queue's to
classify (a deleted message is `message_gone`, dead at once).
"""

from __future__ import annotations

import logging

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest

from habicht.bot.handling import NO_PREVIEW
from habicht.message import Buttons, Delivered, Message

__all__ = ["NOT_MODIFIED", "PHOTO_REFUSALS", "keyboard", "refused_photo", "send_message"]

log = logging.getLogger(__name__)

PHOTO_REFUSALS = (
    "wrong file identifier/http url specified",
    "failed to get http url content",
    "wrong type of the web page content",
)
"""What Telegram answers (400 Bad Request, case-folded here) when it cannot use a photo URL."""


NOT_MODIFIED = "message is not modified"
"""What Telegram answers (400, case-folded here) to an edit that changes nothing."""


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


async def send_message(bot: Bot, message: Message, *, preview: bool = True) -> Delivered | None:
    """Send `message` as queued: its photo with the text as caption, falling back to text
    if Telegram refuses the photo; `preview` shows the first link's preview in a text. An
    edit (`message.edits`) edits instead. Returns what Telegram made of a new message."""
    if message.edits is not None:
        await _edit(bot, message, message.edits)
        return None
    markup = keyboard(message.buttons)
    if message.photo_url is not None:
        try:
            sent = await bot.send_photo(
                message.chat_id,
                message.photo_url,
                caption=message.text,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                message_thread_id=message.thread_id,
                disable_notification=message.disable_notification,
            )
            return Delivered(sent.message_id, as_photo=True)
        except BadRequest as exc:
            if not refused_photo(exc):
                raise
            log.info("photo refused for chat %d (%s): sent as text", message.chat_id, exc)
    sent = await bot.send_message(
        message.chat_id,
        message.text,
        parse_mode=ParseMode.HTML,
        reply_markup=markup,
        message_thread_id=message.thread_id,
        disable_notification=message.disable_notification,
        link_preview_options=None if preview else NO_PREVIEW,
    )
    return Delivered(sent.message_id)


async def _edit(bot: Bot, message: Message, target: Delivered) -> None:
    """Edit the caption or the text of `target` and its buttons; "not modified" is done."""
    markup = keyboard(message.buttons)
    try:
        if target.as_photo:
            await bot.edit_message_caption(
                chat_id=message.chat_id,
                message_id=target.message_id,
                caption=message.text,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
            )
        else:
            await bot.edit_message_text(
                message.text,
                chat_id=message.chat_id,
                message_id=target.message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
            )
    except BadRequest as exc:
        if NOT_MODIFIED not in str(exc).casefold():
            raise
