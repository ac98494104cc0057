"""Delivery through a real python-telegram-bot `Bot` whose Bot API answers are scripted (respx)."""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import logging
import random
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
import respx
from kit import within
from kit.fakes import FakeClock
from kit.faults import FullDisk, HeldLock
from telegram import Bot
from telegram.constants import ParseMode
from telegram.error import RetryAfter

from habicht.clock import Clock
from habicht.db import Database
from habicht.fakes.clock import SteppedClock
from habicht.queue import (
    DeliveryStopped,
    DrainSummary,
    Message,
    Notification,
    NotificationStore,
    Outgoing,
    Pacer,
    Send,
    TakenOver,
    drain,
)
from habicht.queue.rows import COLUMNS, as_notification
from habicht.queue.table import DEFAULT_LEASE

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

            async def send(message: Message) -> object:
                return await bot.send_message(
                    message.chat_id, message.text, parse_mode=ParseMode.HTML
                )

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


def message(key: str, chat_id: int = 1) -> Outgoing:
    return Outgoing(chat_id=chat_id, kind="new", text=f"<b>{key}</b>", dedupe_key=key)


async def row(store: NotificationStore, key: str) -> Notification:
    found = await store.db.fetchall("SELECT id FROM notifications WHERE dedupe_key = ?", (key,))
    assert len(found) == 1, key
    return await _by_id(store, found[0][0])


async def _by_id(store: NotificationStore, id_: int) -> Notification:
    rows = await store.db.fetchall(f"SELECT {COLUMNS} FROM notifications WHERE id = ?", (id_,))
    return as_notification(rows[0])


async def test_transient_failures_then_success_deliver_exactly_once(
    store: NotificationStore, api: FakeBotApi, run: Drain, clock: FakeClock
) -> None:
    """A timeout, then a 502, then success: delivered once, after 3 attempts, sent recorded once."""
    await store.enqueue(message("a"))
    api.reply(1, httpx.ReadTimeout("slow"), BAD_GATEWAY)
    summaries = []
    for _ in range(3):
        started = clock.now
        summaries.append(await run())
        clock.advance(3600)
    assert [(s.sent, s.retried) for s in summaries] == [(0, 1), (0, 1), (1, 0)]
    assert await run() == DrainSummary()
    done = await row(store, "a")
    assert (done.status, done.attempts, done.last_error) == ("sent", 3, "Bad Gateway")
    assert done.sent_at is not None
    assert started <= done.sent_at <= clock.now - 3600, "recorded by the drain that sent it"
    assert api.texts() == ["<b>a</b>"] * 3


async def test_retry_waits_for_its_backoff(
    store: NotificationStore, api: FakeBotApi, run: Drain, clock: FakeClock
) -> None:
    """A retryable failure is due again only after its backoff, within the first cap."""
    await store.enqueue(message("a"))
    api.reply(1, BAD_GATEWAY)
    await run(backoff_base=60, backoff_cap=3600)
    retrying = await row(store, "a")
    assert retrying.status == "pending"
    assert clock.now <= retrying.next_attempt_at <= clock.now + 60
    assert await run() == DrainSummary()
    clock.advance(60)
    assert (await run()).sent == 1


@pytest.mark.parametrize(
    ("reply", "reason"),
    [(BLOCKED, "blocked"), (CHAT_NOT_FOUND, "chat_not_found")],
    ids=["403-blocked", "400-chat-not-found"],
)
async def test_permanent_chat_errors_die_at_once_and_call_the_hook(
    store: NotificationStore,
    api: FakeBotApi,
    run: Drain,
    clock: FakeClock,
    hooks: Hooks,
    reply: httpx.Response,
    reason: str,
) -> None:
    """A blocked or missing chat: one attempt, dead with its reason, its other rows too,
    never retried, the hook told; other chats are unaffected."""
    await store.enqueue_many([message("a"), message("b"), message("c", chat_id=2)])
    api.reply(1, reply)
    summary = await run()
    assert (summary.sent, summary.dead) == (1, 2)
    assert hooks.gone == [(1, reason)]
    for key in ("a", "b"):
        dead = await row(store, key)
        assert (dead.status, dead.dead_reason) == ("dead", reason)
    assert (await row(store, "a")).attempts == 1
    clock.advance(10 * 86400)
    assert await run() == DrainSummary()
    assert [chat for _, chat, _ in api.sent] == [1, 2]


async def test_message_level_bad_request_dies_without_touching_the_chat(
    store: NotificationStore, api: FakeBotApi, run: Drain, hooks: Hooks
) -> None:
    """A 400 about the message itself kills that message only; the chat is not 'gone'."""
    await store.enqueue_many([message("a"), message("b")])
    api.reply(1, fail(400, "Bad Request: message is too long"))
    summary = await run()
    assert (summary.sent, summary.dead) == (1, 1)
    dead = await row(store, "a")
    assert (dead.dead_reason, dead.last_error) == ("bad_request", "Message is too long")
    assert hooks.gone == []


async def test_attempts_exhausted_keeps_the_last_error(
    db: Database, api: FakeBotApi, send: Send, clock: FakeClock
) -> None:
    """A message failing every time is dead after max_attempts, its last error kept."""
    store = NotificationStore(db, clock=clock, max_attempts=3, ttl=86400)
    await store.enqueue(message("a"))
    api.reply(1, *[BAD_GATEWAY] * 5)
    dead_counts = []
    for _ in range(5):
        summary = await drain(store, send, clock=clock, sleep=clock.sleep, rand=random.Random(1))
        dead_counts.append(summary.dead)
        clock.advance(3600)
    assert dead_counts == [0, 0, 1, 0, 0]
    dead = await row(store, "a")
    assert (dead.status, dead.attempts, dead.dead_reason) == ("dead", 3, "attempts_exhausted")
    assert dead.last_error == "Bad Gateway"
    assert len(api.sent) == 3


# In int mode PTB itself warns when it builds RetryAfter (deprecated since 22.2).
INT_MODE = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


@pytest.mark.parametrize(
    "timedelta_mode",
    [pytest.param("false", id="int", marks=INT_MODE), pytest.param("true", id="timedelta")],
)
async def test_429_defers_the_whole_chat_by_exactly_retry_after(
    store: NotificationStore,
    api: FakeBotApi,
    run: Drain,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
    timedelta_mode: str,
) -> None:
    """A 429 reschedules at exactly retry_after, spends no attempt, and defers every other
    row of that chat too (PTB gives retry_after as an int, or a timedelta if opted in)."""
    monkeypatch.setenv("PTB_TIMEDELTA", timedelta_mode)
    await store.enqueue_many([message("a"), message("b"), message("c", chat_id=2)])
    api.reply(1, too_many_requests(7))
    start = clock.now
    summary = await run(batch=1)
    assert (summary.sent, summary.deferred, summary.flood_until) == (1, 1, None)
    for key in ("a", "b"):
        deferred = await row(store, key)
        assert (deferred.status, deferred.attempts) == ("pending", 0)
        assert deferred.next_attempt_at == start + 7
    clock.now = start + 6.5
    assert (await run()).sent == 2
    resent = [at for at, chat, _ in api.sent if chat == 1][1:]
    assert len(resent) == 2
    assert min(resent) >= start + 7, "nothing went to the chat before its retry_after"
    assert (await row(store, "a")).attempts == 1


async def test_429_on_several_chats_pauses_all_delivery(
    store: NotificationStore,
    api: FakeBotApi,
    run: Drain,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """429s on two private chats paused at once mean the bot is flooded: stop, and defer
    everything not sent yet."""
    monkeypatch.setenv("PTB_TIMEDELTA", "true")
    keys = [("a", 1), ("b", 2), ("c", 3), ("d", 3), ("e", 4)]
    await store.enqueue_many([message(key, chat_id) for key, chat_id in keys])
    api.reply(1, too_many_requests(20))
    api.reply(2, too_many_requests(30))
    start = clock.now
    summary = await run(batch=2)  # a and b first: their 429s stop the drain
    assert summary.flood_until is not None
    assert start + 30 <= summary.flood_until <= start + 31
    assert summary.sent == 0
    for key in ("a", "b", "c", "d", "e"):
        waiting = await row(store, key)
        assert waiting.status == "pending"
        assert waiting.next_attempt_at >= summary.flood_until
        assert waiting.attempts == 0
    clock.now = summary.flood_until
    await run()
    assert sorted(Counter(api.texts()).values()) == [1, 1, 1, 2, 2]
    assert api.texts()[:2] == ["<b>a</b>", "<b>b</b>"]


async def test_429s_of_groups_pause_those_groups_only(
    store: NotificationStore,
    api: FakeBotApi,
    run: Drain,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 10: a group's 429 pauses that group only; two groups' 429s are no flood, and
    the private chats' messages go out meanwhile."""
    monkeypatch.setenv("PTB_TIMEDELTA", "true")
    groups, private = (-101, -102), (1, 2, 3)
    await store.enqueue_many(
        [message(f"g{g}-{i}", g) for g in groups for i in range(2)]
        + [message(f"p{p}-{i}", p) for p in private for i in range(3)]
    )
    for group in groups:
        api.reply(group, too_many_requests(600))
    start = clock.now
    summary = await run()
    assert summary.flood_until is None
    assert summary.sent == 9
    assert {chat for _, chat, _ in api.sent if chat > 0} == set(private)
    for key in ("g-101-1", "g-102-1"):
        assert (await row(store, key)).next_attempt_at >= start + 600
    assert [chat for _, chat, _ in api.sent].count(-101) == 1


async def test_a_429_pause_holds_rows_queued_after_it(
    store: NotificationStore,
    api: FakeBotApi,
    run: Drain,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Review of issue 2: a row queued for a chat after its 429 (the next scrape) is not sent
    before retry_after by the next drain, since the bot's pacer remembers the pause; then the
    chat's rows go out in their order."""
    monkeypatch.setenv("PTB_TIMEDELTA", "true")
    pacer = Pacer(clock=clock, sleep=clock.sleep)
    await store.enqueue(message("a"))
    api.reply(1, too_many_requests(60))
    start = clock.now
    assert (await run(pacer=pacer)).deferred == 1
    clock.now = start + 5
    await store.enqueue_many([message("b"), message("c", chat_id=2)])
    summary = await run(pacer=pacer)
    assert summary.sent == 1
    assert [(chat, text) for _, chat, text in api.sent] == [(1, "<b>a</b>"), (2, "<b>c</b>")]
    held = await row(store, "b")
    assert (held.status, held.attempts) == ("pending", 0)
    assert held.next_attempt_at >= start + 60
    clock.now = start + 50
    assert await run(pacer=pacer) == DrainSummary()
    clock.now = start + 60
    assert (await run(pacer=pacer)).sent == 2
    assert api.texts()[-2:] == ["<b>a</b>", "<b>b</b>"]


async def test_a_flood_pause_holds_rows_queued_after_it(
    store: NotificationStore,
    api: FakeBotApi,
    run: Drain,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Review of issue 2: after a bot-wide flood, the next drain claims nothing — a row for
    a chat that never saw a 429, queued later, waits for the flood's end too."""
    monkeypatch.setenv("PTB_TIMEDELTA", "true")
    pacer = Pacer(clock=clock, sleep=clock.sleep)
    await store.enqueue_many([message("a", chat_id=1), message("b", chat_id=2)])
    api.reply(1, too_many_requests(60))
    api.reply(2, too_many_requests(60))
    flood = await run(pacer=pacer)
    assert flood.flood_until is not None
    clock.advance(5)
    await store.enqueue(message("c", chat_id=3))
    summary = await run(pacer=pacer)
    assert (summary.sent, summary.flood_until) == (0, flood.flood_until)
    assert (await row(store, "c")).next_attempt_at == flood.flood_until
    assert len(api.sent) == 2
    clock.now = flood.flood_until
    assert (await run(pacer=pacer)).sent == 3


async def test_expired_lease_is_delivered_again(
    store: NotificationStore, api: FakeBotApi, run: Drain, clock: FakeClock
) -> None:
    """A drain that hung with a row claimed leaves it leased; after the lease it goes out,
    and the claim that never sent it spent no attempt."""
    await store.enqueue(message("a"))
    crashed = await store.claim(10)
    assert [n.status for n in crashed] == ["sending"]
    assert await run() == DrainSummary()
    clock.advance(store.lease)
    assert (await run()).sent == 1
    sent = await row(store, "a")
    assert (sent.status, sent.attempts) == ("sent", 1)


async def test_ttl_expiry_kills_without_sending(
    store: NotificationStore, api: FakeBotApi, run: Drain, clock: FakeClock
) -> None:
    """An item not delivered within the TTL is dead (`expired`) and never sent."""
    await store.enqueue(message("a"))
    api.reply(1, BAD_GATEWAY)
    await run()
    clock.advance(store.ttl)
    assert (await run()).dead == 1
    expired = await row(store, "a")
    assert (expired.status, expired.dead_reason, expired.last_error) == (
        "dead",
        "expired",
        "Bad Gateway",
    )
    assert len(api.sent) == 1


async def test_invalid_token_stops_without_spending_attempts(
    store: NotificationStore, api: FakeBotApi, run: Drain
) -> None:
    """A rejected token stops the drain with DeliveryStopped; every row stays as it was."""
    await store.enqueue_many([message("a"), message("b"), message("c", chat_id=2)])
    api.reply(1, UNAUTHORIZED)
    api.reply(2, UNAUTHORIZED)
    with pytest.raises(DeliveryStopped, match="Unauthorized"):
        await run()
    rows = await store.db.fetchall("SELECT status, attempts FROM notifications")
    assert [tuple(r) for r in rows] == [("pending", 0)] * 3


async def test_chat_migration_rewrites_the_chat_and_retries_at_once(
    store: NotificationStore, api: FakeBotApi, run: Drain, hooks: Hooks
) -> None:
    """A group upgraded to a supergroup: its rows move to the new id and go out at once."""
    await store.enqueue_many([message("a", chat_id=-5), message("b", chat_id=-5)])
    api.reply(-5, fail(400, "Bad Request: group chat was upgraded", migrate_to_chat_id=-1009))
    summary = await run()
    assert summary.sent == 2
    assert hooks.migrated == [(-5, -1009)]
    assert [(chat, text) for _, chat, text in api.sent] == [
        (-5, "<b>a</b>"),
        (-1009, "<b>a</b>"),
        (-1009, "<b>b</b>"),
    ]
    assert (await row(store, "b")).chat_id == -1009


async def test_a_chat_migrating_on_every_try_still_dies_after_max_attempts(
    db: Database, api: FakeBotApi, send: Send, clock: FakeClock, hooks: Hooks
) -> None:
    """Review of issue 2: a row whose chat "migrates" on every send (two ids pointing at each
    other) is sent max_attempts times and then dead, not retried until its TTL."""
    store = NotificationStore(db, clock=clock, max_attempts=3, ttl=86400)
    await store.enqueue(message("a", chat_id=-5))
    upgraded = fail(400, "Bad Request: group chat was upgraded", migrate_to_chat_id=-1009)
    back = fail(400, "Bad Request: group chat was upgraded", migrate_to_chat_id=-5)
    api.reply(-5, *[upgraded] * 5)
    api.reply(-1009, *[back] * 5)
    summary = await drain(
        store,
        send,
        clock=clock,
        sleep=clock.sleep,
        rand=random.Random(0),
        on_chat_migrated=hooks.on_chat_migrated,
    )
    assert summary.dead == 1
    assert [chat for _, chat, _ in api.sent] == [-5, -1009, -5]
    dead = await row(store, "a")
    assert (dead.status, dead.attempts, dead.dead_reason) == ("dead", 3, "attempts_exhausted")


async def test_a_gone_chat_logs_every_row_it_buries(
    store: NotificationStore, api: FakeBotApi, run: Drain, caplog: pytest.LogCaptureFixture
) -> None:
    """Review of issue 2: the rows of a blocked chat that were not claimed yet (batch 1) die
    with it, each with a WARNING like every other death."""
    await store.enqueue_many([message(key) for key in "abc"])
    api.reply(1, BLOCKED)
    with caplog.at_level(logging.WARNING, logger="habicht.queue"):
        summary = await run(batch=1)
    assert summary.dead == 3
    ids = [(await row(store, key)).id for key in "abc"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        f"notification {i} to chat 1 is dead (blocked): Forbidden: bot was blocked by the user"
        for i in ids
    ]


async def test_unknown_exception_retries_and_logs_a_traceback(
    store: NotificationStore, caplog: pytest.LogCaptureFixture
) -> None:
    """An exception nobody mapped is retried (bounded by attempts) and logged with traceback."""

    async def broken(message: Message) -> object:
        raise KeyError("surprise")

    await store.enqueue(message("a"))
    with caplog.at_level(logging.ERROR):
        summary = await _drain_with(store, broken)
    assert summary.retried == 1
    assert (await row(store, "a")).last_error == "KeyError: 'surprise'"
    assert any(record.exc_info for record in caplog.records)


async def _drain_with(store: NotificationStore, send: Send) -> DrainSummary:
    clock = store.clock
    assert isinstance(clock, FakeClock)
    return await drain(store, send, clock=clock, sleep=clock.sleep, rand=random.Random(0))


@dataclass
class Recorder:
    """A fake `send` that records (time, chat, text) and yields like real I/O."""

    clock: Clock
    sent: list[tuple[float, int, str]] = field(default_factory=list)

    async def __call__(self, message: Message) -> object:
        self.sent.append((self.clock(), message.chat_id, message.text))
        await asyncio.sleep(0)
        return None


async def test_racing_drains_never_send_a_row_twice(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Two drains over the same rows at once: every row is sent exactly once."""
    await store.enqueue_many([message(f"m{i}", chat_id=i % 8) for i in range(40)])
    send = Recorder(clock)
    summaries = await asyncio.gather(
        *(
            drain(store, send, clock=clock, sleep=clock.sleep, rand=random.Random(i), batch=5)
            for i in range(2)
        )
    )
    assert sum(s.sent for s in summaries) == 40
    assert Counter(Counter(text for _, _, text in send.sent).values()) == {1: 40}
    assert (
        await store.db.single_value(
            "SELECT count(*) FROM notifications WHERE status = 'sent' AND attempts = 1"
        )
        == 40
    )


async def test_pacing_keeps_telegrams_limits(store: NotificationStore, clock: FakeClock) -> None:
    """At most 30 messages in any second, and at least 1 s between two to one chat."""
    await store.enqueue_many(
        [message(f"m{i}", chat_id=i % 40) for i in range(120)]
        + [message(f"solo{i}", chat_id=99) for i in range(10)]
    )
    send = Recorder(clock)
    summary = await drain(store, send, clock=clock, sleep=clock.sleep, rand=random.Random(0))
    assert summary.sent == len(send.sent) == 130
    times = [at for at, _, _ in send.sent]
    assert times == sorted(times)
    slack = 1e-6  # float rounding of 1/30 s steps at epoch magnitudes
    assert all(later - first >= 1 - slack for first, later in zip(times, times[30:], strict=False))
    by_chat: dict[int, list[float]] = {}
    for at, chat_id, _ in send.sent:
        by_chat.setdefault(chat_id, []).append(at)
    gaps = [b - a for ats in by_chat.values() for a, b in itertools.pairwise(ats)]
    assert min(gaps) >= 1 - slack
    assert [text for _, chat, text in send.sent if chat == 99] == [
        f"<b>solo{i}</b>" for i in range(10)
    ]


async def test_a_send_never_starts_near_the_end_of_its_lease(
    db: Database, clock: FakeClock
) -> None:
    """A row whose chat's turn comes only after its lease is nearly over is given back, no
    attempt spent, due at that turn, and sent once when it comes."""
    store = NotificationStore(db, clock=clock, max_attempts=5, ttl=86400, lease=60)
    await store.enqueue_many([message("a"), message("b")])
    send = Recorder(clock)
    pacer = Pacer(clock=clock, sleep=clock.sleep, chat_gap=100)

    async def run() -> DrainSummary:
        return await drain(
            store, send, clock=clock, sleep=clock.sleep, rand=random.Random(0), pacer=pacer
        )

    assert ((first := await run()).sent, first.deferred) == (1, 1)
    held = await row(store, "b")
    assert (held.status, held.attempts) == ("pending", 0)
    assert held.next_attempt_at >= send.sent[0][0] + 100
    clock.now = held.next_attempt_at
    assert (await run()).sent == 1
    assert [text for _, _, text in send.sent] == ["<b>a</b>", "<b>b</b>"]
    assert await store.db.single_value("SELECT max(attempts) FROM notifications") == 1


def hanging_send(started: asyncio.Event) -> Send:
    """A send that reaches Telegram (sets `started`) and then never gets its answer."""

    async def hang(message: Message) -> object:
        started.set()
        await asyncio.Event().wait()
        return None

    return hang


async def test_a_cancelled_drain_gives_its_rows_back(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Cancelled mid-send: rows whose send had not started are pending again with no attempt
    spent; the send cut off may have reached Telegram, so its row keeps the attempt and is
    claimable at once (at-least-once), as after a crash."""
    await store.enqueue_many([message(f"m{i}") for i in range(5)])
    started = asyncio.Event()
    hang = hanging_send(started)
    task = asyncio.create_task(
        drain(store, hang, clock=clock, sleep=clock.sleep, rand=random.Random(0))
    )
    await within(started.wait(), "the first send to start")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await within(task, "the cancelled drain to end")
    rows = await store.db.fetchall("SELECT status, attempts FROM notifications ORDER BY id")
    assert [tuple(r) for r in rows] == [("sending", 1)] + [("pending", 0)] * 4
    again = await store.claim(1)
    assert [(n.dedupe_key, n.attempts) for n in again] == [("m0", 1)]


async def test_a_send_that_finished_is_recorded_even_if_the_drain_is_cancelled_meanwhile(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Review of issue 2: a cancel arriving as Telegram accepts a message lands while its row
    is settled; the row is still recorded sent (else a restart would send it again), and the
    rest go back with no attempt spent."""
    await store.enqueue_many([message("a"), message("b")])
    drains: list[asyncio.Task[DrainSummary]] = []

    async def accepted_as_the_cancel_arrives(message: Message) -> object:
        drains[0].cancel()
        return None

    drains.append(
        asyncio.create_task(
            drain(
                store,
                accepted_as_the_cancel_arrives,
                clock=clock,
                sleep=clock.sleep,
                rand=random.Random(0),
            )
        )
    )
    with pytest.raises(asyncio.CancelledError):
        await within(drains[0], "the cancelled drain to end")
    rows = await store.db.fetchall("SELECT status, attempts FROM notifications ORDER BY id")
    assert [tuple(r) for r in rows] == [("sent", 1), ("pending", 0)]


async def test_a_stop_settles_the_send_in_flight_and_gives_back_the_rest(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Setting `stop` mid-send: that send is recorded as sent, nothing new starts, and the
    other claimed rows are pending again with no attempt spent; the drain returns."""
    await store.enqueue_many([message(f"m{i}", chat_id=i) for i in range(5)])
    stop = asyncio.Event()
    sent: list[str] = []

    async def send_then_stop(message: Message) -> object:
        stop.set()  # the shutdown arrives while this send is in flight
        sent.append(message.text)
        return None

    summary = await drain(
        store, send_then_stop, clock=clock, sleep=clock.sleep, rand=random.Random(0), stop=stop
    )
    assert (summary.sent, summary.deferred) == (1, 4)
    assert sent == ["<b>m0</b>"]
    rows = await store.db.fetchall("SELECT status, attempts FROM notifications ORDER BY id")
    assert [tuple(r) for r in rows] == [("sent", 1)] + [("pending", 0)] * 4


async def test_a_row_waiting_for_its_turn_goes_back_unspent_when_cancelled(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Issue 15: a cancelled drain cuts off the send in flight (attempt spent) and gives back
    the row in hand that was waiting for its turn, with no attempt spent."""
    await store.enqueue_many([message("a", chat_id=1), message("b", chat_id=2)])
    started = asyncio.Event()
    hang = hanging_send(started)

    async def time_stands_still(seconds: float) -> None:
        await asyncio.Event().wait()

    task = asyncio.create_task(
        drain(store, hang, clock=clock, sleep=time_stands_still, rand=random.Random(0))
    )
    await within(started.wait(), "the first send to start")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await within(task, "the cancelled drain to end")
    rows = await store.db.fetchall("SELECT status, attempts FROM notifications ORDER BY id")
    assert [tuple(r) for r in rows] == [("sending", 1), ("pending", 0)]  # cut off, waiting


@pytest.fixture
def virtual(db: Database) -> SteppedClock:
    """Time that moves only while everything waits (see `SteppedClock`)."""
    return SteppedClock(db)


async def _drain_virtually(
    store: NotificationStore, send: Send, clock: SteppedClock, **kwargs: Any
) -> DrainSummary:
    return await drain(store, send, clock=clock, sleep=clock.sleep, rand=random.Random(0), **kwargs)


async def test_one_chats_backlog_never_holds_up_another_chat(
    db: Database, virtual: SteppedClock
) -> None:
    """Issue 10: 120 alerts for chat A, then one for chat B, queued while A's backlog goes out:
    B's arrives within 2 s of being queued, and A's keep their order, 1.1 s apart."""
    store = NotificationStore(db, clock=virtual, max_attempts=5, ttl=86400)
    await store.enqueue_many([message(f"a{i}", chat_id=1) for i in range(120)])
    send = Recorder(virtual)
    queued: list[float] = []

    async def send_and_queue_b(sending: Message) -> object:
        if sending.text == "<b>a10</b>":
            queued.append(virtual())
            await store.enqueue(message("b", chat_id=2))
        return await send(sending)

    assert (await _drain_virtually(store, send_and_queue_b, virtual)).sent == 121
    (b_at,) = [at for at, chat, _ in send.sent if chat == 2]
    assert b_at - queued[0] <= 2.0
    a = [(at, text) for at, chat, text in send.sent if chat == 1]
    assert [text for _, text in a] == [f"<b>a{i}</b>" for i in range(120)]
    assert min(later - first for (first, _), (later, _) in itertools.pairwise(a)) >= 1.1 - 1e-6


async def test_a_chat_queued_late_is_served_in_the_current_round(
    db: Database, virtual: SteppedClock
) -> None:
    """Issue 10: 40 chats with 5 alerts each are served in rounds; a chat queued mid-way gets
    its turn before any chat gets another round, not after the whole backlog."""
    store = NotificationStore(db, clock=virtual, max_attempts=5, ttl=86400)
    await store.enqueue_many([message(f"c{c}-{i}", c) for i in range(5) for c in range(1, 41)])
    send = Recorder(virtual)
    late: list[int] = []

    async def send_and_queue_late(sending: Message) -> object:
        if len(send.sent) == 60:
            late.append(len(send.sent))
            await store.enqueue(message("late", chat_id=99))
        return await send(sending)

    assert (await _drain_virtually(store, send_and_queue_late, virtual)).sent == 201
    texts = [text for _, _, text in send.sent]
    assert texts.index("<b>late</b>") - late[0] <= 40, "at most one round of the others first"
    for c in range(1, 41):
        mine = [text for _, chat, text in send.sent if chat == c]
        assert mine == [f"<b>c{c}-{i}</b>" for i in range(5)]


def _most_in_a_minute(times: list[float]) -> int:
    return max(sum(1 for t in times if first <= t < first + 60) for first in times)


async def test_groups_are_paced_and_never_delay_private_chats(
    db: Database, virtual: SteppedClock
) -> None:
    """Issue 10: two groups with 60 alerts each and 20 private chats with 5 each: each group
    gets at most 20 in any minute, evenly (no burst at the start), and the private chats are
    done as fast as their own 1.1 s gap (and 30 a second in all) allows."""
    store = NotificationStore(db, clock=virtual, max_attempts=5, ttl=86400)
    start = virtual()
    await store.enqueue_many(
        [message(f"g{g}-{i}", g) for g in (-1001, -1002) for i in range(60)]
        + [message(f"p{p}-{i}", p) for p in range(1, 21) for i in range(5)]
    )
    send = Recorder(virtual)
    assert (await _drain_virtually(store, send, virtual)).sent == 220
    for group in (-1001, -1002):
        times = [at for at, chat, _ in send.sent if chat == group]
        assert _most_in_a_minute(times) <= 20
        assert min(b - a for a, b in itertools.pairwise(times)) >= 3.0
    private_done = max(at for at, chat, _ in send.sent if chat > 0)
    groups_done = max(at for at, chat, _ in send.sent if chat < 0)
    # At their own pace the private chats need four gaps plus their place in a round of 22 at
    # 30 a second (≈ 5.1 s; held behind the groups they would need the groups' 59 gaps of
    # 3.1 s). The stepped clock settles reads as well as writes, so a busy machine cannot
    # let virtual time pass under a claim: half a second of slack is all the rounds need.
    assert private_done - start <= 4 * 1.1 + 22 / 30 + 0.5
    assert groups_done - start >= 59 * 3.0


async def test_a_slow_fallback_keeps_its_lease_while_it_runs(
    db: Database, clock: FakeClock
) -> None:
    """Issue 19, case 7: the photo refused after 35 s, then the text fallback taking 35 s
    more — longer than the old 60 s lease — and the reaper and a second claim leave the row
    alone while it runs: it is not buried, not sent twice, and settles as sent."""
    store = NotificationStore(db, clock=clock, max_attempts=1, ttl=86400)
    await store.enqueue(Outgoing(7, "new", "<b>a</b>", "a", photo_url="https://img.test/a.jpg"))
    during: list[tuple[list[Notification], list[Notification]]] = []

    async def photo_refused_then_text(message: Message) -> None:
        await clock.sleep(35)  # sendPhoto: "wrong type of the web page content"
        await clock.sleep(35)  # sendMessage, slow
        during.append((await store.reap(), await store.claim(10)))

    summary = await drain(
        store, photo_refused_then_text, clock=clock, sleep=clock.sleep, rand=random.Random(0)
    )
    assert during == [([], [])]
    assert summary.sent == 1
    row = await store.db.fetchone("SELECT status, attempts FROM notifications")
    assert row is not None
    assert tuple(row) == ("sent", 1)


async def test_a_429_with_retry_after_0_is_never_retried_at_once(
    store: NotificationStore,
    api: FakeBotApi,
    run: Drain,
    clock: FakeClock,
) -> None:
    """Telegram may answer 429 with `retry_after` 0. PTB reads a 0 as no `retry_after` (a
    `NetworkError`), so the row is retried after a backoff with its attempt spent; and a
    `RetryAfter(0)` reaching the drain pauses the chat a second. Neither retries at once,
    in a loop."""
    await store.enqueue_many([message("a"), message("b", chat_id=2)])
    api.reply(1, too_many_requests(0))
    start = clock.now
    await run()
    a = await row(store, "a")
    assert len([at for at, chat, _ in api.sent if chat == 1]) == 1  # no second try at once
    assert (a.status, a.attempts) == ("pending", 1)
    assert a.next_attempt_at > start

    stop = asyncio.Event()

    async def flooded(sending: Message) -> object:
        stop.set()  # the drain ends after this try: the pause it left is what we read
        raise RetryAfter(dt.timedelta(0))

    clock.now = a.next_attempt_at
    await drain(store, flooded, clock=clock, sleep=clock.sleep, rand=random.Random(0), stop=stop)
    paused = await row(store, "a")
    assert (paused.status, paused.attempts) == ("pending", 1)  # the pause spent none
    assert paused.next_attempt_at == clock.now + 1.0


async def test_the_reaper_runs_during_a_long_drain(
    db: Database, api: FakeBotApi, send: Send, clock: FakeClock
) -> None:
    """A drain busy for minutes with one chat's backlog still buries, within a reaper round
    (60 s), a row of another chat whose time to live ends meanwhile: it is dead as
    expired long before the drain ends, not left to the next drain."""
    store = NotificationStore(db, clock=clock, max_attempts=5, ttl=1000)
    await store.enqueue(message("doomed", chat_id=2))
    await store.postpone(clock.now + 10_000, chat_id=2)  # not due before it expires
    born = clock.now
    clock.advance(950)
    await store.enqueue_many([message(f"b{i:03}", chat_id=1) for i in range(100)])

    async def sleep(seconds: float) -> None:
        await clock.sleep(seconds)
        await asyncio.sleep(0)

    summary = await drain(store, send, clock=clock, sleep=sleep, rand=random.Random(7))
    assert (summary.sent, summary.dead) == (100, 1)
    doomed = await store.db.fetchone(
        "SELECT status, last_error, updated_at FROM notifications WHERE dedupe_key = 'doomed'"
    )
    assert doomed is not None
    assert (doomed["status"], doomed["last_error"]) == ("dead", "not delivered within the TTL")
    assert born + 1000 < doomed["updated_at"] <= born + 1000 + 60
    assert clock.now - doomed["updated_at"] > 30  # the drain went on well past it


# Storage faults (issue 27): the updates a fault refuses, as `FullDisk` conditions on `new`.
CLAIMED = "new.status = 'sending' AND new.started_at IS NULL"
STARTED = "new.started_at IS NOT NULL"
SENT = "new.status = 'sent'"


def fault_of(kind: str, db: Database, when: str) -> FullDisk | HeldLock:
    """The disk full (for the updates matching `when`), or the database locked (for all)."""
    return FullDisk(db, when) if kind == "full" else HeldLock(db)


@dataclass
class Pauses:
    """The drain's `on_pause` (counts the pauses for refused commits) and its `sleep` (moves
    the clock); in the second pause the fault ends — after `look` had a look, if given — so
    the commit's third try goes through."""

    clock: FakeClock
    fault: FullDisk | HeldLock
    look: Callable[[], Awaitable[None]] | None = None
    seen: list[float] = field(default_factory=list)
    ended: bool = False

    def __call__(self) -> None:
        self.seen.append(self.clock.now)

    async def sleep(self, seconds: float) -> None:
        if len(self.seen) == 2 and not self.ended:
            self.ended = True
            if self.look is not None:
                await self.look()
            await self.fault.end()
        await self.clock.sleep(seconds)
        await asyncio.sleep(0)


@pytest.mark.parametrize("kind", ["full", "locked"])
async def test_a_refused_settle_is_kept_and_recorded_once(
    store: NotificationStore, api: FakeBotApi, send: Send, clock: FakeClock, kind: str
) -> None:
    """Issue 27: the commit that records a delivery is refused twice — the disk full, or the
    database locked by another program — then goes through. The drain kept the outcome and
    tried that commit again after short pauses: the message was sent once, is recorded sent
    with its one attempt, and no lease running out sends it again."""
    await store.enqueue(message("a"))
    fault = fault_of(kind, store.db, SENT)

    async def sent_then_fault(sending: Message) -> None:
        await send(sending)
        await fault.start()

    pauses = Pauses(clock, fault)
    summary = await drain(
        store,
        sent_then_fault,
        clock=clock,
        sleep=pauses.sleep,
        rand=random.Random(7),
        on_pause=pauses,
    )
    assert summary.sent == 1
    assert [later - pauses.seen[0] for later in pauses.seen] == [0.0, 0.5]
    done = await row(store, "a")
    assert (done.status, done.attempts, done.claims) == ("sent", 1, 1)
    clock.advance(2 * DEFAULT_LEASE)
    summary = await drain(store, send, clock=clock, sleep=clock.sleep, rand=random.Random(7))
    assert summary == DrainSummary()
    assert api.texts() == ["<b>a</b>"]


@pytest.mark.parametrize("kind", ["full", "locked"])
async def test_a_refused_claim_sends_nothing_and_loses_nothing(
    store: NotificationStore, api: FakeBotApi, send: Send, clock: FakeClock, kind: str
) -> None:
    """Issue 27: while the disk is full (or the database locked) the drain's claim is
    refused: nothing is sent and the row waits, pending, no attempt spent; when writes go
    through again the same drain claims it, and it is sent once."""
    await store.enqueue(message("a"))
    fault = fault_of(kind, store.db, CLAIMED)
    await fault.start()
    during: list[tuple[list[str], Notification]] = []

    async def look() -> None:
        during.append((api.texts(), await row(store, "a")))

    pauses = Pauses(clock, fault, look)
    summary = await drain(
        store, send, clock=clock, sleep=pauses.sleep, rand=random.Random(7), on_pause=pauses
    )
    ((sent_meanwhile, waiting),) = during
    assert sent_meanwhile == []
    assert (waiting.status, waiting.attempts, waiting.claims) == ("pending", 0, 0)
    assert summary.sent == 1
    assert api.texts() == ["<b>a</b>"]
    assert (await row(store, "a")).attempts == 1


async def test_a_refused_start_sends_nothing_until_it_goes_through(
    store: NotificationStore, api: FakeBotApi, send: Send, clock: FakeClock
) -> None:
    """Issue 27: the commit that marks a claimed row's send as started is refused: nothing is
    sent while it is — the row stays claimed, not started, no attempt spent — and once it
    goes through the message is sent once."""
    await store.enqueue(message("a"))
    fault = FullDisk(store.db, STARTED)
    await fault.start()
    during: list[tuple[list[str], Notification]] = []

    async def look() -> None:
        during.append((api.texts(), await row(store, "a")))

    pauses = Pauses(clock, fault, look)
    summary = await drain(
        store, send, clock=clock, sleep=pauses.sleep, rand=random.Random(7), on_pause=pauses
    )
    ((sent_meanwhile, claimed),) = during
    assert sent_meanwhile == []
    assert (claimed.status, claimed.started_at, claimed.attempts) == ("sending", None, 0)
    assert summary.sent == 1
    assert api.texts() == ["<b>a</b>"]


async def test_a_drain_cut_off_in_a_fault_stops_waiting_and_its_send_repeats_after_restart(
    store: NotificationStore, api: FakeBotApi, send: Send, clock: FakeClock
) -> None:
    """The honest limit of issue 27: memory does not outlive the process. A drain cancelled
    while it waits out a refused settle stops waiting (a shutdown is not held up); the send
    it could not record stays started, and after the restart it is sent again — as after a
    crash, at-least-once."""
    await store.enqueue(message("a"))
    fault = FullDisk(store.db, SENT)

    async def sent_then_fault(sending: Message) -> None:
        await send(sending)
        await fault.start()

    seen: list[float] = []

    def cut_off_at_the_third() -> None:
        seen.append(clock.now)
        if len(seen) == 3:
            draining.cancel()

    async def sleep(seconds: float) -> None:
        await clock.sleep(seconds)
        await asyncio.sleep(0)

    draining = asyncio.create_task(
        drain(
            store,
            sent_then_fault,
            clock=clock,
            sleep=sleep,
            rand=random.Random(7),
            on_pause=cut_off_at_the_third,
        )
    )
    with pytest.raises(asyncio.CancelledError):
        await draining
    assert len(seen) == 3
    unrecorded = await row(store, "a")
    assert (unrecorded.status, unrecorded.attempts) == ("sending", 1)
    assert unrecorded.started_at is not None

    await fault.end()
    assert await store.take_over_leases() == TakenOver(in_flight=1, unsent=0)
    assert (await drain(store, send, clock=clock, sleep=sleep, rand=random.Random(7))).sent == 1
    assert api.texts() == ["<b>a</b>"] * 2
