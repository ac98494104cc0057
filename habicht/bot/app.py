"""The Application: every handler and job in one block, and its life from start to exit.

`build_application` wires python-telegram-bot to habicht, including its two lifecycle hooks:
`post_init` (open the database and the willhaben client, publish the command menu) and
`post_shutdown` (close them). Tests and `habicht demo` run those hooks themselves around
`async with application`; `serve` runs them as `run_polling` would, with long polling, until
SIGTERM/SIGINT or a fatal error (a rejected token, delivery stopped), then shuts down in this
order — each step runs even if an earlier one failed:

1. `stopping` is set: jobs take no new work, and drains start no new send.
2. Polling stops; a running scrape or baseline is cancelled (its open transaction rolls
   back).
3. Drains settle their in-flight sends and give every other claimed row back unsent
   (attempt not spent), and the direct line sends what it holds; a drain still running after
   `GRACE` seconds is cancelled, and gives back what it has not started (one waiting out a
   storage fault stops waiting: what it could not record is repeated after the restart).
4. The Application stops, then `post_shutdown` closes the willhaben client and the database
   (the direct line logs each message it could not send).

Only one `serve` may use a database at a time (its startup takes over every lease it finds):
it holds an exclusive lock on `<database>.lock` while it runs, and a second one is refused.

`serve` is a coroutine (not `run_polling`, which wants to own the event loop) because
`habicht.cli` already runs one; it follows the same steps `run_polling` would.
"""

from __future__ import annotations

import asyncio
import logging
import random
import signal
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from functools import partial
from http import HTTPStatus
from typing import Any, cast

import httpx
from telegram import BotCommand, Update
from telegram.constants import ParseMode
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    Defaults,
    ExtBot,
    JobQueue,
    MessageHandler,
    filters,
)
from telegram.request import HTTPXRequest

from habicht.bot import guards, signing
from habicht.bot.alerts import (
    alert_new_database,
    alert_replica,
    alert_restored,
    alert_storage,
    report_error,
)
from habicht.bot.handlers import (
    admin,
    buttons,
    commands,
    figures,
    filtering,
    location,
    presence,
    previewing,
    quiet,
)
from habicht.bot.handlers import settings as chat_settings
from habicht.bot.jobs import DRAIN, RETENTION, SCRAPE, drain_job, retention_job, scrape_job, tick
from habicht.bot.services import BotServices, Context
from habicht.bot.texts import CATALOGS, Catalog
from habicht.clock import Clock, Sleep, system_clock, system_sleep
from habicht.config import Settings
from habicht.instance import single_instance
from habicht.queue.direct import DIRECT
from habicht.replica import Replicator
from habicht.watchdog import Watchdog

__all__ = ["GRACE", "BotApplication", "build_application", "serve"]

log = logging.getLogger(__name__)

BotApplication = Application[
    ExtBot[Any], Context, dict[Any, Any], dict[Any, Any], BotServices, JobQueue[Context]
]

GRACE = 6.0
"""Seconds a shutdown waits for in-flight sends; with the rest, exit stays within 10 s."""

POLL_TIMEOUT = 10
"""Seconds a getUpdates long poll may wait for an update."""

RETENTION_EVERY = 86400.0
RETENTION_FIRST = 600.0
"""The first retention run comes ten minutes after the start, the next ones daily."""

JOB_KWARGS = {"max_instances": 1, "coalesce": True}
"""A job that is still running is skipped, never stacked; missed runs collapse into one."""

# Explicit timeouts: a send never hangs a drain; the long poll's read outlasts its timeout.
SEND_TIMEOUTS = {"connect_timeout": 5.0, "read_timeout": 5.0, "write_timeout": 5.0}
POOL_TIMEOUT = 5.0


TOKEN_REJECTED = "Telegram rejected HABICHT_BOT_TOKEN"
REJECTED = (HTTPStatus.UNAUTHORIZED, HTTPStatus.NOT_FOUND)
"""The answers PTB turns into `InvalidToken` (telegram/request/_baserequest.py)."""


class PollingRequest(HTTPXRequest):
    """The getUpdates client, which calls `on_rejected` when Telegram rejects the token.

    PTB's polling loop gives up on `InvalidToken` without telling anyone (its task ends,
    `updater.running` stays True, and `error_callback` never sees it), so a token revoked
    while the bot is idle would leave it running deaf until the next send. (`post`, where PTB
    raises it, is final: the status it maps to `InvalidToken` is checked here instead.)
    """

    def __init__(self, *, on_rejected: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._on_rejected = on_rejected

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        code, payload = await super().do_request(*args, **kwargs)
        if code in REJECTED:
            self._on_rejected()
        return code, payload


def _request_kwargs(
    transport: httpx.AsyncBaseTransport | None, *, pool: int, read_timeout: float
) -> dict[str, Any]:
    return {
        "connection_pool_size": pool,
        "connect_timeout": SEND_TIMEOUTS["connect_timeout"],
        "read_timeout": read_timeout,
        "write_timeout": SEND_TIMEOUTS["write_timeout"],
        "pool_timeout": POOL_TIMEOUT,
        "httpx_kwargs": {"transport": transport} if transport is not None else None,
    }


def _file_url(api: str) -> str:
    """`https://api.telegram.org/bot` → `https://api.telegram.org/file/bot` (same server)."""
    head, _, tail = api.rstrip("/").rpartition("/")
    return f"{head}/file/{tail}"


def build_application(
    settings: Settings,
    *,
    clock: Clock = system_clock,
    sleep: Sleep = system_sleep,
    rand: random.Random | None = None,
    telegram_transport: httpx.AsyncBaseTransport | None = None,
    willhaben_transport: httpx.AsyncBaseTransport | None = None,
) -> BotApplication:
    """The bot for `settings`; the keyword arguments are the seams for tests and the demo."""

    def rejected() -> None:  # called only while polling, when `application` exists
        application.bot_data.request_stop(fatal=TOKEN_REJECTED)

    requests = (
        HTTPXRequest(
            **_request_kwargs(telegram_transport, pool=settings.queue_batch + 8, read_timeout=5.0)
        ),
        PollingRequest(  # read_timeout: PTB adds the long poll's timeout
            on_rejected=rejected, **_request_kwargs(telegram_transport, pool=1, read_timeout=5.0)
        ),
    )
    # The builder's generics cannot follow `context_types` into the JobQueue's type: cast.
    application = cast(
        BotApplication,
        ApplicationBuilder()
        .token(settings.require_token())
        .base_url(settings.telegram_api)
        .base_file_url(_file_url(settings.telegram_api))
        .request(requests[0])
        .get_updates_request(requests[1])
        .rate_limiter(AIORateLimiter(max_retries=0))  # the queue owns retries
        .defaults(Defaults(parse_mode=ParseMode.HTML))
        .context_types(ContextTypes(bot_data=BotServices))
        .post_init(_post_init)
        .post_shutdown(_post_shutdown)
        .build(),
    )
    services = application.bot_data
    services.configure(
        settings,
        clock=clock,
        sleep=sleep,
        rand=rand,
        willhaben_transport=willhaben_transport,
        # Longer than a scheduler pass's pause between two tries of a write: a full disk
        # that lets a write through now and then is still one fault, told once each way.
        storage_settled=3 * tick(settings),
    )
    services.http = requests
    # A storage fault is told to the owners straight through the Bot, from memory.
    services.storage.listen(partial(alert_storage, services))

    # Only new messages: PTB's defaults also match an edited one, which would run its
    # command (another /watch, say) a second time.
    new = filters.UpdateType.MESSAGE
    # First, in a group of its own, every new message: the chat, its language, and whether
    # it is back after blocking the bot. Then the one handler that matches it.
    application.add_handler(MessageHandler(new, presence.note_chat), group=presence.HANDLER_GROUP)
    application.add_handlers(
        [
            CommandHandler("start", commands.start, filters=new),
            CommandHandler("help", commands.help_command, filters=new),
            CommandHandler("watch", commands.watch_command, filters=new),
            CommandHandler("list", commands.list_command, filters=new),
            CommandHandler("filter", filtering.filter_command, filters=new),
            CommandHandler("history", filtering.history_command, filters=new),
            CommandHandler("preview", previewing.preview_command, filters=new),
            CommandHandler("unwatch", commands.unwatch_command, filters=new),
            CommandHandler("pause", commands.pause_command, filters=new),
            CommandHandler("resume", commands.resume_command, filters=new),
            CommandHandler("settings", chat_settings.settings_command, filters=new),
            CommandHandler("quiet", quiet.quiet_command, filters=new),
            CommandHandler("queue", admin.queue_command, filters=new),
            CommandHandler("stats", figures.stats_command, filters=new),
            CallbackQueryHandler(
                chat_settings.on_settings_button, pattern=f"^{chat_settings.PREFIX}"
            ),
            CallbackQueryHandler(buttons.on_alert_button, pattern=f"^{signing.PREFIX}"),
            CallbackQueryHandler(commands.on_button),
            # A shared location (📎 → Location): what `near here` measures from.
            MessageHandler(new & filters.LOCATION, location.on_location),
            # Hints only in private chats: in a group, other bots' commands and people's
            # chatter are none of habicht's business.
            MessageHandler(
                new & filters.COMMAND & filters.ChatType.PRIVATE, guards.unknown_command
            ),
            MessageHandler(new & filters.TEXT & filters.ChatType.PRIVATE, commands.on_text),
        ]
    )
    application.add_error_handler(on_error)

    jobs = application.job_queue
    assert jobs is not None  # installed with python-telegram-bot[job-queue]
    jobs.run_repeating(
        scrape_job,  # the scheduler's tick: a pass over the due searches
        interval=tick(settings),
        first=tick(settings),  # the first pass is run by `serve` right at start
        name=SCRAPE,
        job_kwargs=JOB_KWARGS,
    )
    jobs.run_repeating(
        drain_job,
        interval=settings.queue_interval,
        first=settings.queue_interval,
        name=DRAIN,
        job_kwargs=JOB_KWARGS,
    )
    jobs.run_repeating(
        retention_job,
        interval=RETENTION_EVERY,
        first=RETENTION_FIRST,
        name=RETENTION,
        job_kwargs=JOB_KWARGS,
    )
    return application


async def _post_init(application: BotApplication) -> None:
    """Open the database and the willhaben client (telling the owners when the database had
    to be created); publish the command menu: in each language for the users whose app is
    set to it, in `HABICHT_LANG` for everyone else."""
    services, bot = application.bot_data, application.bot
    await services.open(bot)
    if services.db.created_at is not None:
        await alert_new_database(services, services.db.created_at)
        await services.db.announced()
    await alert_restored(services)
    for catalog in CATALOGS.values():
        await bot.set_my_commands(_menu(catalog), language_code=catalog.lang)
    await bot.set_my_commands(_menu(services.texts.catalog))


def _menu(catalog: Catalog) -> list[BotCommand]:
    return [BotCommand(command, about) for command, about in catalog.menu.items()]


async def _post_shutdown(application: BotApplication) -> None:
    await application.bot_data.close()


async def on_error(update: object, context: Context) -> None:
    """Log first, then tell the owners via the outbox (at most once a minute per error type)."""
    if context.error is not None:
        what = "a job" if update is None else "an update"
        await report_error(context.bot_data, context.error, what=what)


async def _settle(services: BotServices, grace: float) -> None:
    """Cancel scrapes and baselines; give drains and the direct line `grace` seconds; cancel
    what is left, and wait for it."""
    for task in services.tasks:
        if task.get_name() not in (DRAIN, DIRECT):
            task.cancel()
    pending = set(services.tasks)
    if pending:
        _done, pending = await asyncio.wait(pending, timeout=grace)
    for task in pending:
        task.cancel()
    await asyncio.gather(*services.tasks, return_exceptions=True)


async def serve(
    application: BotApplication,
    *,
    stop_signals: Sequence[signal.Signals] = (signal.SIGTERM, signal.SIGINT),
    grace: float = GRACE,
    watchdog: Watchdog | None = None,
) -> int:
    """Run the bot until a stop signal or a fatal error; the exit code.

    0 after a signal, 1 after a fatal error (delivery stopped, or the long poll found the
    token rejected; `fatal` says which). `InvalidToken` and other startup failures propagate
    from `initialize`, and `DatabaseError` when another `serve` holds the database (the
    caller prints one line). `watchdog` watches the cycles while the bot runs, and stops
    watching when the shutdown begins.
    """
    services = application.bot_data
    services.watchdog = watchdog
    loop = asyncio.get_running_loop()
    for sig in stop_signals:
        loop.add_signal_handler(sig, services.request_stop)
    try:
        with single_instance(services.settings.db):
            await _lifetime(application, grace)
    finally:
        for sig in stop_signals:
            loop.remove_signal_handler(sig)
        # PTB skips shutting down a Bot whose initialize failed (a rejected token).
        for request in services.http:
            await request.shutdown()
    return 0 if services.fatal is None else 1


async def _lifetime(application: BotApplication, grace: float) -> None:
    """Initialize, `post_init`, start the replica (HABICHT_REPLICA) and the bot, wait for the
    stop, then `_stop` (however it went) — and the replica last, after the last write."""
    services, watchdog = application.bot_data, application.bot_data.watchdog
    async with application, AsyncExitStack() as replica:  # initialize: getMe, checks the token
        try:
            assert application.post_init is not None  # set by build_application
            await application.post_init(application)
            url = services.settings.replica_url
            if url is not None:  # once the database is open and migrated: Litestream needs WAL
                died = partial(_replica_died, services)
                await replica.enter_async_context(
                    Replicator(services.settings.db, url, on_death=died)
                )
            await _start(application)
            if watchdog is not None:
                watchdog.start()
            log.info("habicht is running")
            await services.stop_requested.wait()
            log.info("stopping: no new work; letting in-flight sends settle")
        finally:
            await _stop(application, grace)


def _replica_died(services: BotServices, code: int) -> None:
    """Litestream died: the owners hear of it (once a minute at most); it is restarted."""
    task = asyncio.get_running_loop().create_task(alert_replica(services, code))
    services.tasks.add(task)
    task.add_done_callback(services.tasks.discard)


async def _start(application: BotApplication) -> None:
    """Poll for updates, start the jobs, and run the first scheduler pass right away."""
    updater, jobs = application.updater, application.job_queue
    assert updater is not None  # built by ApplicationBuilder
    assert jobs is not None
    await updater.start_polling(timeout=POLL_TIMEOUT, allowed_updates=Update.ALL_TYPES)
    await application.start()
    for job in jobs.get_jobs_by_name(SCRAPE):  # `first=0` would not run it at once
        application.create_task(job.run(application), name="first scrape")


async def _stop(application: BotApplication, grace: float) -> None:
    """Steps 1-4 of the module docstring; safe after a start that failed half-way."""
    services = application.bot_data
    services.stopping.set()
    if services.watchdog is not None:
        services.watchdog.stop()  # a graceful shutdown is no stall
    try:
        await _stop_polling(application)
        await _settle(services, grace)
        if application.running:
            await application.stop()
    finally:
        assert application.post_shutdown is not None  # set by build_application
        await application.post_shutdown(application)


async def _stop_polling(application: BotApplication) -> None:
    """Stop the updater; the error that ended its polling (the `InvalidToken` of a revoked
    token, reported as `fatal` already) is logged, never allowed to skip the later steps."""
    updater = application.updater
    if updater is None or not updater.running:
        return
    try:
        await updater.stop()
    except Exception as exc:
        log.warning("polling had ended with %s: %s", type(exc).__name__, exc)
