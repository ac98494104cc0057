"""Several feeds in the database, recorded as the scraper records them (issue 29): a search
classified local with its category's feed, or plain (`scraper.feeds.assign_feeds`), and a feed
switched off as `scraper.coverage` switches it off. Which real-estate searches are local is
decided by `willhaben.local`; here a test says it, so that the owner's view of several feeds is
tested whatever that decision is."""

from __future__ import annotations

from collections.abc import Iterable

from habicht.db import Database
from habicht.willhaben.urls import parse_watch_argument
from kit.bot import ALICE, BOB, Bot

WILLHABEN = "https://www.willhaben.at"
MARKET = f"{WILLHABEN}/iad/kaufen-und-verkaufen/marktplatz"
RENT = f"{WILLHABEN}/iad/immobilien/mietwohnungen/mietwohnung-angebote"
BUY = f"{WILLHABEN}/iad/immobilien/eigentumswohnung/eigentumswohnung-angebote"
CARS = f"{WILLHABEN}/iad/gebrauchtwagen/auto/gebrauchtwagenboerse"
"""A section whose feed this code does not name: it is shown by its path."""

RENT_SEARCHES = (f"{RENT}?areaId=117229", f"{RENT}?areaId=117230&PRICE_TO=1200")
"""Two flats to rent (Neubau; Josefstadt up to € 1,200): local, served by the rent feed."""
BUY_SEARCHES = (f"{BUY}?areaId=117224", f"{BUY}?areaId=117225")
"""Two flats to buy (Leopoldstadt, Landstraße): local, their feed switched off."""
ALTBAU = f"{WILLHABEN}/iad/immobilien/mietwohnungen/wien?keyword=altbau"
"""A flat search with a keyword: plain, polled on its own (REALESTATE.md: not decidable)."""
AREA_CARDS = f"{MARKET}/pc-komponenten/grafikkarten-5882?areaId=900"
"""Graphics cards in Vienna: plain, and no real estate."""


def feed_of(section: str) -> str:
    """The feed of a section's searches, as `willhaben.local` writes it: its newest-first page."""
    return f"{section}?sort=1"


async def classify(db: Database, urls: Iterable[str], *, feed: str | None, now: float) -> None:
    """The searches at `urls` (as typed after /watch) local with the feed at `feed`, its row
    created on first use, or plain with `feed` None — as `assign_feeds` writes them."""
    stored = [parse_watch_argument(url).url for url in urls]
    async with db.transaction() as conn:
        for url in stored:
            if feed is None:
                await conn.execute("UPDATE searches SET local = 0 WHERE url = ?", (url,))
                continue
            await conn.execute(
                "INSERT INTO feeds (url, created_at) VALUES (?, ?) ON CONFLICT (url) DO NOTHING",
                (feed, now),
            )
            await conn.execute(
                "UPDATE searches SET local = 1,"
                " feed_id = (SELECT id FROM feeds WHERE url = ?) WHERE url = ?",
                (feed, url),
            )


async def switch_off(db: Database, feed: str, *, urls: Iterable[str], until: float) -> None:
    """A coverage miss on each search at `urls` — sent back to polling until `until` — and
    the feed at `feed` switched off until then, as `scraper.coverage` records them."""
    stored = [parse_watch_argument(url).url for url in urls]
    async with db.transaction() as conn:
        for url in stored:
            await conn.execute(
                "UPDATE searches SET coverage_misses = coverage_misses + 1, polled_until = ?,"
                " fed_since = NULL WHERE url = ?",
                (until, url),
            )
            await conn.execute(
                "UPDATE feeds SET coverage_misses = coverage_misses + 1 WHERE url = ?", (feed,)
            )
        await conn.execute("UPDATE feeds SET off_until = ? WHERE url = ?", (until, feed))


CAROL = 4004
DAVE = 5005
DAY = 86400.0


async def watched_feeds(bot: Bot) -> None:
    """Over the bot's fake willhaben world, with feeds on: Alice and Bob watch two keywords
    (the marketplace feed, classified by the scraper) and two flats to rent (the rent feed);
    Carol and Dave two flats to buy (the buy feed, switched off for a day after a coverage
    miss on each), a flat with a keyword and graphics cards in Vienna (plain). Baselines taken,
    then one pass."""
    watches = [
        (ALICE, "rtx 3080"),
        (BOB, "gtx 1080"),
        (ALICE, RENT_SEARCHES[0]),
        (BOB, RENT_SEARCHES[1]),
        (CAROL, BUY_SEARCHES[0]),
        (DAVE, BUY_SEARCHES[1]),
        (CAROL, ALTBAU),
        (DAVE, AREA_CARDS),
    ]
    for chat, what in watches:
        await bot.say(chat, f"/watch {what}")
    db, now = bot.app.bot_data.db, bot.clock()
    await classify(db, RENT_SEARCHES, feed=feed_of(RENT), now=now)
    await classify(db, BUY_SEARCHES, feed=feed_of(BUY), now=now)
    await classify(db, [ALTBAU], feed=None, now=now)
    await switch_off(db, feed_of(BUY), urls=BUY_SEARCHES, until=now + DAY)
    await bot.baseline()
    await bot.scrape()
