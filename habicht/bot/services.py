"""The typed context: what every handler and job shares, opened in `post_init`, closed after.

PTB builds `BotServices()` bare (it is the `bot_data` class of `ContextTypes`); the app
wiring then `configure`s it with the settings and the injected seams, `post_init` `open`s the
database and the parts built on it, and `post_shutdown` `close`s them. A handler reaches
them as `context.bot_data.subscriptions` and so on; using a part before `open` (or after
`close`) raises a sentence saying so rather than an `AttributeError` on `None`.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Sequence
from typing import Any, TypeVar

import httpx
from telegram import Bot
from telegram.ext import CallbackContext, ExtBot
from telegram.request import HTTPXRequest

from habicht.bot.chart_worker import ChartWorker
from habicht.bot.permissions import ChatAdmins
from habicht.bot.preferences import Preferences
from habicht.bot.render import MessageRenderer
from habicht.bot.sending import send_message
from habicht.bot.signing import Signer
from habicht.bot.texts import Texts
from habicht.clock import Clock, Sleep, system_clock, system_sleep
from habicht.config import Settings
from habicht.db import Database
from habicht.message import Delivered, Message
from habicht.metrics import Metrics
from habicht.queue import NotificationStore, Pacer, TakenOver
from habicht.queue.direct import DirectLine
from habicht.scraper.figures import FreshnessWatch
from habicht.scraper.schedule import RequestShare
from habicht.storage import StatusFile, StorageWatch, WatchedDatabase, fault_kind
from habicht.watchdog import Watchdog
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient

__all__ = ["BotServices", "Context", "NotReady"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class NotReady(RuntimeError):
    """A service was used before `post_init` opened it, or after `post_shutdown` closed it."""


class BotServices:
    """Settings, texts, database, subscriptions, outbox and willhaben client of one bot.

    Also the bot's run state: `stopping` (set on shutdown: jobs take no new work),
    `stop_requested` (what `serve` waits for: a signal, or a fatal error, then `fatal` says
    which), the running work (`tasks`; the drain among them also as `draining`), and the last
    full cycle's times.
    """

    def __init__(self) -> None:
        self._settings: Settings | None = None
        self._texts: Texts | None = None
        self._db: Database | None = None
        self._subscriptions: Subscriptions | None = None
        self._preferences: Preferences | None = None
        self._store: NotificationStore | None = None
        self._client: WillhabenClient | None = None
        self._bot: Bot | None = None
        self._storage: StorageWatch | None = None
        self._direct: DirectLine | None = None
        self._status: StatusFile | None = None
        self._willhaben_transport: httpx.AsyncBaseTransport | None = None
        self.clock: Clock = system_clock
        self.sleep: Sleep = system_sleep
        self.rand = random.Random()
        self.stopping = asyncio.Event()
        self.pacer = Pacer(clock=self.clock, sleep=self.sleep)
        self.stop_requested = asyncio.Event()
        self.fatal: str | None = None
        self.tasks: set[asyncio.Task[Any]] = set()
        self.scrape_lock = asyncio.Lock()
        self.drain_lock = asyncio.Lock()
        self.draining: asyncio.Task[None] | None = None
        """The drain started by `habicht.bot.jobs.kick_delivery`, while it runs."""
        self.drain_again = False
        """Set when delivery is kicked while a drain runs: it goes round once more."""
        self.site_blocked = False
        """Whether willhaben blocked us at the last cycle (the owner is told on changes)."""
        self.watchdog: Watchdog | None = None
        """Told of every finished cycle and of their progress (searches, sends)."""
        self.http: tuple[HTTPXRequest, ...] = ()
        """The Bot's HTTP clients, which `serve` closes even after a failed startup."""
        self.last_cycle: tuple[float, float] | None = None
        """(start, end) of the last scheduler pass of this process that scanned something."""
        self.scan_again = False
        """Set when a pass is asked for while one runs: it goes round once more."""
        self.seconds_per_search: float | None = None
        """Measured by the last pass: its duration per scan — a search tried or a feed read —
        (gap + fetch time)."""
        self.freshness_watch = FreshnessWatch()
        self.request_share = RequestShare()
        """Requested scans' share of the fetch budget, across the scheduler's passes."""
        self.database_failing = False
        """Whether the last pass stopped at a database error (the owner is told on changes)."""
        self.metrics: Metrics | None = None
        """The Prometheus metrics, when HABICHT_METRICS_PORT is set."""
        self.chat_admins = ChatAdmins(clock=self.clock)
        """Who administers the groups the bot is in, asked of Telegram and cached briefly."""
        self.charts = ChartWorker()
        """Draws the /history and /stats <n> charts in a thread of its own, and caches them."""

    def configure(
        self,
        settings: Settings,
        *,
        clock: Clock = system_clock,
        sleep: Sleep = system_sleep,
        rand: random.Random | None = None,
        willhaben_transport: httpx.AsyncBaseTransport | None = None,
        storage_settled: float,
    ) -> None:
        """Give the services their settings and the seams tests replace. `storage_settled`
        is how long writes must go through before a storage fault counts as over (see
        `habicht.storage.StorageWatch`)."""
        self._settings = settings
        self._texts = Texts("en" if settings.lang == "en" else "de")
        self.clock, self.sleep = clock, sleep
        self.rand = rand or random.Random()
        self.pacer = Pacer(clock=clock, sleep=sleep)
        self.chat_admins = ChatAdmins(clock=clock)
        self._willhaben_transport = willhaben_transport
        self._storage = StorageWatch(settings.db, clock=clock, settled=storage_settled)
        self._direct = DirectLine(
            self.send,
            pacer=self.pacer,
            clock=clock,
            sleep=sleep,
            rand=self.rand,
            backoff_base=settings.backoff_base,
            backoff_cap=settings.backoff_cap,
            tasks=self.tasks,
        )

    async def open(self, bot: Bot) -> None:
        """Start the metrics endpoint (if configured), open the database (migrating it) and
        the willhaben client; build what uses them. A database that refuses writes (a
        storage fault) does not stop the start: the fault is told, and waited out."""
        settings = self.settings
        if settings.metrics_port:  # first: a port in use is refused before anything opens
            metrics = Metrics(since=self.clock())
            metrics.serve(host=settings.metrics_host, port=settings.metrics_port)
            self.metrics = metrics
        self._bot = bot  # first: a storage fault met below is told through it at once
        db = await WatchedDatabase(settings.db, watch=self.storage, clock=self.clock).open()
        self._db = db
        self._status = StatusFile(settings.db).open()
        self.storage.listen(self._status.publish)
        if db.created_at is not None:
            log.warning(
                "started with a new, empty database at %s — if you had watches, the data"
                " volume is not mounted",
                settings.db,
            )
        preferences = await Preferences(
            db,
            clock=self.clock,
            default_lang=self.texts.lang,
            default_digest_after=settings.digest_after,
        ).load()
        self._preferences = preferences
        self._subscriptions = Subscriptions(
            db, clock=self.clock, on_chat_migrated=preferences.moved
        )
        self._store = NotificationStore(
            db, clock=self.clock, max_attempts=settings.max_attempts, ttl=settings.message_ttl
        )
        try:
            taken = await self._store.take_over_leases()
        except Exception as exc:
            if fault_kind(exc) is None:
                raise
            # Told by the storage watch; the dead process's leases run out on their own.
            taken = TakenOver(in_flight=0, unsent=0)
        if taken.in_flight:
            log.warning(
                "%d notifications were mid-send when the last run ended: sent again now",
                taken.in_flight,
            )
        if taken.unsent:
            log.info("%d claimed notifications were not sent yet: given back", taken.unsent)
        self._client = await WillhabenClient(
            base_url=settings.willhaben_url,
            fetch_gap=settings.fetch_gap,
            clock=self.clock,
            sleep=self.sleep,
            transport=self._willhaben_transport,
        ).open()

    async def close(self) -> None:
        """Close what `open` opened; safe to call when it never opened, or twice."""
        if self.metrics is not None:
            self.metrics.close()
            self.metrics = None
        if self._client is not None:
            await self._client.close()
        if self._direct is not None:
            self._direct.close()
        if self._status is not None:
            self._status.close()
            self._status = None
        self.charts.close()
        if self._db is not None:
            await self._db.close()
        self._client = self._db = self._subscriptions = self._store = None
        self._preferences = None

    @staticmethod
    def _ready(part: T | None, name: str) -> T:
        if part is None:
            raise NotReady(f"The bot's {name} is not open: it opens in post_init.")
        return part

    @property
    def settings(self) -> Settings:
        return self._ready(self._settings, "settings")

    @property
    def texts(self) -> Texts:
        """The texts of `HABICHT_LANG`, for what goes to no chat in particular."""
        return self._ready(self._texts, "texts")

    def texts_for(self, chat_id: int) -> Texts:
        """The texts of the chat's language."""
        return Texts(self.preferences.lang(chat_id))

    @property
    def signer(self) -> Signer:
        """Tags the callback data of alert buttons, keyed by the bot token."""
        return Signer(self.settings.require_token())

    @property
    def renderer(self) -> MessageRenderer:
        return MessageRenderer(self.texts, signer=self.signer, chats=self.preferences)

    @property
    def preferences(self) -> Preferences:
        return self._ready(self._preferences, "chat settings")

    @property
    def db(self) -> Database:
        return self._ready(self._db, "database")

    @property
    def storage(self) -> StorageWatch:
        """Whether the database takes this process's writes (`habicht.storage`)."""
        return self._ready(self._storage, "storage watch")

    @property
    def direct(self) -> DirectLine:
        """Messages sent from memory, not through the outbox: storage faults' notices."""
        return self._ready(self._direct, "direct line")

    @property
    def subscriptions(self) -> Subscriptions:
        return self._ready(self._subscriptions, "subscriptions")

    @property
    def store(self) -> NotificationStore:
        return self._ready(self._store, "notification store")

    @property
    def client(self) -> WillhabenClient:
        return self._ready(self._client, "willhaben client")

    async def send(self, message: Message) -> Delivered | None:
        """The queue's `send` (`sending.send_message`): a text's first link (the listing) is
        previewed, unless the chat chose compact alerts."""
        bot = self._ready(self._bot, "bot")
        compact = self.preferences.of(message.chat_id).alert_style == "compact"
        return await send_message(bot, message, preview=not compact)

    def render_digest(self, chat_id: int, lines: Sequence[str]) -> str:
        """The queue's digest: a heading with the count, then one line per alert."""
        texts = self.texts_for(chat_id)
        return "\n".join([texts.fill("digest", count=len(lines)), *lines])

    def is_admin(self, user_id: int | None) -> bool:
        return user_id is not None and user_id in self.settings.admin_ids

    def request_stop(self, fatal: str | None = None) -> None:
        """Ask `serve` to shut down; with `fatal`, the process then exits non-zero."""
        if fatal is not None and self.fatal is None:
            self.fatal = fatal
        self.stop_requested.set()


Context = CallbackContext[ExtBot[Any], dict[Any, Any], dict[Any, Any], BotServices]
"""The context every handler and job receives."""
