"""The two cycles on PTB's JobQueue: `scrape` (then a drain) and `drain`, plus baselines.

A full scrape cycle never overlaps another (`scrape_lock`: a late one is skipped, the job
also has `max_instances=1, coalesce=True`); drains queue up behind `drain_lock`, so a drain
asked for right after a scrape runs once the current one ends — the rows that scrape queued
are never left waiting a whole interval. A baseline scan for a new watch runs beside the
cycle: its rows are written in their own transactions and deduplicated like any other.

Every piece of work runs as a task in `BotServices.tasks`, so a shutdown can wait for the
drains to settle and cancel a scrape (whose open transaction then rolls back).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from typing import Any

from telegram.ext import Application

from habicht.bot.alerts import alert_dead, alert_scan, alert_stopped
from habicht.bot.services import BotServices, Context
from habicht.health import heartbeat
from habicht.queue import ChatGoneHook, DeliveryStopped, drain
from habicht.scraper import ScanSummary, scan

__all__ = ["BASELINE", "DRAIN", "SCRAPE", "deliver", "drain_job", "scan_now", "scrape_job"]

log = logging.getLogger(__name__)

SCRAPE = "scrape"
DRAIN = "drain"
BASELINE = "baseline"


async def _tracked(services: BotServices, work: Coroutine[Any, Any, None], *, name: str) -> None:
    """Run `work` as a task named `name` (SCRAPE or DRAIN) that the shutdown can see; a
    shutdown's cancel ends it quietly."""
    task = asyncio.get_running_loop().create_task(work, name=name)
    services.tasks.add(task)
    task.add_done_callback(services.tasks.discard)
    try:
        await task
    except asyncio.CancelledError:
        if not services.stopping.is_set():
            raise


async def scrape_job(context: Context) -> None:
    """The `scrape` job (all searches) or a `baseline` one (`job.data`: its search ids)."""
    services = context.bot_data
    if services.stopping.is_set():
        return
    data = context.job.data if context.job else None
    search_ids = [int(i) for i in data] if isinstance(data, list) else None
    await _tracked(services, _scrape(services, search_ids), name=SCRAPE)
    # A task of its own: a shutdown cancels a scrape at once but lets a drain settle.
    await _tracked(services, deliver(services), name=DRAIN)


async def _scrape(services: BotServices, search_ids: Sequence[int] | None) -> None:
    if search_ids is not None:
        await _scan(services, search_ids)  # a baseline: not a cycle, no heartbeat
        return
    if services.scrape_lock.locked():
        log.info("a scrape cycle is still running; this one is skipped")
        return
    beat = heartbeat(services.db, "scrape", clock=services.clock, watchdog=services.watchdog)
    async with services.scrape_lock, beat:
        started = services.clock()
        summary = await _scan(services, None)
        services.last_cycle = (started, services.clock())
        await alert_scan(services, summary, cycle=started)


async def _scan(services: BotServices, search_ids: Sequence[int] | None) -> ScanSummary:
    summary = await scan(
        services.db,
        services.client,
        services.renderer,
        clock=services.clock,
        max_attempts=services.settings.max_attempts,
        search_ids=search_ids,
    )
    log.info("scan of %s: %s", "all searches" if search_ids is None else search_ids, summary)
    return summary


async def drain_job(context: Context) -> None:
    """The `drain` job: deliver everything that is due."""
    await _tracked(context.bot_data, deliver(context.bot_data), name=DRAIN)


async def deliver(services: BotServices) -> None:
    """One drain of the outbox; a fatal error stops the bot with a non-zero exit."""
    if services.stopping.is_set():
        return
    beat = heartbeat(services.db, "drain", clock=services.clock, watchdog=services.watchdog)
    async with services.drain_lock, beat:
        started = services.clock()
        settings = services.settings
        try:
            summary = await drain(
                services.store,
                services.send,
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
        application.job_queue.run_once(scrape_job, 0, data=list(ids), name=BASELINE)


async def run_jobs_now(application: Application[Any, Any, Any, Any, Any, Any], name: str) -> int:
    """Run the jobs named `name` (`SCRAPE`, `DRAIN`, `BASELINE`) now, one after another.

    For the demo and tests, which drive the cycles themselves instead of waiting for the
    clock. One-off jobs (`BASELINE`) are taken off the schedule first, so they do not run a
    second time when their moment comes. Returns how many ran.
    """
    jobs = application.job_queue
    assert jobs is not None  # installed with python-telegram-bot[job-queue]
    due = jobs.get_jobs_by_name(name)
    for job in due:
        if name == BASELINE:
            job.schedule_removal()
        await job.run(application)
    return len(due)
