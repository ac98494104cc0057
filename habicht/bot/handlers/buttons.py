"""Presses of the buttons under every alert: pause its watch, mute it 24 h, remove it.

The callback data is signed (`habicht.bot.signing`): one made up is answered "not valid" and
changes nothing; a genuine one of a watch that is gone or of another chat, "no longer
exists". The handler also checks that the watch belongs to the chat the button was pressed
in, and, in a group, that the presser may change its watches (`habicht.bot.guards`).

A watch id is never given to another watch (issue 35), so "the chat's watch with this id" is
the watch the button was made for or none: a button of a removed watch stays "no longer
exists" whatever the chat adds later. A button signed before that (`Signer.outdated`) acts
on no watch and says what to use instead.

Every press is answered (the presser sees a short note) and is safe to repeat: pausing a
paused watch says so, a removed watch is "no longer exists", muting again mutes 24 h from
now. After a change the action buttons are taken off the message, which keeps "open".
"""

from __future__ import annotations

from telegram import CallbackQuery, InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest

from habicht.bot.guards import admins_only_button
from habicht.bot.services import Context

__all__ = ["MUTE_SECONDS", "on_alert_button"]

MUTE_SECONDS = 24 * 3600.0


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
    if checked is None and services.signer.outdated(query.data):
        await query.answer(texts.catalog.pressed_outdated)
        return
    if checked is None:  # made up, or signed under an older bot token
        await query.answer(texts.catalog.pressed_invalid)
        return
    subs = services.subscriptions
    watch = await subs.watch_by_id(chat.id, checked[1])
    if watch is None:  # of another chat, or removed already
        await query.answer(texts.catalog.pressed_gone)
        return
    values = {"label": texts.search_name(watch.search), "number": watch.number}
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
