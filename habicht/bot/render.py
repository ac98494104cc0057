"""The scraper's `Renderer`: turns its events into message texts in each chat's language.

The scraper calls it inside the transaction that detects an event, so the text stored in the
outbox is final: a retry never re-renders, and a restart never changes what was promised.
`for_chat` reads the chat's settings from the in-memory mirror (`Preferences`), since the
renderer runs synchronously inside that transaction.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from decimal import Decimal

from habicht.bot.preferences import AlertStyle, Preferences
from habicht.bot.signing import Signer, alert_buttons
from habicht.bot.texts import MAX_CAPTION, Html, Lang, Texts, visible_len
from habicht.market.history import PricePoint
from habicht.model import Listing, Search
from habicht.watches.follow import AdvertNews
from habicht.watches.judge import Alert
from habicht.watches.notes import NO_NOTES, AlertNotes

__all__ = ["MessageRenderer", "strike_title"]


def strike_title(text: str) -> str:
    """`text` with its first link — an alert's title — struck through (unchanged without)."""
    start = text.find("<a ")
    end = text.find("</a>", start)
    if start < 0 or end < 0:
        return text
    end += len("</a>")
    return f"{text[:start]}<s>{text[start:end]}</s>{text[end:]}"


class MessageRenderer:
    """New listing, price drop and baseline messages for one language and alert style.

    A `photo` alert is the advert's main image with the multi-line text as its caption (a
    text message, whose link preview shows the listing, if the advert has no image); a
    `compact` alert is one line of text. Both carry the buttons (`habicht.bot.signing`), their
    callback data tagged by `signer`. A real-estate advert (`Listing.estate`) is told as flat
    hunters decide on it, in every form and in a digest line too: its district as the place,
    then rent or price, m², rooms, € per m² and free areas (`Texts.new_listing`).
    """

    def __init__(
        self,
        texts: Texts,
        *,
        signer: Signer,
        style: AlertStyle = "photo",
        chats: Preferences | None = None,
    ) -> None:
        self.texts = texts
        self.signer = signer
        self.style: AlertStyle = style
        self._chats = chats

    def for_chat(self, chat_id: int) -> MessageRenderer:
        """The renderer of `chat_id`'s language and alert style (this one if it knows no chats)."""
        if self._chats is None:
            return self
        prefs = self._chats.of(chat_id)
        return MessageRenderer(
            Texts(self._chats.lang(chat_id)),
            signer=self.signer,
            style=prefs.alert_style,
            chats=self._chats,
        )

    def new_listing(
        self,
        listing: Listing,
        *,
        watch_id: int,
        bumped: bool = False,
        entered: bool = False,
        notes: AlertNotes = NO_NOTES,
    ) -> Alert:
        """Title (the link, so a text alert previews the listing), price and place; a
        `bumped` one (the watch cannot tell new from old) says "bumped to the top, not seen
        before", an `entered` one "new in your search · listed 12 Nov 2026"; `notes` add the
        distance, the going price and a repost."""
        text = self._new_text(
            listing, bumped=bumped, entered=entered, compact=self.style == "compact", notes=notes
        )
        return self._alert(text, listing, watch_id)

    def _new_text(
        self, listing: Listing, *, bumped: bool, entered: bool, compact: bool, notes: AlertNotes
    ) -> Html:
        return _listing_text(self.texts.lang, listing, bumped, entered, compact, notes)

    def price_drop(
        self,
        listing: Listing,
        old: Decimal,
        new: Decimal,
        *,
        watch_id: int,
        path: Sequence[PricePoint] = (),
        entered: bool = False,
        notes: AlertNotes = NO_NOTES,
    ) -> Alert:
        """Title, the old price struck through, the new one, how many percent less, and the
        way the price went when that says more ("€ 500 → € 450 → € 399 in 12 Tg"); an
        `entered` one says it is now within the search."""
        span = path[-1].seen_at - path[0].seen_at if path else 0.0
        text = self.texts.price_drop(
            title=listing.title,
            url=listing.url,
            old=old,
            new=new,
            path=[point.price for point in path],
            path_span=span,
            entered=entered,
            compact=self.style == "compact",
            location=listing.location,
            notes=notes,
            postcode=listing.postcode,
            estate=listing.estate,
        )
        return self._alert(text, listing, watch_id)

    def _alert(self, text: Html, listing: Listing, watch_id: int) -> Alert:
        """The alert with its buttons, and the advert's image unless the chat wants compact
        alerts (or the text would not fit a caption, which the budgets rule out)."""
        photo = listing.image_url if self.style == "photo" else None
        if photo is not None and visible_len(text) > MAX_CAPTION:
            photo = None
        buttons = alert_buttons(self.texts, self.signer, url=listing.url, watch_id=watch_id)
        return Alert(text, photo_url=photo, buttons=buttons)

    def digest_line(
        self,
        listing: Listing,
        *,
        drop: tuple[Decimal, Decimal] | None = None,
        bumped: bool = False,
        entered: bool = False,
        notes: AlertNotes = NO_NOTES,
    ) -> str:
        """The alert as one line of a digest: its compact text (title as the link, price or
        old → new, place, and the short notes), whatever the chat's alert style."""
        if drop is not None:
            old, new = drop
            return self.texts.price_drop(
                title=listing.title,
                url=listing.url,
                old=old,
                new=new,
                entered=entered,
                compact=True,
                location=listing.location,
                notes=notes,
                postcode=listing.postcode,
                estate=listing.estate,
            )
        return self._new_text(listing, bumped=bumped, entered=entered, compact=True, notes=notes)

    def followed(self, text: str, news: AdvertNews, *, caption: bool) -> str:
        """The alert as sent with what changed on top; a gone advert's title struck through.
        A caption that would outgrow Telegram's limit keeps its first line only."""
        notes = self.texts.follow_notes(news)
        body = strike_title(text) if news.state == "gone" else text
        edited = "\n".join([*notes, body])
        if caption and visible_len(Html(edited)) > MAX_CAPTION:
            edited = "\n".join([*notes, body.split("\n", 1)[0]])
        return edited

    def followed_line(self, line: str, news: AdvertNews) -> str:
        """A digest's line as sent, marked the same way, on the line itself."""
        body = strike_title(line) if news.state == "gone" else line
        return " · ".join([*self.texts.follow_notes(news), body])

    def baseline(self, search: Search, count: int) -> str:
        """A new watch's first scan: how many listings it now watches, silently."""
        return self.texts.baseline(search, count)


@functools.lru_cache(maxsize=8192)
def _listing_text(
    lang: Lang, listing: Listing, bumped: bool, entered: bool, compact: bool, notes: AlertNotes
) -> Html:
    """A new listing's text (`Texts.new_listing`), a pure function of what it is given.
    Remembered: one read that tells many chats of one advert — every watch of a search shares
    its notes — renders it once a language, style and notes, not once a chat."""
    return Texts(lang).new_listing(
        title=listing.title,
        url=listing.url,
        price=listing.price,
        price_display=listing.price_display,
        location=listing.location,
        bumped=bumped,
        entered=entered,
        # A bumped advert's date is its bump, not its listing.
        listed_at=None if listing.bumped else listing.published_at,
        compact=compact,
        notes=notes,
        postcode=listing.postcode,
        estate=listing.estate,
    )
