"""Who administers a group, as Telegram says: the cache the guards ask (`habicht.bot.guards`).

Telegram tells a bot who administers a group only when asked (`getChatMember`), so
`ChatAdmins` asks once per (group, user) and keeps the answer `ADMIN_TTL` seconds: a burst
of button presses costs one request, and a demoted admin loses the right within a minute.

A leaf: the services hold one `ChatAdmins`, so this module imports nothing of them.
"""

from __future__ import annotations

from telegram import Bot
from telegram.constants import ChatMemberStatus

from habicht.clock import Clock

__all__ = ["ADMIN_TTL", "MAX_CACHED", "ChatAdmins"]

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
