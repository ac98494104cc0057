"""The scraper's `Renderer`: turns its events into message texts in each chat's language.

The scraper calls it inside the transaction that detects an event, so the text stored in the
outbox is final: a retry never re-renders, and a restart never changes what was promised.
`for_chat` reads the chat's settings from the in-memory mirror (`Preferences`), since the
renderer runs synchronously inside that transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from habicht.bot.preferences import AlertStyle, Preferences
from habicht.bot.texts import Texts
from habicht.scraper import Listing, PricePoint

__all__ = ["MessageRenderer"]


class MessageRenderer:
    """New listing, price drop and baseline texts for one language and alert style (HTML).

    A `compact` alert is one line; a `photo` alert (until photos are sent) is the multi-line
    text whose link preview shows the listing's picture.
    """

    def __init__(
        self, texts: Texts, *, style: AlertStyle = "photo", chats: Preferences | None = None
    ) -> None:
        self.texts = texts
        self.style: AlertStyle = style
        self._chats = chats

    def for_chat(self, chat_id: int) -> MessageRenderer:
        """The renderer of `chat_id`'s language and alert style (this one if it knows no chats)."""
        if self._chats is None:
            return self
        prefs = self._chats.of(chat_id)
        return MessageRenderer(
            Texts(self._chats.lang(chat_id)), style=prefs.alert_style, chats=self._chats
        )

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
            compact=self.style == "compact",
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
            compact=self.style == "compact",
        )

    def digest_line(
        self,
        listing: Listing,
        *,
        drop: tuple[Decimal, Decimal] | None = None,
        bumped: bool = False,
    ) -> str:
        """The alert as one line of a digest: its compact text (title as the link, price or
        old → new, place), whatever the chat's alert style."""
        line = MessageRenderer(self.texts, style="compact")
        if drop is not None:
            return line.price_drop(listing, *drop)
        return line.new_listing(listing, bumped=bumped)

    def baseline(self, label: str, count: int) -> str:
        """A new watch's first scan: how many listings it now watches, silently."""
        return self.texts.baseline(label, count)
