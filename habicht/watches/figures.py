"""A watch's figures for its subscribers (`/stats <n>`): its search's going price and what the
search and the watch did in the last 30 days.

Read-only and cheap (a few indexed queries on committed data): a subscriber may ask at any
time without slowing the scan. Knows nothing of Telegram: `habicht.bot` words the figures
(and may draw them).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from habicht.db import Database
from habicht.market.going import SHOWN_PRICES, WINDOW, PriceStats, going_of
from habicht.market.listings import shown_ads
from habicht.queue.figures import sent_counts

__all__ = ["WatchFigures", "watch_figures"]


@dataclass(frozen=True, slots=True)
class WatchFigures:
    """What a watch's search showed and its chat was told, over `WINDOW` (30 days).

    `shown`: adverts the search showed (each once); `priced`: those with a price, placeholders
    included; `going`: their going price (None: no price at all; `going.enough` says whether
    alerts and `deal` use it); `new` and `drops`: alerts the chat was sent for adverts of the
    search (new listings, price drops).
    """

    shown: int
    priced: int
    going: PriceStats | None
    new: int
    drops: int

    @property
    def left_out(self) -> int:
        """Prices the going price did not count: placeholders and outliers (and, per m², the
        adverts that do not say their living area)."""
        return self.priced - (0 if self.going is None else self.going.count)


async def watch_figures(
    db: Database, *, search_id: int, chat_id: int, now: float, window: float = WINDOW
) -> WatchFigures:
    """The figures of the watch of chat `chat_id` on search `search_id`, as of `now`."""
    since = now - window
    rows = await db.fetchall(SHOWN_PRICES, (search_id, since))
    prices = [(Decimal(row[0]), row[1]) for row in rows if row[0] is not None]
    # The adverts the search showed, whose alerts to the chat the outbox counts
    # (`queue.figures.sent_counts`, by chat and advert).
    shown = await shown_ads(db.reader, search_id)
    alerts = await sent_counts(db, chat_id=chat_id, since=since, ad_ids=shown)
    return WatchFigures(
        shown=len(rows),
        priced=len(prices),
        going=going_of(prices),
        new=alerts.get("new", 0),
        drops=alerts.get("drop", 0),
    )
