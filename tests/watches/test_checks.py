"""Page checks (`watches.checks`): which alerted advert is due for a look at its own page, and
what its answers prove — gone only after two missing answers an interval apart."""

from __future__ import annotations

from kit.following import FOLLOWING, PlainRenderer, alerted, edit_rows, watching

from habicht.db import Database
from habicht.watches.checks import Check, Found, next_check, record_check
from habicht.watches.follow import Following

T = 1_700_000_000.0
INTERVAL = FOLLOWING.interval


async def checked(db: Database, found: Found, *, ad_id: str = "11", at: float) -> bool:
    return await record_check(
        db,
        Check(ad_id, ""),
        found,
        PlainRenderer(),
        price="300",
        now=at,
        following=FOLLOWING,
    )


async def test_an_advert_is_due_once_no_read_showed_it_for_an_interval(db: Database) -> None:
    async with db.transaction() as conn:
        await watching(conn)
        await alerted(conn, "11", at=T, message_id=70)
    assert await next_check(db, now=T + INTERVAL - 1, following=FOLLOWING) is None
    due = await next_check(db, now=T + INTERVAL, following=FOLLOWING)
    assert due is not None
    assert due.ad_id == "11"
    assert due.url.endswith("sofa-11/")
    off = Following(days=0, interval=INTERVAL, max_attempts=5)
    assert await next_check(db, now=T + INTERVAL, following=off) is None


async def test_an_advert_is_checked_at_its_own_url_whatever_the_market_keeps(
    db: Database,
) -> None:
    """Issue 37: a followed advert keeps the URL of its newest alert, so its page check asks
    nothing of the market's listings: one the market no longer keeps is checked all the same
    (before, the check joined `listings`, and such an advert was walked and skipped for ever)."""
    async with db.transaction() as conn:
        await watching(conn)
        await alerted(conn, "11", at=T, message_id=70)
        await conn.execute("DELETE FROM listings WHERE ad_id = '11'")
    due = await next_check(db, now=T + INTERVAL, following=FOLLOWING)
    assert due is not None
    assert (due.ad_id, due.url.endswith("sofa-11/")) == ("11", True)


async def test_each_check_that_finds_it_still_there_doubles_the_wait(db: Database) -> None:
    async with db.transaction() as conn:
        await watching(conn)
        await alerted(conn, "11", at=T, message_id=70)
    await checked(db, "active", at=T + INTERVAL)
    assert await next_check(db, now=T + 2 * INTERVAL, following=FOLLOWING) is None
    assert await next_check(db, now=T + 3 * INTERVAL, following=FOLLOWING) is not None
    await checked(db, "active", at=T + 3 * INTERVAL)
    assert await next_check(db, now=T + 6 * INTERVAL, following=FOLLOWING) is None
    assert await next_check(db, now=T + 7 * INTERVAL, following=FOLLOWING) is not None


async def test_gone_needs_two_missing_answers_an_interval_apart(db: Database) -> None:
    """One 404 starts the proof, and the advert is due again an interval later; a page that
    shows it meanwhile ends the proof; two missing answers an interval apart mark it gone,
    its alert edited, and it is never checked again."""
    async with db.transaction() as conn:
        await watching(conn)
        await alerted(conn, "11", at=T, message_id=70)
    assert not await checked(db, "missing", at=T + INTERVAL)
    assert await next_check(db, now=T + 2 * INTERVAL - 1, following=FOLLOWING) is None
    assert not await checked(db, "active", at=T + 2 * INTERVAL)
    assert not await checked(db, "missing", at=T + 4 * INTERVAL)
    assert not await checked(db, "failed", at=T + 5 * INTERVAL), "an error proves nothing"
    async with db.transaction() as conn:
        assert await edit_rows(conn) == []
    assert await checked(db, "missing", at=T + 5 * INTERVAL)
    async with db.transaction() as conn:
        [(_, text, _)] = await edit_rows(conn)
    assert text.startswith("[gone] ")
    assert await next_check(db, now=T + 99 * INTERVAL, following=FOLLOWING) is None


async def test_proofs_first_then_young_alerts_then_flats(db: Database) -> None:
    """Of the adverts due: the one whose missing answer waits for its proof, then those
    alerted within a day, flats before the marketplace, then the older ones."""
    async with db.transaction() as conn:
        await watching(conn)
        await alerted(conn, "old-flat", at=T - 2 * 86400, message_id=1, flat=True)
        await alerted(conn, "sofa", at=T, message_id=2)
        await alerted(conn, "flat", at=T, message_id=3, flat=True)
        await alerted(conn, "missing", at=T, message_id=4)
    await checked(db, "missing", ad_id="missing", at=T + INTERVAL)
    now = T + 3 * INTERVAL
    order = []
    for _ in range(4):
        check = await next_check(db, now=now, following=FOLLOWING)
        assert check is not None
        order.append(check.ad_id)
        await checked(db, "active", ad_id=check.ad_id, at=now)
    assert order == ["missing", "flat", "sofa", "old-flat"]
