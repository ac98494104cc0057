"""The buttons under every alert: open the listing, pause its watch, mute it 24 h, remove it.

Callback data is `w:<action>:<watch id>:<tag>` — at most 36 bytes of Telegram's 64. The tag
is an HMAC of the action and the watch id under a key derived from the bot token, cut to 12
base64url characters (72 bits): a client can send any callback data it likes, and one it
made up (another watch's id, another action, a number that is no ASCII number) is answered
"not valid" and changes nothing; a genuine one of a watch that is gone or of another chat,
"no longer exists". The handler also checks that the watch belongs to the chat the button
was pressed in, and, in a group, that the presser may change its watches (`permissions`).

Every press is answered (the presser sees a short note) and is safe to repeat: pausing a
paused watch says so, a removed watch is "no longer exists", muting again mutes 24 h from
now. After a change the action buttons are taken off the message, which keeps "open".
A new bot token makes the buttons of older alerts inert (their tag no longer matches).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import TYPE_CHECKING, Literal

from telegram import CallbackQuery, InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest

from habicht.bot.permissions import admins_only_button
from habicht.bot.texts import Texts
from habicht.digits import row_id
from habicht.queue import Button, Buttons

if TYPE_CHECKING:  # services imports this module (through the renderer)
    from habicht.bot.services import Context

__all__ = ["MUTE_SECONDS", "PREFIX", "Signer", "alert_buttons", "on_alert_button"]

PREFIX = "w:"
"""What the callback data of every alert button begins with (the handler's pattern)."""

MUTE_SECONDS = 24 * 3600.0

Action = Literal["p", "m", "r"]
"""Pause, mute, remove."""
_ACTIONS: tuple[Action, ...] = ("p", "m", "r")
_TAG_BYTES = 9


class Signer:
    """Tags and checks the callback data of alert buttons under one secret key."""

    def __init__(self, secret: str) -> None:
        self._key = hashlib.sha256(b"habicht alert buttons\0" + secret.encode()).digest()

    def data(self, action: Action, watch_id: int) -> str:
        return f"{PREFIX}{action}:{watch_id}:{self._tag(action, watch_id)}"

    def check(self, data: str) -> tuple[Action, int] | None:
        """The action and watch id of genuine callback data; None for anything else."""
        action, _, rest = data.removeprefix(PREFIX).partition(":")
        number, _, tag = rest.partition(":")
        watch_id = row_id(number)
        if watch_id is None:
            return None
        for known in _ACTIONS:
            if known == action and hmac.compare_digest(tag, self._tag(known, watch_id)):
                return known, watch_id
        return None

    def _tag(self, action: str, watch_id: int) -> str:
        mac = hmac.new(self._key, f"{action}:{watch_id}".encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(mac.digest()[:_TAG_BYTES]).decode()


def alert_buttons(texts: Texts, signer: Signer, *, url: str, watch_id: int) -> Buttons:
    """Open the listing on its own row; pause, mute and remove the watch below it."""
    return (
        (Button(text=texts.catalog.button_open, url=url),),
        (
            Button(text=texts.catalog.button_pause, data=signer.data("p", watch_id)),
            Button(text=texts.catalog.button_mute, data=signer.data("m", watch_id)),
            Button(text=texts.catalog.button_remove, data=signer.data("r", watch_id)),
        ),
    )


@admins_only_button
async def on_alert_button(update: Update, context: Context) -> None:
    """An alert's pause, mute or remove button: do it, answer the presser, and take the
    action buttons off the message once the watch changed."""
    query, chat = update.callback_query, update.effective_chat
    if query is None or query.data is None or chat is None:
        return
    services = context.bot_data
    texts = services.texts_for(chat.id)
    checked = services.signer.check(query.data)
    if checked is None:  # made up, or signed under an older bot token
        await query.answer(texts.catalog.pressed_invalid)
        return
    subs = services.subscriptions
    watch = await subs.watch_by_id(chat.id, checked[1])
    if watch is None:  # of another chat, or removed already
        await query.answer(texts.catalog.pressed_gone)
        return
    values = {"label": texts.label(watch.label), "number": watch.number}
    match checked[0]:
        case "p" if watch.paused:
            await query.answer(texts.catalog.pressed_already_paused.format(**values))
            return
        case "p":
            await subs.set_paused(chat.id, watch.number, paused=True)
            answer = texts.catalog.pressed_paused
        case "m":
            await subs.mute(watch.id, until=services.clock() + MUTE_SECONDS)
            answer = texts.catalog.pressed_muted
        case "r":
            await subs.remove_watch(chat.id, watch.number)
            answer = texts.catalog.pressed_removed
    await query.answer(answer.format(**values))
    await _keep_open_only(query)


async def _keep_open_only(query: CallbackQuery) -> None:
    """Leave only the URL buttons (open) under the pressed message."""
    message = query.message
    if not isinstance(message, Message) or message.reply_markup is None:
        return
    markup = message.reply_markup
    rows = [[b for b in row if b.url] for row in markup.inline_keyboard]
    kept = InlineKeyboardMarkup([row for row in rows if row])
    if kept.to_json() == markup.to_json():
        return
    try:
        await query.edit_message_reply_markup(kept)
    except BadRequest as exc:  # pressed twice at once: the first edit already did it
        if "not modified" not in str(exc).casefold():
            raise
