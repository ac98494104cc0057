"""`habicht demo`: the real bot — Application, commands, scraper, outbox, delivery, retry
policy — against the simulated willhaben and the fake Telegram, on a virtual clock.

Nothing is stubbed between the two fakes: subscribers' commands go through
`Application.process_update`, scrape cycles are the `scrape` job itself, and between cycles
the outbox is drained every HABICHT_QUEUE_INTERVAL as the `drain` job does. After each step
the demo reads the outbox and prints what changed (`story`), one line each; after the cycles
Lena's flat alerts are shown whole, as her chat reads them; at the end the owner asks
`/queue`, and the account is counted in the database (`summary`).
"""

from __future__ import annotations

import logging
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from datetime import time as wall_time
from pathlib import Path
from typing import TextIO
from zoneinfo import ZoneInfo

import httpx

from habicht.bot import (
    BASELINE,
    SCRAPE,
    BotApplication,
    build_application,
    deliver,
    run_jobs_now,
)
from habicht.config import Settings
from habicht.db import Database
from habicht.demo import scenario
from habicht.demo.checks import checks_made
from habicht.demo.clock import VirtualClock
from habicht.demo.feed import feeds_served
from habicht.demo.observe import Recorder, TappedBotAPI, search_key
from habicht.demo.story import Entry, Outbox, narrate
from habicht.demo.summary import Summary, describe, placement_rows, summarise
from habicht.demo.terminal import Terminal, plain, wants_colour
from habicht.fakes.telegram import DEFAULT_TOKEN
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.quiet import DEFAULT_ZONE

__all__ = ["DEFAULT_SEED", "DEFAULT_SPEED", "demo_settings", "run_demo"]

DEFAULT_SPEED = 300.0
"""Virtual seconds per real second: a 5-minute scrape cycle takes one second."""
DEFAULT_SEED = 6
"""Seeds the backoff jitter, so every run tells the same story."""
TAIL_LIMIT = 3600.0
"""After the last cycle, drains go on until nothing is pending, for at most this long."""

_TONES = {"plain": (), "good": ("green",), "warn": ("yellow",), "bad": ("red",)}


def demo_settings(db: Path, *, lang: str) -> Settings:
    """The production defaults, a dummy token, and `.invalid` hosts: should anything ever
    bypass the fakes' transports, it fails to resolve instead of reaching the internet.

    Feeds are on, as in production: the demo's willhaben is a world (`scenario`), so one
    feed request serves both searches' watches.
    """
    return Settings(
        bot_token=DEFAULT_TOKEN,
        admin_ids=frozenset({scenario.OWNER.chat_id}),
        db=db,
        lang=lang,
        telegram_api="http://telegram.invalid/bot",
        willhaben_url="http://willhaben.invalid",
    )


async def run_demo(
    *,
    db: Path | None = None,
    speed: float = DEFAULT_SPEED,
    seed: int = DEFAULT_SEED,
    lang: str = "en",
    out: TextIO | None = None,
    colour: bool | None = None,
    verbose: bool = False,
    now: float | None = None,
) -> Summary:
    """Tell the demo's story on `out` (stdout) and return its account.

    `db` is a new database file to keep (default: a temporary one); `colour` None means
    "if `out` is a terminal and NO_COLOR is unset"; `verbose` lets the bot's own logs through;
    `now` is the moment the story ends before (default: the real time; tests fix it, e.g. to
    the morning after a daylight-saving switch).
    """
    out = out or sys.stdout
    terminal = Terminal(out, colour=wants_colour(out) if colour is None else colour)
    with tempfile.TemporaryDirectory(prefix="habicht-demo-") as tmp, _quiet(verbose):
        path = db or Path(tmp) / "habicht.sqlite3"
        settings = demo_settings(path, lang=lang)
        # The story ends with the last morning before the real "now", so a kept database's
        # times read sensibly afterwards (`habicht queue dead` says "9 h ago", not a time to
        # come): the cycles run that evening, the night after them.
        night = _last_night(time.time() if now is None else now)
        story_length = (len(scenario.CYCLES) + 1) * settings.scrape_interval + TAIL_LIMIT
        start = _vienna(night, wall_time(23)) - story_length
        clock = VirtualClock(start, speed=speed)
        demo = _Demo(settings, clock, terminal, random.Random(seed), night=night)
        terminal.line(terminal.paint("habicht demo", "bold") + " — the real pipeline, offline")
        where = "temporary, removed at exit" if db is None else "kept"
        terminal.line(f"database: {path} ({where})")
        terminal.line(
            f"clock: virtual, {speed:g} times real time — a {settings.scrape_interval:g} s "
            f"scrape cycle takes {settings.scrape_interval / speed:.2g} s"
        )
        return await demo.run()


_ZONE = ZoneInfo(DEFAULT_ZONE)


def _vienna(day: date, at: wall_time) -> float:
    return datetime.combine(day, at, tzinfo=_ZONE).timestamp()


def _last_night(now: float) -> date:
    """The evening whose next 07:00 in Vienna is the latest one before `now`."""
    today = datetime.fromtimestamp(now, _ZONE).date()
    morning = today if _vienna(today, wall_time(7)) <= now else today - timedelta(days=1)
    return morning - timedelta(days=1)


def _count(number: int, thing: str) -> str:
    """`no chat`, `1 chat`, `2 chats`."""
    return f"{number or 'no'} {thing}{'' if number == 1 else 'es' if thing.endswith('h') else 's'}"


@contextmanager
def _quiet(verbose: bool) -> Iterator[None]:
    """The story replaces the bot's logs: only errors show, and everything with -v. The
    rate limiter's error for each 429 is part of the story, so it is not repeated."""
    levels = {"": logging.ERROR, "telegram.ext.AIORateLimiter": logging.CRITICAL}
    loggers = {logging.getLogger(name): level for name, level in levels.items()}
    before = {logger: logger.level for logger in loggers}
    if not verbose:
        for logger, level in loggers.items():
            logger.setLevel(level)
    try:
        yield
    finally:
        for logger, level in before.items():
            logger.setLevel(level)


class _Demo:
    """One run: the two fakes, the bot built on them, and what the story has shown so far."""

    def __init__(
        self,
        settings: Settings,
        clock: VirtualClock,
        terminal: Terminal,
        rand: random.Random,
        *,
        night: date,
    ) -> None:
        self.settings = settings
        self.night = night
        self.clock = clock
        self.terminal = terminal
        self.recorder = Recorder(
            clock, {search_key(httpx.URL(spec.url)): spec.name for spec in scenario.SEARCHES}
        )
        self.api = TappedBotAPI(self.recorder)
        self.site = FakeWillhabenSite(world=True)
        self.world = scenario.World(self.site, self.api, clock)
        self.names = scenario.names()
        self.app: BotApplication = build_application(
            settings,
            clock=clock,
            sleep=clock.sleep,
            rand=rand,
            telegram_transport=self.api.transport(),
            willhaben_transport=self.recorder.willhaben(self.site, adverts=self.world.adverts),
        )
        self.outbox: Outbox = {}
        self.update_offset = 0
        self.blocked: set[int] = set()

    async def run(self) -> Summary:
        app = self.app
        assert app.post_init is not None  # both set by the builder
        assert app.post_shutdown is not None
        # The demo's database is new on purpose: made here, before the bot starts, which
        # would otherwise tell the owner that it started on a new, empty one (issue 27).
        async with Database(self.settings.db, clock=self.clock):
            pass
        with self.api:
            async with app:
                await app.post_init(app)
                try:
                    await self._story()
                    summary = await summarise(
                        app.bot_data.db,
                        self.api.messages(),
                        edited=self.api.edits,
                        rate_limited=self.recorder.rate_limited,
                    )
                finally:
                    await app.post_shutdown(app)
        self.terminal.heading("summary, counted in the database")
        for line in describe(summary):
            self.terminal.line(line)
        return summary

    async def _story(self) -> None:
        self.terminal.heading("subscribers talk to the bot")
        for person in scenario.PEOPLE:
            for text in person.says:
                await self._say(person, text, show_reply=text in scenario.SHOWN)
        cycles = len(scenario.CYCLES)
        for number, changes in enumerate(scenario.CYCLES, start=1):
            await self._drain_until(self.clock.start + number * self.settings.scrape_interval)
            self.terminal.heading(f"cycle {number}/{cycles} · {self._time()}")
            for change in changes:
                self.terminal.line(f"         {self.world.apply(change)}")
                await self._handle_updates()  # a button pressed
            if not changes:
                self.terminal.line("         nothing changed on willhaben")
            await self._scrape()
        self.terminal.heading(f"after the last cycle · {self._time()}")
        await self._drain_until(self.clock() + TAIL_LIMIT, stop_when_empty=True)
        self.terminal.line(f"         {self._time()} nothing left to send")
        self._chat(scenario.LENA)
        await self._placements()
        self.terminal.heading("the owner asks /queue")
        for command in ("/queue", "/queue dead"):
            await self._say(scenario.OWNER, command, show_reply=True)
        await self._night()

    async def _night(self) -> None:
        """Ben's quiet hours: what appears at night is held, and arrives at 07:00 as one
        digest. The clock jumps over the hours nothing happens in."""
        morning = self.night + timedelta(days=1)

        def at(text: str) -> float:
            wall = wall_time.fromisoformat(text)
            return _vienna(self.night if wall.hour >= 12 else morning, wall)

        self.clock.jump(at("23:00"))
        self.terminal.heading("the night · 23:00 in Vienna")
        await self._say(scenario.BEN, "/quiet 22-7", show_reply=True)
        for wall, changes in scenario.NIGHT:
            self.clock.jump(at(wall))  # 02:40 on the night clocks go forward is 03:40 CEST
            self.terminal.heading(f"{self._time()[:5]} in Vienna")
            for change in changes:
                self.terminal.line(f"         {self.world.apply(change)}")
            await self._scrape()
        await self._say(scenario.OWNER, "/queue", show_reply=True)
        self.clock.jump(at("07:00"))
        self.terminal.heading("07:00 in Vienna: Ben's quiet hours end")
        await self._step(deliver(self.app.bot_data))

    def _chat(self, person: scenario.Person) -> None:
        """The alerts `person`'s chat received, each in full as Telegram shows it now — the
        story's lines cut them to its width, and a flat hunter decides on the whole alert. An
        edited one reads as edited (issue 34): its latest text, and under the time it was
        sent, when it was last edited (a struck title reads plain here)."""
        self.terminal.heading(f"what {person.name} reads: the alerts in the chat")
        alerts = [
            row
            for _, row in sorted(self.outbox.items())
            if row.chat_id == person.chat_id and row.kind in ("new", "drop") and row.sent_at
        ]
        for row in alerts:
            edits = [] if row.message_id is None else self.api.edits_of(row.chat_id, row.message_id)
            text, column = row.text, [self._time(row.sent_at)]
            if edits:
                text = edits[-1].text
                column += ["edited", self._time(edits[-1].at)]
            for number, line in enumerate(plain(text).splitlines()):
                self.terminal.line(f"{column[number] if number < len(column) else '':<8}  │ {line}")

    async def _placements(self) -> None:
        """What became of the paid placements: none fits a search of Lena's, so none may
        reach a chat or a search's listings (and its going price)."""
        placements = self.site.placements
        chats, searches = await placement_rows(
            self.app.bot_data.db, [advert.id for advert in placements]
        )
        names = " and ".join(f"„{advert.title}“" for advert in placements)
        pages = self.recorder.flat_pages
        self.terminal.line(
            f"         the paid placements {names}, in turn on top of the {pages} flat pages"
            f" read so far: sent to {_count(chats, 'chat')}, kept by {_count(searches, 'search')}"
        )

    async def _scrape(self) -> None:
        """The `scrape` job's pass, what each feed did in it (one request for many), and what
        each page check proved."""
        started = self.clock()
        await self._step(run_jobs_now(self.app, SCRAPE))
        for served in await feeds_served(self.app.bot_data.db, since=started):
            self._print(Entry(self.clock(), 0, "feed", "willhaben", served.story(), "good"))
        for check in await checks_made(self.app.bot_data.db, since=started):
            self._print(Entry(self.clock(), 0, "check", "willhaben", check.story()))

    async def _say(self, person: scenario.Person, text: str, *, show_reply: bool = False) -> None:
        """`person` sends `text`; the Application handles it like any update from Telegram."""
        self.terminal.line(f"{self._time()}  {person.name:<8} {self.terminal.paint(text, 'bold')}")
        self.api.push_message(person.chat_id, person.sender, text)
        await self._handle_updates(replies=not show_reply)
        await self._step(run_jobs_now(self.app, BASELINE))
        if show_reply:
            reply = self.api.messages(person.chat_id)[-1].text
            for line in plain(reply).splitlines():
                self.terminal.line(f"         │ {line}")

    async def _handle_updates(self, *, replies: bool = True) -> None:
        """Let the Application handle what the fake Telegram queued (messages, button
        presses), and print each button's answer: only the presser sees it."""
        answered = len(self.api.callback_answers)
        for update in await self.app.bot.get_updates(offset=self.update_offset, timeout=0):
            self.update_offset = update.update_id + 1
            await self._step(self.app.process_update(update), replies=replies)
        for answer in self.api.callback_answers[answered:]:
            self._print(Entry(self.clock(), 0, "answer", "(presser)", str(answer.get("text", ""))))

    async def _drain_until(self, until: float, *, stop_when_empty: bool = False) -> None:
        """Every HABICHT_QUEUE_INTERVAL until `until`, drain the outbox as the `drain` job."""
        interval = self.settings.queue_interval
        while self.clock() + interval <= until:
            if stop_when_empty and not await self._pending():
                return
            await self.clock.sleep(interval)
            await self._step(deliver(self.app.bot_data))
        await self.clock.sleep(until - self.clock())

    async def _pending(self) -> int:
        return (await self.app.bot_data.store.stats()).pending

    async def _step(self, work: Awaitable[object], *, replies: bool = True) -> None:
        """Await `work`, then print what it changed in the outbox and on the wires."""
        await work
        outbox = await self.app.bot_data.store.every_row()
        attempts, fetches = self.recorder.take()
        for entry in narrate(self.outbox, outbox, attempts, fetches, names=self.names):
            if replies or entry.label != "reply":
                self._print(entry)
        self.outbox = outbox
        subscriptions = self.app.bot_data.subscriptions
        blocked = {p.chat_id for p in scenario.PEOPLE if await subscriptions.is_blocked(p.chat_id)}
        for chat_id in sorted(blocked - self.blocked):
            text = "⏸ the chat is gone: its watches are skipped until it sends /start"
            self._print(Entry(self.clock(), 0, "paused", self.names[chat_id], text, "warn"))
        self.blocked = blocked

    def _print(self, entry: Entry) -> None:
        paint = self.terminal.paint
        self.terminal.line(
            f"{self._time(entry.at)}  {paint(f'{entry.label:<8}', 'dim')} {entry.who:<10} "
            f"{paint(entry.text, *_TONES[entry.tone])}"
        )

    def _time(self, at: float | None = None) -> str:
        """The time column: the Vienna wall clock, as the night's headings and the bot's
        own texts ("held until 07:00") read it."""
        return f"{datetime.fromtimestamp(self.clock() if at is None else at, _ZONE):%H:%M:%S}"
