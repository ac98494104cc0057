"""Freshness at scale: publication → alert latency with the shared feed and without it.

The question of issue 20: how long a new advert waits for its alert when thousands of watches
share one politeness budget. Both schedulers run in the same run on the same world:

- **feeds on**: the scheduler as `habicht run` runs it (`HABICHT_FEED_INTERVAL=60`,
  `HABICHT_SAFETY_INTERVAL=1800`): one marketplace feed a minute serves every local search,
  each search's own scan is the safety net;
- **feeds off** (`HABICHT_FEED_INTERVAL=0`, today's scheduler before issue 20): every search
  polled on its own every `HABICHT_SCRAPE_INTERVAL` (300 s), stretched by the budget.

The world is `habicht.fakes.willhaben_site.FakeWillhabenSite(world=True)` on a virtual clock
(`HABICHT_FETCH_GAP=2`: every request costs 2 s of virtual time, nothing real): 20 marketplace
categories, each publishing new adverts at its own Poisson rate between 0.5 and 5 a minute,
bumping its older adverts at the same rate (so about half of what page 1 shows is bumped)
and dropping prices. 2 % of the new adverts say a word of their title's kind only further down
the description than a page's snippet (only willhaben's own search finds it: the safety net
must). Searches are drawn with Zipf popularity over categories (or the whole marketplace, as
`/watch <words>` searches) and words, with price caps and seller types; 80 % are local, the
other 20 % name an area (`areaId`) and are polled as before. Watches are Zipf over the
searches (each search at least one), five a chat.

The bot is built as `habicht run` builds it (`build_application`, its `post_init`: the app's
renderer, the willhaben client with the injected virtual clock and sleep), and a pass of the
real `run_pass` runs every 10 s of virtual time with `slack=10`, as the `scrape` job does
(a pass that takes longer is followed at once by the next). After every watch's baseline the
world runs for `--hours` simulated hours; then the passes go on, the world still, until
every search was scanned once more (so a late advert is not counted missing only because the
window ended). Its database is a real SQLite file, on a RAM disk where there is one (the
fsyncs are not what is measured: time is virtual).

What is owed comes from the world's truth, not from habicht's matching:
`habicht.fakes.willhaben_world.listed` says which searches list each new advert, and a chat
is owed one alert per advert when any of its watches' searches lists it. Printed per
scheduler: requests a minute (the gap allows 30), publication → enqueue latency p50 / p95 /
max of the owed alerts (and the p95 of those a local search of the chat lists, and of those
only plain searches list), feed misses, and owed vs queued: missing (owed, never queued),
false (queued, not owed), duplicate (more than one new-listing alert of one advert to one
chat). "as drop": owed alerts that came as a drop "now within your search" — the advert's
price fell before the chat's search first showed it, and habicht, which knew it dearer from
another read, cannot tell that from an advert that came into a price range by a drop (kept
as designed: `habicht.watches.diff`); it is the chat's one alert of the advert. A drop
never moves an advert across a price bound of any search here, so which searches list an
advert never changes. "old": new-listing alerts for adverts from before the baselines
(bumped ones a watch had not seen), "drops": every drop alert queued.

Issue 26 adds, per scheduler (a second table):

- **price drops**: the world cuts the price of a live advert at a fifth of each category's
  publishing rate. A cut is owed to every chat a search of which lists the advert and that
  knew it before the cut: from its baseline (an advert from before the world started) or an
  alert of it created before the cut. It is served by the chat's first drop alert (kind
  "drop") of the advert at the cut's price or lower — its `dedupe_key` ends in the new
  price; one read that finds two cuts serves both with one alert — and its latency runs from
  the cut to that alert's `created_at`: p50 / p95 / max, the p95 of those a local ("fed")
  search of the chat lists and of the rest, owed, missing (owed, never queued) and dup (more
  than one drop alert to a chat for one advert at one price);
- **coverage**: coverage misses (`ScanSummary.coverage_misses`) summed over the passes;
- **feed reads** while the world runs, their pages, and the CPU a page: the process CPU
  (`time.process_time`, the database's threads too) of each feed read, told apart from a
  search's scan by `run_pass`'s `progress` and `on_scanned` callbacks, from its first
  request to its end, less what the fake site and the world spent meanwhile (`Observer`);
- **MB/day**: how much the database grew (`PRAGMA page_count`: the file's size with its
  write-ahead log checkpointed) from the world's start to the end of the passes after it,
  per day of the world's script (nothing is delivered, so every alert stays a pending row);
  **WAL MB**: the log's file at the end, its high-water mark.

**The outage scenario** (`--outage H`, 0 for none): `--outage-searches` searches, a world of
a quarter hour, `H` hours of willhaben out (`--fault down`: every request a
`ConnectError`; `forbidden`: a 403 and the block page, so the client's block backoff holds
requests back), a quarter hour more; the same tables, both schedulers. **Feed reads alone**
(`--feed-cost N ...`): the CPU of a feed read at N searches without simulating their
baselines — the watches are written as complete baselines leave them (every advert of the
world their search lists, seen at its price), each feed is read once with the world still
(untimed: it shows nothing new), once more a minute later (timed apart: a *quiet* read, what
a read costs with nothing new to judge), then the world runs `--feed-minutes` (a read a
minute) and each read is timed; no search falls due meanwhile. Beside the CPU a read, the
alerts a read queues and the CPU each costs above a quiet read (µs/alert).
Issue 26's goals are printed beside the figures, met or not: new adverts p95 ≤ 60 s at
10,000 watches (`--full`'s first shape), price drops of fed searches p95 no worse with feeds
than without, missing, false and duplicates 0 with and without the outage, a feed page's
matching ≤ 0.2 s CPU at 10,000 searches (judged on the whole read, an upper bound); and
issue 36's: a whole feed read (matching and judging) ≤ 1 s CPU at 10,000 searches.

`--quick` (CI) runs 40 searches / 200 watches for 20 minutes, the outage scenario with 10
searches and a quarter-hour outage, and feed reads alone at 100 searches, in about 17 s: its
figures say nothing. The default, what `make bench` runs, is 200 searches / 1,000 watches
for a quarter of an hour, the outage scenario with 20 searches and 3 hours out (3.5 h of
world), and feed reads alone at 2,000 and 10,000 searches, a minute each: 2½ to 3 minutes,
a minute of it the 10,000 searches' two feed reads (`make bench` must stay within 10).
`--full` is issue 20's shape — 2,000 searches / 10,000 watches, then 200 / 1,000, 3 hours
each, about 45 minutes: the 2,000 searches' baselines alone are an hour of virtual time,
every feed read is judged for 1,500 local searches, and 1.2 million alerts are queued — and
then the outage at 200 searches and three minutes of feed reads alone (not timed).

Run it with the worktree's habicht first on the path (`PYTHONPATH=.`) where the virtual
environment's editable install points at another checkout.

    python benchmarks/freshness.py [--quick | --full] [--hours H] [--searches N ...]
                                   [--outage H] [--outage-searches N]
                                   [--fault down|forbidden] [--feed-cost N ...]
                                   [--feed-minutes M] [--seed N]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import random
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from sqlite3 import Row
from typing import Protocol, TypeVar

import httpx

from habicht.bot import BotServices, build_application
from habicht.config import Settings
from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import FakeBotAPI
from habicht.fakes.willhaben_estate import SEGMENTS
from habicht.fakes.willhaben_site import FakeWillhabenSite, SiteFault
from habicht.fakes.willhaben_world import lister
from habicht.scraper.schedule import FeedCadence, run_pass
from habicht.willhaben.local import local_search
from habicht.willhaben.urls import parse_watch_argument

SITE = "http://willhaben.test"
MARKET = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz"
TICK = 10.0
"""Seconds between the bot's scheduler passes (`habicht.bot.jobs.TICK`): a pass's slack."""
GAP = 2.0
FEED_INTERVAL, SAFETY, INTERVAL = 60.0, 1800.0, 300.0
WATCHES_PER_CHAT = 5
START = 1_790_000_000.0
RAM_DISK = Path("/dev/shm")
OUTAGE_MARGIN = 0.25
"""Hours the world of the outage scenario runs before the outage, and again after it."""
FAULTS = {
    "down": (SiteFault.down, "unreachable"),
    "forbidden": (SiteFault.forbidden, "blocking (403)"),
}
"""The outage as the site shows it (`--fault`): a `httpx.ConnectError` for every request, or
a 403 with the block page (the client's block backoff then holds every request back)."""
# Issue 26's goals.
GOAL_P95, GOAL_WATCHES = 60.0, 10_000
"""New adverts: p95 from publication to the alert's enqueue, in seconds, at this many watches."""
GOAL_CPU, GOAL_SEARCHES = 0.2, 10_000
"""A feed page's matching: CPU seconds a page at this many searches."""
GOAL_READ_CPU = 1.0
"""Issue 36's goal: CPU seconds of a whole feed read (matching and judging) at `GOAL_SEARCHES`."""
CATEGORIES = (
    "fahrraeder-4552",
    "sofas-couches-4710",
    "digitalkameras-2715",
    "handys-smartphones-2691",
    "laptops-notebooks-5832",
    "kinderwagen-3925",
    "ski-4593",
    "gitarren-2831",
    "lampen-leuchten-4731",
    "tische-4716",
    "kuehlschraenke-2568",
    "drucker-5830",
    "spielkonsolen-2785",
    "uhren-3340",
    "jacken-3221",
    "schuhe-3230",
    "buecher-2871",
    "monitore-5834",
    "zelte-4604",
    "grills-4755",
)
# fmt: off
NOUNS = (
    "Fahrrad", "Sofa", "Kamera", "Handy", "Laptop", "Kinderwagen", "Ski", "Gitarre", "Lampe",
    "Tisch", "Kühlschrank", "Drucker", "Konsole", "Uhr", "Jacke", "Schuhe", "Buch", "Monitor",
    "Zelt", "Grill",
)
"""What each category sells, in `CATEGORIES`' order."""
BRANDS = (
    "Sony", "Bosch", "Ikea", "Apple", "Samsung", "Miele", "Canon", "Lego", "Puma", "Nike",
    "Dyson", "Philips",
)
WORDS = (
    "neu", "gebraucht", "top", "defekt", "xl", "pro", "mini", "set", "original", "retro", "weiß",
    "schwarz",
)
# fmt: on
AREAS = tuple(str(900 + n) for n in range(1, 10))
PRICE_CAPS = (50, 100, 200, 500, 1000)
PRICE_FLOORS = (20, 100)


Item = TypeVar("Item")


def zipf(rand: random.Random, items: tuple[Item, ...] | list[Item], s: float = 1.0) -> Item:
    """One of `items`, the first the most popular: weight 1 / rank ** s."""
    weights = [1 / (rank + 1) ** s for rank in range(len(items))]
    return rand.choices(items, weights)[0]


# ----------------------------------------------------------------- the world's script


@dataclass(frozen=True, slots=True)
class Happening:
    """One thing the world does `at` seconds after the simulation starts."""

    at: float
    kind: str  # "publish", "bump", "drop"; "down" and "up": the outage starts, ends
    category: int = -1
    advert: FakeAdvert | None = None


@dataclass
class Script:
    """The world's catalogue before the start and everything it does after, from one seed:
    both schedulers meet the same world."""

    old: list[FakeAdvert]
    happenings: list[Happening]
    rates: list[float]
    hours: float
    outage: tuple[float, float] | None = None
    """Seconds after the start from which and until which willhaben does not answer."""


def _advert(rand: random.Random, category: int, published: float) -> FakeAdvert:
    noun = NOUNS[category]
    words = [zipf(rand, BRANDS), noun, zipf(rand, WORDS)]
    body = None
    if rand.random() < 0.02:  # a word only willhaben's own search finds
        hidden = zipf(rand, WORDS)
        words.remove(words[2])
        body = f"Verkaufe {' '.join(words)}. " + "Sehr guter Zustand, " * 14 + f"{hidden}."
    price = Decimal(max(5, round(rand.lognormvariate(4.8, 1.0))))
    return FakeAdvert(
        str(rand.randrange(500_000_000, 2_200_000_000)),
        " ".join(words),
        price,
        published_ms=int(published * 1000),
        body=body,
        private=rand.random() < 0.7,
        categories=("5000", CATEGORIES[category].rsplit("-", 1)[1]),
        params=(("areaId", rand.choice(AREAS)),),
    )


def script(seed: int, hours: float, *, outage: float = 0.0) -> Script:
    """The catalogue (60 adverts a category, up to 30 days old) and `hours` of happenings;
    with an `outage` (hours), willhaben is down that long in the middle of them."""
    rand = random.Random(seed)
    old = [
        _advert(rand, c, START - rand.uniform(3600, 30 * 86400))
        for c in range(len(CATEGORIES))
        for _ in range(60)
    ]
    rates = [rand.uniform(0.5, 5.0) / 60 for _ in CATEGORIES]  # a second
    happenings: list[Happening] = []
    for category, rate in enumerate(rates):
        for kind, per_second in (("publish", rate), ("bump", rate), ("drop", rate / 5)):
            at = rand.expovariate(per_second)
            while at < hours * 3600:
                happenings.append(Happening(at, kind, category))
                at += rand.expovariate(per_second)
    happenings.sort(key=lambda happening: happening.at)
    # The new adverts are drawn here, in time order, so both runs publish the same ones.
    made = [
        replace(h, advert=_advert(rand, h.category, 0.0)) if h.kind == "publish" else h
        for h in happenings
    ]
    window = None
    if outage:
        down = (hours - outage) / 2 * 3600
        window = (down, down + outage * 3600)
        made += [Happening(window[0], "down"), Happening(window[1], "up")]
        made.sort(key=lambda happening: happening.at)
    return Script(old, made, rates, hours, window)


def _band(price: Decimal) -> tuple[int, int]:
    """The price bounds of any search around `price`: a drop stays inside them, so which
    searches list an advert never changes (an advert that drops into a search is a case of
    its own, `tests/scraper/test_detection.py`, not what this benchmark counts)."""
    bounds = sorted({0, *PRICE_CAPS, *(floor - 1 for floor in PRICE_FLOORS), 10**9})
    low = max(b for b in bounds if b < price)
    high = min(b for b in bounds if b >= price)
    return low, high


@dataclass(frozen=True, slots=True)
class Cut:
    """The world cut the price of `ad_id` to `price` at `at` (epoch seconds)."""

    ad_id: str
    at: float
    price: Decimal


class World:
    """The script played on the fake site as virtual time passes: `advance(now)` applies
    what happened up to `now`; `published` holds each new advert's publication time, `cuts`
    every price cut, and during the outage the site answers every request with `fault`."""

    def __init__(
        self, site: FakeWillhabenSite, plan: Script, *, seed: int, fault: SiteFault | None = None
    ) -> None:
        self.site = site
        self.plan = plan
        self.fault = fault or SiteFault.down()
        self.rand = random.Random(seed + 1)
        self.start: float | None = None
        self.next = 0
        self.alive: list[list[str]] = [[] for _ in CATEGORIES]
        self.prices: dict[str, Decimal] = {}
        self.adverts: dict[str, FakeAdvert] = {}
        self.published: dict[str, float] = {}
        self.new: dict[str, FakeAdvert] = {}
        self.cuts: list[Cut] = []
        for advert in plan.old:
            self._enter(advert)
        site.publish(*plan.old)

    def _enter(self, advert: FakeAdvert) -> None:
        category = next(n for n, c in enumerate(CATEGORIES) if c.endswith(advert.categories[-1]))
        self.alive[category].append(advert.id)
        assert advert.price is not None
        self.prices[advert.id] = advert.price
        self.adverts[advert.id] = advert

    def advance(self, now: float) -> None:
        """Apply what happened up to `now` (nothing before `start` is set)."""
        if self.start is None:
            return
        happenings = self.plan.happenings
        while self.next < len(happenings) and self.start + happenings[self.next].at <= now:
            self._apply(happenings[self.next], self.start + happenings[self.next].at)
            self.next += 1

    @property
    def done(self) -> bool:
        return self.next >= len(self.plan.happenings)

    def _apply(self, happening: Happening, at: float) -> None:
        if happening.kind == "down":
            self.site.intercept(self.fault)
        elif happening.kind == "up":
            self.site.intercept(None)
        elif happening.kind == "publish":
            assert happening.advert is not None
            advert = replace(happening.advert, published_ms=int(at * 1000))
            self.site.publish(advert)
            self._enter(advert)
            self.published[advert.id] = at
            self.new[advert.id] = advert
        elif happening.kind == "bump":
            alive = self.alive[happening.category]
            self.site.bump(None, self.rand.choice(alive), published_ms=int(at * 1000))
        else:
            ad_id = self.rand.choice(self.alive[happening.category])
            price = self.prices[ad_id]
            low, _ = _band(price)
            lower = max(Decimal(low + 1), (price * Decimal("0.85")).to_integral_value())
            if lower < price:
                self.prices[ad_id] = lower
                self.site.set_price(ad_id, lower)
                self.cuts.append(Cut(ad_id, at, lower))


# ----------------------------------------------------------------- what the benchmark sees


class Observer:
    """What the benchmark sees of the bot's passes beside the database.

    The process CPU time (`time.process_time`: every thread's, the database's too) of each
    feed read, told apart from a search's scan by `run_pass`'s callbacks — `progress` follows
    both, `on_scanned` only a search's. A read counts from its first request to its
    `progress`, less the CPU spent meanwhile in the fake site and the world (`faking`): what
    habicht spends on reading, parsing, matching and judging, not the choice of the next
    read. Only reads whose every request was answered 200 count.
    """

    def __init__(self) -> None:
        self.fake = 0.0
        self.pages = 0  # requests answered 200
        self.reads: list[tuple[float, int]] = []
        """(CPU seconds, pages) of each feed read timed."""
        self.feeds = 0
        """Feed reads as `run_pass` counts them (`ScanSummary.feeds`)."""
        self.coverage_misses = 0
        """Summed from `ScanSummary.coverage_misses`."""
        self.scans = 0
        self._started: tuple[float, float, int] | None = None
        self._failed = False
        self._timed = False

    def restart(self) -> None:
        """Forget what was seen so far (the baselines)."""
        self.reads, self.feeds, self.coverage_misses, self.scans = [], 0, 0, 0

    @contextmanager
    def faking(self) -> Iterator[None]:
        """CPU spent in here is the fakes', not habicht's."""
        started = time.process_time()
        try:
            yield
        finally:
            self.fake += time.process_time() - started

    def transport(self, site: FakeWillhabenSite) -> httpx.MockTransport:
        """The site's transport, noting each request for the timing."""

        def handle(request: httpx.Request) -> httpx.Response:
            if self._started is None:
                self._started = (time.process_time(), self.fake, self.pages)
            try:
                with self.faking():
                    response = site.handle(request)
            except httpx.HTTPError:
                self._failed = True
                raise
            if response.status_code == 200:
                self.pages += 1
            else:
                self._failed = True
            return response

        return httpx.MockTransport(handle)

    def progress(self) -> None:
        """A feed read or a search's scan ended: timed as a feed read until `scanned`."""
        self._timed = self._started is not None and not self._failed
        if self._started is not None and self._timed:
            cpu, fake, pages = self._started
            spent = time.process_time() - cpu - (self.fake - fake)
            self.reads.append((spent, self.pages - pages))
        self._started, self._failed = None, False

    def scanned(self, kind: object) -> None:
        """It was a search's scan."""
        self.scans += 1
        if self._timed:
            self.reads.pop()
            self._timed = False


async def database_bytes(db: Database) -> int:
    """The database's size, its write-ahead log's pages included: the file's size once they
    are checkpointed (free pages too: the file keeps its high-water mark). The files' sizes
    would not do: the log keeps its own high-water mark, megabytes up or down."""
    pages = int(await db.single_value("PRAGMA page_count"))
    return pages * int(await db.single_value("PRAGMA page_size"))


def log_bytes(path: Path) -> int:
    """The write-ahead log's file, as the file system holds it."""
    log = path.with_name(path.name + "-wal")
    return log.stat().st_size if log.exists() else 0


class Stage(Protocol):
    """A world that plays its script as virtual time passes (`World`, or the flat hunters'
    world beside it in `benchmarks/flats.py`): nothing before `start` is set, then
    `advance(now)` plays what happened up to `now`, until it is `done`."""

    start: float | None

    def advance(self, now: float) -> None: ...

    @property
    def done(self) -> bool: ...


class VirtualClock:
    """Virtual time for the bot (`Clock` and `Sleep`): sleeping moves it, and the world acts
    on the way, at the moments its script says."""

    def __init__(self, world: Stage, observer: Observer) -> None:
        self.now = START
        self.world = world
        self.observer = observer

    def __call__(self) -> float:
        return self.now

    def advance_to(self, moment: float) -> None:
        with self.observer.faking():
            self.world.advance(moment)
        self.now = max(self.now, moment)

    async def sleep(self, seconds: float) -> None:
        self.advance_to(self.now + max(0.0, seconds))


# ----------------------------------------------------------------- searches and watches


def searches(count: int, seed: int) -> list[str]:
    """`count` distinct search URLs as subscribers paste them: Zipf over categories and
    words; 80 % local, 20 % with an area."""
    rand = random.Random(seed)
    found: dict[str, None] = {}
    places = ["", *CATEGORIES]  # "" the whole marketplace, as `/watch <words>` searches
    while len(found) < count:
        place = zipf(rand, places, 0.8)
        query: list[tuple[str, str]] = []
        noun = NOUNS[CATEGORIES.index(place)] if place else zipf(rand, NOUNS)
        words = rand.choice(
            [[], [zipf(rand, BRANDS)], [zipf(rand, WORDS)], [zipf(rand, BRANDS), zipf(rand, WORDS)]]
            if place
            else [[noun], [zipf(rand, BRANDS), noun], [noun, zipf(rand, WORDS)]]
        )
        if words:
            query.append(("keyword", " ".join(words).lower()))
        if rand.random() < 0.5:
            query.append(("PRICE_TO", str(rand.choice(PRICE_CAPS))))
        if rand.random() < 0.1:
            query.append(("PRICE_FROM", str(rand.choice(PRICE_FLOORS))))
        if rand.random() < 0.2:
            query.append(("ISPRIVATE", rand.choice("01")))
        if rand.random() < 0.2:
            query.append(("areaId", rand.choice(AREAS)))
        path = f"{MARKET}/{place}" if place else MARKET
        url = str(httpx.URL(path, params=query)) if query else path
        if place or query:
            found[parse_watch_argument(url).url] = None
    return list(found)


def watches(
    count: int, searches: int, seed: int, *, first_chat: int = 10_000
) -> list[tuple[int, int]]:
    """(chat, search index) pairs: every search one watch, the rest Zipf over the searches,
    five a chat, never one search twice in a chat (a watch joins one of the last 50 chats);
    the chats numbered from `first_chat`."""
    rand = random.Random(seed)
    weights = [1 / (rank + 1) for rank in range(searches)]
    wanted = list(range(searches)) + rand.choices(range(searches), weights, k=count - searches)
    rand.shuffle(wanted)
    chats: list[set[int]] = []
    pairs = []
    for search in wanted:
        chat = next(
            (
                n
                for n in range(max(0, len(chats) - 50), len(chats))
                if len(chats[n]) < WATCHES_PER_CHAT and search not in chats[n]
            ),
            None,
        )
        if chat is None:
            chats.append(set())
            chat = len(chats) - 1
        chats[chat].add(search)
        pairs.append((first_chat + chat, search))
    return pairs


async def populate(
    db: Database,
    urls: list[str],
    pairs: list[tuple[int, int]],
    now: float,
    *,
    seen: list[tuple[int, str, str]] | None = None,
) -> None:
    """Chats, searches and watches (`pairs[n]` is watch n + 1) in one transaction, as
    `/watch` leaves them (setup); with `seen`, as a complete baseline of every watch just now
    leaves them: each search scanned, each watch having seen (watch id, advert, price)
    (`feed_cost`)."""
    async with db.transaction() as conn:
        await conn.executemany(
            "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (?, ?, ?)",
            [(chat, now, now) for chat in sorted({chat for chat, _ in pairs})],
        )
        await conn.executemany(
            "INSERT INTO searches (id, url, created_at) VALUES (?, ?, ?)",
            [(n + 1, url, now) for n, url in enumerate(urls)],
        )
        await conn.executemany(
            "INSERT INTO watches (id, chat_id, search_id, label, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            [(n + 1, chat, search + 1, f"w{n}", now) for n, (chat, search) in enumerate(pairs)],
        )
        if seen is not None:
            await conn.execute("UPDATE watches SET baseline_at = ?, baseline_complete = 1", (now,))
            await conn.execute(
                "UPDATE searches SET last_attempt_at = ?, last_success_at = ?", (now, now)
            )
            await conn.executemany(
                "INSERT INTO watch_listings (watch_id, ad_id, last_price, told_price,"
                " first_seen_at) VALUES (?, ?, ?, ?, ?)",
                [(watch, ad_id, price, price, now) for watch, ad_id, price in seen],
            )


# ----------------------------------------------------------------- one run


@dataclass
class Result:
    name: str
    minutes: float
    requests: int
    baselines_minutes: float
    latencies: list[float] = field(default_factory=list)
    local_latencies: list[float] = field(default_factory=list)
    plain_latencies: list[float] = field(default_factory=list)
    owed: int = 0
    queued: int = 0
    missing: int = 0
    false: int = 0
    duplicate: int = 0
    feed_misses: int = 0
    old_alerts: int = 0
    as_drop: int = 0
    drops: int = 0
    drop_latencies: list[float] = field(default_factory=list)
    drop_local_latencies: list[float] = field(default_factory=list)
    drop_plain_latencies: list[float] = field(default_factory=list)
    drops_owed: int = 0
    drops_missing: int = 0
    drops_duplicate: int = 0
    coverage_misses: int = 0
    feeds: int = 0
    feed_reads: list[tuple[float, int]] = field(default_factory=list)
    bytes_a_day: float = 0.0
    wal_bytes: int = 0
    wall: float = 0.0


@asynccontextmanager
async def running_bot(
    path: Path, site: FakeWillhabenSite, clock: VirtualClock, *, feeds: bool
) -> AsyncIterator[BotServices]:
    """The services of the bot `habicht run` starts on the database at `path`."""
    with FakeBotAPI() as api:
        settings = Settings(
            bot_token=api.token,
            db=path,
            fetch_gap=GAP,
            willhaben_url=SITE,
            scrape_interval=INTERVAL,
            feed_interval=FEED_INTERVAL if feeds else 0.0,
            safety_interval=SAFETY,
        )
        app = build_application(
            settings,
            clock=clock,
            sleep=clock.sleep,
            telegram_transport=api.transport(),
            willhaben_transport=clock.observer.transport(site),
        )
        assert app.post_init is not None  # both set by the builder
        assert app.post_shutdown is not None
        async with app:
            await app.post_init(app)
            try:
                yield app.bot_data
            finally:
                await app.post_shutdown(app)


async def one_pass(services: BotServices, clock: VirtualClock) -> None:
    """A scheduler pass as the `scrape` job runs it; then the clock moves to the next tick
    (at once after a pass that took longer)."""
    settings, observer = services.settings, clock.observer
    summary = await run_pass(
        services.db,
        services.client,
        services.renderer,
        clock=clock,
        max_attempts=settings.max_attempts,
        interval=settings.scrape_interval,
        feeds=(
            FeedCadence(settings.feed_interval, settings.safety_interval)
            if settings.feed_interval
            else None
        ),
        slack=TICK,
        share=services.request_share,
        progress=observer.progress,
        on_scanned=observer.scanned,
    )
    observer.feeds += summary.feeds
    observer.coverage_misses += summary.coverage_misses
    clock.advance_to(START + (math.floor((clock() - START) / TICK) + 1) * TICK)


async def passes(
    services: BotServices, clock: VirtualClock, until: Callable[[], Awaitable[bool]]
) -> None:
    """Scheduler passes, a pass every TICK seconds, until `until()` is true."""
    while not await until():
        await one_pass(services, clock)


def shelf(url: str) -> str:
    """Where a search of this benchmark looks: "" the whole marketplace, a category's id, or
    a real-estate category's path segment (`mietwohnungen`)."""
    path = httpx.URL(url).path.rstrip("/")
    if path.startswith("/iad/immobilien/"):
        return path.split("/")[3]
    return "" if path == "/iad/kaufen-und-verkaufen/marktplatz" else path.rsplit("-", 1)[1]


def shelves(advert: FakeAdvert) -> tuple[str, ...]:
    """The `shelf`s of the searches that may list `advert`."""
    if advert.estate is not None:
        return (SEGMENTS[advert.estate.category],)
    return ("", advert.categories[-1])


class Truth:
    """The world's truth, not habicht's matching: which searches list an advert
    (`habicht.fakes.willhaben_world.lister`), and so which chats it is owed to; and which
    searches are local, as habicht reads them (`local_search`), to tell their alerts' latency
    apart."""

    def __init__(self, urls: list[str], pairs: list[tuple[int, int]]) -> None:
        self.checks = [lister(httpx.URL(url)) for url in urls]
        self.by_category: dict[str, list[int]] = {}
        for n, url in enumerate(urls):
            self.by_category.setdefault(shelf(url), []).append(n)
        self.chats: dict[int, list[int]] = {}
        for chat, search in pairs:
            self.chats.setdefault(search, []).append(chat)
        self.local = [local_search(url) is not None for url in urls]

    def searches_of(self, advert: FakeAdvert) -> list[int]:
        """The searches (indexes of `urls`) that list `advert`."""
        candidates = [n for key in shelves(advert) for n in self.by_category.get(key, [])]
        return [search for search in candidates if self.checks[search](advert)]

    def chats_of(self, advert: FakeAdvert) -> dict[int, bool]:
        """The chats a search of which lists `advert`, each with whether a local one does."""
        found: dict[int, bool] = {}
        for search in self.searches_of(advert):
            for chat in self.chats.get(search, []):
                found[chat] = found.get(chat, False) or self.local[search]
        return found


class Published(Protocol):
    """What `count_new` reads of a world: each new advert by id, and when it was published."""

    @property
    def new(self) -> dict[str, FakeAdvert]: ...

    @property
    def published(self) -> dict[str, float]: ...


def count_new(
    result: Result, world: Published, truth: Truth, rows: list[Row]
) -> dict[tuple[int, str], float]:
    """The new adverts' alerts against what is owed: latencies, missing, false, duplicate;
    when each chat was first told of each new advert."""
    owed: dict[tuple[int, str], bool] = {}  # (chat, advert) -> a local search of it lists it
    for ad_id, advert in world.new.items():
        for chat, local in truth.chats_of(advert).items():
            owed[chat, ad_id] = local
    alerts: dict[tuple[int, str], list[tuple[float, str]]] = {}
    for row in rows:
        if row["ad_id"] in world.new:
            alerts.setdefault((row["chat_id"], row["ad_id"]), []).append(
                (row["created_at"], row["kind"])
            )
        else:
            result.old_alerts += row["kind"] == "new"
    # A chat's first alert of a new advert; a drop when its price fell before the chat's
    # search first showed it (`diff`: "now within your search" — habicht cannot tell that
    # from a drop into a price range).
    first = {pair: min(found) for pair, found in alerts.items()}
    result.owed, result.queued = len(owed), len(first)
    result.as_drop = sum(kind == "drop" for _, kind in first.values())
    result.missing = len(owed.keys() - first.keys())
    result.false = len(first.keys() - owed.keys())
    result.duplicate = sum(
        sum(kind == "new" for _, kind in found) - (first[pair][1] == "new")
        for pair, found in alerts.items()
    )
    for pair in owed.keys() & first.keys():
        latency = first[pair][0] - world.published[pair[1]]
        result.latencies.append(latency)
        (result.local_latencies if owed[pair] else result.plain_latencies).append(latency)
    return {pair: at for pair, (at, _) in first.items()}


def count_drops(
    result: Result,
    world: World,
    truth: Truth,
    rows: list[Row],
    told: dict[tuple[int, str], float],
) -> None:
    """The price cuts' drop alerts against what is owed: one per chat a search of which lists
    the advert and that knew it before the cut — from a baseline (an advert from before the
    world started) or an alert created before it (`told`). A cut is served by the chat's
    first drop alert of the advert at its price or lower (a read that finds two cuts at once
    serves both with one alert), however late."""
    drops: dict[tuple[int, str], list[tuple[float, Decimal]]] = {}
    seen: dict[tuple[int, str, Decimal], int] = {}
    for row in rows:
        if row["kind"] == "drop":
            price = Decimal(row["dedupe_key"].rsplit(":", 1)[1])  # drop:ad:chat:old:new
            drops.setdefault((row["chat_id"], row["ad_id"]), []).append((row["created_at"], price))
            key = (row["chat_id"], row["ad_id"], price)
            seen[key] = seen.get(key, 0) + 1
    result.drops_duplicate = sum(count - 1 for count in seen.values())
    for found in drops.values():
        found.sort()
    listing: dict[str, dict[int, bool]] = {}
    for cut in world.cuts:
        if cut.ad_id not in listing:
            listing[cut.ad_id] = truth.chats_of(world.adverts[cut.ad_id])
        for chat, local in listing[cut.ad_id].items():
            pair = (chat, cut.ad_id)
            if cut.ad_id in world.new and not told.get(pair, math.inf) < cut.at:
                continue  # the chat did not know it before the cut
            result.drops_owed += 1
            served = next((at for at, price in drops.get(pair, []) if price <= cut.price), None)
            if served is None:
                result.drops_missing += 1
                continue
            result.drop_latencies.append(served - cut.at)
            (result.drop_local_latencies if local else result.drop_plain_latencies).append(
                served - cut.at
            )


async def simulate(
    urls: list[str],
    pairs: list[tuple[int, int]],
    plan: Script,
    *,
    feeds: bool,
    folder: Path,
    seed: int,
    fault: SiteFault | None = None,
) -> Result:
    wall = time.perf_counter()
    site = FakeWillhabenSite(world=True)
    world = World(site, plan, seed=seed, fault=fault)
    outage = "-outage" if plan.outage else ""
    path = folder / f"{len(urls)}{outage}-{'feeds' if feeds else 'plain'}.sqlite3"
    result, rows = await play(
        urls, pairs, site, VirtualClock(world, Observer()), feeds=feeds, path=path, hours=plan.hours
    )
    truth = Truth(urls, pairs)
    told = count_new(result, world, truth, rows)
    count_drops(result, world, truth, rows, told)
    result.wall = time.perf_counter() - wall
    return result


async def play(
    urls: list[str],
    pairs: list[tuple[int, int]],
    site: FakeWillhabenSite,
    clock: VirtualClock,
    *,
    feeds: bool,
    path: Path,
    hours: float,
) -> tuple[Result, list[Row]]:
    """One scheduler's run on a new database at `path`: the searches and watches written,
    every watch's baseline, the world (`clock.world`, of `hours`) started and played to its end, the
    passes after it until every search was scanned once more. The run's figures (nothing
    counted against the truth yet) and every new-listing and drop alert queued."""
    world = clock.world
    async with Database(path) as db:
        await populate(db, urls, pairs, clock())
    async with running_bot(path, site, clock, feeds=feeds) as services:
        db = services.db

        async def baselined() -> bool:
            return not await db.single_value(
                "SELECT count(*) FROM watches WHERE baseline_at IS NULL"
            )

        await passes(services, clock, baselined)
        world.start = clock()
        observer = clock.observer
        observer.restart()
        baselines = (clock() - START) / 60
        requests = sum(site.requests.values())
        size = await database_bytes(db)
        await passes(services, clock, lambda: _true(world.done))
        ended = clock()
        # Timed while the world runs: the reads after it find nothing new to alert.
        feeds_read, reads = observer.feeds, list(observer.reads)
        requests = sum(site.requests.values()) - requests
        minutes = (ended - world.start) / 60

        async def all_scanned() -> bool:
            return not await db.single_value(
                "SELECT count(*) FROM searches WHERE last_attempt_at < ?", (ended,)
            )

        await passes(services, clock, all_scanned)
        grown = await database_bytes(db) - size
        wal = log_bytes(path)
        rows = await db.fetchall(
            "SELECT chat_id, ad_id, kind, created_at, dedupe_key FROM notifications"
            " WHERE kind IN ('new', 'drop')"
        )
        misses = await db.single_value("SELECT coalesce(sum(feed_misses), 0) FROM searches")
    result = Result(
        "feeds on" if feeds else "feeds off",
        minutes=minutes,
        requests=requests,
        baselines_minutes=baselines,
        feed_misses=misses,
        drops=sum(row["kind"] == "drop" for row in rows),
        coverage_misses=observer.coverage_misses,
        feeds=feeds_read,
        feed_reads=reads,
        bytes_a_day=grown * 24 / hours,
        wal_bytes=wal,
    )
    return result, rows


async def _true(value: bool) -> bool:
    return value


# ----------------------------------------------------------------- feed reads alone


@dataclass
class FeedCost:
    searches: int
    fed: int
    feeds: int
    reads: list[tuple[float, int]]
    scans: int
    wall: float
    quiet: list[tuple[float, int]]
    """(CPU seconds, pages) of the second reads, the world still: what a read costs whatever
    it finds (its searches, their places, its page), with nothing new to judge."""
    alerts: int
    """The alerts the timed reads queued."""


async def feed_cost(count: int, *, minutes: float, folder: Path, seed: int) -> FeedCost:
    """The CPU of feed reads with `count` searches, without simulating their baselines: the
    watches are written as complete baselines leave them (`populate`: every advert of the
    world its search lists, by the world's truth, seen at its price), each live feed is read
    once with the world still (its first read, untimed: it shows nothing new), then the
    world runs `minutes` and every feed read is timed. Less than a search's interval (less
    a pass's slack and the first reads): no search falls due."""
    wall = time.perf_counter()
    urls = searches(count, seed)
    pairs = watches(count * WATCHES_PER_CHAT, count, seed)
    site = FakeWillhabenSite(world=True)
    plan = script(seed, minutes / 60)
    world = World(site, plan, seed=seed)
    clock = VirtualClock(world, Observer())
    truth = Truth(urls, pairs)
    watching: dict[int, list[int]] = {}  # search -> its watches' ids
    for n, (_, search) in enumerate(pairs):
        watching.setdefault(search, []).append(n + 1)
    seen = [
        (watch, advert.id, str(advert.price))
        for advert in plan.old
        for search in truth.searches_of(advert)
        for watch in watching[search]
    ]
    path = folder / f"{count}-feed-cost.sqlite3"
    async with Database(path) as db:
        await populate(db, urls, pairs, clock(), seen=seen)
    async with running_bot(path, site, clock, feeds=True) as services:
        await one_pass(services, clock)
        observer = clock.observer
        observer.restart()
        clock.advance_to(clock() + FEED_INTERVAL)  # the world still: the next read is quiet
        await one_pass(services, clock)
        quiet = list(observer.reads)
        world.start = clock()
        observer.restart()
        await passes(services, clock, lambda: _true(world.done))
        db = services.db
        fed = await db.single_value("SELECT count(*) FROM searches WHERE feed_id IS NOT NULL")
        feeds = await db.single_value("SELECT count(*) FROM feeds")
        alerts = await db.single_value(
            "SELECT count(*) FROM notifications WHERE created_at >= ? AND kind IN ('new', 'drop')",
            (world.start,),
        )
    return FeedCost(
        count,
        fed,
        feeds,
        observer.reads,
        observer.scans,
        time.perf_counter() - wall,
        quiet,
        alerts,
    )


# ----------------------------------------------------------------- the report


def percentile(values: list[float], q: float) -> float | None:
    """Nearest rank; None without values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def verdict(ok: bool | None) -> str:
    return "not measured" if ok is None else "met" if ok else "NOT MET"


def cpu_a_page(reads: list[tuple[float, int]]) -> float | None:
    """CPU seconds a page over all of `reads`; None without any."""
    pages = sum(count for _, count in reads)
    return sum(cpu for cpu, _ in reads) / pages if pages else None


def report(title: str, results: list[Result]) -> None:
    on, off = results
    print(
        f"\n{title} (baselines took {on.baselines_minutes:.0f} / {off.baselines_minutes:.0f}"
        " min of virtual time)"
    )
    print(
        f"{'new adverts':11} {'req/min':>7} {'p50 s':>6} {'p95 s':>6} {'max s':>7}"
        f" {'p95 local':>9} {'p95 plain':>9} {'misses':>6} {'owed':>7} {'queued':>7}"
        f" {'as drop':>7} {'missing':>7} {'false':>5} {'dup':>4} {'old':>4} {'drops':>6}"
        f" {'wall s':>6}"
    )
    for r in results:
        print(
            f"{r.name:11} {r.requests / r.minutes:7.1f}"
            f" {seconds(percentile(r.latencies, 0.5)):>6}"
            f" {seconds(percentile(r.latencies, 0.95)):>6}"
            f" {seconds(max(r.latencies, default=None)):>7}"
            f" {seconds(percentile(r.local_latencies, 0.95)):>9}"
            f" {seconds(percentile(r.plain_latencies, 0.95)):>9} {r.feed_misses:6}"
            f" {r.owed:7,} {r.queued:7,} {r.as_drop:7} {r.missing:7} {r.false:5} {r.duplicate:4}"
            f" {r.old_alerts:4} {r.drops:6} {r.wall:6.0f}"
        )
    print(
        f"{'price drops':11} {'p50 s':>6} {'p95 s':>6} {'max s':>7} {'p95 local':>9}"
        f" {'p95 plain':>9} {'owed':>6} {'missing':>7} {'dup':>4} {'coverage':>8}"
        f" {'feed reads':>10} {'pages':>6} {'CPU ms/page':>11} {'MB/day':>7} {'WAL MB':>6}"
    )
    for r in results:
        cpu = cpu_a_page(r.feed_reads)
        print(
            f"{r.name:11} {seconds(percentile(r.drop_latencies, 0.5)):>6}"
            f" {seconds(percentile(r.drop_latencies, 0.95)):>6}"
            f" {seconds(max(r.drop_latencies, default=None)):>7}"
            f" {seconds(percentile(r.drop_local_latencies, 0.95)):>9}"
            f" {seconds(percentile(r.drop_plain_latencies, 0.95)):>9}"
            f" {r.drops_owed:6,} {r.drops_missing:7} {r.drops_duplicate:4}"
            f" {r.coverage_misses:>8}"
            f" {r.feeds:10,} {sum(pages for _, pages in r.feed_reads):6,}"
            f" {'—' if cpu is None else f'{cpu * 1000:.1f}':>11} {r.bytes_a_day / 1e6:7.1f}"
            f" {r.wal_bytes / 1e6:6.1f}"
        )
        if len(r.feed_reads) != r.feeds:
            print(
                f"  (CPU of {len(r.feed_reads):,} of the {r.feeds:,} feed reads: one with a failed"
                " request, even retried, is not timed)"
            )


def goals(results: list[Result], *, watches: int, outage: bool) -> None:
    """Issue 20's goals (without the outage) and issue 26's, met or not."""
    on, off = results
    p95_on, p95_off = percentile(on.latencies, 0.95), percentile(off.latencies, 0.95)
    if not outage:
        if p95_on and p95_off:
            print(f"p95 feeds off / feeds on: {p95_off / p95_on:.0f}x (goal ≥ 20x)")
        print(
            f"goals with feeds: p95 {seconds(p95_on)} s (≤ 120), missing {on.missing}, false"
            f" {on.false}, duplicates {on.duplicate} (all 0), {on.requests / on.minutes:.1f}"
            f" requests a minute (≤ {60 / GAP:g})"
        )
        shape = "" if watches == GOAL_WATCHES else f"; here {watches:,} watches"
        print(
            f"goal: new adverts p95 ≤ {GOAL_P95:g} s at {GOAL_WATCHES:,} watches:"
            f" {seconds(p95_on)} s with feeds{shape} —"
            f" {verdict(None if p95_on is None else p95_on <= GOAL_P95)}"
        )
    drop_on = percentile(on.drop_local_latencies, 0.95)
    drop_off = percentile(off.drop_local_latencies, 0.95)
    print(
        f"goal: price drops of fed searches p95 no worse with feeds: {seconds(drop_on)} s with"
        f" them, {seconds(drop_off)} s without —"
        f" {verdict(None if drop_on is None or drop_off is None else drop_on <= drop_off)}"
    )
    clean = all(r.missing == r.false == r.duplicate == 0 for r in results)
    print(
        f"goal: missing, false, duplicates 0{' with the outage' if outage else ''}:"
        f" feeds on {on.missing} / {on.false} / {on.duplicate},"
        f" feeds off {off.missing} / {off.false} / {off.duplicate} — {verdict(clean)}"
    )


def report_costs(costs: list[FeedCost], *, minutes: float) -> None:
    print(
        "\nfeed reads alone: the watches written as complete baselines leave them, each feed"
        f" read once, then {minutes:g} min of the world with feeds on"
    )
    print(
        f"{'searches':>8} {'fed':>6} {'feeds':>5} {'reads':>5} {'pages':>5}"
        f" {'CPU s/page':>10} {'p95':>6} {'max':>6} {'quiet s':>7} {'alerts/read':>11}"
        f" {'µs/alert':>8} {'scans':>5} {'wall s':>6}"
    )
    for c in costs:
        per_page = [cpu / pages for cpu, pages in c.reads if pages]
        cpu = cpu_a_page(c.reads)
        quiet = max((spent for spent, _ in c.quiet), default=None)
        per_read = c.alerts / len(c.reads) if c.reads else 0.0
        busy = sum(spent for spent, _ in c.reads) / len(c.reads) if c.reads else None
        per_alert = (
            None if busy is None or quiet is None or not per_read else (busy - quiet) / per_read
        )
        print(
            f"{c.searches:8,} {c.fed:6,} {c.feeds:5} {len(c.reads):5} "
            f"{sum(pages for _, pages in c.reads):5}"
            f" {'—' if cpu is None else f'{cpu:.3f}':>10}"
            f" {'—' if not per_page else f'{percentile(per_page, 0.95):.3f}':>6}"
            f" {'—' if not per_page else f'{max(per_page):.3f}':>6}"
            f" {'—' if quiet is None else f'{quiet:.3f}':>7} {per_read:11,.0f}"
            f" {'—' if per_alert is None else f'{per_alert * 1e6:.0f}':>8}"
            f" {c.scans:5} {c.wall:6.0f}"
        )
    at_goal = next((c for c in costs if c.searches == GOAL_SEARCHES), None)
    p95 = None
    if at_goal is not None:
        p95 = percentile([cpu / pages for cpu, pages in at_goal.reads if pages], 0.95)
    print(
        f"goal: a feed page's matching ≤ {GOAL_CPU:g} s CPU at {GOAL_SEARCHES:,} searches:"
        f" p95 {'—' if p95 is None else f'{p95:.3f}'} s a page (the whole read, an upper"
        f" bound) — {verdict(None if p95 is None else p95 <= GOAL_CPU)}"
    )
    whole = None if at_goal is None else percentile([cpu for cpu, _ in at_goal.reads], 0.95)
    quiet = None if at_goal is None else max((cpu for cpu, _ in at_goal.quiet), default=None)
    print(
        f"goal: a whole feed read ≤ {GOAL_READ_CPU:g} s CPU at {GOAL_SEARCHES:,} searches:"
        f" p95 {'—' if whole is None else f'{whole:.3f}'} s with this world's alerts —"
        f" {verdict(None if whole is None else whole <= GOAL_READ_CPU)}; a quiet read"
        f" {'—' if quiet is None else f'{quiet:.3f}'} s —"
        f" {verdict(None if quiet is None else quiet <= GOAL_READ_CPU)}"
    )


def clock_time(offset: float) -> str:
    """Seconds into the world as h:mm."""
    return f"{int(offset // 3600)}:{int(offset % 3600 // 60):02d}"


async def main(args: argparse.Namespace) -> None:
    # Every failed read during the outage logs a warning: the counts tell what matters.
    logging.getLogger("habicht").setLevel(logging.ERROR)
    plan = script(args.seed, args.hours)
    rates = sorted(rate * 60 for rate in plan.rates)
    print(
        f"{len(CATEGORIES)} categories publishing {rates[0]:.1f} to {rates[-1]:.1f}"
        " adverts a minute"
        f" ({sum(rates):.0f} in all), as many bumps, a fifth as many price drops;"
        f" {args.hours:g} h after the baselines; gap {GAP:g} s, a pass every {TICK:g} s"
    )
    with tempfile.TemporaryDirectory(dir=args.folder) as tmp:
        folder = Path(tmp)
        for count in args.searches:
            urls = searches(count, args.seed)
            pairs = watches(count * WATCHES_PER_CHAT, count, args.seed)
            results = [
                await simulate(urls, pairs, plan, feeds=feeds, folder=folder, seed=args.seed)
                for feeds in (True, False)
            ]
            report(f"{count:,} searches, {len(pairs):,} watches", results)
            goals(results, watches=len(pairs), outage=False)
        if args.outage:
            count = args.outage_searches
            hours = args.outage + 2 * OUTAGE_MARGIN
            outage = script(args.seed, hours, outage=args.outage)
            assert outage.outage is not None
            urls = searches(count, args.seed)
            pairs = watches(count * WATCHES_PER_CHAT, count, args.seed)
            results = [
                await simulate(
                    urls,
                    pairs,
                    outage,
                    feeds=feeds,
                    folder=folder,
                    seed=args.seed,
                    fault=FAULTS[args.fault][0](),
                )
                for feeds in (True, False)
            ]
            down, up = outage.outage
            report(
                f"{count:,} searches, {len(pairs):,} watches, {hours:g} h; willhaben"
                f" {FAULTS[args.fault][1]} {args.outage:g} h, from {clock_time(down)} to"
                f" {clock_time(up)}",
                results,
            )
            goals(results, watches=len(pairs), outage=True)
        if args.feed_cost:
            costs = [
                await feed_cost(n, minutes=args.feed_minutes, folder=folder, seed=args.seed)
                for n in args.feed_cost
            ]
            report_costs(costs, minutes=args.feed_minutes)


def arguments() -> argparse.Namespace:
    """The command line; `--quick` and `--full` change the defaults of the sizes not given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--quick", action="store_true", help="a small world in seconds (CI)")
    shape.add_argument(
        "--full", action="store_true", help="the issue's shape: 2000 and 200 searches, 3 h"
    )
    parser.add_argument("--hours", type=float, help="simulated hours after the baselines (0.25)")
    parser.add_argument(
        "--searches", type=int, nargs="*", help="search counts, 5 watches each (200)"
    )
    parser.add_argument(
        "--outage",
        type=float,
        help=f"hours willhaben is out, {OUTAGE_MARGIN:g} h into a world of that plus"
        f" {2 * OUTAGE_MARGIN:g} h; 0 for none (3)",
    )
    parser.add_argument("--outage-searches", type=int, help="searches of the outage scenario (20)")
    parser.add_argument(
        "--fault", choices=sorted(FAULTS), default="down", help="how willhaben is out (down)"
    )
    parser.add_argument(
        "--feed-cost",
        type=int,
        nargs="*",
        help="search counts whose feed reads alone are timed (2000 10000)",
    )
    parser.add_argument(
        "--feed-minutes",
        type=float,
        help="minutes of the world over which they are timed, a read a minute (1; at most 4)",
    )
    parser.add_argument("--seed", type=int, default=20, help="the world's seed (20)")
    args = parser.parse_args()
    # On a RAM disk where there is one: fsyncs are not what this measures (virtual time).
    args.folder = RAM_DISK if RAM_DISK.is_dir() else None
    shape_of = 2 if args.full else 1 if args.quick else 0
    sizes = {
        "hours": (0.25, 1 / 3, 3.0),
        "searches": ([200], [40], [2000, 200]),
        "outage": (3.0, 0.25, 3.0),
        "outage_searches": (20, 10, 200),
        "feed_cost": ([2000, 10000], [100], [2000, 10000]),
        "feed_minutes": (1.0, 1.0, 3.0),
    }
    for name, choices in sizes.items():
        if getattr(args, name) is None:
            setattr(args, name, choices[shape_of])
    if not 0 < args.feed_minutes <= 4:
        parser.error(
            "--feed-minutes must be above 0 and at most 4 (searches fall due after 5),"
            f" got {args.feed_minutes:g}"
        )
    return args


if __name__ == "__main__":
    asyncio.run(main(arguments()))
