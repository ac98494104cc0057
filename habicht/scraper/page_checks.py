"""One page check: an alerted advert no read shows any more, looked up on its own page.

The scheduler makes one only when nothing else waits — no feed, no requested, due or spare
scan (`scraper.schedule`) — so a page check never delays any of them. Which advert is due,
and what an answer proves, is `watches.checks`'; this module reads the page and hands over
what it said: on offer or reserved (with its price), missing (a 404 or 410, or a page whose
status is neither), or nothing to go by (an error, a block, a page not understood).
"""

from __future__ import annotations

import logging

from habicht.clock import Clock
from habicht.db import Database
from habicht.model import money
from habicht.watches.checks import Check, Found, next_check, record_check
from habicht.watches.follow import Following, FollowRenderer
from habicht.willhaben.advert import Missing
from habicht.willhaben.errors import ScrapeError
from habicht.willhaben.fetch import WillhabenClient

__all__ = ["check_next_page"]

log = logging.getLogger(__name__)


async def check_next_page(
    db: Database,
    client: WillhabenClient,
    renderer: FollowRenderer,
    *,
    clock: Clock,
    following: Following,
) -> Check | None:
    """Check the page of the advert due first, if one is, and record what it said; the check
    made, or None when none was due. A block is recorded as no evidence, and the client's
    backoff then ends the caller's pass."""
    check = await next_check(db, now=clock(), following=following)
    if check is None:
        return None
    found: Found
    price = None
    try:
        answer = await client.advert(check.url)
    except ScrapeError as exc:
        log.info("page check of advert %s failed (%s): %s", check.ad_id, exc.kind, exc)
        found = "failed"
    else:
        if isinstance(answer, Missing) or answer.status == "other":
            found = "missing"
        else:
            found, price = answer.status, money(answer.price)
    gone = await record_check(
        db, check, found, renderer, price=price, now=clock(), following=following
    )
    if gone:
        log.info("advert %s is gone: its page was missing twice", check.ad_id)
    return check
