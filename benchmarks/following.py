"""Alerts that stay true: how soon a sent alert says that its advert was reserved or taken off,
what the page checks cost, and whether following delays new alerts (issue 34).

The world is `benchmarks/flats.py`'s — the marketplace of `benchmarks/freshness.py` and the
flat world beside it on one fake site (`flats.Beside`), their searches and watches
(`flats.shape`) — run by their machinery (imported, not copied: the script, the virtual
clock, the writing of chats, searches and watches, the counting of owed alerts against the
world's truth). On top, every new advert of either world meets its fate (`Odds`), drawn from
its id and the seed alone, so that both runs see the same world:

- **flats**: half are reserved, after a delay log-normal around 2 hours (a quarter within the
  hour, six in seven within 6 hours: flats in Vienna often go within a day); of the others
  30 % are taken off willhaben (`take_down`: off every search, the page answers 404 or 410),
  log-normal around 4 hours;
- **the marketplace**: 10 % reserved, around 3 hours; of the others 25 % taken off (sold,
  deleted), around 5 hours.

A reserved advert stays reserved, shown so on every page that lists it; a taken-off one was
not reserved first: each change is of one kind, and its edit says so ("🔒 reserviert",
"❌ nicht mehr online").

The bot is the real one (`build_application`, its `post_init`, its jobs): the real `scrape`
job every 10 s of virtual time, as PTB's JobQueue runs it (a pass that outlasts a tick makes
the job skip to the next one), and the real drain — kicked at the end of each pass and every
`HABICHT_QUEUE_INTERVAL` by the `drain` job — delivering to the fake Bot API in-process, whose
messages and edits carry the virtual time. Both run beside each other on one virtual clock
(`Timeline`): time moves only while the scheduler waits (for the fetch gap or the next tick),
and then the drain's waits (the pacer's) are played in order, each after the drain has done
all it can at the moment before. Settings are the defaults: `HABICHT_SCRAPE_INTERVAL` 300,
`HABICHT_FETCH_GAP` 2, `HABICHT_FEED_INTERVAL` 60; following on is `HABICHT_FOLLOW_DAYS=7`,
off `0`, one run each on the same world. PTB's `AIORateLimiter` waits in real time, so it
is taken out of the bot (as `benchmarks/delivery.py`'s virtual shapes leave it out); the
queue's pacer keeps Telegram's limits in virtual time, and the fake counts any it broke.

After every watch's baseline the world runs `--hours`, and the passes go on for
`--tail` hours more (changes go on meanwhile: every advert's fate comes when it comes; no
advert is published). Following off, only the new adverts' alerts count, so that run stops
once the script's last late flat showed and every search was scanned after that, as
`freshness.py` does. Printed:

- **edits**, by change and world (flats, marketplace): for each change, every alert of the
  advert delivered before it (a message, or a digest's line) is owed an edit saying so; the
  share edited within 15 minutes and within 2 hours of the change (a change counts for a span
  only when the run lasts that long after it), p50 / p95 / max of the edits that came, and how
  many did not come within 2 hours;
- **page checks**: the requests for adverts' own pages (`FakeWillhabenSite.advert_pages`)
  while the world ran and after, what they found (`page_checks`), per day, and scaled to 1,000
  alerts and to 1,000 alerted adverts delivered a day (the run's rate); beside them the most
  the rule allows once a week of alerts is followed (`most_checks`); the requests a minute by
  kind, feeds, scans and page checks;
- **new adverts**: publication (a late flat: the moment it shows) → delivery at the fake Bot
  API, p50, p95, the p95 of local and of plain searches, max, owed, delivered, missing (owed
  and never delivered), false and duplicates, with following on and off, and on / off; beside
  them publication → queued and queued → delivered, the edits Telegram took, the limits the
  fake saw broken, and how long the scheduler's passes lasted; and how often the drain waited
  no time (`Timeline.sleep`).

`--quick` (CI): 8 flat searches / 40 watches beside 2 / 10 of the marketplace, half an hour and
a quarter more, in about 20 s (its figures say nothing). The default (`make bench`): 16 / 80
beside 4 / 20, an hour and two more, about 70 s (most of it the fake site rendering its three
feed pages a minute). `--full`: `flats.py`'s default shape, 80 / 400 beside 20 / 100, the
whole flat stock, six hours and two more.

    PYTHONPATH=. python benchmarks/following.py [--quick | --full] [--hours H] [--tail H]
                                                [--searches N] [--market N] [--seed N]
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import itertools
import logging
import math
import random
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from sqlite3 import Row

import flats
import freshness
import httpx

from habicht.bot import DRAIN, SCRAPE, BotApplication, build_application
from habicht.config import Settings
from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import FakeBotAPI
from habicht.fakes.willhaben_flats import EstateVolumes, FlatWorld
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.watches.follow import DAY, OLD_CAP, YOUNG_CAP

DEFAULTS = Settings()
"""The bot's settings but for its token, database and willhaben: the defaults, which are
freshness.py's gap and intervals (checked below)."""
assert (DEFAULTS.fetch_gap, DEFAULTS.scrape_interval) == (freshness.GAP, freshness.INTERVAL)
assert (DEFAULTS.feed_interval, DEFAULTS.safety_interval) == (
    freshness.FEED_INTERVAL,
    freshness.SAFETY,
)
FOLLOW_DAYS = DEFAULTS.follow_days
"""HABICHT_FOLLOW_DAYS's default (7): following on; off is 0."""
QUEUE_INTERVAL = DEFAULTS.queue_interval
"""Seconds between two runs of the `drain` job (HABICHT_QUEUE_INTERVAL, 30)."""
SPANS = (15 * 60.0, 2 * 3600.0)
"""An edit within these many seconds of its change counts as on time."""
SETTLED = 2
"""Rounds in a row with nothing changed after which the drain is taken to wait (`_settle`)."""
_BARRIER = "SELECT 1"
"""`Timeline._settle`'s barrier: an empty write (BEGIN, COMMIT) and this read, which count as
no work."""
MARKS = {"reserved": "🔒", "gone": "❌"}
"""What an edit puts on top of an alert (or on a digest's line) for each change."""
SMALL_STOCK = EstateVolumes(rent_stock=600, buy_stock=1200)
"""The flat world's stock in the quick and default shapes, a third of `--full`'s: a page of
200 answers much the same, and the fake site filters a third as many flats for each request."""


# ----------------------------------------------------------------- the adverts' fates


@dataclass(frozen=True, slots=True)
class Odds:
    """What becomes of a new advert: reserved with chance `reserved`, after a delay drawn
    log-normal with median `reserved_hours` (sigma 1 in the log); else taken off with chance
    `taken_off`, median `taken_off_hours`; else nothing."""

    reserved: float
    reserved_hours: float
    taken_off: float
    taken_off_hours: float


FLAT_ODDS = Odds(reserved=0.5, reserved_hours=2.0, taken_off=0.3, taken_off_hours=4.0)
MARKET_ODDS = Odds(reserved=0.1, reserved_hours=3.0, taken_off=0.25, taken_off_hours=5.0)


@dataclass(frozen=True, slots=True)
class Change:
    """`ad_id` became `kind` ("reserved" or "gone") at `at`."""

    ad_id: str
    at: float
    kind: str
    flat: bool


def fate(advert: FakeAdvert, shown: float, seed: int) -> tuple[float, str] | None:
    """When and how the advert that showed at `shown` changes, if it does (module
    docstring): drawn from its id and the seed only, whatever else the run does."""
    rand = random.Random(f"{seed}:{advert.id}")
    odds = MARKET_ODDS if advert.estate is None else FLAT_ODDS
    draw = rand.random()
    if draw < odds.reserved:
        return shown + 3600 * odds.reserved_hours * rand.lognormvariate(0, 1), "reserved"
    if rand.random() < odds.taken_off:
        return shown + 3600 * odds.taken_off_hours * rand.lognormvariate(0, 1), "gone"
    return None


class Fates:
    """The two worlds of `flats.Beside` on `site`, and the fates of their new adverts: when
    an advert shows, its fate is drawn; when its time comes, the site reserves it or takes it
    down, and `changes` notes it. `new` and `published` cover both worlds' new adverts
    (what `freshness.count_new` reads of a world)."""

    def __init__(self, both: flats.Beside, site: FakeWillhabenSite, *, seed: int) -> None:
        self.both, self.site, self.seed = both, site, seed
        self.changes: list[Change] = []
        self._due: list[tuple[float, str, str]] = []
        self._drawn = [0, 0]  # of the marketplace's and the flats' new adverts
        self._statuses = itertools.cycle((404, 404, 410))

    @property
    def start(self) -> float | None:
        return self.both.start

    @start.setter
    def start(self, at: float | None) -> None:
        self.both.start = at

    @property
    def done(self) -> bool:
        return self.both.done

    @property
    def new(self) -> dict[str, FakeAdvert]:
        return self.both.market.new | self.both.new

    @property
    def published(self) -> dict[str, float]:
        return self.both.market.published | self.both.published

    def advance(self, now: float) -> None:
        self.both.advance(now)
        for n, (adverts, shown) in enumerate(
            (
                (self.both.market.new, self.both.market.published),
                (self.both.new, self.both.published),
            )
        ):
            fresh = len(shown) - self._drawn[n]
            self._drawn[n] = len(shown)
            for ad_id, at in _newest(shown, fresh):
                drawn = fate(adverts[ad_id], at, self.seed)
                if drawn is not None:
                    heapq.heappush(self._due, (drawn[0], ad_id, drawn[1]))
        while self._due and self._due[0][0] <= now:
            at, ad_id, kind = heapq.heappop(self._due)
            if kind == "reserved":
                self.site.set_reserved(ad_id, True)
            else:
                self.site.take_down(ad_id, status=next(self._statuses))
            self.changes.append(Change(ad_id, at, kind, ad_id in self.both.new))


def _newest(items: dict[str, float], count: int) -> list[tuple[str, float]]:
    """The last `count` of `items` (in insertion order), without walking the rest."""
    return list(itertools.islice(reversed(items.items()), count))


# ----------------------------------------------------------------- the scheduler and the drain


class Timeline(freshness.VirtualClock):
    """`freshness.VirtualClock`, with the drain beside the scheduler (module docstring).

    The scheduler's pass (the task PTB's `scrape` job runs, named `SCRAPE`) moves the time
    when it sleeps, as before. Every other sleeper — the drain's pacer, its lingering — waits
    in line instead, and is woken in order of its wake-up while the scheduler's sleep passes;
    so is the `drain` job, every `QUEUE_INTERVAL`. Before each step the drain runs as far as
    it can (`_settle`): its sends and writes take no virtual time, like the scheduler's.
    """

    def __init__(self, world: Fates, observer: freshness.Observer) -> None:
        super().__init__(world, observer)
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []
        self._turn = itertools.count()
        self._waits = 0
        self._statements = 0
        self._spinning: list[tuple[float, asyncio.Future[None]]] = []
        self.spins = 0
        self.spun = 0.0
        """The drain's waits of no time (`sleep(0)`: claim again at once), and the virtual
        seconds until the next event woke them. `_Drain._loop` waits no time when
        `store.next_due` says a row is due that its claim did not take — an edit, with
        `EDIT_FLIGHTS` edits in flight already — so in real time it turns its loop over and
        over meanwhile, a claim (a write) and a read each turn."""
        self.passes: list[float] = []
        """The virtual seconds each scheduler pass took (the `scrape` job, the drain kicked
        at its end)."""
        self.app: BotApplication | None = None
        self.api: FakeBotAPI | None = None
        self._drain_at = freshness.START + QUEUE_INTERVAL

    async def sleep(self, seconds: float) -> None:
        task = asyncio.current_task()
        if task is not None and task.get_name() == SCRAPE:
            await self.pass_time(self.now + max(0.0, seconds))
            return
        woken = asyncio.get_running_loop().create_future()
        self._waits += 1
        if seconds > 0:
            heapq.heappush(self._waiting, (self.now + seconds, next(self._turn), woken))
        else:  # "again at once": at the next event, or time would never move (`spun`)
            self._spinning.append((self.now, woken))
        await woken

    async def pass_time(self, until: float) -> None:
        """Move the time to `until`, waking the drain's sleepers and running the `drain` job
        at their moments on the way."""
        self._stop_spinning()
        while True:
            await self._settle()
            first = self._waiting[0][0] if self._waiting else math.inf
            step = min(first, self._drain_at)
            if step > until:
                break
            self.advance_to(step)
            self._stop_spinning()
            if step >= self._drain_at:
                self._drain_at += QUEUE_INTERVAL
                await self._job(DRAIN)
            while self._waiting and self._waiting[0][0] <= step:
                woken = heapq.heappop(self._waiting)[2]
                if not woken.done():  # a wait cancelled meanwhile is skipped
                    woken.set_result(None)
        self.advance_to(until)
        self._stop_spinning()

    def _stop_spinning(self) -> None:
        """Wake the drain's waits of no time; what they waited is `spun`."""
        for since, woken in self._spinning:
            self.spun += self.now - since
            self.spins += 1
            if not woken.done():
                woken.set_result(None)
        self._spinning.clear()

    async def tick(self) -> None:
        """The `scrape` job, then the time to its next run (at once if its pass took longer);
        each pass's length is kept (`passes`)."""
        began = self.now
        await self._job(SCRAPE)
        self.passes.append(self.now - began)
        start, tick = freshness.START, freshness.TICK
        await self.pass_time(start + (math.floor((self.now - start) / tick) + 1) * tick)

    async def delivered(self) -> None:
        """Pass the time until no drain runs (an hour at most: nothing here waits longer)."""
        since = self.now
        while self._draining():
            if self.now - since > 3600:
                raise RuntimeError(f"a drain still runs an hour after {since:.0f}")
            await self.pass_time(self.now + 1.0)

    async def _job(self, name: str) -> None:
        assert self.app is not None
        assert self.app.job_queue is not None
        (job,) = self.app.job_queue.get_jobs_by_name(name)
        await job.run(self.app)

    def _draining(self) -> bool:
        assert self.app is not None
        draining = self.app.bot_data.draining
        return draining is not None and not draining.done()

    async def watch(self, db: Database) -> None:
        """Count the statements the bot runs on `db` (both connections): the drain's work
        that `_settle` waits for."""

        def traced(sql: str) -> None:
            if sql != _BARRIER and not sql.startswith(("BEGIN", "COMMIT", "ROLLBACK")):
                self._statements += 1

        await db.reader.set_trace_callback(traced)
        async with db.transaction() as conn:
            await conn.set_trace_callback(traced)

    async def _settle(self) -> None:
        """Let the drain do what it can at this moment: each round lets every task run, then
        waits for every queued write and read (`_BARRIER`); done after `SETTLED` rounds in a
        row that changed nothing the drain shows (its statements, tasks, sleepers and sends),
        or once it has ended. Only the drain runs meanwhile: the scheduler is waiting here."""
        if self.app is None or not (self._waiting or self._spinning or self._draining()):
            return
        db, api = self.app.bot_data.db, self.api
        assert api is not None
        seen, still = None, 0
        for _ in range(1000):
            if still >= SETTLED or not self._draining():
                return
            for _ in range(20):
                await asyncio.sleep(0)
            async with db.transaction():
                pass
            await db.fetchone(_BARRIER)
            state = (self._statements, self._waits, len(asyncio.all_tasks()), api.calls.total())
            still = still + 1 if state == seen else 0
            seen = state
        raise RuntimeError(f"the drain never came to rest at {self.now:.0f}")


@asynccontextmanager
async def running(
    path: Path, site: FakeWillhabenSite, clock: Timeline, *, follow_days: float
) -> AsyncIterator[BotApplication]:
    """The bot `habicht run` starts on the database at `path`, with the clock's world behind
    the willhaben client and the fake Bot API behind Telegram (`clock.api`)."""
    api = FakeBotAPI(clock=clock)
    # Every other setting is its default: the gap, the intervals, the drain's (DEFAULTS).
    settings = replace(
        DEFAULTS,
        bot_token=api.token,
        db=path,
        willhaben_url=freshness.SITE,
        follow_days=follow_days,
    )
    app = build_application(
        settings,
        clock=clock,
        sleep=clock.sleep,
        telegram_transport=httpx.MockTransport(api.handle),
        willhaben_transport=clock.observer.transport(site),
    )
    # PTB's AIORateLimiter counts real seconds: in virtual time it would hold sends back for
    # real ones. The queue's pacer keeps Telegram's limits (the fake counts any broken).
    app.bot._rate_limiter = None
    starting, stopping = app.post_init, app.post_shutdown
    assert starting is not None  # both set by the builder
    assert stopping is not None
    with api:
        async with app:
            await starting(app)
            clock.app, clock.api = app, api
            await clock.watch(app.bot_data.db)
            try:
                yield app
            finally:
                clock.app = None
                await stopping(app)


# ----------------------------------------------------------------- one run


@dataclass(frozen=True)
class Plan:
    """The shape both runs share."""

    world: flats.Shape
    script: freshness.Script
    volumes: EstateVolumes
    hours: float
    tail: float
    seed: int


@dataclass
class Run:
    """One run's figures (module docstring)."""

    following: bool
    delivered: freshness.Result
    """The new adverts' alerts, their latency from publication to delivery."""
    queued: freshness.Result
    """The same, to the outbox."""
    hours: float
    requests: Counter[str] = field(default_factory=Counter)
    """While the world ran and after: "feeds", "scans", "page checks"."""
    owed: dict[str, list[tuple[float | None, float]]] = field(default_factory=dict)
    """Each edit owed, by change: seconds until it came (None: never), seconds the run went
    on after the change."""
    changed: Counter[str] = field(default_factory=Counter)
    """Changed adverts with an alert delivered before the change, by change."""
    found: Counter[str] = field(default_factory=Counter)
    """Page checks by what they found (`page_checks`)."""
    counts: Counter[str] = field(default_factory=Counter)
    """New-listing alerts delivered ("alerts") and their adverts ("adverts"), the edits
    Telegram took ("edits"), the limits the fake saw broken ("violations"), the drain's
    waits of no time ("spins")."""
    waits: list[float] = field(default_factory=list)
    """Each new-listing alert's wait in the outbox: queued → delivered."""
    passes: list[float] = field(default_factory=list)
    """Each scheduler pass's length while the world ran (`Timeline.passes`)."""
    spun: float = 0.0
    wall: float = 0.0


async def simulate(plan: Plan, *, following: bool, folder: Path) -> Run:
    """One run on a new world and a new database: the baselines, the world's hours, then
    the tail (following on) or until every search was scanned once more (off: its new
    adverts' alerts are all there is to count), then every drain to its end."""
    wall = time.perf_counter()
    site = FakeWillhabenSite(world=True)
    market = freshness.World(site, plan.script, seed=plan.seed)
    estate = FlatWorld(
        site,
        start=freshness.START,
        hours=plan.hours,
        seed=plan.seed + flats.FLAT_SEED,
        volumes=plan.volumes,
    )
    world = Fates(flats.Beside(market, estate), site, seed=plan.seed)
    clock = Timeline(world, freshness.Observer())
    path = folder / f"following-{'on' if following else 'off'}.sqlite3"
    async with Database(path) as db:
        await freshness.populate(db, plan.world.urls, plan.world.pairs, clock())
    async with running(path, site, clock, follow_days=FOLLOW_DAYS if following else 0) as app:
        db = app.bot_data.db
        while await db.single_value("SELECT count(*) FROM watches WHERE baseline_at IS NULL"):
            await clock.tick()
        await clock.delivered()
        world.start = begun = clock()
        seen, first = len(site.log), len(clock.passes)
        while clock() < begun + plan.hours * 3600 or not world.done:  # late flats show too
            await clock.tick()
        ended, passes = clock(), clock.passes[first:]
        # Off, only the new adverts' alerts count: until every search was scanned once more.
        while (following and clock() < ended + plan.tail * 3600) or await db.single_value(
            "SELECT count(*) FROM searches WHERE last_attempt_at < ?", (ended,)
        ):
            await clock.tick()
        await clock.delivered()
        run = await tally(plan, world, clock, db, begun=begun, following=following)
        run.passes = passes
        run.requests = kinds(site.log[seen:], await db.fetchall("SELECT url FROM feeds"))
        # The page checks are the requests for adverts' own pages (none in the baselines).
        assert run.requests["page checks"] == site.advert_pages.total()
    run.wall = time.perf_counter() - wall
    return run


async def tally(
    plan: Plan, world: Fates, clock: Timeline, db: Database, *, begun: float, following: bool
) -> Run:
    """What the run did, from the database and the fake Bot API, against the world's truth."""
    api = clock.api
    assert api is not None
    truth = freshness.Truth(plan.world.urls, plan.world.pairs)
    minutes, baselines = (clock() - begun) / 60, (begun - freshness.START) / 60
    delivered, queued = (
        freshness.Result(name, minutes=minutes, requests=0, baselines_minutes=baselines)
        for name in ("delivered", "queued")
    )
    rows = await db.fetchall(
        "SELECT chat_id, ad_id, kind, created_at, sent_at, dedupe_key, message_id, sent_as"
        " FROM notifications WHERE kind IN ('new', 'drop')"
    )
    freshness.count_new(queued, world, truth, rows)
    # Delivered: the same rows, dated by their delivery (`count_new` reads `created_at`);
    # the rows of one message (a digest's lines) a millisecond apart in the order they were
    # queued, or a digest that says "new" and "cheaper" of one advert would count as a drop
    # first and then a new-listing alert twice.
    sent = await db.fetchall(
        "SELECT chat_id, ad_id, kind, dedupe_key, message_id, sent_as, sent_at + 0.001 *"
        " (row_number() OVER (PARTITION BY chat_id, message_id ORDER BY id) - 1) AS created_at"
        " FROM notifications WHERE kind IN ('new', 'drop') AND status = 'sent'"
    )
    freshness.count_new(delivered, world, truth, sent)
    found = await db.fetchall("SELECT found, count(*) FROM page_checks GROUP BY found")
    new = [row for row in rows if row["kind"] == "new" and row["sent_at"] is not None]
    run = Run(
        following,
        delivered,
        queued,
        minutes / 60,
        found=Counter({row[0]: row[1] for row in found}),
        waits=[row["sent_at"] - row["created_at"] for row in new],
        spun=clock.spun,
    )
    run.counts.update(
        alerts=len(new),
        adverts=len({row["ad_id"] for row in new}),
        edits=len(api.edits),
        violations=len(api.violations),
        spins=clock.spins,
    )
    run.owed, run.changed = owed_edits(world.changes, sent, api, ended=clock())
    return run


def kinds(log: list[httpx.Request], feeds: list[Row]) -> Counter[str]:
    """The requests of `log` by what they read: a feed, a search, an advert's own page."""
    feed_paths = {httpx.URL(row["url"]).path for row in feeds}
    found: Counter[str] = Counter()
    for request in log:
        params = set(request.url.params.keys()) - {"rows", "page", "sort"}
        if request.url.path in feed_paths and not params:
            found["feeds"] += 1
        elif request.url.path.startswith("/iad/") and "/d/" in request.url.path:
            found["page checks"] += 1
        else:
            found["scans"] += 1
    return found


def owed_edits(
    changes: list[Change], sent: list[Row], api: FakeBotAPI, *, ended: float
) -> tuple[dict[str, list[tuple[float | None, float]]], Counter[str]]:
    """For each change, each alert of its advert delivered before it: how long until its
    message said so (None: never), and how long the run went on after the change; and how
    many changed adverts had an alert delivered before. By change and world ("reserved
    flats", "gone market", …)."""
    alerts: dict[str, list[Row]] = {}
    for row in sent:
        if row["message_id"] is not None:
            alerts.setdefault(row["ad_id"], []).append(row)
    owed: dict[str, list[tuple[float | None, float]]] = {
        f"{kind} {where}": [] for kind in MARKS for where in ("flats", "market")
    }
    changed: Counter[str] = Counter()
    for change in changes:
        told = [row for row in alerts.get(change.ad_id, []) if row["created_at"] < change.at]
        key = f"{change.kind} {'flats' if change.flat else 'market'}"
        changed[key] += bool(told)
        for row in told:
            came = next(
                (
                    edit.at - change.at
                    for edit in api.edits_of(row["chat_id"], row["message_id"])
                    if edit.at >= change.at
                    and says(edit.text, change, digest=row["sent_as"] == "digest")
                ),
                None,
            )
            owed[key].append((came, ended - change.at))
    return owed, changed


def says(text: str, change: Change, *, digest: bool) -> bool:
    """Whether a message (a digest: the advert's line) tells the change."""
    lines = [line for line in text.splitlines() if not digest or f"-{change.ad_id}/" in line]
    return any(MARKS[change.kind] in line for line in lines)


# ----------------------------------------------------------------- the report

percentile, seconds = freshness.percentile, freshness.seconds


def share(owed: list[tuple[float | None, float]], span: float) -> tuple[int, int]:
    """Of the edits owed at least `span` before the run ended, how many came within it."""
    counted = [came for came, lasted in owed if lasted >= span]
    return sum(came is not None and came <= span for came in counted), len(counted)


def shown(part: tuple[int, int]) -> str:
    on_time, of = part
    return f"{on_time / of:.0%} of {of}" if of else "—"


def spread(values: list[float]) -> str:
    """p50 / p95 / max, in seconds."""
    points = (percentile(values, 0.5), percentile(values, 0.95), max(values, default=None))
    return " / ".join(seconds(point) for point in points)


def report_edits(run: Run) -> None:
    print(f"\nedits of alerts delivered before their advert changed ({run.hours:.1f} h)")
    print(
        f"{'change':15} {'adverts':>7} {'alerts':>6} {'≤ 15 min':>12} {'≤ 2 h':>12}"
        f" {'p50 / p95 / max s':>19} {'not in 2 h':>10}"
    )
    for kind in MARKS:
        rows = {f"{kind} {where}": run.owed[f"{kind} {where}"] for where in ("flats", "market")}
        both = [edit for owed in rows.values() for edit in owed]
        changed = sum(run.changed[key] for key in rows)
        for name, owed, adverts in (
            (kind, both, changed),
            *((k, v, run.changed[k]) for k, v in rows.items()),
        ):
            came = [c for c, _ in owed if c is not None]
            quick, slow = share(owed, SPANS[0]), share(owed, SPANS[1])
            print(
                f"{name:15} {adverts:7} {len(owed):6} {shown(quick):>12} {shown(slow):>12}"
                f" {spread(came):>19} {slow[1] - slow[0]:10}"
            )


def most_checks() -> int:
    """The page checks one followed advert gets at most while its alert is followed
    (HABICHT_FOLLOW_DAYS): no read shows it after its alert, no check proves it gone
    (`watches.follow.due_after`): the first an interval after the alert, each next one
    after twice the wait before, at most `YOUNG_CAP` intervals while the alert is younger
    than a day and `OLD_CAP` after."""
    at, checks = freshness.INTERVAL, 0
    while at <= FOLLOW_DAYS * DAY:
        checks += 1
        cap = YOUNG_CAP if at <= DAY else OLD_CAP
        at += freshness.INTERVAL * min(2 ** min(checks, 8), cap)
    return checks


def report_checks(on: Run, off: Run) -> None:
    """The page checks' requests, per day and scaled to 1,000 alerts (and alerted adverts)
    a day; beside them the most the rule allows once a week of alerts is followed."""
    days = on.hours / 24
    checks = on.requests["page checks"]
    a_day = checks / days
    alerts, adverts = on.counts["alerts"] / days, on.counts["adverts"] / days
    allowed = 86400 / freshness.GAP
    found = ", ".join(f"{kind} {n:,}" for kind, n in sorted(on.found.items()))
    print(
        f"\npage checks: {checks:,} requests in {on.hours:.1f} h ({found}), {a_day:,.0f} a day,"
        f" for {alerts:,.0f} alerts a day ({on.counts['adverts']:,} adverts alerted in the run,"
        f" {alerts / adverts:.1f} alerts an advert); following off: {off.requests['page checks']}"
    )
    most = most_checks()
    for per, rate in (("alerts", alerts), ("alerted adverts", adverts)):
        scaled = a_day * 1000 / rate
        bound = most * adverts / rate * 1000
        print(
            f"  at 1,000 {per} a day: {scaled:,.0f} a day ({scaled / allowed:.1%} of the"
            f" {allowed:,.0f} requests the gap allows); at most {bound:,.0f} a day"
            f" ({bound / allowed:.0%}) once a week of alerts is followed, if no read showed an"
            f" advert after its alert and none were gone ({most} checks an advert)"
        )
    print(f"{'requests a minute':17} {'feeds':>6} {'scans':>6} {'page checks':>11} {'all':>6}")
    for run in (on, off):
        minutes = run.hours * 60
        print(
            f"{'following ' + ('on' if run.following else 'off'):17}"
            f" {run.requests['feeds'] / minutes:6.1f} {run.requests['scans'] / minutes:6.1f}"
            f" {run.requests['page checks'] / minutes:11.1f}"
            f" {run.requests.total() / minutes:6.1f}"
        )


def report_alerts(on: Run, off: Run) -> None:
    print(
        f"\n{'new adverts':13} {'p50 s':>6} {'p95 s':>6} {'p95 local':>9} {'p95 plain':>9}"
        f" {'max s':>6} {'owed':>6} {'delivered':>9} {'missing':>7} {'false':>5} {'dup':>4}"
        f" {'queued p50/p95':>14} {'queued→delivered':>16} {'edits':>6} {'violations':>10}"
        f" {'wall s':>6}"
    )
    for run in (on, off):
        r, q = run.delivered, run.queued
        queued = " / ".join(seconds(percentile(q.latencies, p)) for p in (0.5, 0.95))
        print(
            f"{'following ' + ('on' if run.following else 'off'):13}"
            f" {seconds(percentile(r.latencies, 0.5)):>6}"
            f" {seconds(percentile(r.latencies, 0.95)):>6}"
            f" {seconds(percentile(r.local_latencies, 0.95)):>9}"
            f" {seconds(percentile(r.plain_latencies, 0.95)):>9}"
            f" {seconds(max(r.latencies, default=None)):>6} {r.owed:6,} {r.queued:9,}"
            f" {r.missing:7} {r.false:5} {r.duplicate:4} {queued:>14}"
            f" {spread(run.waits):>16} {run.counts['edits']:6,}"
            f" {run.counts['violations']:10} {run.wall:6.0f}"
        )
    for name, results in (
        ("delivered", (on.delivered, off.delivered)),
        ("queued", (on.queued, off.queued)),
    ):
        p95 = [percentile(result.latencies, 0.95) for result in results]
        p50 = [percentile(result.latencies, 0.5) for result in results]
        if p95[0] and p95[1] and p50[0] and p50[1]:
            print(
                f"publication → {name}, following on / off: p95 {p95[0] / p95[1]:.2f}x,"
                f" p50 {p50[0] / p50[1]:.2f}x"
            )
    print(
        "scheduler passes while the world ran, p50 / p95 / max s: following on"
        f" {spread(on.passes)}, off {spread(off.passes)} (a drain is kicked at the end of each,"
        f" and every {QUEUE_INTERVAL:g} s by the drain job)"
    )
    print(
        "the drain's waits of no time (claim again at once) with following on:"
        f" {on.counts['spins']:,}, {on.spun:,.0f} s of virtual time until the next event"
        f" (off: {off.counts['spins']:,})"
    )


async def main(args: argparse.Namespace) -> None:
    logging.getLogger("habicht").setLevel(logging.ERROR)
    world = flats.shape(args.market, args.searches, args.seed)
    plan = Plan(
        world,
        freshness.script(args.seed, args.hours),
        EstateVolumes() if args.full else SMALL_STOCK,
        args.hours,
        args.tail,
        args.seed,
    )
    print(
        f"{args.searches:,} flat searches / {len(world.flats[1]):,} watches beside"
        f" {args.market:,} marketplace searches / {len(world.market[1]):,} watches;"
        f" {args.hours:g} h of the world after the baselines, {args.tail:g} h more;"
        f" gap {freshness.GAP:g} s, a pass every {freshness.TICK:g} s, a drain at least every"
        f" {QUEUE_INTERVAL:g} s"
    )
    with tempfile.TemporaryDirectory(dir=args.folder) as tmp:
        on, off = [
            await simulate(plan, following=following, folder=Path(tmp))
            for following in (True, False)
        ]
    report_edits(on)
    report_checks(on, off)
    report_alerts(on, off)


SHAPES = {
    "hours": ("hours of the world after the baselines", float, (1.0, 0.5, 6.0)),
    "tail": ("hours the passes go on after it", float, (2.0, 0.25, 2.0)),
    "searches": ("flat searches, 5 watches each", int, (16, 8, 80)),
    "market": ("marketplace searches beside them", int, (4, 2, 20)),
}
"""Each size: what it is, its type, and its value by default, with --quick, with --full."""


def arguments() -> argparse.Namespace:
    """The command line; `--quick` and `--full` change the sizes not given (`SHAPES`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=34, help="the worlds' seed (34)")
    for name, (about, kind, sizes) in SHAPES.items():
        parser.add_argument(f"--{name}", type=kind, help=f"{about} ({sizes[0]:g})")
    which = parser.add_mutually_exclusive_group()
    for flag, about in (
        ("--quick", "a small world in seconds (CI)"),
        ("--full", "80 flat searches beside 20, the whole stock, 6 h"),
    ):
        which.add_argument(flag, action="store_true", help=about)
    args = parser.parse_args()
    args.folder = freshness.RAM_DISK if freshness.RAM_DISK.is_dir() else None
    for name, (_, _, sizes) in SHAPES.items():
        if getattr(args, name) is None:
            setattr(args, name, sizes[2 if args.full else 1 if args.quick else 0])
    return args


if __name__ == "__main__":
    asyncio.run(main(arguments()))
