"""The charts' tests' world (issue 21): a real-shaped page of sofas watched through the bot, a
price that changes, `/history` and its answer, PNG sizes, and the chart worker held busy."""

from __future__ import annotations

import random
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from decimal import Decimal

from habicht.bot.chart_worker import ChartWorker
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import SentMessage
from kit.bot import ALICE, MARKET, SEARCH, Bot
from kit.waits import answered

DAY = 86400.0


def png_size(png: bytes | None) -> tuple[int, int]:
    """Width and height, read from a PNG's header (its signature, then the IHDR chunk)."""
    assert png is not None
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def page(seed: int = 21) -> list[FakeAdvert]:
    """A real-shaped page: 30 sofas with random ids and prices, one bumped, one reserved (not
    on the page, as far as a watch can tell) and one given away (no price)."""
    rand = random.Random(seed)
    adverts = [
        FakeAdvert(str(rand.randrange(10**8, 2 * 10**9)), f"Sofa {n}", Decimal(price))
        for n, price in enumerate(rand.choices(range(300, 600), k=30))
    ]
    adverts[3] = replace(adverts[3], bumped=True)
    adverts[7] = replace(adverts[7], reserved=True)
    adverts[11] = replace(adverts[11], price=None, price_display="zu verschenken")
    return adverts


async def watching(
    bot: Bot, adverts: list[FakeAdvert], chat_id: int = ALICE, **say: object
) -> None:
    """The chat watches SEARCH, whose page shows `adverts`; its baseline has read them."""
    bot.site.set_listings(MARKET, adverts)
    await bot.say(chat_id, f"/watch {SEARCH}", **say)
    await bot.baseline()


def shown(bot: Bot) -> list[FakeAdvert]:
    """The adverts the kit's willhaben lists, as they are now."""
    return bot.site.listings(MARKET)


async def reprice(bot: Bot, index: int, price: int) -> None:
    """The advert at `index` now costs `price`; a scrape reads it."""
    bot.site.set_price(shown(bot)[index].id, Decimal(price))
    await bot.scrape()


@contextmanager
def held(worker: ChartWorker) -> Iterator[None]:
    """The chart worker's one thread kept busy until the block ends: charts asked for in it
    wait."""
    busy = threading.Event()
    worker.executor.submit(busy.wait)
    try:
        yield
    finally:
        busy.set()


async def history(bot: Bot, ad_id: str, chat_id: int = ALICE, **say: object) -> SentMessage:
    """The answer to `/history <ad_id>` (it may come from a task of its own: a chart)."""
    count = len(bot.api.messages(chat_id))
    await bot.say(chat_id, f"/history {ad_id}", **say)
    return await answered(bot.api, chat_id, count + 1)
