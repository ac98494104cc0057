"""What every message tells the bot before any command runs: the chat exists, speaks a
language, and can hear the bot.

`note_chat` runs first for each new message (its own handler group, before the commands):

- A chat that writes for the first time gets its row, with the sender's Telegram language
  (`language_code`) when habicht speaks it; a chat whose language is still unknown takes
  the first one shown. So the answer to a chat's first command is already in its language.
- A chat that had blocked the bot (or removed it from a group) and writes again has
  unblocked it: it is active again, and its watches start over with a silent baseline,
  taken at once — as `/start` does, which says so itself (so a `/start` is left to its own
  handler here). It is welcomed back with what was resumed ("your 3 searches are active
  again"); a chat without active watches gets no greeting. Either way its command is then
  answered as usual. A chat that never started the bot (a 403 "can't initiate
  conversation", such as an owner who never wrote to it) was never blocked, so nothing
  greets it. (`/start` and this share `habicht.bot.reactivation`.)
"""

from __future__ import annotations

from telegram import Message, Update

from habicht.bot.handling import reply
from habicht.bot.preferences import language_of
from habicht.bot.reactivation import reactivate, welcome_back
from habicht.bot.services import Context

__all__ = ["HANDLER_GROUP", "note_chat"]

HANDLER_GROUP = -100
"""`note_chat`'s handler group. PTB runs the groups in ascending order and, within one, only
the first handler that matches; far below 0, it leaves the groups near 0 to other handlers."""


def _is_start(message: Message) -> bool:
    """Whether the message is `/start` (or `/start@bot …`), which does its own welcome."""
    words = (message.text or "").split(maxsplit=1)
    return bool(words) and words[0].split("@", 1)[0] == "/start"


async def note_chat(update: Update, context: Context) -> None:
    """Record the chat and its language; re-activate it if it had blocked the bot."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None:
        return
    services = context.bot_data
    user = update.effective_user
    lang = language_of(user.language_code if user else None)
    prefs = services.preferences
    if not prefs.known(chat.id) or (prefs.of(chat.id).lang is None and lang is not None):
        await prefs.adopt(chat.id, lang)
    if _is_start(message):
        return
    resumed = await reactivate(context, chat.id)
    if resumed:  # None: it had not blocked the bot; 0: nothing to say was resumed
        await reply(update, welcome_back(services.texts_for(chat.id), resumed))
