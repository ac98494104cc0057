"""The scraper's `Renderer`: turns its events into message texts in the subscribers' language.

The scraper calls it inside the transaction that detects an event, so the text stored in the
outbox is final: a retry never re-renders, and a restart never changes what was promised.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from habicht.bot.texts import Texts
from habicht.scraper import Listing, PricePoint

__all__ = ["MessageRenderer"]


class MessageRenderer:
    """New listing, price drop and baseline texts for one language (Telegram HTML)."""

    def __init__(self, texts: Texts) -> None:
        self.texts = texts

    def new_listing(self, listing: Listing, *, bumped: bool = False) -> str:
        """Title (the link, so Telegram previews the listing), price and place; a `bumped`
        one (the watch cannot tell new from old) says "bumped to the top, not seen before"."""
        return self.texts.new_listing(
            title=listing.title,
            url=listing.url,
            price=listing.price,
            price_display=listing.price_display,
            location=listing.location,
            bumped=bumped,
        )

    def price_drop(
        self, listing: Listing, old: Decimal, new: Decimal, *, path: Sequence[PricePoint] = ()
    ) -> str:
        """Title, the old price struck through, the new one, how many percent less, and the
        way the price went when that says more ("€ 500 → € 450 → € 399 in 12 Tg")."""
        span = path[-1].seen_at - path[0].seen_at if path else 0.0
        return self.texts.price_drop(
            title=listing.title,
            url=listing.url,
            old=old,
            new=new,
            path=[point.price for point in path],
            path_span=span,
        )

    def baseline(self, label: str, count: int) -> str:
        """A new watch's first scan: how many listings it now watches, silently."""
        return self.texts.baseline(label, count)
