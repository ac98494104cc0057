"""The cycles on PTB's JobQueue: `scrape` and `drain` every interval, and a `baseline` per
new or resumed watch.

Overlapping runs are skipped, never stacked. A scrape cycle that finds the last one still
running is skipped (`scrape_lock`; the job also has `max_instances=1, coalesce=True`). A
drain runs beside the scrape job, never blocking it: a scrape, a baseline and the `drain` job
only *kick* delivery (`kick_delivery`) — start a drain if none runs, or else ask the running
one to go round once more before it ends, so rows queued meanwhile never wait a whole
interval. (A scrape job that awaited a long drain would be skipped by APScheduler until the
drain ended, and the watchdog would take the silent scrape for a stall.) A baseline scan runs
beside the cycle: its rows are written in their own transactions and deduplicated like any
other, and it reports a search's failure streak to the owners as a cycle does.

Every piece of work runs as a task in `BotServices.tasks`, so a shutdown can wait for the
drains to settle and cancel a scrape or baseline (whose open transaction then rolls back).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, cast

from telegram.ext import Application

from habicht.bot.alerts import alert_dead, alert_scan, alert_stopped, report_error
from habicht.bot.services import BotServices, Context
from habicht.health import heartbeat
from habicht.queue import ChatGoneHook, DeliveryStopped, Send, drain
from habicht.scraper import ScanSummary, scan

__all__ = [
    "BASELINE",
    "DRAIN",
    "SCRAPE",
    "baseline_job",
    "deliver",
    "drain_job",
    "kick_delivery",
    "run_jobs_now",
    "scan_now",
    "scrape_job",
]

log = logging.getLogger(__name__)

SCRAPE = "scrape"
DRAIN = "drain"
BASELINE = "baseline"


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


async def scrape_job(context: Context) -> None:
    """The `scrape` job: a cycle over every watched search, then a drain is kicked."""
    services = context.bot_data
    if services.stopping.is_set():
        return
    await _tracked(services, _cycle(services), name=SCRAPE)
    kick_delivery(services)


async def baseline_job(context: Context) -> None:
    """A `baseline` job (`job.data`: the search ids of new or resumed watches), then a drain
    is kicked so the subscriber hears back in seconds."""
    services = context.bot_data
    if services.stopping.is_set() or context.job is None:
        return
    ids = cast(list[int], context.job.data)  # as `scan_now` scheduled it
    await _tracked(services, _baseline(services, ids), name=BASELINE)
    kick_delivery(services)


async def _cycle(services: BotServices) -> None:
    if services.scrape_lock.locked():
        log.info("a scrape cycle is still running; this one is skipped")
        return
    beat = heartbeat(services.db, "scrape", clock=services.clock, watchdog=services.watchdog)
    async with services.scrape_lock, beat as progress:
        started = services.clock()
        summary = await _scan(services, None, progress=progress.progress)
        services.last_cycle = (started, services.clock())
        await alert_scan(services, summary, cycle=started, key=f"scan:{started:.6f}")


async def _baseline(services: BotServices, ids: Sequence[int]) -> None:
    """Not a cycle (no heartbeat), but its failures count like a cycle's and are told."""
    started = services.clock()
    summary = await _scan(services, ids)
    key = f"baseline:{','.join(map(str, ids))}:{started:.6f}"
    await alert_scan(services, summary, cycle=started, key=key)


async def _scan(
    services: BotServices,
    search_ids: Sequence[int] | None,
    *,
    progress: Callable[[], object] | None = None,
) -> ScanSummary:
    summary = await scan(
        services.db,
        services.client,
        services.renderer,
        clock=services.clock,
        max_attempts=services.settings.max_attempts,
        search_ids=search_ids,
        progress=progress,
    )
    log.info("scan of %s: %s", "all searches" if search_ids is None else search_ids, summary)
    return summary


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
        beat = heartbeat(services.db, "drain", clock=services.clock, watchdog=services.watchdog)
        async with services.drain_lock, beat as progress:
            await _drain(services, _sending(services.send, progress.progress))
        if not services.drain_again:
            return


def _sending(send: Send, progress: Callable[[], object]) -> Send:
    """`send`, and a sign of progress after each try: a long backlog is no stall."""

    async def send_and_beat(chat_id: int, text: str) -> None:
        try:
            await send(chat_id, text)
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
            stop=services.stopping,
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


def scan_now(application: Application[Any, Any, Any, Any, Any, Any], ids: Sequence[int]) -> None:
    """Scan these searches at once (a new or resumed watch's baseline), then drain."""
    if ids and application.job_queue is not None:
        application.job_queue.run_once(baseline_job, 0, data=list(ids), name=BASELINE)


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
