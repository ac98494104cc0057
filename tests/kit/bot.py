"""The conversation harness: the real Application with a real Bot over a fake Bot API and the
fake willhaben site, driven by updates built the way Telegram sends them. Shared by the bot
tests."""

from __future__ import annotations

import itertools
import logging
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from telegram import Update

from habicht.bot import BASELINE, SCRAPE, BotApplication, build_application, run_jobs_now
from habicht.config import Settings
from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import FakeBotAPI, SentMessage
from habicht.fakes.willhaben_site import MARKETPLACE, FakeWillhabenSite
from kit.fakes import FakeClock

OWNER = 1001
ALICE = 2002
BOB = 3003
SEARCH = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=sofa"
ids = itertools.count(1)
"""Message and update ids, unique across the test run."""


MARKET = MARKETPLACE
"""The kit site's one registered search: every marketplace search lists its adverts —
"Altes Sofa" (1001, € 100) to begin with: `bot.site.add(MARKET, advert)` puts a new one on
top, `bot.site.set_price` drops a price."""


def market_site() -> FakeWillhabenSite:
    """The kit's fake willhaben: every marketplace search lists "Altes Sofa" (MARKET)."""
    site = FakeWillhabenSite()
    site.set_listings(MARKET, [FakeAdvert("1001", "Altes Sofa", Decimal(100))])
    return site


def _chat(chat_id: int, *, group: bool, forum: bool = False) -> dict[str, Any]:
    if forum:
        return {"id": chat_id, "type": "supergroup", "title": "Forum", "is_forum": True}
    return {"id": chat_id, "type": "group" if group else "private"}


@dataclass
class Bot:
    app: BotApplication
    api: FakeBotAPI
    site: FakeWillhabenSite
    clock: FakeClock

    async def say(
        self,
        chat_id: int,
        text: str,
        *,
        user_id: int | None = None,
        group: bool = False,
        lang: str | None = None,
        topic: int | None = None,
        as_group: bool = False,
    ) -> None:
        """A user writes `text` in their private chat (or a group, or a forum's `topic`, with
        their Telegram app in `lang`; `as_group`: an anonymous admin, on the group's behalf);
        the Application handles it."""
        user: dict[str, Any] = {"id": user_id or chat_id, "is_bot": False, "first_name": "Test"}
        if as_group:  # Telegram's stand-in sender for anonymous group admins
            user = {"id": 1087968824, "is_bot": True, "first_name": "Group"}
        if lang is not None:
            user["language_code"] = lang
        message: dict[str, Any] = {
            "message_id": next(ids),
            "date": int(self.clock()),
            "chat": _chat(chat_id, group=group, forum=topic is not None),
            "from": user,
            "text": text,
        }
        if topic is not None:
            message |= {"message_thread_id": topic, "is_topic_message": True}
        if as_group:
            message["sender_chat"] = message["chat"]
        if text.startswith("/"):
            length = len(text.split()[0])
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
        update = Update.de_json({"update_id": next(ids), "message": message}, self.app.bot)
        await self.app.process_update(update)

    async def press(
        self,
        chat_id: int,
        message_id: int,
        data: str,
        *,
        user_id: int | None = None,
        group: bool = False,
        inaccessible: bool = False,
    ) -> None:
        """A user presses an inline button with `data` under the bot's message — as the fake
        Bot API shows it now, if it sent it (one too old for the bot to see or edit any more,
        if `inaccessible`: Telegram then sends date 0)."""
        message = self.api.as_shown(chat_id, message_id) or {"message_id": message_id, "text": "…"}
        message |= {
            "date": 0 if inaccessible else int(self.clock()),
            "chat": _chat(chat_id, group=group),
        }
        query = {
            "id": str(next(ids)),
            "from": {"id": user_id or chat_id, "is_bot": False, "first_name": "Test"},
            "chat_instance": str(chat_id),
            "data": data,
            "message": message,
        }
        update = Update.de_json({"update_id": next(ids), "callback_query": query}, self.app.bot)
        await self.app.process_update(update)

    def last(self, chat_id: int) -> str:
        return self.api.messages(chat_id)[-1].text

    async def scrape(self) -> None:
        """One interval later, the `scrape` job: every search is due again, so its pass
        scans each of them, then drains."""
        self.clock.advance(self.app.bot_data.settings.scrape_interval)
        assert await run_jobs_now(self.app, SCRAPE) == 1

    async def baseline(self) -> None:
        """Run the baseline scans a /watch asked for."""
        await run_jobs_now(self.app, BASELINE)


def settings_for(tmp_path: Path, token: str, **changes: Any) -> Settings:
    values: dict[str, Any] = {
        "bot_token": token,
        "admin_ids": frozenset({OWNER}),
        "db": tmp_path / "habicht.sqlite3",
        "telegram_api": "http://telegram.test/bot",
        "willhaben_url": "http://willhaben.test",
        "fetch_gap": 0.0,
        # Every search of the kit's site answers with the same adverts (MARKET): it is no world
        # a feed could be matched against (`running(site=FakeWillhabenSite(world=True))` is),
        # so each search is polled on its own.
        "feed_interval": 0.0,
    }
    values.update(changes)
    return Settings(**values)


@asynccontextmanager
async def running(
    tmp_path: Path,
    *,
    clock: FakeClock | None = None,
    site: FakeWillhabenSite | None = None,
    api: FakeBotAPI | None = None,
    new_database: bool = False,
    **changes: Any,
) -> AsyncIterator[Bot]:
    """The Application started as `post_init` starts it (no updater), and shut down after;
    a restart passes the clock of the run before, so time goes on. `site` replaces the kit's
    (MARKET) — e.g. a `FakeWillhabenSite(world=True)`, for tests with feeds
    (`feed_interval=60`). `api` carries a fake Telegram across a restart (it keeps what was
    sent); a fresh one is made and closed with the run otherwise.

    The bot starts on a database that is there already, as a deployed one does; with
    `new_database` it has to create it (and tells the owner so, issue 27)."""
    clock = clock or FakeClock()
    site = site or market_site()
    with nullcontext(api) if api is not None else FakeBotAPI(clock=clock) as api:
        settings = settings_for(tmp_path, api.token, **changes)
        if not new_database:
            async with Database(settings.db, clock=clock):
                pass
        app = build_application(
            settings,
            clock=clock,
            sleep=clock.sleep,
            rand=random.Random(7),
            telegram_transport=api.transport(),
            willhaben_transport=site.transport(),
        )
        async with app:
            assert app.post_init is not None
            await app.post_init(app)
            try:
                yield Bot(app, api, site, clock)
            finally:
                assert app.post_shutdown is not None
                await app.post_shutdown(app)


async def alert_of(bot: Bot, chat_id: int, advert: FakeAdvert, **say: object) -> SentMessage:
    """`chat_id` watches SEARCH (baselined on the site's adverts), then `advert` appears;
    the alert the chat received."""
    await bot.say(chat_id, f"/watch {SEARCH}", **say)  # type: ignore[arg-type]
    await bot.baseline()
    bot.site.add(MARKET, advert)
    await bot.scrape()
    return bot.api.messages(chat_id)[-1]


async def settings_message(bot: Bot, chat_id: int) -> SentMessage:
    """The /settings message `chat_id` was sent."""
    await bot.say(chat_id, "/settings")
    return bot.api.messages(chat_id)[-1]


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What was logged at ERROR or above: a handler that raised, or a send Telegram refused."""
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
