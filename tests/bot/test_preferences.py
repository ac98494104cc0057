"""A chat's stored settings (`habicht.bot.preferences`, issue 13): the migration that adds them
keeps the chats and watches of the schema before."""

from __future__ import annotations

from pathlib import Path

from kit.bot import SEARCH
from kit.migrations import before_migration

from habicht.bot.preferences import Preferences
from habicht.clock import system_clock
from habicht.db import Database, latest_version


async def test_settings_survive_the_upgrade_from_the_previous_schema(tmp_path: Path) -> None:
    """A database of the schema before the settings keeps its chats and watches; they get
    the default settings (language unknown, photo alerts) and no topic."""
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "_chat_settings.sql")
    async with old.transaction() as conn:
        await conn.execute(
            "INSERT INTO chats (chat_id, status, created_at, updated_at)"
            " VALUES (1, 'active', 0, 0), (2, 'blocked', 0, 0)"
        )
        await conn.execute("INSERT INTO searches (id, url, created_at) VALUES (7, ?, 0)", (SEARCH,))
        await conn.execute(
            "INSERT INTO watches (chat_id, search_id, label, created_at) VALUES (1, 7, 'sofa', 0)"
        )
    await old.close()
    async with Database(path) as upgraded:
        assert await upgraded.user_version() == latest_version()
        rows = await upgraded.fetchall(
            "SELECT chat_id, status, lang, alert_style FROM chats ORDER BY chat_id"
        )
        assert [tuple(row) for row in rows] == [
            (1, "active", None, "photo"),
            (2, "blocked", None, "photo"),
        ]
        assert await upgraded.single_value("SELECT thread_id FROM watches") is None
        prefs = await Preferences(upgraded, clock=system_clock, default_lang="en").load()
        assert prefs.known(1)
        assert prefs.lang(1) == "en"
        await prefs.set_alert_style(2, "compact")
        assert await upgraded.single_value("SELECT alert_style FROM chats WHERE chat_id = 2") == (
            "compact"
        )
