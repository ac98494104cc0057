"""A bot with feeds on over the fake willhaben world (issue 20), as the budget, freshness and
coverage tests drive it: a feed every minute and the safety net every 30 min, the scheduler's
tick, two local searches that share the feed, and the health JSON."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

from habicht.bot import SCRAPE, run_jobs_now
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.health import check_health
from kit.bot import ALICE, BOB, Bot, running

CAROL = 4004
MARKET = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz"
CARDS = f"{MARKET}/pc-komponenten/grafikkarten-5882"
GAMING = f"{CARDS}?keyword=gaming&PRICE_TO=500"
FEED = "http://willhaben.test/iad/kaufen-und-verkaufen/marktplatz?sort=1"
"""The feed as the fake world sees its requests (the bot kit's HABICHT_WILLHABEN_URL)."""
TICK = 10.0


class World:
    """The fake willhaben world beside a bot, with adverts of random ids."""

    def __init__(self, bot: Bot, site: FakeWillhabenSite) -> None:
        self.bot, self.site = bot, site
        self._rand = random.Random(20)

    def advert(self, title: str, *, age: float | None = 0.0, **fields: Any) -> FakeAdvert:
        """A graphics card published `age` seconds ago (None: the page gives no PUBLISHED)."""
        published = None if age is None else int((self.bot.clock() - age) * 1000)
        return FakeAdvert(
            str(self._rand.randrange(500_000_000, 2_200_000_000)),
            title,
            fields.pop("price", Decimal(400)),
            published_ms=published,
            **fields,
        )

    async def ticks(self, seconds: float) -> None:
        """The scheduler's tick, every 10 s, for `seconds` of virtual time."""
        end = self.bot.clock() + seconds
        while self.bot.clock() < end:
            self.bot.clock.advance(TICK)
            await run_jobs_now(self.bot.app, SCRAPE)


@asynccontextmanager
async def feeding(tmp_path: Path, **changes: Any) -> AsyncIterator[World]:
    """A bot with feeds on (a feed every minute, the safety net every 30 min) over a world."""
    site = FakeWillhabenSite(world=True)
    settings = {"feed_interval": 60.0, "safety_interval": 1800.0} | changes
    async with running(tmp_path, site=site, **settings) as bot:
        yield World(bot, site)


async def fed(world: World) -> None:
    """Two local searches that share the feed — `/watch rtx 3080` (Alice) and a category
    with a keyword and a price cap (Bob) — with their baselines taken."""
    world.site.publish(world.advert("Grafikkarte alt", age=30 * 86400))
    await world.bot.say(ALICE, "/watch rtx 3080")
    await world.bot.say(BOB, f"/watch {GAMING}")
    await world.bot.baseline()
    await world.ticks(60)


async def health(world: World) -> dict[str, Any]:
    services = world.bot.app.bot_data
    report = await check_health(services.db, services.settings, now=world.bot.clock())
    data: dict[str, Any] = json.loads(json.dumps(report.as_dict()))
    return data
