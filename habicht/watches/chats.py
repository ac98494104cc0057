"""A chat's settings as stored in `chats`: its language, alert style, quiet hours, digest
threshold and whether its sent alerts are followed.

The watches own `chats` (issue 37); the bot keeps these settings in memory for its
synchronous renderer (`bot.preferences`) and reads and writes them here. Values are what
the columns hold: the bot's words (which languages and styles there are) stay the bot's.
A change runs inside the caller's transaction, so that what else the change calls for
(re-timing a chat's held alerts) commits with it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal

import aiosqlite

from habicht.db import Database
from habicht.quiet import QuietHours, stored_quiet_hours

__all__ = ["ChatSettings", "Setting", "all_chat_settings", "change_chat", "chat_settings"]


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """One chat's settings as stored: `lang` None means "the default" (`HABICHT_LANG`),
    `digest_after` None the default threshold (`HABICHT_DIGEST_AFTER`)."""

    lang: str | None
    alert_style: str
    quiet: QuietHours | None
    digest_after: int | None
    follow: bool


Setting = Literal["adopt_lang", "lang", "alert_style", "quiet", "digest_after", "follow"]
"""What `change_chat` sets: `adopt_lang` sets the language only if the chat has none;
`quiet` takes four values (from, to, mode, zone; all None: no quiet hours)."""

# The only assignments `change_chat` runs: fixed SQL, every value a `?` parameter.
_ASSIGNMENTS: dict[Setting, str] = {
    "adopt_lang": "lang = COALESCE(lang, ?)",
    "lang": "lang = ?",
    "alert_style": "alert_style = ?",
    "quiet": "quiet_from = ?, quiet_to = ?, quiet_mode = ?, quiet_zone = ?",
    "digest_after": "digest_after = ?",
    "follow": "follow_alerts = ?",
}

_ROW = """
INSERT INTO chats (chat_id, created_at, updated_at) VALUES (?, ?, ?)
ON CONFLICT (chat_id) DO NOTHING
"""

_COLUMNS = (
    "lang, alert_style, quiet_from, quiet_to, quiet_mode, quiet_zone, digest_after, follow_alerts"
)


def _settings(row: sqlite3.Row) -> ChatSettings:
    quiet = stored_quiet_hours(
        row["quiet_from"], row["quiet_to"], row["quiet_mode"], row["quiet_zone"]
    )
    return ChatSettings(
        row["lang"], row["alert_style"], quiet, row["digest_after"], bool(row["follow_alerts"])
    )


async def all_chat_settings(db: Database) -> dict[int, ChatSettings]:
    """Every chat's settings, by chat id (the bot's mirror, loaded at startup)."""
    rows = await db.fetchall(f"SELECT chat_id, {_COLUMNS} FROM chats")
    return {row["chat_id"]: _settings(row) for row in rows}


async def chat_settings(db: Database, chat_id: int) -> ChatSettings | None:
    """The chat's settings; None if it has no row (a group's row moved to its supergroup)."""
    row = await db.fetchone(f"SELECT {_COLUMNS} FROM chats WHERE chat_id = ?", (chat_id,))
    return None if row is None else _settings(row)


async def change_chat(
    conn: aiosqlite.Connection,
    chat_id: int,
    setting: Setting,
    *values: str | int | None,
    now: float,
) -> ChatSettings:
    """Record the chat (if new) and set `setting` to `values`, inside the caller's
    transaction; the chat's settings after the change."""
    await conn.execute(_ROW, (chat_id, now, now))
    async with conn.execute(
        f"UPDATE chats SET {_ASSIGNMENTS[setting]}, updated_at = ? WHERE chat_id = ?"
        f" RETURNING {_COLUMNS}",
        (*values, now, chat_id),
    ) as cursor:
        row = await cursor.fetchone()
    assert row is not None  # the row was inserted above if it was missing
    return _settings(row)
