"""Judging a watch: the adverts one read of its search showed → the alerts its chat gets, as
rows of the outbox.

`judge` is the one way a watch is judged, whoever read the adverts (the search's own scan,
`habicht.scraper.scan`, or a feed, `habicht.scraper.feeds`), so an advert is alerted once,
whichever reads it first. For one baselined watch it takes what the watch has seen
(`watch_listings`), the events of the read (`watches.diff`: new, bumped, dropped), each
advert's notes (`watches.notes`: distance, going price, repost), and lets the watch's own
filter (`watches.filters`) hold back what it does not want — counted as a hit of the rule
that held it; what passes is rendered by the chat's `Renderer` into `Outgoing` rows with their
dedupe keys (DESIGN.md). Everything the read showed is then recorded as seen by the watch
(`_record_seen`), so loosening the filter later sends none of it; a muted watch sees, and says
nothing. A watch's first successful read is its silent `baseline` instead: all seen, one
`info` message. `enqueue_alerts` puts the rows into the outbox, one drop alert per cut of a
price and chat.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Protocol

import aiosqlite

from habicht.market.history import (
    PricePoint,
    lowest_prices,
    price_paths,
    record_hits,
)
from habicht.market.reposts import repost_drop
from habicht.model import Listing, Search, money
from habicht.queue import Buttons, Kind, Outgoing, Source, enqueue_within
from habicht.watches.diff import BumpedListing, NewListing, PriceDrop, diff
from habicht.watches.filters import WatchFilter
from habicht.watches.follow import Following, FollowRenderer, note_alerted
from habicht.watches.notes import NO_NOTES, AlertNotes, SearchFacts, watch_notes

__all__ = [
    "ACTIVE_WATCHES",
    "Alert",
    "Lookups",
    "Renderer",
    "baseline",
    "enqueue_alerts",
    "judge",
]


@dataclass(frozen=True, slots=True)
class Alert:
    """A rendered alert: its text (the caption, if it has a photo) and what else its message
    carries; the scan adds where it goes (the chat and the watch's forum topic)."""

    text: str
    photo_url: str | None = None
    buttons: Buttons = ()


class Renderer(FollowRenderer, Protocol):
    """Turns events into message texts; the bot's implementation writes escaped HTML. It
    also words what a followed alert adds once its advert changed (`FollowRenderer`).

    `for_chat` gives the renderer of one chat's texts (its language, its alert style); the
    scan asks for it per watch, so each alert is written as its chat wants it. An alert
    names its `watch_id`, so its buttons can act on that watch.
    """

    def for_chat(self, chat_id: int) -> Renderer: ...

    def new_listing(
        self,
        listing: Listing,
        *,
        watch_id: int,
        bumped: bool = False,
        entered: bool = False,
        notes: AlertNotes = NO_NOTES,
    ) -> Alert:
        """`bumped`: a `BumpedListing`, which the text must not call new; `entered`: an older
        advert that came into the search since the watch started (`NewListing.entered`);
        `notes`: what the alert says beside the advert (distance, going price, repost)."""
        ...

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
        """`path`: every price the advert was known at, oldest first, ending with `new`;
        `entered`: the advert came into the search by this drop (`PriceDrop.entered`)."""
        ...

    def digest_line(
        self,
        listing: Listing,
        *,
        drop: tuple[Decimal, Decimal] | None = None,
        bumped: bool = False,
        entered: bool = False,
        notes: AlertNotes = NO_NOTES,
    ) -> str:
        """The alert as one line of a digest (a new listing, or a drop from `drop`)."""
        ...

    def baseline(self, search: Search, count: int) -> str: ...


ACTIVE_WATCHES = (
    "SELECT w.id, w.chat_id, w.label, w.baseline_at, w.baseline_complete, w.filters,"
    " w.thread_id, w.muted_until, w.baseline_failures"
    " FROM watches w"
    " JOIN chats c ON c.chat_id = w.chat_id"
    " WHERE w.search_id = ? AND w.status = 'active' AND c.status = 'active' ORDER BY w.id"
)


async def judge(
    conn: aiosqlite.Connection,
    watch: sqlite3.Row,
    active: list[Listing],
    facts: SearchFacts,
    *,
    renderer: Renderer,
    now: float,
    source: Source = "search",
    lookups: Lookups | None = None,
) -> list[Outgoing]:
    """The alerts of one baselined watch (a row of `ACTIVE_WATCHES`) for adverts its search
    shows, and everything it saw recorded as seen; a muted watch sees, and says nothing.

    The search's own scan and a feed (for the adverts it matched to the search) judge the
    same way, so an advert is alerted once, whichever reads it first; `facts` are what the
    read told about the search (its going price, its reposts), the same for all its watches.
    `lookups` are the database's answers about `active` shared by the watches judged after
    each other on the same adverts (by default this watch's own).
    """
    chat_renderer = renderer.for_chat(watch["chat_id"])
    if lookups is None:
        lookups = Lookups(active, [watch["id"]])
    events, told = await _events(
        conn, watch, active, facts, lookups=lookups, renderer=chat_renderer, now=now, source=source
    )
    if (watch["muted_until"] or 0.0) > now:
        events, told = [], set()
    await _record_seen(conn, watch["id"], active, told=told, own=source == "search", now=now)
    return events


async def baseline(
    conn: aiosqlite.Connection,
    watch: sqlite3.Row,
    active: list[Listing],
    *,
    url: str,
    complete: bool,
    renderer: Renderer,
    now: float,
) -> Outgoing:
    """A watch's silent baseline (a row of `ACTIVE_WATCHES` without `baseline_at`): everything
    the read showed recorded as seen, no alerts, and the one `info` message that says how many
    listings it now watches, naming its search (at `url`) as habicht names searches;
    `complete`: the read was the whole search (see `diff`)."""
    search = Search(url=url, label=watch["label"])
    text = renderer.for_chat(watch["chat_id"]).baseline(search, len(active))
    await conn.execute(
        "UPDATE watches SET baseline_at = ?, baseline_complete = ?, baseline_failures = 0"
        " WHERE id = ?",
        (now, complete, watch["id"]),
    )
    await _record_seen(conn, watch["id"], active, told=set(), own=True, now=now)
    # One note per baseline: a resumed watch is baselined (and told) again.
    return Outgoing(watch["chat_id"], "info", text, f"baseline:{watch['id']}:{now:.3f}")


async def _record_seen(
    conn: aiosqlite.Connection,
    watch_id: int,
    active: list[Listing],
    *,
    told: set[str],
    own: bool,
    now: float,
) -> None:
    """`active` as seen by the watch, at their prices; `told` are the adverts its chat is now
    told of, whose price becomes what the chat knows (`told_price`); `own`: the search's own
    scan read them, so they are its anchors (`scraper.pages`) — a feed's sighting never is."""
    await conn.executemany(
        "INSERT INTO watch_listings (watch_id, ad_id, last_price, told_price, first_seen_at, own)"
        " VALUES (:watch, :ad, :price, :price, :now, :own) ON CONFLICT (watch_id, ad_id)"
        " DO UPDATE SET last_price = COALESCE(excluded.last_price, last_price),"
        " told_price = CASE WHEN :told THEN excluded.told_price"
        " ELSE COALESCE(told_price, excluded.told_price) END, own = max(own, excluded.own)",
        [
            {
                "watch": watch_id,
                "ad": listing.id,
                "price": money(listing.price),
                "told": listing.id in told,
                "own": own,
                "now": now,
            }
            for listing in active
        ],
    )


async def enqueue_alerts(
    conn: aiosqlite.Connection,
    outgoing: list[Outgoing],
    *,
    now: float,
    max_attempts: int,
    following: Following | None = None,
) -> tuple[int, int]:
    """Enqueue `outgoing`; the new-listing and the drop alerts the dedupe keys let in (not the
    ones they refused). A chat hears of each cut of an advert's price once (`_once_a_cut`).
    With `following`, their adverts are followed from now on (`follow.note_alerted`)."""
    if following is not None:
        alerted = [item.ad_id for item in outgoing if item.kind in ("new", "drop") and item.ad_id]
        await note_alerted(
            conn, [ad for ad in alerted if ad is not None], now=now, following=following
        )
    drops = await _once_a_cut(conn, [item for item in outgoing if item.kind == "drop"])
    queued = {
        kind: await enqueue_within(
            conn,
            drops if kind == "drop" else [item for item in outgoing if item.kind == kind],
            now=now,
            max_attempts=max_attempts,
        )
        for kind in ("info", "new", "drop")
    }
    return queued["new"], queued["drop"]


_TOLD_CUT = """
SELECT 1 FROM notifications
WHERE chat_id = :chat AND ad_id = :ad AND kind = 'drop' AND dedupe_key LIKE :key
  AND created_at >= (SELECT max(seen_at) FROM price_history WHERE ad_id = :ad)
LIMIT 1
"""
"""Whether the chat already has a drop alert of the advert to its current price since the
price became it (the cut's first sighting, the history's latest row)."""


async def _once_a_cut(conn: aiosqlite.Connection, drops: list[Outgoing]) -> list[Outgoing]:
    """`drops` less the ones whose chat already hears of the same cut: two watches of one chat
    that knew the advert at different prices (one was told of an earlier cut, the other not)
    each make a drop to the same price, "€ 49 → € 36" and "€ 42 → € 36", with keys of their
    own — one cut, told once. A later cut to the same price (after a rise) is another drop."""
    kept: list[Outgoing] = []
    cuts: set[tuple[int, str, str]] = set()
    for item in drops:
        assert item.ad_id is not None  # every drop alert names its advert
        new = item.dedupe_key.rsplit(":", 1)[1]
        cut = (item.chat_id, item.ad_id, new)
        if cut in cuts:
            continue
        cuts.add(cut)
        key = f"drop:{item.ad_id}:{item.chat_id}:%:{new}"
        params = {"chat": item.chat_id, "ad": item.ad_id, "key": key}
        async with conn.execute(_TOLD_CUT, params) as cursor:
            if await cursor.fetchone() is None:
                kept.append(item)
    return kept


async def _events(
    conn: aiosqlite.Connection,
    watch: sqlite3.Row,
    listings: list[Listing],
    facts: SearchFacts,
    *,
    lookups: Lookups,
    renderer: Renderer,
    now: float,
    source: Source,
) -> tuple[list[Outgoing], set[str]]:
    """The rendered alerts of one watch for the pages read (reserved adverts left out),
    through the watch's own filter; and the adverts they tell the chat of.

    A drop's dedupe key holds both prices: each distinct (old, new) drop of an advert is one
    alert per chat, and the same pair is never sent twice. `drop N%` and `drop N€` measure
    from the price the chat was last told (`watch_listings.told_price`), and a drop below it
    shows it as the old price. A repost cheaper than its older advert's last price reads as that
    drop (`repost_drop`), but stays a new advert: kind "new", key `new:<ad>:<chat>`, so it is
    told once per chat whichever read finds it, counts where new adverts count (freshness,
    feed misses), and no price rule holds it back. What the filter holds back is noted as a
    hit of the rule that held it (for /list); the caller records it as seen like everything
    else on the pages, so loosening the filter later sends none of it.
    """
    watch_id, chat_id = watch["id"], watch["chat_id"]
    seen, told_prices = await lookups.seen(conn, watch_id)
    wanted = _maybe_news(listings, seen)
    paths = await lookups.price_paths(conn, wanted)
    unseen = [listing for listing in listings if listing.id not in seen]
    earlier = {
        listing.id: price
        for listing in unseen
        if (price := _before(paths.get(listing.id, ()), listing.price)) is not None
    }
    events = diff(
        seen,
        listings,
        baseline_at=watch["baseline_at"],
        baseline_complete=bool(watch["baseline_complete"]),
        earlier=earlier,
    )
    watch_filter = WatchFilter.from_json(watch["filters"])
    drops = [event.listing.id for event in events if isinstance(event, PriceDrop)]
    lowest = await lowest_prices(conn, drops, before=now) if watch_filter.lowest else {}
    first_seen = await lookups.first_seen(
        conn, [event.listing.id for event in events if _fresh(event)]
    )
    notes_of = await watch_notes(
        conn, watch_filter.centre, chat_id, [event.listing for event in events], facts
    )
    outgoing: list[Outgoing] = []
    hits: list[tuple[str, str]] = []
    for event in events:
        listing = event.listing
        ad_id = listing.id
        told = told_prices.get(ad_id)
        notes = notes_of[ad_id]
        held = watch_filter.hidden_by(listing, notes)
        if held is None and isinstance(event, PriceDrop):
            held = watch_filter.drop_held_by(
                event.old, event.new, told=told, lowest_before=lowest.get(ad_id)
            )
        if held is not None:
            hits.append((ad_id, held))
        elif isinstance(event, NewListing | BumpedListing):
            bumped = isinstance(event, BumpedListing)
            entered = isinstance(event, NewListing) and event.entered
            if (drop := repost_drop(listing, notes.repost)) is not None:
                alert = renderer.price_drop(listing, *drop, watch_id=watch_id, notes=notes)
                line = renderer.digest_line(listing, drop=drop, notes=notes)
            else:
                alert = renderer.new_listing(
                    listing, watch_id=watch_id, bumped=bumped, entered=entered, notes=notes
                )
                line = renderer.digest_line(listing, bumped=bumped, entered=entered, notes=notes)
            key = f"new:{ad_id}:{chat_id}"
            item = _outgoing(watch, "new", alert, key, ad_id, line, source)
            if ad_id in first_seen:
                item = replace(
                    item, first_seen_at=first_seen[ad_id], published_at=listing.published_at
                )
            outgoing.append(item)
        else:
            old = told if told is not None and told > event.new else event.old
            alert = renderer.price_drop(
                listing,
                old,
                event.new,
                watch_id=watch_id,
                path=paths[ad_id],
                entered=event.entered,
                notes=notes,
            )
            key = f"drop:{ad_id}:{chat_id}:{money(old)}:{money(event.new)}"
            line = renderer.digest_line(
                listing, drop=(old, event.new), entered=event.entered, notes=notes
            )
            outgoing.append(_outgoing(watch, "drop", alert, key, ad_id, line, source))
    if hits:
        await record_hits(conn, watch_id, hits, now=now)
    return outgoing, {item.ad_id for item in outgoing if item.ad_id is not None}


def _fresh(event: object) -> bool:
    """Whether an event is a new advert on willhaben — not bumped (its `PUBLISHED` is the
    bump), not one published before the watch started — whose alert measures freshness."""
    return isinstance(event, NewListing) and not event.entered and not event.listing.bumped


class Lookups:
    """What the watches judged on one read's adverts ask the database about them, asked once
    for them all (issue 26): a search has several watches, and each question is a round trip
    to the database's thread. Judging a watch changes no answer another watch gets: it writes
    only its own `watch_listings` rows, and the prices and first sightings of the adverts were
    recorded by the read before any watch is judged.
    """

    def __init__(self, listings: list[Listing], watch_ids: Iterable[int]) -> None:
        """`listings`: the adverts judged (`judge`'s `active`); `watch_ids`: every watch that
        may be judged on them (their seen adverts are read in one query, when the first is)."""
        self._ad_ids = json.dumps([listing.id for listing in listings])
        self._watch_ids = sorted(set(watch_ids))
        self._seen: dict[int, tuple[dict[str, Decimal | None], dict[str, Decimal]]] | None = None
        self._paths: dict[str, list[PricePoint]] = {}
        self._first_seen: dict[str, float | None] = {}

    async def seen(
        self, conn: aiosqlite.Connection, watch_id: int
    ) -> tuple[dict[str, Decimal | None], dict[str, Decimal]]:
        """Of the adverts on the pages, the ones the watch has seen with the last price it saw,
        and the price its chat was last told of each (where one is known)."""
        if self._seen is None:
            self._seen = {watch: ({}, {}) for watch in self._watch_ids}
            rows = await conn.execute_fetchall(
                "SELECT watch_id, ad_id, last_price, told_price FROM watch_listings"
                " WHERE watch_id IN (SELECT value FROM json_each(?))"
                " AND ad_id IN (SELECT value FROM json_each(?))",
                (json.dumps(self._watch_ids), self._ad_ids),
            )
            for row in rows:
                seen, told = self._seen[row["watch_id"]]
                seen[row["ad_id"]] = _decimal(row["last_price"])
                if row["told_price"]:
                    told[row["ad_id"]] = Decimal(row["told_price"])
        return self._seen[watch_id]

    async def price_paths(
        self, conn: aiosqlite.Connection, ad_ids: list[str]
    ) -> dict[str, list[PricePoint]]:
        """Each advert's known prices, oldest first (`history.price_paths`)."""
        unknown = [ad_id for ad_id in ad_ids if ad_id not in self._paths]
        if unknown:
            self._paths.update(await price_paths(conn, unknown))
        return {ad_id: self._paths[ad_id] for ad_id in ad_ids}

    async def first_seen(self, conn: aiosqlite.Connection, ad_ids: list[str]) -> dict[str, float]:
        """When habicht first read each advert on any page (`listings.first_seen_at`)."""
        unknown = [ad_id for ad_id in ad_ids if ad_id not in self._first_seen]
        if unknown:
            self._first_seen.update(dict.fromkeys(unknown))
            rows = await conn.execute_fetchall(
                "SELECT ad_id, first_seen_at FROM listings"
                " WHERE ad_id IN (SELECT value FROM json_each(?))",
                (json.dumps(unknown),),
            )
            self._first_seen.update({row[0]: row[1] for row in rows})
        return {ad_id: first for ad_id in ad_ids if (first := self._first_seen[ad_id]) is not None}


def _maybe_news(listings: list[Listing], seen: Mapping[str, Decimal | None]) -> list[str]:
    """The priced adverts whose price path the watch may need: the unseen ones (one may have
    come into the search by a drop) and the seen ones that now cost less."""
    ids = []
    for listing in listings:
        price, last = listing.price, seen.get(listing.id)
        if price is not None and (listing.id not in seen or (last is not None and price < last)):
            ids.append(listing.id)
    return ids


def _before(path: Sequence[PricePoint], price: Decimal | None) -> Decimal | None:
    """The price an advert had before its current `price`, from its path (None if none)."""
    for point in reversed(path):
        if point.price != price:
            return point.price
    return None


def _decimal(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def _outgoing(
    watch: sqlite3.Row,
    kind: Kind,
    alert: Alert,
    key: str,
    ad_id: str,
    digest_line: str,
    source: Source,
) -> Outgoing:
    """An alert of `watch`, to its chat and to the forum topic it was created in; with its
    line for a digest, where it came from, and owed by the watch (removing, pausing or muting
    it cancels it)."""
    return Outgoing(
        watch["chat_id"],
        kind,
        alert.text,
        key,
        ad_id,
        photo_url=alert.photo_url,
        buttons=alert.buttons,
        thread_id=watch["thread_id"],
        digest_line=digest_line,
        watch_id=watch["id"],
        source=source,
    )
