"""Page checks: an alerted advert that no read shows any more is looked up on its own page.

Reads are free; a page check costs a request of the politeness budget, so the scheduler makes
one only with room to spare (`scraper.schedule`), and this module says which advert is due
and what its answer proves. An advert is due for a check when no read has shown it for an
interval (HABICHT_SCRAPE_INTERVAL) since it was last seen or checked; each check that finds it
still there doubles the wait before the next — up to 24 intervals (2 h at the default) while
its newest followed alert is younger than a day, 144 (12 h) after. Of the adverts due, a
check confirming a missing one goes first, then the young before the old, flats before the
marketplace (a flat is promised within hours), the longest due first.

*Gone* needs proof: a 404 or 410, or a page whose status is neither active nor reserved, seen
twice, the second at least an interval after the first. One missing answer only starts the
proof; any read or page that shows the advert again ends it. An error page, a block, a layout
the parser does not know prove nothing. So an advert that left its search at t is marked gone
by about t + 2 or 3 intervals while the budget has room; a transient 404 never marks a flat let.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

import aiosqlite

from habicht.db import Database
from habicht.watches.follow import DAY, Following, FollowRenderer, followed, record_state, refresh

__all__ = ["Check", "Found", "followed_now", "next_check", "record_check"]

Found = Literal["active", "reserved", "missing", "failed"]
"""What one page check answered: the advert on offer or reserved, missing (404, 410, or a
status that is neither), or nothing to go by (an error, a block, a page not understood)."""

_YOUNG_CAP = 24
_OLD_CAP = 144

# Adverts with a followed alert (their ids from `watches.follow.followed`), those not gone,
# with when their next check is due.
_DUE = f"""
SELECT ad_id, url FROM (
    SELECT l.ad_id, l.url, s.missing_at IS NOT NULL AS confirming, young.value AS young,
        l.url LIKE '%/iad/immobilien/%' AS flat,
        CASE WHEN s.missing_at IS NOT NULL THEN s.missing_at + :interval
             ELSE max(coalesce(s.seen_at, l.updated_at), coalesce(s.checked_at, 0))
                  + :interval * min(1 << min(coalesce(s.checks, 0), 8),
                                    CASE WHEN young.value THEN {_YOUNG_CAP} ELSE {_OLD_CAP} END)
        END AS due
    FROM json_each(:ads) AS ads
    JOIN json_each(:young) AS young ON young.key = ads.key
    JOIN listings l ON l.ad_id = ads.value
    LEFT JOIN advert_states s ON s.ad_id = l.ad_id
    WHERE coalesce(s.state, 'active') != 'gone'
)
WHERE due <= :now
ORDER BY confirming DESC, young DESC, flat DESC, due
LIMIT 1
"""

_SENT = """
SELECT n.ad_id, max(n.sent_at) FROM notifications n INDEXED BY notifications_sent
WHERE n.status = 'sent' AND n.sent_at >= :since AND n.message_id IS NOT NULL
    AND n.kind IN ('new', 'drop')
GROUP BY n.ad_id
"""


@dataclass(frozen=True, slots=True)
class Check:
    """An advert whose page is due for a check, at `url`."""

    ad_id: str
    url: str


async def followed_now(db: Database, *, now: float, following: Following) -> dict[str, float]:
    """Every advert with a followed alert, with when its newest followed alert was sent."""
    if not following.on:
        return {}
    sent = {row[0]: row[1] for row in await db.fetchall(_SENT, {"since": following.since(now)})}
    alerts = await followed(db.reader, sent, now=now, following=following)
    return {alert.ad_id: sent[alert.ad_id] for alert in alerts if alert.ad_id is not None}


async def next_check(db: Database, *, now: float, following: Following) -> Check | None:
    """The advert whose page check is due first (module docstring); None if none is."""
    sent = await followed_now(db, now=now, following=following)
    if not sent:
        return None
    ordered = sorted(sent)
    params = {
        "ads": json.dumps(ordered),
        "young": json.dumps([now - sent[ad] < DAY for ad in ordered]),
        "interval": following.interval,
        "now": now,
    }
    row = await db.fetchone(_DUE, params)
    return None if row is None else Check(row[0], row[1])


_MISSING = """
UPDATE advert_states SET checked_at = :now,
    missing_at = coalesce(missing_at, :now)
WHERE ad_id = :ad_id
"""

_GONE = """
UPDATE advert_states SET state = 'gone', since = missing_at, left_at = :now, checked_at = :now,
    missing_at = NULL
WHERE ad_id = :ad_id
"""

_CHECKED = """
UPDATE advert_states SET checked_at = :now, checks = checks + :still_there WHERE ad_id = :ad_id
"""

_LOG = "INSERT INTO page_checks (checked_at, ad_id, found) VALUES (?, ?, ?)"

_MISSING_SINCE = "SELECT missing_at FROM advert_states WHERE ad_id = ?"

_KNOWN = """
INSERT INTO advert_states (ad_id, state, since, seen_at)
SELECT ad_id, 'active', :now, coalesce(updated_at, :now) FROM listings WHERE ad_id = :ad_id
ON CONFLICT (ad_id) DO NOTHING
"""


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
    params = {"ad_id": check.ad_id, "now": now}
    gone = False
    async with db.transaction() as conn:
        await conn.execute(_KNOWN, params)  # an advert no read showed since its alert
        changed = False
        if found in ("active", "reserved"):
            changed = await record_state(conn, check.ad_id, found, price, now=now)
            await conn.execute(_CHECKED, {**params, "still_there": 1})
        elif found == "missing":
            gone = changed = await _missing(conn, check.ad_id, now=now, following=following)
        else:
            await conn.execute(_CHECKED, {**params, "still_there": 0})
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
    params = {"ad_id": ad_id, "now": now}
    if since is not None and now - since >= following.interval:
        await conn.execute(_GONE, params)
        return True
    await conn.execute(_MISSING, params)
    return False
