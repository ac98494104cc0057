"""The conversation harness: the real Application with a real Bot over a fake Bot API and a
fake willhaben, driven by updates built the way Telegram sends them. Shared by the bot tests."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from fakes import FakeClock
from telegram import Update

from habicht.bot import BASELINE, SCRAPE, BotApplication, build_application, run_jobs_now
from habicht.config import Settings
from habicht.fakes import FakeAdvert, render_search_page
from habicht.fakes.telegram import FakeBotAPI

OWNER = 1001
ALICE = 2002
BOB = 3003
SEARCH = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=sofa"
ids = itertools.count(1)
"""Message and update ids, unique across the test run."""


@dataclass
class Site:
    """A fake willhaben: every search answers with the current `adverts`."""

    adverts: list[FakeAdvert] = field(default_factory=list)
    status: int = 200
    requests: list[httpx.URL] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request.url)
        if self.status != 200:
            return httpx.Response(self.status, text="kaputt")
        return httpx.Response(200, text=render_search_page(self.adverts))


@dataclass
class Bot:
    app: BotApplication
    api: FakeBotAPI
    site: Site
    clock: FakeClock

    async def say(
        self, chat_id: int, text: str, *, user_id: int | None = None, group: bool = False
    ) -> None:
        """A user writes `text` in their private chat (or a group); the Application handles it."""
        message: dict[str, Any] = {
            "message_id": next(ids),
            "date": int(self.clock()),
            "chat": {"id": chat_id, "type": "group" if group else "private"},
            "from": {"id": user_id or chat_id, "is_bot": False, "first_name": "Test"},
            "text": text,
        }
        if text.startswith("/"):
            length = len(text.split()[0])
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
        update = Update.de_json({"update_id": next(ids), "message": message}, self.app.bot)
        await self.app.process_update(update)

    def last(self, chat_id: int) -> str:
        return self.api.messages(chat_id)[-1].text

    async def scrape(self) -> None:
        """One full cycle as the `scrape` job runs it: scan every search, then drain."""
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
    }
    values.update(changes)
    return Settings(**values)


@asynccontextmanager
async def running(tmp_path: Path, **changes: Any) -> AsyncIterator[Bot]:
    """The Application started as `post_init` starts it (no updater), and shut down after."""
    clock = FakeClock()
    site = Site([FakeAdvert("1001", "Altes Sofa", Decimal(100))])
    with FakeBotAPI(clock=clock) as api:
        app = build_application(
            settings_for(tmp_path, api.token, **changes),
            clock=clock,
            sleep=clock.sleep,
            rand=random.Random(7),
            telegram_transport=api.transport(),
            willhaben_transport=httpx.MockTransport(site),
        )
        async with app:
            assert app.post_init is not None
            await app.post_init(app)
            try:
                yield Bot(app, api, site, clock)
            finally:
                assert app.post_shutdown is not None
                await app.post_shutdown(app)
