"""A chat's settings as stored (`habicht.watches.chats`, issue 37): a change records a new
chat, sets only what it names, and commits with the caller's transaction."""

from __future__ import annotations

from datetime import time

import pytest

from habicht.db import Database
from habicht.quiet import QuietHours
from habicht.watches.chats import ChatSettings, all_chat_settings, change_chat, chat_settings


async def test_a_change_records_the_chat_and_sets_only_what_it_names(db: Database) -> None:
    async with db.transaction() as conn:
        first = await change_chat(conn, 1, "adopt_lang", "de", now=10.0)
        assert first == ChatSettings("de", "photo", None, None, True)
        # A language is adopted only while the chat has none.
        assert (await change_chat(conn, 1, "adopt_lang", "en", now=11.0)).lang == "de"
        await change_chat(conn, 1, "lang", "en", now=12.0)
        await change_chat(conn, 1, "alert_style", "compact", now=12.0)
        await change_chat(conn, 1, "digest_after", 9, now=12.0)
        await change_chat(conn, 1, "follow", 0, now=12.0)
        await change_chat(conn, 1, "quiet", "22:00", "07:00", "hold", "Europe/Vienna", now=12.0)
        await change_chat(conn, 2, "lang", None, now=12.0)
    quiet = QuietHours(time(22), time(7), "hold", "Europe/Vienna")
    one = ChatSettings("en", "compact", quiet, 9, False)
    assert await chat_settings(db, 1) == one
    assert await chat_settings(db, 3) is None
    assert await all_chat_settings(db) == {1: one, 2: ChatSettings(None, "photo", None, None, True)}
    async with db.transaction() as conn:
        await change_chat(conn, 1, "quiet", None, None, None, None, now=13.0)
    assert (await chat_settings(db, 1)) == ChatSettings("en", "compact", None, 9, False)


async def test_a_change_rolls_back_with_the_caller(db: Database) -> None:
    async def change_then_fail() -> None:
        async with db.transaction() as conn:
            await change_chat(conn, 1, "lang", "de", now=10.0)
            raise RuntimeError("the caller failed after the change")

    with pytest.raises(RuntimeError, match="caller failed"):
        await change_then_fail()
    assert await all_chat_settings(db) == {}
