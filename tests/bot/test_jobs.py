"""The jobs and their wiring (issue 4): a long drain never blocks the scrape job, a kicked
drain goes round again, an edited message runs nothing (what the owners are told of a
baseline's failures and of errors: tests/bot/test_alerts.py)."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs

import httpx
import pytest
from kit import within
from kit.bot import ALICE, BOB, Bot, ids, market_site, settings_for
from kit.fakes import FakeClock
from telegram import Update

from habicht.bot import DRAIN, SCRAPE, BotApplication, build_application, deliver
from habicht.fakes.telegram import FakeBotAPI
from habicht.health import check_health
from habicht.message import Outgoing
from habicht.watchdog import Watchdog, stall_thresholds
from habicht.willhaben.urls import parse_watch_argument

BACKLOG = 20
CYCLES = 6


class Gate(httpx.AsyncBaseTransport):
    """The fake Bot API behind a gate: each sendMessage to ALICE waits for one `allow()`
    (other chats' messages go out meanwhile: delivery is fair)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.passes = asyncio.Semaphore(0)

    def allow(self, sends: int = 1) -> None:
        for _ in range(sends):
            self.passes.release()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/sendMessage") and _chat_of(request) == ALICE:
            await self.passes.acquire()
        return await self.inner.handle_async_request(request)


def _chat_of(request: httpx.Request) -> int:
    """The `chat_id` of a Bot API request (python-telegram-bot posts JSON or a form)."""
    if request.headers.get("content-type", "").startswith("application/json"):
        return int(json.loads(request.content)["chat_id"])
    return int(parse_qs(request.content.decode())["chat_id"][0])


async def arrived(api: FakeBotAPI, chat_id: int, count: int) -> None:
    """Wait (re-checking on every change, 10 s at most) until `count` messages reached the chat."""
    await asyncio.to_thread(
        api.wait_until,
        lambda: len(api.messages(chat_id)) >= count,
        timeout=10,
        what=f"{count} messages",
    )


@dataclass
class Slow:
    app: BotApplication
    api: FakeBotAPI
    gate: Gate
    clock: FakeClock


@pytest.fixture
async def slow(tmp_path: Path) -> AsyncIterator[Slow]:
    """The bot over a Bot API that sends only when the test lets it."""
    clock = FakeClock()
    with FakeBotAPI(clock=clock) as api:
        gate = Gate(api.transport())
        app = build_application(
            settings_for(tmp_path, api.token, scrape_interval=60.0, queue_interval=30.0),
            clock=clock,
            sleep=clock.sleep,
            rand=random.Random(7),
            telegram_transport=gate,
            willhaben_transport=market_site().transport(),
        )
        async with app:
            assert app.post_init is not None
            assert app.post_shutdown is not None
            await app.post_init(app)
            try:
                yield Slow(app, api, gate, clock)
            finally:
                app.bot_data.stopping.set()
                gate.allow(1000)
                tasks = asyncio.gather(*app.bot_data.tasks, return_exceptions=True)
                await within(tasks, "the bot's tasks to end")
                await app.post_shutdown(app)


async def run_job(app: BotApplication, name: str) -> None:
    """Run the job as the JobQueue would; a job that blocks fails the test instead."""
    assert app.job_queue is not None
    (job,) = app.job_queue.get_jobs_by_name(name)
    await asyncio.wait_for(job.run(app), timeout=10)


async def test_a_long_drain_never_blocks_the_scrape_job(slow: Slow) -> None:
    """Issue 4: while a drain of a backlog to one chat goes on, scrape cycle after cycle
    finishes, `habicht health` stays healthy and the watchdog quiet; the rows a cycle queued
    go out in the same drain, which goes round again when kicked."""
    app, services, clock = slow.app, slow.app.bot_data, slow.clock
    await services.store.enqueue_many(
        [Outgoing(ALICE, "info", f"Nachricht {n}", f"test:{n}") for n in range(BACKLOG)]
    )
    await services.subscriptions.register_chat(BOB)
    await services.subscriptions.add_watch(BOB, parse_watch_argument("sofa"), max_watches=5)
    exits: list[int] = []
    dog = Watchdog(stall_thresholds(services.settings), clock=clock, exit=exits.append)
    services.watchdog = dog

    await run_job(app, DRAIN)
    drain = services.draining
    assert drain is not None
    for cycle in range(1, CYCLES + 1):
        slow.gate.allow()  # one more message gets through: the drain progresses, slowly
        await arrived(slow.api, ALICE, cycle)
        clock.advance(services.settings.scrape_interval)
        due = clock()
        await run_job(app, SCRAPE)
        assert services.last_cycle is not None
        assert due <= services.last_cycle[0] <= services.last_cycle[1] <= clock()
        report = await check_health(services.db, services.settings, now=clock())
        assert report.healthy, report.reason
        assert report.jobs["drain"].running
        assert dog.check()
    assert not drain.done()
    assert services.drain_again  # the cycles' kicks, for BOB's baseline note

    slow.gate.allow(1000)
    await asyncio.wait_for(asyncio.shield(drain), timeout=10)
    assert services.draining is drain  # no second drain was started beside it
    assert len(slow.api.messages(ALICE)) == BACKLOG
    assert "beobachte jetzt 1 Anzeige" in slow.api.messages(BOB)[-1].text
    assert exits == []


async def test_a_kick_starts_one_drain_and_deliver_waits_for_it(slow: Slow) -> None:
    """The drain job starts a drain and returns; a second kick meanwhile starts none, and a
    direct `deliver` waits for the running drain and then finds nothing left."""
    services = slow.app.bot_data
    await services.store.enqueue_many([Outgoing(ALICE, "info", "eins", "test:1")])
    await run_job(slow.app, DRAIN)
    first = services.draining
    await run_job(slow.app, DRAIN)
    assert services.draining is first
    assert first is not None
    assert not first.done()
    waiting = asyncio.create_task(deliver(services))
    slow.gate.allow()
    await asyncio.wait_for(waiting, timeout=10)
    assert first.done()
    assert [m.text for m in slow.api.messages(ALICE)] == ["eins"]


@pytest.mark.parametrize("text", ["/watch tisch", "/list", "https://www.willhaben.at/iad/x"])
async def test_an_edited_message_runs_nothing(bot: Bot, text: str) -> None:
    """Telegram sends an edit of an old message as an update of its own; it is no new
    command (an edited `/watch` would add a second watch) and gets no answer."""
    await bot.say(ALICE, "/watch sofa")
    sent = len(bot.api.messages(ALICE))
    message = {
        "message_id": 1,
        "date": int(bot.clock()),
        "edit_date": int(bot.clock()),
        "chat": {"id": ALICE, "type": "private"},
        "from": {"id": ALICE, "is_bot": False, "first_name": "Test"},
        "text": text,
    }
    if text.startswith("/"):
        length = len(text.split()[0])
        message["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
    edit = {"update_id": next(ids), "edited_message": message}
    await bot.app.process_update(Update.de_json(edit, bot.app.bot))
    assert len(await bot.app.bot_data.subscriptions.watches(ALICE)) == 1
    assert len(bot.api.messages(ALICE)) == sent
