"""The delivery tests' far end (tests/queue/test_deliver.py, test_outcome.py, test_durable.py,
test_pacing.py): a real python-telegram-bot `Bot` whose Bot API answers are scripted (respx),
hooks that count, a send that records, and a drain on the fake clock. tests/queue/conftest.py
makes its fixtures available."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
import respx
from telegram import Bot
from telegram.constants import ParseMode

from habicht.clock import Clock
from habicht.message import Delivered, Message, Outgoing
from habicht.queue import DrainSummary, Notification, NotificationStore, Send, drain
from habicht.queue.rows import COLUMNS, as_notification
from kit.fakes import FakeClock

TOKEN = "123456:TEST-token"
API = f"https://api.telegram.org/bot{TOKEN}"

Reply = httpx.Response | Exception


def ok(chat_id: int, text: str) -> httpx.Response:
    message = {"message_id": 1, "date": 0, "chat": {"id": chat_id, "type": "private"}}
    return httpx.Response(200, json={"ok": True, "result": {**message, "text": text}})


def fail(code: int, description: str, **parameters: int) -> httpx.Response:
    body: dict[str, Any] = {"ok": False, "error_code": code, "description": description}
    if parameters:
        body["parameters"] = parameters
    return httpx.Response(code, json=body)


def too_many_requests(seconds: int) -> httpx.Response:
    return fail(429, f"Too Many Requests: retry after {seconds}", retry_after=seconds)


BLOCKED = fail(403, "Forbidden: bot was blocked by the user")
CHAT_NOT_FOUND = fail(400, "Bad Request: chat not found")
BAD_GATEWAY = fail(502, "Bad Gateway")
UNAUTHORIZED = fail(401, "Unauthorized")


@dataclass
class FakeBotApi:
    """The far end of the wire: answers sendMessage per chat from a script, else OK."""

    clock: FakeClock
    script: dict[int, list[Reply]] = field(default_factory=dict)
    sent: list[tuple[float, int, str]] = field(default_factory=list)

    def reply(self, chat_id: int, *replies: Reply) -> None:
        self.script.setdefault(chat_id, []).extend(replies)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        chat_id, text = int(form["chat_id"]), form["text"]
        self.sent.append((self.clock(), chat_id, text))
        replies = self.script.get(chat_id)
        answer = replies.pop(0) if replies else ok(chat_id, text)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def texts(self) -> list[str]:
        return [text for _, _, text in self.sent]


@pytest.fixture
def api(clock: FakeClock) -> FakeBotApi:
    return FakeBotApi(clock)


@pytest.fixture
async def send(api: FakeBotApi) -> AsyncIterator[Send]:
    """`send` over a real, initialised `telegram.Bot`; only its HTTP is faked."""
    with respx.mock(base_url=API, assert_all_called=False) as router:
        me = {"id": 123456, "is_bot": True, "first_name": "habicht", "username": "habicht_bot"}
        router.post("/getMe").respond(json={"ok": True, "result": me})
        router.post("/sendMessage").mock(side_effect=api)
        async with Bot(TOKEN) as bot:

            async def send(message: Message) -> Delivered:
                sent = await bot.send_message(
                    message.chat_id, message.text, parse_mode=ParseMode.HTML
                )
                return Delivered(sent.message_id)

            yield send


@dataclass
class Hooks:
    """Counts hook calls with plain lists."""

    gone: list[tuple[int, str]] = field(default_factory=list)
    migrated: list[tuple[int, int]] = field(default_factory=list)

    async def on_chat_gone(self, chat_id: int, reason: str) -> None:
        self.gone.append((chat_id, reason))

    async def on_chat_migrated(self, old: int, new: int) -> None:
        self.migrated.append((old, new))


Drain = Callable[..., Awaitable[DrainSummary]]


@pytest.fixture
def hooks() -> Hooks:
    return Hooks()


@pytest.fixture
def run(store: NotificationStore, send: Send, clock: FakeClock, hooks: Hooks) -> Drain:
    """One drain with the fake clock, a seeded random source and the hooks."""

    async def sleep(seconds: float) -> None:
        """Moves the fake clock and, like a real sleep, lets other tasks run."""
        await clock.sleep(seconds)
        await asyncio.sleep(0)

    async def run(**kwargs: Any) -> DrainSummary:
        return await drain(
            store,
            send,
            clock=clock,
            sleep=sleep,
            rand=random.Random(7),
            on_chat_gone=hooks.on_chat_gone,
            on_chat_migrated=hooks.on_chat_migrated,
            **kwargs,
        )

    return run


@dataclass
class Recorder:
    """A fake `send` that records (time, chat, text) and yields like real I/O."""

    clock: Clock
    sent: list[tuple[float, int, str]] = field(default_factory=list)

    async def __call__(self, message: Message) -> object:
        self.sent.append((self.clock(), message.chat_id, message.text))
        await asyncio.sleep(0)
        return None


def message(key: str, chat_id: int = 1) -> Outgoing:
    return Outgoing(chat_id=chat_id, kind="new", text=f"<b>{key}</b>", dedupe_key=key)


async def row(store: NotificationStore, key: str) -> Notification:
    found = await store.db.fetchall("SELECT id FROM notifications WHERE dedupe_key = ?", (key,))
    assert len(found) == 1, key
    return await _by_id(store, found[0][0])


async def _by_id(store: NotificationStore, id_: int) -> Notification:
    rows = await store.db.fetchall(f"SELECT {COLUMNS} FROM notifications WHERE id = ?", (id_,))
    return as_notification(rows[0])
