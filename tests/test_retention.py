"""Retention (`habicht.retention`) through the bot's daily job: old notifications purged,
their keys kept as tombstones while their adverts live, adverts gone for good forgotten."""

from __future__ import annotations

from decimal import Decimal

from kit.bot import ALICE, MARKET, OWNER, SEARCH, Bot

from habicht.bot import RETENTION, run_jobs_now
from habicht.fakes import FakeAdvert
from habicht.message import Outgoing
from habicht.retention import CHECK_DAYS, LISTING_DAYS, STATE_DAYS

DAY = 86400.0


async def test_retention_purges_old_notifications_and_keeps_their_keys(bot: Bot) -> None:
    """The daily job deletes sent rows older than HABICHT_RETENTION_DAYS; their keys stay
    tombstoned, so the same alert is never queued again; adverts no search returned for
    90 days are forgotten with what watches saw of them, fresher ones stay."""
    services = bot.app.bot_data
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()  # advert 1001 is seen now
    store = services.store
    await store.enqueue(Outgoing(ALICE, "new", "old alert", "new:42:2002"))
    await run_jobs_now(bot.app, "drain")
    bot.clock.advance((LISTING_DAYS + 1) * DAY)
    bot.site.set_listings(MARKET, [FakeAdvert("2001", "Neueres Sofa", Decimal(50))])
    await bot.scrape()  # 2001 seen now, 1001 not for 91 days
    await run_jobs_now(bot.app, RETENTION)
    db = services.db
    keys = [row[0] for row in await db.fetchall("SELECT dedupe_key FROM notifications")]
    assert "new:42:2002" not in keys
    assert not await store.enqueue(Outgoing(ALICE, "new", "old alert", "new:42:2002"))
    assert [r[0] for r in await db.fetchall("SELECT ad_id FROM listings")] == ["2001"]
    seen = await db.fetchall("SELECT ad_id FROM watch_listings")
    assert [row[0] for row in seen] == ["2001"]


async def test_a_tombstone_goes_once_its_advert_is_off_every_page_for_the_retention_days(
    bot: Bot,
) -> None:
    """Issue 19, case 13: an alert's purged key stays tombstoned while its advert is still
    on a page, and goes once the advert has not been on any page for HABICHT_RETENTION_DAYS;
    an owner message's key goes that many days after its purge. The advert, back later, is
    still known to the watch: no second alert."""
    services = bot.app.bot_data
    days = services.settings.retention_days
    db = services.db
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    sofa = FakeAdvert("1002", "Neues Sofa", Decimal(90))
    bot.site.add(MARKET, sofa)
    await bot.scrape()
    await services.store.enqueue(Outgoing(OWNER, "admin", "note", "admin:note:1001"))
    await run_jobs_now(bot.app, "drain")
    assert "Neues Sofa" in bot.last(ALICE)

    async def tombstones() -> list[str]:
        rows = await db.fetchall("SELECT dedupe_key FROM notification_tombstones ORDER BY 1")
        return [row[0] for row in rows]

    bot.clock.advance((days + 1) * DAY)
    await bot.scrape()  # still on the page
    await run_jobs_now(bot.app, RETENTION)
    assert f"new:1002:{ALICE}" in await tombstones()
    assert "admin:note:1001" in await tombstones()

    bot.site.remove(MARKET, sofa.id)
    bot.clock.advance((days + 1) * DAY)
    await bot.scrape()
    await run_jobs_now(bot.app, RETENTION)
    assert f"new:1002:{ALICE}" not in await tombstones()
    assert "admin:note:1001" not in await tombstones()

    sent = len(bot.api.messages(ALICE))
    bot.site.add(MARKET, sofa)
    await bot.scrape()
    assert len(bot.api.messages(ALICE)) == sent


async def test_what_following_learnt_goes_once_no_alert_can_need_it(bot: Bot) -> None:
    """Page checks are kept two days, an advert's state a month past its last read or check
    (longer than any alert is followed); fresher ones stay."""
    db = bot.app.bot_data.db
    now = bot.clock()
    async with db.transaction() as conn:
        await conn.executemany(
            "INSERT INTO page_checks (checked_at, ad_id, found) VALUES (?, ?, 'active')",
            [(now - (CHECK_DAYS + 1) * DAY, "old"), (now - DAY, "new")],
        )
        await conn.executemany(
            "INSERT INTO advert_states (ad_id, url, state, since, seen_at, checked_at,"
            " alerted_at) VALUES (?, 'https://x.test/a', 'active', 0, ?, ?, 0)",
            [
                ("old", now - (STATE_DAYS + 1) * DAY, None),
                ("checked", now - (STATE_DAYS + 1) * DAY, now - DAY),
                ("seen", now - DAY, None),
            ],
        )
    await run_jobs_now(bot.app, RETENTION)
    assert [r[0] for r in await db.fetchall("SELECT ad_id FROM page_checks")] == ["new"]
    states = await db.fetchall("SELECT ad_id FROM advert_states ORDER BY ad_id")
    assert [r[0] for r in states] == ["checked", "seen"]
