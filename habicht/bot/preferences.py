"""Each chat's settings — its language, its alert style, its quiet hours — in `chats`,
mirrored in memory. The watches own the table: the mirror reads and writes it through
`watches.chats`.

The scraper renders alerts inside its scan transaction through a synchronous `Renderer`, so
the renderer cannot ask the database which language a chat speaks: it reads this mirror.
The mirror is loaded when the bot opens and written after each commit that changes a chat's
settings. Only one `habicht run` uses a database (it holds the lock), so nobody else changes
these columns behind its back, and a change is seen by the first alert queued after it.

A chat's language is NULL until someone in it shows one habicht speaks (the `language_code`
Telegram sends with a message): its first message with one sets it, `/settings` changes it,
and until then `HABICHT_LANG` applies — so a changed default reaches every chat that never
said otherwise. A group that became a supergroup takes its row, every setting included, to
the new id, and `moved` reads it back into the mirror.

Quiet hours are read from `chats` in the scan's transaction (`watches.judge`) and handed to
the outbox with the alerts; a change re-times the chat's held alerts in the same transaction,
so `/quiet off` releases them at once and a new window holds them until its own end. A chat's
digest threshold is handed to the drain from this mirror (`digest_after`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, Self, cast, get_args

import aiosqlite

from habicht.bot.texts import Lang
from habicht.clock import Clock
from habicht.db import Database
from habicht.queue.enqueue import retime_within
from habicht.quiet import QuietHours
from habicht.watches.chats import (
    ChatSettings,
    Setting,
    all_chat_settings,
    change_chat,
    chat_settings,
)

__all__ = ["ALERT_STYLES", "LANGS", "AlertStyle", "ChatPrefs", "Preferences", "language_of"]

AlertStyle = Literal["photo", "compact"]
ALERT_STYLES: tuple[AlertStyle, ...] = get_args(AlertStyle)
LANGS: tuple[Lang, ...] = get_args(Lang)


def language_of(code: str | None) -> Lang | None:
    """The language habicht speaks for Telegram's `language_code` (`de-AT` → `de`), or None."""
    primary = (code or "").split("-")[0].lower()
    return next((lang for lang in LANGS if lang == primary), None)


@dataclass(frozen=True, slots=True)
class ChatPrefs:
    """One chat's settings as stored; `lang` None means "the default" (`HABICHT_LANG`)."""

    lang: Lang | None = None
    alert_style: AlertStyle = "photo"
    quiet: QuietHours | None = None
    digest_after: int | None = None
    """More alerts than this waiting at once make a digest; None: `HABICHT_DIGEST_AFTER`."""
    follow: bool = True
    """Whether sent alerts are kept true: edited when their advert is reserved, cheaper or
    gone (issue 34; read by `watches.follow` from `chats.follow_alerts`)."""


def _prefs(settings: ChatSettings) -> ChatPrefs:
    """The bot's view of a chat's stored settings (the columns hold only what the bot
    wrote: a language it speaks, an alert style it knows)."""
    return ChatPrefs(
        cast("Lang | None", settings.lang),
        cast(AlertStyle, settings.alert_style),
        settings.quiet,
        settings.digest_after,
        settings.follow,
    )


class Preferences:
    """The settings of every chat, read from memory and written through to `chats`."""

    def __init__(
        self, db: Database, *, clock: Clock, default_lang: Lang, default_digest_after: int = 5
    ) -> None:
        self._db = db
        self._clock = clock
        self.default_lang: Lang = default_lang
        self.default_digest_after = default_digest_after
        self._chats: dict[int, ChatPrefs] = {}

    async def load(self) -> Self:
        """Read every chat's settings into the mirror (at startup)."""
        stored = await all_chat_settings(self._db)
        self._chats = {chat_id: _prefs(settings) for chat_id, settings in stored.items()}
        return self

    def known(self, chat_id: int) -> bool:
        """Whether the chat has a row (it has written to the bot, or had a watch)."""
        return chat_id in self._chats

    def of(self, chat_id: int) -> ChatPrefs:
        return self._chats.get(chat_id, ChatPrefs())

    def lang(self, chat_id: int) -> Lang:
        """The language the chat gets its texts in."""
        return self.of(chat_id).lang or self.default_lang

    async def adopt(self, chat_id: int, lang: Lang | None) -> ChatPrefs:
        """Record the chat (if new) and `lang` as its language unless it already has one."""
        return await self._change(chat_id, "adopt_lang", lang)

    async def set_lang(self, chat_id: int, lang: Lang) -> ChatPrefs:
        return await self._change(chat_id, "lang", lang)

    async def set_alert_style(self, chat_id: int, style: AlertStyle) -> ChatPrefs:
        return await self._change(chat_id, "alert_style", style)

    def digest_after(self, chat_id: int) -> int:
        """The chat's digest threshold (its own, or the default)."""
        return self.of(chat_id).digest_after or self.default_digest_after

    async def set_digest_after(self, chat_id: int, threshold: int) -> ChatPrefs:
        return await self._change(chat_id, "digest_after", threshold)

    async def set_follow(self, chat_id: int, follow: bool) -> ChatPrefs:
        """Whether the chat's sent alerts are kept true from now on."""
        return await self._change(chat_id, "follow", int(follow))

    async def set_quiet(self, chat_id: int, quiet: QuietHours | None) -> int:
        """New quiet hours (None: none); returns how many held alerts were re-timed — released
        now, or held until the new window ends — in the same transaction."""
        values = (
            (None,) * 4
            if quiet is None
            else (f"{quiet.start:%H:%M}", f"{quiet.end:%H:%M}", quiet.mode, quiet.zone)
        )
        retimed = 0

        async def retime(conn: aiosqlite.Connection, now: float) -> None:
            nonlocal retimed
            retimed = await retime_within(conn, chat_id, quiet, now=now)

        await self._change(chat_id, "quiet", *values, then=retime)
        return retimed

    async def _change(
        self,
        chat_id: int,
        setting: Setting,
        *values: str | int | None,
        then: Callable[[aiosqlite.Connection, float], Awaitable[None]] | None = None,
    ) -> ChatPrefs:
        now = self._clock()
        async with self._db.transaction() as conn:
            settings = await change_chat(conn, chat_id, setting, *values, now=now)
            if then is not None:
                await then(conn, now)
        self._chats[chat_id] = prefs = _prefs(settings)
        return prefs

    async def moved(self, old: int, new: int) -> None:
        """A group became a supergroup and its row moved: the mirror reads the new id's row
        back from the database, so it shows exactly what the scan and the outbox apply."""
        self._chats.pop(old, None)
        settings = await chat_settings(self._db, new)
        if settings is None:
            self._chats.pop(new, None)
        else:
            self._chats[new] = _prefs(settings)
