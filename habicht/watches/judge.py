"""Judging a watch: the adverts one read of its search showed → the alerts its chat gets, as
rows of the outbox.

`judge` is the one way a watch is judged, whoever read the adverts (the search's own scan,
`habicht.scraper.scan`, or a feed, `habicht.scraper.feeds`), so an advert is alerted once,
whichever reads it first. For each baselined watch it takes what the watch has seen
(`watch_listings`), the events of the read (`watches.diff`: new, bumped, dropped), each
advert's notes (`watches.notes`: distance, going price, repost), and lets the watch's own
filter (`watches.filters`) hold back what it does not want — counted as a hit of the rule
that held it; what passes is rendered by the chat's `Renderer` into `Outgoing` rows with their
dedupe keys (DESIGN.md). Everything the read showed is then recorded as seen by the watch
(`_SEEN`), so loosening the filter later sends none of it; a muted watch sees, and says
nothing. Many watches — a search's, or a feed read's of many searches — are judged in one
pass: a question to the database once for them all, not once a watch (issue 36). A watch's
first successful read is its silent `baseline` instead: all seen, one `info` message.
`enqueue_alerts` puts the rows into the outbox, one drop alert per cut of a price and chat.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

import aiosqlite

from habicht.market.history import (
    PricePoint,
    lowest_prices,
    price_paths,
    priced_since,
)
from habicht.market.listings import first_seen as first_seen_at
from habicht.market.reposts import repost_drop
from habicht.message import Buttons, Kind, Outgoing, Source
from habicht.model import Listing, Search, money
from habicht.queue.enqueue import drops_told, enqueue_within
from habicht.quiet import QuietHours, stored_quiet_hours
from habicht.watches.diff import BumpedListing, Event, NewListing, PriceDrop, diff
from habicht.watches.filters import WatchFilter
from habicht.watches.follow import Following, FollowRenderer, note_alerted
from habicht.watches.notes import NO_NOTES, AlertNotes, SearchFacts, watch_notes
from habicht.watches.watch import HIT_WINDOW

__all__ = [
    "ActiveWatch",
    "Alert",
    "Renderer",
    "WatchRead",
    "active_watches",
    "anchored",
    "baseline",
    "baseline_failed",
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


@dataclass(frozen=True, slots=True)
class ActiveWatch:
    """An active watch of an active chat, as a read of its search judges it
    (`active_watches`): the scraper reads these fields and never the SQL behind them."""

    id: int
    chat_id: int
    search_id: int
    label: str
    baseline_at: float | None
    """When its silent baseline was taken; None: its next successful read is the baseline."""
    baseline_complete: bool
    filters: str | None
    """Its filter as stored (JSON), parsed once per distinct text by `judge`."""
    thread_id: int | None
    muted_until: float | None
    baseline_failures: int


_WATCHES = (
    "SELECT w.id, w.chat_id, w.search_id, w.label, w.baseline_at, w.baseline_complete,"
    " w.filters, w.thread_id, w.muted_until, w.baseline_failures"
    " FROM watches w"
    " JOIN chats c ON c.chat_id = w.chat_id"
    " WHERE w.search_id IN (SELECT value FROM json_each(?))"
    " AND w.status = 'active' AND c.status = 'active'"
    " ORDER BY w.search_id, w.id"
)


async def active_watches(
    conn: aiosqlite.Connection, search_ids: Collection[int]
) -> list[ActiveWatch]:
    """The active watches of active chats of the searches `search_ids`, by search and id."""
    rows = await conn.execute_fetchall(_WATCHES, (json.dumps(sorted(search_ids)),))
    return [
        ActiveWatch(
            id=row["id"],
            chat_id=row["chat_id"],
            search_id=row["search_id"],
            label=row["label"],
            baseline_at=row["baseline_at"],
            baseline_complete=bool(row["baseline_complete"]),
            filters=row["filters"],
            thread_id=row["thread_id"],
            muted_until=row["muted_until"],
            baseline_failures=row["baseline_failures"],
        )
        for row in rows
    ]


@dataclass(frozen=True, slots=True)
class WatchRead:
    """A baselined watch (`active_watches`) and what one read of its search showed
    it: the active adverts, and what the read told about the search (`SearchFacts`, the same
    for all its watches)."""

    watch: ActiveWatch
    active: list[Listing]
    facts: SearchFacts


async def judge(
    conn: aiosqlite.Connection,
    reads: Sequence[WatchRead],
    *,
    renderer: Renderer,
    now: float,
    source: Source = "search",
) -> list[Outgoing]:
    """The alerts of baselined watches for the adverts their searches showed, in the order of
    `reads`, and everything each saw recorded as seen; a muted watch sees, and says nothing.

    The search's own scan judges the watches of its search, a feed read the watches of every
    search it matched adverts to: the same way, so an advert is alerted once, whichever reads
    it first. All of them are judged in one pass (issue 36): each question to the database —
    what the watches have seen of the adverts, the adverts' price paths, their lowest prices,
    when they were first seen — is asked once for them all, and what they saw is written in
    one statement. Judging a watch changes no answer another watch gets: it writes only its
    own rows (`watch_listings`, `filter_hits`), and the adverts' prices and first sightings
    were recorded by the read before any watch is judged.
    """
    if not reads:
        return []
    seen_of = await _seen(conn, reads)
    wanted = {
        ad_id for read in reads for ad_id in _maybe_news(read.active, seen_of[read.watch.id][0])
    }
    paths = await price_paths(conn, sorted(wanted)) if wanted else {}
    filters: dict[str | None, WatchFilter] = {}
    diffed: list[tuple[WatchRead, WatchFilter, list[Event]]] = []
    for read in reads:
        text = read.watch.filters
        if text not in filters:
            filters[text] = WatchFilter.from_json(text)
        seen = seen_of[read.watch.id][0]
        diffed.append((read, filters[text], _diffed(read, seen, paths)))
    lowest = await _lowest(conn, diffed, now=now)
    fresh = {event.listing.id for *_, events in diffed for event in events if _fresh(event)}
    first_seen = await first_seen_at(conn, sorted(fresh)) if fresh else {}
    outgoing: list[Outgoing] = []
    seen_rows: list[dict[str, object]] = []
    for read, watch_filter, events in diffed:
        watch = read.watch
        muted = (watch.muted_until or 0.0) > now
        items, hits = await _alerts(
            conn,
            read,
            watch_filter,
            events,
            told_prices=seen_of[watch.id][1],
            paths=paths,
            lowest=lowest,
            first_seen=first_seen,
            renderer=None if muted else renderer.for_chat(watch.chat_id),
            source=source,
        )
        if hits:
            await _record_hits(conn, watch.id, hits, now=now)
        outgoing += items
        told = {item.ad_id for item in items}
        seen_rows += _seen_rows(watch.id, read.active, told=told, own=source == "search", now=now)
    await conn.executemany(_SEEN, seen_rows)
    return outgoing


async def baseline(
    conn: aiosqlite.Connection,
    watch: ActiveWatch,
    active: list[Listing],
    *,
    url: str,
    complete: bool,
    renderer: Renderer,
    now: float,
) -> Outgoing:
    """A watch's silent baseline (an `ActiveWatch` without `baseline_at`): everything
    the read showed recorded as seen, no alerts, and the one `info` message that says how many
    listings it now watches, naming its search (at `url`) as habicht names searches;
    `complete`: the read was the whole search (see `diff`)."""
    search = Search(url=url, label=watch.label)
    text = renderer.for_chat(watch.chat_id).baseline(search, len(active))
    await conn.execute(
        "UPDATE watches SET baseline_at = ?, baseline_complete = ?, baseline_failures = 0"
        " WHERE id = ?",
        (now, complete, watch.id),
    )
    await conn.executemany(_SEEN, _seen_rows(watch.id, active, told=set(), own=True, now=now))
    # One note per baseline: a resumed watch is baselined (and told) again.
    return Outgoing(watch.chat_id, "info", text, f"baseline:{watch.id}:{now:.3f}")


async def anchored(
    conn: aiosqlite.Connection, watch_ids: Collection[int], ad_ids: Sequence[str]
) -> set[int]:
    """The watches of `watch_ids` that their search's own scans (not a feed) showed any of
    the adverts `ad_ids` (`_seen_rows`' `own`)."""
    rows = await conn.execute_fetchall(
        "SELECT DISTINCT watch_id FROM watch_listings"
        " WHERE watch_id IN (SELECT value FROM json_each(?))"
        " AND ad_id IN (SELECT value FROM json_each(?)) AND own",
        (json.dumps(sorted(watch_ids)), json.dumps(list(ad_ids))),
    )
    return {row["watch_id"] for row in rows}


async def baseline_failed(conn: aiosqlite.Connection, watch: ActiveWatch) -> None:
    """A read too short for the watch's baseline: one more failure counted on the watch
    (its baseline resets the count)."""
    await conn.execute(
        "UPDATE watches SET baseline_failures = baseline_failures + 1 WHERE id = ?", (watch.id,)
    )


async def _record_hits(
    conn: aiosqlite.Connection, watch_id: int, hits: Iterable[tuple[str, str]], *, now: float
) -> None:
    """Note `(ad_id, rule)` pairs the watch's filter hid now; forget hits past `HIT_WINDOW`."""
    await conn.execute(
        "DELETE FROM filter_hits WHERE watch_id = ? AND hit_at < ?",
        (watch_id, now - HIT_WINDOW),
    )
    await conn.executemany(
        "INSERT INTO filter_hits (watch_id, ad_id, rule, hit_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (watch_id, ad_id) DO UPDATE SET rule = excluded.rule,"
        " hit_at = excluded.hit_at",
        [(watch_id, ad_id, rule, now) for ad_id, rule in hits],
    )


_SEEN = (
    "INSERT INTO watch_listings (watch_id, ad_id, last_price, told_price, first_seen_at, own)"
    " VALUES (:watch, :ad, :price, :price, :now, :own) ON CONFLICT (watch_id, ad_id)"
    " DO UPDATE SET last_price = COALESCE(excluded.last_price, last_price),"
    " told_price = CASE WHEN :told THEN excluded.told_price"
    " ELSE COALESCE(told_price, excluded.told_price) END, own = max(own, excluded.own)"
)
"""Record an advert as seen by a watch at its price (`_seen_rows`)."""


def _seen_rows(
    watch_id: int, active: list[Listing], *, told: set[str | None], own: bool, now: float
) -> list[dict[str, object]]:
    """The rows of `_SEEN` that record `active` as seen by the watch, at their prices;
    `told` are the adverts its chat is now told of, whose price becomes what the chat knows
    (`told_price`); `own`: the search's own scan read them, so they are its anchors
    (`scraper.pages`) — a feed's sighting never is."""
    return [
        {
            "watch": watch_id,
            "ad": listing.id,
            "price": money(listing.price),
            "told": listing.id in told,
            "own": own,
            "now": now,
        }
        for listing in active
    ]


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
    quiet = await _quiet_hours(conn, {item.chat_id for item in outgoing})
    queued = {
        kind: await enqueue_within(
            conn,
            drops if kind == "drop" else [item for item in outgoing if item.kind == kind],
            now=now,
            max_attempts=max_attempts,
            quiet=quiet,
        )
        for kind in ("info", "new", "drop")
    }
    return queued["new"], queued["drop"]


_QUIET_HOURS = """
SELECT chat_id, quiet_from, quiet_to, quiet_mode, quiet_zone FROM chats
WHERE quiet_mode IS NOT NULL AND chat_id IN (SELECT value FROM json_each(?))
"""


async def _quiet_hours(
    conn: aiosqlite.Connection, chat_ids: Collection[int]
) -> dict[int, QuietHours]:
    """The quiet hours of those chats that have them, as stored in `chats`, read in the
    scan's transaction and handed to the outbox (which reads no chat's settings)."""
    if not chat_ids:
        return {}
    rows = await conn.execute_fetchall(_QUIET_HOURS, (json.dumps(sorted(chat_ids)),))
    found = {row[0]: stored_quiet_hours(*row[1:]) for row in rows}
    return {chat_id: quiet for chat_id, quiet in found.items() if quiet is not None}


async def _once_a_cut(conn: aiosqlite.Connection, drops: list[Outgoing]) -> list[Outgoing]:
    """`drops` less the ones whose chat already hears of the same cut: two watches of one chat
    that knew the advert at different prices (one was told of an earlier cut, the other not)
    each make a drop to the same price, "€ 49 → € 36" and "€ 42 → € 36", with keys of their
    own — one cut, told once. A later cut to the same price (after a rise) is another drop."""
    first: dict[tuple[int, str, str], Outgoing] = {}
    for item in drops:
        assert item.ad_id is not None  # every drop alert names its advert
        first.setdefault((item.chat_id, item.ad_id, item.dedupe_key.rsplit(":", 1)[1]), item)
    if not first:
        return []
    # The cut's first sighting: when the advert's price became it (the history's latest row).
    since = await priced_since(conn, {ad for _, ad, _ in first})
    cuts = [
        # A chat's drop keys of an advert: "drop:<ad>:<chat>:" up to the next character, the
        # ones that end in the cut's new price.
        (f"drop:{ad}:{chat}:", f"drop:{ad}:{chat};", f"drop:{ad}:{chat}:%:{new}", since.get(ad))
        for chat, ad, new in first
    ]
    skip = await drops_told(conn, cuts)
    return [item for n, item in enumerate(first.values()) if n not in skip]


async def _seen(
    conn: aiosqlite.Connection, reads: Sequence[WatchRead]
) -> dict[int, tuple[dict[str, Decimal | None], dict[str, Decimal]]]:
    """Of the adverts each watch's read showed, by watch: the ones it has seen with the last
    price it saw, and the price its chat was last told of each (where one is known) — one
    query for all the watches, looking up each (watch, advert) pair once (not every watch
    with every advert of the others' reads: 10,000 watches of a feed read are many)."""
    out: dict[int, tuple[dict[str, Decimal | None], dict[str, Decimal]]] = {
        read.watch.id: ({}, {}) for read in reads
    }
    pairs = [[read.watch.id, listing.id] for read in reads for listing in read.active]
    rows = await conn.execute_fetchall(
        "SELECT w.watch_id, w.ad_id, w.last_price, w.told_price FROM json_each(?) j"
        " CROSS JOIN watch_listings w ON w.watch_id = json_extract(j.value, '$[0]')"
        " AND w.ad_id = json_extract(j.value, '$[1]')",
        (json.dumps(pairs),),
    )
    for row in rows:
        seen, told = out[row["watch_id"]]
        seen[row["ad_id"]] = _decimal(row["last_price"])
        if row["told_price"]:
            told[row["ad_id"]] = Decimal(row["told_price"])
    return out


def _diffed(
    read: WatchRead, seen: Mapping[str, Decimal | None], paths: Mapping[str, list[PricePoint]]
) -> list[Event]:
    """The events of one watch's read (`diff`): reserved adverts left out; an unseen advert
    knows the price habicht had for it before its current one (`paths`)."""
    watch = read.watch
    earlier = {
        listing.id: price
        for listing in read.active
        if listing.id not in seen
        and (price := _before(paths.get(listing.id, ()), listing.price)) is not None
    }
    return diff(
        seen,
        read.active,
        baseline_at=watch.baseline_at,
        baseline_complete=watch.baseline_complete,
        earlier=earlier,
    )


async def _lowest(
    conn: aiosqlite.Connection,
    diffed: Sequence[tuple[WatchRead, WatchFilter, list[Event]]],
    *,
    now: float,
) -> dict[str, Decimal]:
    """The lowest price before now of every dropped advert a watch with the `lowest` rule is
    judging, in one query (`history.lowest_prices`)."""
    drops = {
        event.listing.id
        for _, watch_filter, events in diffed
        if watch_filter.lowest
        for event in events
        if isinstance(event, PriceDrop)
    }
    return await lowest_prices(conn, sorted(drops), before=now) if drops else {}


async def _alerts(
    conn: aiosqlite.Connection,
    read: WatchRead,
    watch_filter: WatchFilter,
    events: list[Event],
    *,
    told_prices: Mapping[str, Decimal],
    paths: Mapping[str, list[PricePoint]],
    lowest: Mapping[str, Decimal],
    first_seen: Mapping[str, float],
    renderer: Renderer | None,
    source: Source,
) -> tuple[list[Outgoing], list[tuple[str, str]]]:
    """The rendered alerts of one watch for its events, through the watch's own filter; and
    what the filter held back, as (advert, rule) — the hits of its rules (for /list). A muted
    watch (`renderer` None) gets no alerts; its filter's hits are noted all the same.

    A drop's dedupe key holds both prices: each distinct (old, new) drop of an advert is one
    alert per chat, and the same pair is never sent twice. `drop N%` and `drop N€` measure
    from the price the chat was last told (`watch_listings.told_price`), and a drop below it
    shows it as the old price. A repost cheaper than its older advert's last price reads as that
    drop (`repost_drop`), but stays a new advert: kind "new", key `new:<ad>:<chat>`, so it is
    told once per chat whichever read finds it, counts where new adverts count (freshness,
    feed misses), and no price rule holds it back. What the filter holds back is recorded as
    seen like everything else on the pages, so loosening the filter later sends none of it.
    """
    watch = read.watch
    watch_id, chat_id = watch.id, watch.chat_id
    notes_of = await watch_notes(
        conn, watch_filter.centre, chat_id, [event.listing for event in events], read.facts
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
        elif renderer is None:
            continue
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
            # A new advert on willhaben measures freshness: first read → published.
            fresh = _fresh(event) and ad_id in first_seen
            outgoing.append(
                _outgoing(
                    watch,
                    "new",
                    alert,
                    key,
                    ad_id,
                    line,
                    source,
                    first_seen_at=first_seen[ad_id] if fresh else None,
                    published_at=listing.published_at if fresh else None,
                )
            )
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
    return outgoing, hits


def _fresh(event: object) -> bool:
    """Whether an event is a new advert on willhaben — not bumped (its `PUBLISHED` is the
    bump), not one published before the watch started — whose alert measures freshness."""
    return isinstance(event, NewListing) and not event.entered and not event.listing.bumped


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
    watch: ActiveWatch,
    kind: Kind,
    alert: Alert,
    key: str,
    ad_id: str,
    digest_line: str,
    source: Source,
    *,
    first_seen_at: float | None = None,
    published_at: float | None = None,
) -> Outgoing:
    """An alert of `watch`, to its chat and to the forum topic it was created in; with its
    line for a digest, where it came from, and owed by the watch (removing, pausing or muting
    it cancels it); a new advert's alert with when habicht first read it and its `PUBLISHED`
    (freshness)."""
    return Outgoing(
        watch.chat_id,
        kind,
        alert.text,
        key,
        ad_id,
        photo_url=alert.photo_url,
        buttons=alert.buttons,
        thread_id=watch.thread_id,
        digest_line=digest_line,
        watch_id=watch.id,
        source=source,
        first_seen_at=first_seen_at,
        published_at=published_at,
    )
