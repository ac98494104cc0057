"""Who may change a chat's watches and settings: anyone in a private chat, only the admins
in a group.

Telegram tells a bot who administers a group only when asked (`getChatMember`), so
`ChatAdmins` asks once per (group, user) and keeps the answer `ADMIN_TTL` seconds: a burst
of button presses costs one request, and a demoted admin loses the right within a minute.
An anonymous admin writes as the group itself (`sender_chat` is the group): that is an
admin too. Reading — `/list`, `/help` — is for everyone, so only changing handlers are
guarded: `admins_only` for commands (a refusal as the reply), `admins_only_button` for inline
buttons (the refusal as the button's answer, so nothing is posted to the group).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import wraps
from typing import TYPE_CHECKING, Any

from telegram import Bot, Update
from telegram.constants import ChatMemberStatus, ChatType

from habicht.bot.handling import reply
from habicht.clock import Clock

if TYPE_CHECKING:  # services imports this module to build its `ChatAdmins`
    from habicht.bot.services import Context

__all__ = ["ADMIN_TTL", "ChatAdmins", "admins_only", "admins_only_button", "may_change"]

Handler = Callable[[Update, "Context"], Coroutine[Any, Any, None]]

ADMIN_TTL = 60.0
"""Seconds an answer of `getChatMember` is trusted."""

MAX_CACHED = 10_000
"""Answers kept at most; past it, expired ones are dropped (a bound, not a tuning knob)."""

_ADMINS = frozenset({ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR})


class ChatAdmins:
    """Whether a user administers a group, from Telegram, cached `ttl` seconds per pair."""

    def __init__(self, *, clock: Clock, ttl: float = ADMIN_TTL) -> None:
        self._clock = clock
        self._ttl = ttl
        self._known: dict[tuple[int, int], tuple[bool, float]] = {}

    async def is_admin(self, bot: Bot, chat_id: int, user_id: int) -> bool:
        now = self._clock()
        cached = self._known.get((chat_id, user_id))
        if cached is not None and cached[1] > now:
            return cached[0]
        member = await bot.get_chat_member(chat_id, user_id)
        answer = member.status in _ADMINS
        if len(self._known) >= MAX_CACHED:
            self._known = {key: seen for key, seen in self._known.items() if seen[1] > now}
        self._known[(chat_id, user_id)] = (answer, now + self._ttl)
        return answer


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
