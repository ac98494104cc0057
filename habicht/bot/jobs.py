"""The jobs on PTB's JobQueue: `scrape` every `tick`, `drain` every queue interval,
`retention` daily, and a one-off `baseline` when a command asked for a scan.

`scrape` is the due-time scheduler's tick (`habicht.scraper.schedule`): each run is a pass
over the searches that are due — asked for by a command first, then the least recently
scanned — so a backlog is worked off fairly and a pass that outlasts the tick simply goes on
(the next tick finds it running). A `baseline` is the same pass, run at once: the searches a
command asked for go first in it. Passes never overlap (`scrape_lock`; the jobs also have
`max_instances=1, coalesce=True`); a pass asked for while one runs makes the running one go
round once more. After each pass the owners hear of failing searches, willhaben's block,
database errors and freshness falling behind (`habicht.bot.alerts`).

A drain runs beside the scheduler, never blocking it: a pass and the `drain` job only *kick*
delivery (`kick_delivery`) — start a drain if none runs, or else ask the running one to go
round once more before it ends, so rows queued meanwhile never wait a whole interval. (A
scrape job that awaited a long drain would be skipped by APScheduler until the drain ended,
and the watchdog would take the silent scheduler for a stall.)

Every piece of work runs as a task in `BotServices.tasks`, so a shutdown can wait for the
drains to settle and cancel a scrape or baseline (whose open transaction then rolls back).

A storage fault — the database refusing writes: its disk full, its lock held by another
program (`habicht.storage`) — pauses both instead of letting them spin. The scheduler skips
its passes while the fault's growing pause runs, and then tries a pass whose first write, its
heartbeat, is the probe: refused, the pass ends there, quietly (the storage watch logged the
fault once and told the owners). A drain waits the fault out inside (`queue.drain`), and one
that starts during a fault runs without its heartbeat, which cannot be written. Both tell
the watchdog they are alive meanwhile: waiting for the disk is no stall, and a restart would
only repeat the sends whose outcome the drain holds in memory.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AsyncExitStack, asynccontextmanager
from functools import partial
from typing import Any

from telegram.ext import Application

from habicht.bot.alerts import (
    alert_dead,
    alert_freshness,
    alert_scan,
    alert_stopped,
    report_error,
)
from habicht.bot.services import BotServices, Context
from habicht.config import Settings
from habicht.health import Beat, Job, feed_cadence, following, heartbeat
from habicht.message import Delivered, Message
from habicht.queue import ChatGoneHook, DeliveryStopped, Send, TopicGoneHook, drain
from habicht.retention import retain
from habicht.scraper.schedule import run_pass
from habicht.storage import fault_kind

__all__ = [
    "BASELINE",
    "DRAIN",
    "RETENTION",
    "SCRAPE",
    "TICK",
    "deliver",
    "drain_job",
    "kick_delivery",
    "retention_job",
    "run_jobs_now",
    "scan_now",
    "scrape_job",
    "tick",
]

log = logging.getLogger(__name__)

SCRAPE = "scrape"
DRAIN = "drain"
BASELINE = "baseline"
RETENTION = "retention"

TICK = 10.0
"""Most seconds between two scheduler passes: a search is scanned at most this late."""


def _start(
    services: BotServices, work: Coroutine[Any, Any, None], *, name: str
) -> asyncio.Task[None]:
    """`work` as a task named `name` (SCRAPE, BASELINE or DRAIN) that the shutdown can see."""
    task = asyncio.get_running_loop().create_task(work, name=name)
    services.tasks.add(task)
    task.add_done_callback(services.tasks.discard)
    return task


async def _tracked(services: BotServices, work: Coroutine[Any, Any, None], *, name: str) -> None:
    """Run `work` as a task the shutdown can see, and wait for it; a shutdown's cancel ends
    it quietly."""
    try:
        await _start(services, work, name=name)
    except asyncio.CancelledError:
        if not services.stopping.is_set():
            raise


def tick(settings: Settings) -> float:
    """Seconds between two runs of the `scrape` job: `TICK`, or the scrape or feed interval
    if shorter (a feed is read no later than a pass after it is due)."""
    return min(settings.scrape_interval, settings.feed_interval or TICK, TICK)


async def scrape_job(context: Context) -> None:
    """The `scrape` job (every `tick`) and a `baseline` (a command asked for a scan): a
    scheduler pass over what is due, then a drain is kicked."""
    services = context.bot_data
    if services.stopping.is_set():
        return
    await _tracked(services, _passes(services), name=SCRAPE)
    kick_delivery(services)


async def _passes(services: BotServices) -> None:
    """Scheduler passes until nobody asked for another; with one already running, it is
    asked to go round once more (it may have looked for requests before this one came)."""
    if services.scrape_lock.locked():
        services.scan_again = True
        return
    async with services.scrape_lock:
        services.scan_again = True
        while services.scan_again and not services.stopping.is_set():
            services.scan_again = False
            await _pass(services)


async def _pass(services: BotServices) -> None:
    """One scheduler pass — unless the database refuses writes (module docstring)."""
    if services.storage.paused():
        _alive(services, "scrape")
        return
    try:
        await _recorded_pass(services)
    except Exception as exc:
        if fault_kind(exc) is None:
            raise
        # A storage fault ends the pass, quietly: the storage watch has told it.


async def _recorded_pass(services: BotServices) -> None:
    settings, metrics = services.settings, services.metrics
    async with _recorded(services, "scrape") as beat:
        if beat is None:
            return  # the database refused the heartbeat: it would refuse the pass too
        started = services.clock()
        summary = await run_pass(
            services.db,
            services.client,
            services.renderer,
            clock=services.clock,
            max_attempts=settings.max_attempts,
            interval=settings.scrape_interval,
            feeds=feed_cadence(settings),
            slack=tick(settings),
            progress=beat.progress,
            on_scanned=None if metrics is None else metrics.scanned,
            share=services.request_share,
            following=following(settings),
        )
        await alert_scan(services, summary, cycle=started, key=f"scan:{started:.6f}")
        await alert_freshness(services)
        if metrics is not None:
            metrics.passed(summary)
            now = services.clock()
            await metrics.refresh(
                services.db,
                now=now,
                interval=settings.scrape_interval,
                feeds=feed_cadence(settings),
                following=following(settings),
            )
        # Feed reads spend the same budget: a pass's time is per scan, feeds included.
        tried = summary.scanned + len(summary.failed) + summary.feeds + summary.page_checks
        if tried:
            log.info("scheduler pass: %s", summary)
            services.seconds_per_search = summary.duration / tried
            services.last_cycle = (started, services.clock())


async def retention_job(context: Context) -> None:
    """The daily `retention` job (`habicht.retention`)."""
    services = context.bot_data
    if services.stopping.is_set():
        return
    retained = await retain(
        services.db,
        services.store,
        now=services.clock(),
        days=services.settings.retention_days,
    )
    log.info("retention: %s", retained)


async def drain_job(context: Context) -> None:
    """The `drain` job: make sure a drain runs (see `kick_delivery`)."""
    kick_delivery(context.bot_data)


def kick_delivery(services: BotServices) -> None:
    """Have everything due delivered soon, without waiting for it.

    With a drain running, it is asked to go round once more before it ends (it may have
    passed the rows just queued); otherwise a drain starts as a task of its own, which the
    shutdown waits for like any drain, and whose errors go to the log and the owners.
    """
    if services.stopping.is_set():
        return
    if services.draining is not None and not services.draining.done():
        services.drain_again = True
        return
    services.draining = _start(services, _reported(services, deliver(services)), name=DRAIN)


async def _reported(services: BotServices, work: Coroutine[Any, Any, None]) -> None:
    """A task's work, whose failure nobody awaits: logged and told, as a job's would be."""
    try:
        await work
    except asyncio.CancelledError:
        if not services.stopping.is_set():
            raise
    except Exception as exc:
        await report_error(services, exc, what="a drain")


async def deliver(services: BotServices) -> None:
    """Drain the outbox until nothing is due, and again while `kick_delivery` asks for it
    (checked after the drain's heartbeat is written, so no kick falls in a gap); a fatal
    error stops the bot with a non-zero exit. A drain already running is waited for."""
    while not (services.stopping.is_set() or services.stop_requested.is_set()):
        services.drain_again = False
        send = (
            services.send if services.metrics is None else services.metrics.sending(services.send)
        )
        async with services.drain_lock, _recorded(services, "drain") as beat:
            progress = partial(_alive, services, "drain") if beat is None else beat.progress
            await _drain(services, _sending(send, progress))
        if not services.drain_again:
            return


@asynccontextmanager
async def _recorded(services: BotServices, job: Job) -> AsyncIterator[Beat | None]:
    """A run of `job` with its heartbeat (`habicht.health.heartbeat`), or None when the
    database refuses the heartbeat's first write (a storage fault): such a run can tell only
    the watchdog that it ran, which it does at its end."""
    async with AsyncExitStack() as stack:
        recording = heartbeat(services.db, job, clock=services.clock, watchdog=services.watchdog)
        try:
            beat: Beat | None = await stack.enter_async_context(recording)
        except Exception as exc:
            if fault_kind(exc) is None:
                raise
            beat = None
            stack.callback(_alive, services, job)
        yield beat


def _alive(services: BotServices, job: Job) -> None:
    """Tell the watchdog `job` is alive: waiting out a storage fault is what it should do."""
    if services.watchdog is not None:
        services.watchdog.beat(job)


def _sending(send: Send, progress: Callable[[], object]) -> Send:
    """`send`, and a sign of progress after each try: a long backlog is no stall."""

    async def send_and_beat(message: Message) -> Delivered | None:
        try:
            return await send(message)
        finally:
            progress()

    return send_and_beat


async def _drain(services: BotServices, send: Send) -> None:
    """One drain of the outbox; a fatal error asks the bot to stop."""
    started = services.clock()
    settings = services.settings
    try:
        summary = await drain(
            services.store,
            send,
            clock=services.clock,
            sleep=services.sleep,
            rand=services.rand,
            batch=settings.queue_batch,
            backoff_base=settings.backoff_base,
            backoff_cap=settings.backoff_cap,
            pacer=services.pacer,
            on_chat_gone=_chat_gone(services),
            on_chat_migrated=services.subscriptions.migrate_chat,
            on_topic_gone=_topic_gone(services),
            stop=services.stopping,
            digest_after=services.preferences.digest_after,
            render_digest=services.render_digest,
            on_pause=partial(_alive, services, "drain"),
        )
    except DeliveryStopped as exc:
        await alert_stopped(services, str(exc))
        services.request_stop(fatal=f"delivery stopped: {exc}")
        return
    if summary.sent or summary.dead or summary.retried:
        log.info("drain: %s", summary)
    if summary.dead:
        await alert_dead(services, since=started)


def _chat_gone(services: BotServices) -> ChatGoneHook:
    """The queue's hook: a chat that blocked the bot has its watches skipped until /start."""

    async def gone(chat_id: int, reason: str) -> None:
        log.info("chat %d is gone (%s): its watches pause until /start", chat_id, reason)
        await services.subscriptions.block_chat(chat_id)

    return gone


def _topic_gone(services: BotServices) -> TopicGoneHook:
    """The queue's hook: a deleted (or closed) forum topic pauses the watches posting there,
    and only those; the group's other watches go on."""

    async def gone(chat_id: int, thread_id: int, reason: str) -> None:
        paused = await services.subscriptions.pause_topic(chat_id, thread_id)
        log.info(
            "topic %d of chat %d is gone (%s): %d watches paused",
            thread_id,
            chat_id,
            reason,
            paused,
        )

    return gone


def scan_now(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Run a scheduler pass now: a command asked for a scan (`Subscriptions` recorded which
    searches), so a new or resumed watch's baseline need not wait for the next tick."""
    if application.job_queue is not None:
        application.job_queue.run_once(scrape_job, 0, name=BASELINE)


async def run_jobs_now(application: Application[Any, Any, Any, Any, Any, Any], name: str) -> int:
    """Run the jobs named `name` (`SCRAPE`, `DRAIN`, `BASELINE`) now, one after another, and
    wait for the drains they kicked.

    For the demo and tests, which drive the cycles themselves instead of waiting for the
    clock. One-off jobs (`BASELINE`) are taken off the schedule first, so they do not run a
    second time when their moment comes. Returns how many ran.
    """
    jobs = application.job_queue
    assert jobs is not None  # installed with python-telegram-bot[job-queue]
    services: BotServices = application.bot_data
    due = jobs.get_jobs_by_name(name)
    for job in due:
        if name == BASELINE:
            job.schedule_removal()
        await job.run(application)
        while services.draining is not None and not services.draining.done():
            await services.draining
    return len(due)
