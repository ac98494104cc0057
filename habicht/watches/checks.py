"""Page checks: an alerted advert that no read shows any more is looked up on its own page.

Reads are free; a page check costs a request of the politeness budget, so the scheduler makes
one only with room to spare (`scraper.schedule`), and this module says which advert is due
and what its answer proves. An advert is due for a check when no read has shown it for an
interval (HABICHT_SCRAPE_INTERVAL) since it was last seen or checked (`check_due_at`, kept
with every change, so the next one is found on an index however many adverts are followed);
each check that finds it still there doubles the wait before the next — up to 24 intervals
(2 h at the default) while its newest alert is younger than a day, 144 (12 h) after. Of the
adverts due, a check confirming a missing one goes first, then the young before the old,
flats before the marketplace (a flat is promised within hours), the longest due first.

*Gone* needs proof: a 404 or 410, or a page whose status is neither active nor reserved, seen
twice, the second at least an interval after the first. One missing answer only starts the
proof; any read or page that shows the advert again ends it. An error page, a block, a layout
the parser does not know prove nothing. So an advert that left its search at t is marked gone
by about t + 2 or 3 intervals while the budget has room; a transient 404 never marks a flat let.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal

import aiosqlite

from habicht.db import Database
from habicht.watches.follow import (
    DAY,
    OLD_CAP,
    Following,
    FollowRenderer,
    due_after,
    followed_ads,
    record_state,
    refresh,
)

__all__ = ["Check", "Found", "next_check", "record_check"]

Found = Literal["active", "reserved", "missing", "failed"]
"""What one page check answered: the advert on offer or reserved, missing (404, 410, or a
status that is neither), or nothing to go by (an error, a block, a page not understood)."""

_CANDIDATES = 8

# The adverts whose page check is due, in the order they go (module docstring), each group
# on an index of its own in due order, so finding the next costs the same with a hundred or
# a hundred thousand adverts followed: proofs under way; adverts alerted within a day, flats
# first; then the older ones, flats first. Each is then asked whether it is still followed
# (`watches.follow.followed_ads`).
_SELECT = "SELECT s.ad_id, s.url FROM advert_states s {index}"
_YOUNG = "INDEXED BY advert_states_young"
"""A day's alerts walked by age, not every advert due by when it is (most of them old)."""
_DUE = (
    _SELECT.format(index="") + " WHERE s.missing_at IS NOT NULL AND s.check_due_at <= :now"
    " ORDER BY s.check_due_at LIMIT :candidates",
    *(
        _SELECT.format(index=index) + f" WHERE s.flat = {flat} AND s.check_due_at <= :now AND {age}"
        " ORDER BY s.check_due_at LIMIT :candidates"
        for index, age in ((_YOUNG, "s.alerted_at >= :day_ago"), ("", "s.alerted_at < :day_ago"))
        for flat in (1, 0)
    ),
)

# An advert due whose alerts are followed no more: none until it is alerted again, or, while
# its alerts are young enough to be followed (a chat may turn following back on, a watch be
# resumed), asked again after the longest wait.
_NOT_FOLLOWED = """
UPDATE advert_states SET check_due_at = CASE WHEN alerted_at < :since THEN NULL
                                             ELSE :now + :interval * :cap END
WHERE ad_id = :ad_id
"""


@dataclass(frozen=True, slots=True)
class Check:
    """An advert whose page is due for a check, at `url`."""

    ad_id: str
    url: str


async def next_check(db: Database, *, now: float, following: Following) -> Check | None:
    """The advert whose page check is due first (module docstring); None if none is.
    Adverts due whose alerts are followed no more are put off on the way (a small write)."""
    if not following.on:
        return None
    params = {"now": now, "day_ago": now - DAY, "candidates": _CANDIDATES}
    for sql in _DUE:
        while rows := await db.fetchall(sql, params):
            check = await _first_followed(db, rows, now=now, following=following)
            if check is not None:
                return check
    return None


async def _first_followed(
    db: Database, rows: list[sqlite3.Row], *, now: float, following: Following
) -> Check | None:
    """The first of these due adverts that is still followed; the others are put off."""
    async with db.transaction() as conn:
        ads = await followed_ads(conn, [row[0] for row in rows], now=now, following=following)
        for row in rows:
            if row[0] in ads:
                return Check(row[0], row[1])
            await conn.execute(
                _NOT_FOLLOWED,
                {
                    "ad_id": row[0],
                    "since": following.since(now),
                    "now": now,
                    "interval": following.interval,
                    "cap": OLD_CAP,
                },
            )
    return None


_MISSING = """
UPDATE advert_states SET checked_at = :now, missing_at = coalesce(missing_at, :now),
    check_due_at = :now + :interval
WHERE ad_id = :ad_id
"""

_GONE = """
UPDATE advert_states SET state = 'gone', since = missing_at, left_at = :now, checked_at = :now,
    missing_at = NULL, check_due_at = NULL
WHERE ad_id = :ad_id
"""

# A check that proved nothing waits as long as the last one that found the advert there.
_UNPROVEN = f"""
UPDATE advert_states SET checked_at = :now, check_due_at = {due_after("checks")}
WHERE ad_id = :ad_id
"""

_LOG = "INSERT INTO page_checks (checked_at, ad_id, found) VALUES (?, ?, ?)"

_MISSING_SINCE = "SELECT missing_at FROM advert_states WHERE ad_id = ?"


async def record_check(
    db: Database,
    check: Check,
    found: Found,
    renderer: FollowRenderer,
    *,
    price: str | None = None,
    now: float,
    following: Following,
) -> bool:
    """Record what the page of `check`'s advert answered (`price` with a page that shows it)
    and queue the edits a proven change calls for; whether the advert is now proven gone."""
    params = {"ad_id": check.ad_id, "now": now, "interval": following.interval}
    gone = False
    async with db.transaction() as conn:
        changed = False
        if found in ("active", "reserved"):
            changed = await record_state(
                conn, check.ad_id, found, price, now=now, interval=following.interval, page=True
            )
        elif found == "missing":
            gone = changed = await _missing(conn, check.ad_id, now=now, following=following)
        else:
            await conn.execute(_UNPROVEN, params)
        await conn.execute(_LOG, (now, check.ad_id, "gone" if gone else found))
        if changed:
            await refresh(conn, [check.ad_id], renderer, now=now, following=following)
    return gone


async def _missing(
    conn: aiosqlite.Connection, ad_id: str, *, now: float, following: Following
) -> bool:
    """A missing answer: the first starts the proof, one an interval later completes it;
    whether it did."""
    rows = list(await conn.execute_fetchall(_MISSING_SINCE, (ad_id,)))
    since = rows[0][0] if rows else None
    params = {"ad_id": ad_id, "now": now, "interval": following.interval}
    if since is not None and now - since >= following.interval:
        await conn.execute(_GONE, params)
        return True
    await conn.execute(_MISSING, params)
    return False
