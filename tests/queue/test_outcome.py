"""What a drain does with each send's outcome (`habicht.queue.outcome`): sent, retried after
a backoff, dead with its chat or alone, paused by a 429 or a flood, migrated, stopped by a
rejected token — through a real python-telegram-bot `Bot` whose answers are scripted."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random
from collections import Counter

import httpx
import pytest
from kit.delivery import (
    BAD_GATEWAY,
    BLOCKED,
    CHAT_NOT_FOUND,
    UNAUTHORIZED,
    Drain,
    FakeBotApi,
    Hooks,
    fail,
    message,
    row,
    too_many_requests,
)
from kit.fakes import FakeClock
from telegram.error import RetryAfter

from habicht.db import Database
from habicht.message import Message
from habicht.queue import DeliveryStopped, DrainSummary, NotificationStore, Pacer, Send, drain


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
