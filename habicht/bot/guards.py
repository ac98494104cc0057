"""Who may run a handler: the guards handlers are wrapped in.

Changing a chat's watches and settings is for anyone in a private chat, only the admins in
a group (asked of Telegram through `ChatAdmins`, `habicht.bot.permissions`). An anonymous
admin writes as the group itself (`sender_chat` is the group): that is an admin too.
Reading — `/list`, `/help` — is for everyone, so only changing handlers are guarded:
`admins_only` for commands (a refusal as the reply), `admins_only_button` for inline
buttons (the refusal as the button's answer, so nothing is posted to the group).

The owner commands (`HABICHT_ADMIN_IDS`) are `owner_only`: anyone else who tries gets exactly
what an unknown command gets (`unknown_command`: the hint in a private chat, silence in a
group), so the refusal reveals nothing about them. They answer only in a private chat: in a
group, even an owner's `/queue dead` would show every member other chats' ids and errors.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import wraps
from typing import Any

from telegram import Update
from telegram.constants import ChatType

from habicht.bot.handling import chat_of, reply
from habicht.bot.services import Context

__all__ = [
    "Handler",
    "admins_only",
    "admins_only_button",
    "may_change",
    "owner_only",
    "unknown_command",
]

Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]
"""What PTB calls with each update a handler matches."""


async def may_change(update: Update, context: Context) -> bool:
    """Whether the update's sender may change its chat's watches and settings."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None:
        return False
    if chat.type == ChatType.PRIVATE:
        return True
    if chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        return False  # a channel: nobody there writes commands
    message = update.effective_message
    if message is not None and message.sender_chat is not None:
        return message.sender_chat.id == chat.id  # an anonymous admin writes as the group
    if user is None:
        return False
    return await context.bot_data.chat_admins.is_admin(context.bot, chat.id, user.id)


def admins_only(handler: Handler) -> Handler:
    """Run the command `handler` if the sender may change the chat; else say who may."""

    @wraps(handler)
    async def guarded(update: Update, context: Context) -> None:
        if await may_change(update, context):
            await handler(update, context)
        elif update.effective_chat is not None:
            texts = context.bot_data.texts_for(update.effective_chat.id)
            await reply(update, texts.fill("not_admin"))

    return guarded


def admins_only_button(handler: Handler) -> Handler:
    """Run the button `handler` if the presser may change the chat; else answer the press
    with the refusal (a short note only the presser sees) and change nothing."""

    @wraps(handler)
    async def guarded(update: Update, context: Context) -> None:
        query = update.callback_query
        if query is None:
            return
        if await may_change(update, context):
            await handler(update, context)
        elif update.effective_chat is not None:
            texts = context.bot_data.texts_for(update.effective_chat.id)
            await query.answer(texts.fill("not_admin"))

    return guarded


def owner_only(handler: Handler) -> Handler:
    """Run `handler` for the owners in a private chat; answer anyone else there as if the
    command did not exist, and nobody in a group."""

    @wraps(handler)
    async def guarded(update: Update, context: Context) -> None:
        user, chat = update.effective_user, update.effective_chat
        if chat is None or chat.type != ChatType.PRIVATE:
            return
        if context.bot_data.is_admin(user.id if user else None):
            await handler(update, context)
        else:
            await unknown_command(update, context)

    return guarded


async def unknown_command(update: Update, context: Context) -> None:
    """Registered for private chats only; owner commands give strangers this same answer."""
    await reply(update, context.bot_data.texts_for(chat_of(update)).fill("unknown_command"))
