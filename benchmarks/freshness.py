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
as designed: `habicht.scraper.diff`); it is the chat's one alert of the advert. A drop
never moves an advert across a price bound of any search here, so which searches list an
advert never changes. "old": new-listing alerts for adverts from before the baselines
(bumped ones a watch had not seen), "drops": every drop alert queued.

`--quick` (CI) runs 40 searches / 200 watches for 20 minutes: its figures say nothing. The
default, what `make bench` runs, is 200 searches / 1,000 watches for a quarter of an hour
(about a minute: `make bench` must stay within 10). `--full` is the issue's shape — 2,000 searches /
10,000 watches, then 200 / 1,000, 3 hours each — and takes about 45 minutes: the 2,000
searches' baselines alone are an hour of virtual time, every feed read is judged for 1,600
local searches, and 1.2 million alerts are queued.

    python benchmarks/freshness.py [--quick | --full] [--hours H] [--searches N ...]
                                   [--seed N]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path

import httpx

from habicht.bot import BotServices, build_application
from habicht.config import Settings
from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import FakeBotAPI
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.fakes.willhaben_world import lister
from habicht.scraper import FeedCadence, parse_watch_argument, run_pass

SITE = "http://willhaben.test"
MARKET = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz"
TICK = 10.0
"""Seconds between the bot's scheduler passes (`habicht.bot.jobs.TICK`): a pass's slack."""
GAP = 2.0
FEED_INTERVAL, SAFETY, INTERVAL = 60.0, 1800.0, 300.0
WATCHES_PER_CHAT = 5
START = 1_790_000_000.0
RAM_DISK = Path("/dev/shm")
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


def zipf(rand: random.Random, items: tuple[str, ...] | list[str], s: float = 1.0) -> str:
    """One of `items`, the first the most popular: weight 1 / rank ** s."""
    weights = [1 / (rank + 1) ** s for rank in range(len(items))]
    return rand.choices(items, weights)[0]


# ----------------------------------------------------------------- the world's script


@dataclass(frozen=True, slots=True)
class Happening:
    """One thing the world does `at` seconds after the simulation starts."""

    at: float
    kind: str  # "publish", "bump", "drop"
    category: int
    advert: FakeAdvert | None = None


@dataclass
class Script:
    """The world's catalogue before the start and everything it does after, from one seed:
    both schedulers meet the same world."""

    old: list[FakeAdvert]
    happenings: list[Happening]
    rates: list[float]


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


def script(seed: int, hours: float) -> Script:
    """The catalogue (60 adverts a category, up to 30 days old) and `hours` of happenings."""
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
    return Script(old, made, rates)


def _band(price: Decimal) -> tuple[int, int]:
    """The price bounds of any search around `price`: a drop stays inside them, so which
    searches list an advert never changes (an advert that drops into a search is a case of
    its own, `tests/test_scraper_detection.py`, not what this benchmark counts)."""
    bounds = sorted({0, *PRICE_CAPS, *(floor - 1 for floor in PRICE_FLOORS), 10**9})
    low = max(b for b in bounds if b < price)
    high = min(b for b in bounds if b >= price)
    return low, high


class World:
    """The script played on the fake site as virtual time passes: `advance(now)` applies
    what happened up to `now`; `published` holds each new advert's publication time."""

    def __init__(self, site: FakeWillhabenSite, plan: Script, *, seed: int) -> None:
        self.site = site
        self.plan = plan
        self.rand = random.Random(seed + 1)
        self.start: float | None = None
        self.next = 0
        self.alive: list[list[str]] = [[] for _ in CATEGORIES]
        self.prices: dict[str, Decimal] = {}
        self.published: dict[str, float] = {}
        self.new: dict[str, FakeAdvert] = {}
        self.drops = 0
        for advert in plan.old:
            self._enter(advert)
        site.publish(*plan.old)

    def _enter(self, advert: FakeAdvert) -> None:
        category = next(n for n, c in enumerate(CATEGORIES) if c.endswith(advert.categories[-1]))
        self.alive[category].append(advert.id)
        assert advert.price is not None
        self.prices[advert.id] = advert.price

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
        alive = self.alive[happening.category]
        if happening.kind == "publish":
            assert happening.advert is not None
            advert = replace(happening.advert, published_ms=int(at * 1000))
            self.site.publish(advert)
            self._enter(advert)
            self.published[advert.id] = at
            self.new[advert.id] = advert
        elif happening.kind == "bump":
            self.site.bump(None, self.rand.choice(alive), published_ms=int(at * 1000))
        else:
            ad_id = self.rand.choice(alive)
            price = self.prices[ad_id]
            low, _ = _band(price)
            lower = max(Decimal(low + 1), (price * Decimal("0.85")).to_integral_value())
            if lower < price:
                self.prices[ad_id] = lower
                self.site.set_price(ad_id, lower)
                self.drops += 1


class VirtualClock:
    """Virtual time for the bot (`Clock` and `Sleep`): sleeping moves it, and the world acts
    on the way, at the moments its script says."""

    def __init__(self, world: World) -> None:
        self.now = START
        self.world = world

    def __call__(self) -> float:
        return self.now

    def advance_to(self, moment: float) -> None:
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


def watches(count: int, searches: int, seed: int) -> list[tuple[int, int]]:
    """(chat, search index) pairs: every search one watch, the rest Zipf over the searches,
    five a chat, never one search twice in a chat."""
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
                for n, held in enumerate(chats)
                if len(held) < WATCHES_PER_CHAT and search not in held and n >= len(chats) - 50
            ),
            None,
        )
        if chat is None:
            chats.append(set())
            chat = len(chats) - 1
        chats[chat].add(search)
        pairs.append((10_000 + chat, search))
    return pairs


async def populate(db: Database, urls: list[str], pairs: list[tuple[int, int]], now: float) -> None:
    """Chats, searches and watches in one transaction, as `/watch` leaves them (setup)."""
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
            "INSERT INTO watches (chat_id, search_id, label, created_at) VALUES (?, ?, ?, ?)",
            [(chat, search + 1, f"w{n}", now) for n, (chat, search) in enumerate(pairs)],
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
            willhaben_transport=site.transport(),
        )
        assert app.post_init is not None  # both set by the builder
        assert app.post_shutdown is not None
        async with app:
            await app.post_init(app)
            try:
                yield app.bot_data
            finally:
                await app.post_shutdown(app)


async def passes(
    services: BotServices, clock: VirtualClock, until: Callable[[], Awaitable[bool]]
) -> None:
    """Scheduler passes as the `scrape` job runs them, a pass every TICK seconds (at once
    after one that took longer), until `until()` is true."""
    settings = services.settings
    cadence = FeedCadence(settings.feed_interval, settings.safety_interval)
    while not await until():
        await run_pass(
            services.db,
            services.client,
            services.renderer,
            clock=clock,
            max_attempts=settings.max_attempts,
            interval=settings.scrape_interval,
            feeds=cadence if settings.feed_interval else None,
            slack=TICK,
            share=services.request_share,
        )
        clock.advance_to(START + (math.floor((clock() - START) / TICK) + 1) * TICK)


def owed(
    world: World, urls: list[str], pairs: list[tuple[int, int]]
) -> tuple[dict[str, set[int]], dict[tuple[int, str], bool]]:
    """The world's truth: for each new advert the chats owed an alert, and for each owed
    (chat, advert) whether a local search of the chat lists it."""
    checks = [lister(httpx.URL(url)) for url in urls]
    by_category: dict[str, list[int]] = {}
    for n, url in enumerate(urls):
        path = httpx.URL(url).path.rstrip("/")
        by_category.setdefault(
            "" if path == "/iad/kaufen-und-verkaufen/marktplatz" else path.rsplit("-", 1)[1], []
        ).append(n)
    chats: dict[int, list[int]] = {}
    for chat, search in pairs:
        chats.setdefault(search, []).append(chat)
    local = ["areaId" not in url for url in urls]
    chats_owed: dict[str, set[int]] = {}
    served_locally: dict[tuple[int, str], bool] = {}
    for ad_id, advert in world.new.items():
        candidates = by_category.get("", []) + by_category.get(advert.categories[-1], [])
        for search in candidates:
            if checks[search](advert):
                for chat in chats.get(search, []):
                    chats_owed.setdefault(ad_id, set()).add(chat)
                    key = (chat, ad_id)
                    served_locally[key] = served_locally.get(key, False) or local[search]
    return chats_owed, served_locally


async def simulate(
    urls: list[str],
    pairs: list[tuple[int, int]],
    plan: Script,
    *,
    feeds: bool,
    folder: Path,
    seed: int,
) -> Result:
    wall = time.perf_counter()
    site = FakeWillhabenSite(world=True)
    world = World(site, plan, seed=seed)
    clock = VirtualClock(world)
    path = folder / f"{len(urls)}-{'feeds' if feeds else 'plain'}.sqlite3"
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
        baselines = (clock() - START) / 60
        requests = sum(site.requests.values())
        await passes(services, clock, lambda: _true(world.done))
        ended = clock()
        requests = sum(site.requests.values()) - requests
        minutes = (ended - world.start) / 60

        async def all_scanned() -> bool:
            return not await db.single_value(
                "SELECT count(*) FROM searches WHERE last_attempt_at < ?", (ended,)
            )

        await passes(services, clock, all_scanned)
        rows = await db.fetchall(
            "SELECT chat_id, ad_id, kind, created_at FROM notifications"
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
    )
    chats_owed, served_locally = owed(world, urls, pairs)
    alerts: dict[tuple[int, str], list[tuple[float, str]]] = {}
    for row in rows:
        if row["ad_id"] in world.new:
            alerts.setdefault((row["chat_id"], row["ad_id"]), []).append(
                (row["created_at"], row["kind"])
            )
        else:
            result.old_alerts += row["kind"] == "new"
    owed_pairs = {(chat, ad) for ad, chats in chats_owed.items() for chat in chats}
    # A chat's first alert of a new advert; a drop when its price fell before the chat's
    # search first showed it (`diff`: "now within your search" — habicht cannot tell that
    # from a drop into a price range).
    first = {pair: min(found) for pair, found in alerts.items()}
    result.owed, result.queued = len(owed_pairs), len(first)
    result.as_drop = sum(kind == "drop" for _, kind in first.values())
    result.missing = len(owed_pairs - first.keys())
    result.false = len(first.keys() - owed_pairs)
    result.duplicate = sum(
        sum(kind == "new" for _, kind in found) - (first[pair][1] == "new")
        for pair, found in alerts.items()
    )
    for pair in owed_pairs & first.keys():
        latency = first[pair][0] - world.published[pair[1]]
        result.latencies.append(latency)
        (result.local_latencies if served_locally[pair] else result.plain_latencies).append(latency)
    result.wall = time.perf_counter() - wall
    return result


async def _true(value: bool) -> bool:
    return value


def percentile(values: list[float], q: float) -> float | None:
    """Nearest rank; None without values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def report(searches_count: int, watches_count: int, results: list[Result]) -> None:
    print(
        f"\n{searches_count:,} searches, {watches_count:,} watches"
        f" (baselines took {results[0].baselines_minutes:.0f} / "
        f"{results[1].baselines_minutes:.0f} min of virtual time)"
    )
    print(
        f"{'':10} {'req/min':>7} {'p50 s':>6} {'p95 s':>6} {'max s':>7}"
        f" {'p95 local':>9} {'p95 plain':>9} {'misses':>6} {'owed':>7} {'queued':>7}"
        f" {'as drop':>7} {'missing':>7} {'false':>5} {'dup':>4} {'old':>4} {'drops':>6}"
        f" {'wall s':>6}"
    )
    for r in results:
        print(
            f"{r.name:10} {r.requests / r.minutes:7.1f}"
            f" {seconds(percentile(r.latencies, 0.5)):>6}"
            f" {seconds(percentile(r.latencies, 0.95)):>6}"
            f" {seconds(max(r.latencies, default=None)):>7}"
            f" {seconds(percentile(r.local_latencies, 0.95)):>9}"
            f" {seconds(percentile(r.plain_latencies, 0.95)):>9} {r.feed_misses:6}"
            f" {r.owed:7,} {r.queued:7,} {r.as_drop:7} {r.missing:7} {r.false:5} {r.duplicate:4}"
            f" {r.old_alerts:4} {r.drops:6} {r.wall:6.0f}"
        )
    on, off = results
    p95_on, p95_off = percentile(on.latencies, 0.95), percentile(off.latencies, 0.95)
    if p95_on and p95_off:
        print(f"p95 feeds off / feeds on: {p95_off / p95_on:.0f}x (goal ≥ 20x)")
    print(
        f"goals with feeds: p95 {seconds(p95_on)} s (≤ 120), missing {on.missing}, false"
        f" {on.false}, duplicates {on.duplicate} (all 0), {on.requests / on.minutes:.1f}"
        f" requests a minute (≤ {60 / GAP:g})"
    )


async def main(args: argparse.Namespace) -> None:
    plan = script(args.seed, args.hours)
    rates = sorted(rate * 60 for rate in plan.rates)
    print(
        f"{len(CATEGORIES)} categories publishing {rates[0]:.1f} to {rates[-1]:.1f}"
        " adverts a minute"
        f" ({sum(rates):.0f} in all), as many bumps, a fifth as many price drops;"
        f" {args.hours:g} h after the baselines; gap {GAP:g} s, a pass every {TICK:g} s"
    )
    with tempfile.TemporaryDirectory(dir=args.folder) as tmp:
        for count in args.searches:
            urls = searches(count, args.seed)
            pairs = watches(count * WATCHES_PER_CHAT, count, args.seed)
            results = [
                await simulate(urls, pairs, plan, feeds=feeds, folder=Path(tmp), seed=args.seed)
                for feeds in (True, False)
            ]
            report(count, len(pairs), results)


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
        "--searches", type=int, nargs="+", help="search counts, 5 watches each (200)"
    )
    parser.add_argument("--seed", type=int, default=20, help="the world's seed (20)")
    args = parser.parse_args()
    # On a RAM disk where there is one: fsyncs are not what this measures (virtual time).
    args.folder = RAM_DISK if RAM_DISK.is_dir() else None
    shape_of = 2 if args.full else 1 if args.quick else 0
    sizes = {"hours": (0.25, 1 / 3, 3.0), "searches": ([200], [40], [2000, 200])}
    for name, choices in sizes.items():
        if getattr(args, name) is None:
            setattr(args, name, choices[shape_of])
    return args


if __name__ == "__main__":
    asyncio.run(main(arguments()))
