"""Who watches what: chats, their watches, and the searches those share.

The bot's commands call this; it knows nothing of Telegram. A watch is addressed by its
`number`, the 1-based position in the chat's list ordered by creation — what `/list` shows
and `/unwatch 2` means.

A watch that was not scanned for its chat for a while (paused, or its chat blocked the bot)
starts over with a silent baseline when it becomes active again: otherwise everything that
appeared meanwhile would arrive at once as "new".

A change that needs a scan (a new watch, a resume, a chat back from a block) asks the
scheduler for one by setting its search's `scan_requested_at` (and `scan_requested_by`, the
chat), in the same transaction and only for watches whose state it changed: asking again
while the scan is pending sets the same columns again, so repeating a command queues no
second fetch, and a request of another chat for the same search joins the pending one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import aiosqlite

from habicht.clock import Clock
from habicht.db import Database
from habicht.market.history import PricePoint, price_paths
from habicht.market.listings import count_listings, stored
from habicht.market.places import (
    Located,
    Place,
    Point,
    locate,
    places_of,
)
from habicht.model import ErrorKind, Search
from habicht.queue.enqueue import disown_within
from habicht.watches.errors import DuplicateWatch, TooManyWatches
from habicht.watches.filters import WatchFilter
from habicht.watches.notes import chat_location
from habicht.watches.preview import Preview, preview
from habicht.watches.watch import HIT_WINDOW, WatchInfo

__all__ = ["AdvertHistory", "Overview", "SearchHealth", "Subscriptions"]

Fetch = Callable[[str, Sequence[Any]], Awaitable[list[sqlite3.Row]]]


@dataclass(frozen=True, slots=True)
class AdvertHistory:
    """An advert one of the chat's watches has seen, with every price it was seen at."""

    ad_id: str
    title: str
    url: str
    price: Decimal | None
    price_display: str | None
    points: list[PricePoint]


@dataclass(frozen=True, slots=True)
class SearchHealth:
    """A search that failed its most recent scans, for the owner."""

    search_id: int
    url: str
    label: str
    watchers: int
    consecutive_failures: int
    last_error_kind: ErrorKind | None
    last_error: str | None
    last_success_at: float | None

    @property
    def search(self) -> Search:
        """The search, as habicht names searches everywhere."""
        return Search(url=self.url, label=self.label)


@dataclass(frozen=True, slots=True)
class Overview:
    """The numbers behind the owner's /stats."""

    chats: int
    active_chats: int
    watches: int
    active_watches: int
    searches: int
    listings: int
    failing: list[SearchHealth]


_REQUEST_SCAN = (
    "UPDATE searches SET scan_requested_at = coalesce(scan_requested_at, :now),"
    " scan_requested_by = coalesce(scan_requested_by, :chat) WHERE id = :search"
)
"""A pending request keeps its time and its chat: the scheduler serves them oldest first,
one per chat at a time (`schedule`)."""

_FIRST_LABEL = "(SELECT w.label FROM watches w WHERE w.search_id = s.id ORDER BY w.id LIMIT 1)"
"""The label of a search (`s`) for the owners: a label is a watch's, and the oldest watch's
stays while the search is watched."""

_WATCHES = """
SELECT w.id, w.chat_id, w.search_id, s.url, w.label, w.status, w.baseline_at, w.filters,
       (SELECT COUNT(*) FROM watch_listings wl WHERE wl.watch_id = w.id) AS listings_known,
       s.last_success_at, s.consecutive_failures, s.last_error_kind, w.thread_id
FROM watches w JOIN searches s ON s.id = w.search_id
WHERE w.chat_id = ?
ORDER BY w.id
"""
_HITS = """
SELECT h.watch_id, h.rule, COUNT(*) AS adverts
FROM filter_hits h JOIN watches w ON w.id = h.watch_id
WHERE w.chat_id = ? AND h.hit_at >= ?
GROUP BY h.watch_id, h.rule
ORDER BY adverts DESC, h.rule
"""


def _on(conn: aiosqlite.Connection) -> Fetch:
    """Reads through the writer connection, for use inside a transaction."""

    async def fetch(sql: str, params: Sequence[Any]) -> list[sqlite3.Row]:
        async with conn.execute(sql, params) as cursor:
            return list(await cursor.fetchall())

    return fetch


async def _watch_list(
    fetch: Fetch, chat_id: int, *, hits_since: float | None = None
) -> list[WatchInfo]:
    rows = await fetch(_WATCHES, (chat_id,))
    hidden: dict[int, list[tuple[str, int]]] = {}
    if hits_since is not None:
        for hit in await fetch(_HITS, (chat_id, hits_since)):
            hidden.setdefault(hit["watch_id"], []).append((hit["rule"], hit["adverts"]))
    return [
        WatchInfo(
            id=row["id"],
            number=number,
            chat_id=row["chat_id"],
            search_id=row["search_id"],
            url=row["url"],
            label=row["label"],
            paused=row["status"] == "paused",
            baseline_at=row["baseline_at"],
            listings_known=row["listings_known"],
            last_success_at=row["last_success_at"],
            consecutive_failures=row["consecutive_failures"],
            last_error_kind=row["last_error_kind"],
            thread_id=row["thread_id"],
            filter=WatchFilter.from_json(row["filters"]),
            hidden=tuple(hidden.get(row["id"], ())),
        )
        for number, row in enumerate(rows, start=1)
    ]


async def _request_scans(
    conn: aiosqlite.Connection, chat_id: int, watches: Sequence[WatchInfo], *, now: float
) -> None:
    await conn.executemany(
        _REQUEST_SCAN, [{"now": now, "chat": chat_id, "search": w.search_id} for w in watches]
    )


def _numbered(watches: list[WatchInfo], number: int) -> WatchInfo | None:
    return watches[number - 1] if 1 <= number <= len(watches) else None


# A chat's shared location: what `near here` means for it (its row made if need be).
_LOCATED = (
    "INSERT INTO chats (chat_id, created_at, updated_at, lat, lon, located_at)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (chat_id) DO UPDATE SET lat = excluded.lat,"
    " lon = excluded.lon, located_at = excluded.located_at, updated_at = excluded.updated_at"
)


class Subscriptions:
    """Chats and their watches in the database; every change is one transaction."""

    def __init__(
        self,
        db: Database,
        *,
        clock: Clock,
        on_chat_migrated: Callable[[int, int], Awaitable[None]] | None = None,
    ) -> None:
        """`on_chat_migrated(old, new)` is told after a chat's row moved to its new id (the
        bot keeps the chat's settings in memory too)."""
        self._db = db
        self._clock = clock
        self._on_chat_migrated = on_chat_migrated

    async def register_chat(self, chat_id: int) -> bool:
        """Create the chat, or re-activate it if it had blocked the bot; True if it was blocked.

        A re-activated chat's watches start over with a silent baseline.
        """
        now = self._clock()
        async with self._db.transaction() as conn:
            async with conn.execute("SELECT status FROM chats WHERE chat_id = ?", (chat_id,)) as c:
                row = await c.fetchone()
            if row is None:
                await conn.execute(
                    "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (?, ?, ?)",
                    (chat_id, now, now),
                )
                return False
            if row["status"] != "blocked":
                return False
            await conn.execute(
                "UPDATE chats SET status = 'active', updated_at = ? WHERE chat_id = ?",
                (now, chat_id),
            )
            await conn.execute(
                "UPDATE watches SET baseline_at = NULL WHERE chat_id = ?", (chat_id,)
            )
            watches = await _watch_list(_on(conn), chat_id)
            await _request_scans(conn, chat_id, [w for w in watches if not w.paused], now=now)
            return True

    async def block_chat(self, chat_id: int) -> None:
        """Mark the chat as having blocked the bot: its watches are skipped until /start."""
        now = self._clock()
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO chats (chat_id, status, created_at, updated_at)"
                " VALUES (?, 'blocked', ?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET status = 'blocked', updated_at = ?",
                (chat_id, now, now, now),
            )

    async def migrate_chat(self, old: int, new: int) -> None:
        """A group became a supergroup: its chat row — every column of `chats`, so a setting
        added later moves too — and its watches move to the new id.

        The group's settings replace a row the new id may have already: such a row was made
        by a message in the supergroup before delivery learnt of the move, and holds
        defaults, not choices. A watch the new id already has for the same search wins;
        the old one goes with the old chat row.
        """
        now = self._clock()
        async with self._db.transaction() as conn:
            async with conn.execute("SELECT name FROM pragma_table_info('chats')") as cursor:
                names = [row["name"] for row in await cursor.fetchall()]
            moved = [name for name in names if name not in ("chat_id", "updated_at")]
            columns = ", ".join(f'"{name}"' for name in moved)
            replace = ", ".join(f'"{name}" = excluded."{name}"' for name in moved)
            # The names come from the schema itself, never from outside; values are `?`.
            await conn.execute(
                f"INSERT INTO chats (chat_id, updated_at, {columns})"
                f" SELECT ?, ?, {columns} FROM chats WHERE chat_id = ?"
                f" ON CONFLICT (chat_id) DO UPDATE SET updated_at = excluded.updated_at,"
                f" {replace}",
                (new, now, old),
            )
            await conn.execute(
                "UPDATE OR IGNORE watches SET chat_id = ? WHERE chat_id = ?", (new, old)
            )
            await conn.execute("DELETE FROM chats WHERE chat_id = ?", (old,))
        if self._on_chat_migrated is not None:
            await self._on_chat_migrated(old, new)

    async def is_blocked(self, chat_id: int) -> bool:
        row = await self._db.fetchone("SELECT status FROM chats WHERE chat_id = ?", (chat_id,))
        return row is not None and row["status"] == "blocked"

    async def add_watch(
        self, chat_id: int, search: Search, *, max_watches: int, thread_id: int | None = None
    ) -> WatchInfo:
        """Add a watch of `search` for the chat (in forum topic `thread_id`, if given);
        identical searches share one `searches` row.

        Raises `DuplicateWatch` if the chat already watches it, `TooManyWatches` at the limit.
        """
        now = self._clock()
        async with self._db.transaction() as conn:
            fetch = _on(conn)
            await conn.execute(
                "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (chat_id) DO NOTHING",
                (chat_id, now, now),
            )
            await conn.execute(
                "INSERT INTO searches (url, created_at) VALUES (?, ?) ON CONFLICT (url) DO NOTHING",
                (search.url, now),
            )
            existing = await _watch_list(fetch, chat_id)
            for watch in existing:
                if watch.url == search.url:
                    raise DuplicateWatch(watch)
            if len(existing) >= max_watches:
                raise TooManyWatches(max_watches)
            async with conn.execute(
                "INSERT INTO watches (chat_id, search_id, label, created_at, thread_id)"
                " SELECT ?, id, ?, ?, ? FROM searches WHERE url = ?",
                (chat_id, search.label, now, thread_id, search.url),
            ) as cursor:
                watch_id = cursor.lastrowid
            added = next(w for w in await _watch_list(fetch, chat_id) if w.id == watch_id)
            await _request_scans(conn, chat_id, [added], now=now)
            return added

    async def watches(self, chat_id: int, *, with_hits: bool = False) -> list[WatchInfo]:
        """The chat's watches in creation order; `number` is the position, from 1.

        `with_hits` also counts what each filter hid in the last day (for /list).
        """
        since = self._clock() - HIT_WINDOW if with_hits else None
        return await _watch_list(self._db.fetchall, chat_id, hits_since=since)

    async def search_ids(self, chat_id: int) -> list[int]:
        """The searches of the chat's watches, paused ones too, each once."""
        rows = await self._db.fetchall(
            "SELECT DISTINCT search_id FROM watches WHERE chat_id = ? ORDER BY search_id",
            (chat_id,),
        )
        return [row["search_id"] for row in rows]

    async def watch(self, chat_id: int, number: int) -> WatchInfo | None:
        return _numbered(await self.watches(chat_id), number)

    async def watch_by_id(self, chat_id: int, watch_id: int) -> WatchInfo | None:
        """The chat's watch with this id; None if it is gone or belongs to another chat."""
        return next((w for w in await self.watches(chat_id) if w.id == watch_id), None)

    async def preview(self, chat_id: int, number: int) -> Preview | None:
        """What the chat's watch `number` would do with the adverts of its search's latest
        read (`habicht.watches.preview`); None if there is no such watch. Reads only, but
        inside a transaction: the watch, its search and their adverts as of one moment."""
        async with self._db.transaction() as conn:
            watch = _numbered(await _watch_list(_on(conn), chat_id), number)
            if watch is None:
                return None
            return await preview(conn, watch, now=self._clock())

    async def mute(self, watch_id: int, *, until: float) -> None:
        """Hold the watch's alerts back until `until`; it is scanned on, and what it sees
        meanwhile is recorded as seen (so nothing floods in when the mute ends). What it had
        queued and not sent yet is cancelled (see `disown_within`)."""
        async with self._db.transaction() as conn:
            await conn.execute("UPDATE watches SET muted_until = ? WHERE id = ?", (until, watch_id))
            await disown_within(conn, [watch_id], now=self._clock(), why="its watch was muted")

    async def pause_topic(self, chat_id: int, thread_id: int) -> int:
        """Pause the chat's watches of one forum topic (it was deleted or closed); returns
        how many were active. The chat's other watches go on."""
        async with self._db.transaction() as conn:
            rows = await conn.execute_fetchall(
                "UPDATE watches SET status = 'paused'"
                " WHERE chat_id = ? AND thread_id = ? AND status = 'active' RETURNING id",
                (chat_id, thread_id),
            )
            paused = [row[0] for row in rows]
            await disown_within(conn, paused, now=self._clock(), why="its topic is gone")
            return len(paused)

    async def remove_watch(self, chat_id: int, number: int) -> WatchInfo | None:
        """Delete the chat's watch `number` (and its search if nobody else watches it); what
        it queued and no other watch of the chat owes too is cancelled, never sent."""
        async with self._db.transaction() as conn:
            watch = _numbered(await _watch_list(_on(conn), chat_id), number)
            if watch is None:
                return None
            await conn.execute("DELETE FROM watches WHERE id = ?", (watch.id,))
            await disown_within(conn, [watch.id], now=self._clock(), why="its watch was removed")
            await conn.execute(
                "DELETE FROM searches WHERE id = ?"
                " AND NOT EXISTS (SELECT 1 FROM watches WHERE search_id = ?)",
                (watch.search_id, watch.search_id),
            )
            return watch

    async def set_paused(
        self, chat_id: int, number: int | None, *, paused: bool
    ) -> list[WatchInfo]:
        """Pause or resume watch `number`, or all of the chat's watches when it is None.

        Returns the addressed watches as they are now; empty if there is no such watch.
        A paused watch's unsent alerts are cancelled (see `disown_within`), and a resume does
        not bring them back: a resumed watch starts over with a silent baseline, and asks for
        a scan; one that was active already changes nothing.
        """
        now = self._clock()
        async with self._db.transaction() as conn:
            fetch = _on(conn)
            watches = await _watch_list(fetch, chat_id)
            if number is None:
                targets = watches
            else:
                target = _numbered(watches, number)
                targets = [] if target is None else [target]
            changed = [w for w in targets if w.paused != paused]
            if paused:
                sql = "UPDATE watches SET status = 'paused' WHERE id = ?"
                stopped = [w.id for w in changed]
                await disown_within(conn, stopped, now=now, why="its watch was paused")
            else:
                sql = "UPDATE watches SET status = 'active', baseline_at = NULL WHERE id = ?"
                await _request_scans(conn, chat_id, changed, now=now)
            await conn.executemany(sql, [(w.id,) for w in changed])
            ids = {w.id for w in targets}
            return [w for w in await _watch_list(fetch, chat_id) if w.id in ids]

    async def set_filter(
        self, chat_id: int, number: int, watch_filter: WatchFilter
    ) -> WatchInfo | None:
        """Give watch `number` this filter (the empty one clears it); None if no such watch.

        Adverts the filter hides are still recorded as seen, so loosening it later never
        floods the chat with old adverts.
        """
        async with self._db.transaction() as conn:
            fetch = _on(conn)
            watch = _numbered(await _watch_list(fetch, chat_id), number)
            if watch is None:
                return None
            await conn.execute(
                "UPDATE watches SET filters = ? WHERE id = ?", (watch_filter.to_json(), watch.id)
            )
            return _numbered(await _watch_list(fetch, chat_id), number)

    async def history(self, chat_id: int, ad_id: str) -> AdvertHistory | None:
        """The advert and its prices, if one of the chat's watches has seen it."""
        seen = await self._db.fetchone(
            "SELECT 1 FROM watch_listings wl JOIN watches w ON w.id = wl.watch_id"
            " WHERE wl.ad_id = ? AND w.chat_id = ?",
            (ad_id, chat_id),
        )
        advert = None if seen is None else (await stored(self._db.reader, [ad_id])).get(ad_id)
        if advert is None:
            return None
        points = (await price_paths(self._db.reader, [ad_id]))[ad_id]
        return AdvertHistory(
            ad_id=advert.ad_id,
            title=advert.title,
            url=advert.url,
            price=advert.price,
            price_display=advert.price_display,
            points=points,
        )

    async def searches(self, urls: Sequence[str]) -> dict[str, Search]:
        """The searches at `urls` by URL, each labelled as its oldest watch is (`_FIRST_LABEL`);
        a URL no longer watched is left out."""
        rows = await self._db.fetchall(
            f"SELECT s.url, {_FIRST_LABEL} AS label FROM searches s"
            " WHERE s.url IN (SELECT value FROM json_each(?))",
            (json.dumps(list(urls)),),
        )
        return {row["url"]: Search(row["url"], row["label"]) for row in rows if row["label"]}

    async def overview(self) -> Overview:
        """Counts for /stats and the searches whose latest scans failed, worst first."""
        counts = await self._db.fetchone(
            """
            SELECT (SELECT COUNT(*) FROM chats) AS chats,
                   (SELECT COUNT(*) FROM chats WHERE status = 'active') AS active_chats,
                   (SELECT COUNT(*) FROM watches) AS watches,
                   (SELECT COUNT(*) FROM watches w JOIN chats c ON c.chat_id = w.chat_id
                     WHERE w.status = 'active' AND c.status = 'active') AS active_watches,
                   (SELECT COUNT(*) FROM searches
                     WHERE EXISTS (SELECT 1 FROM watches w WHERE w.search_id = searches.id))
                     AS searches
            """
        )
        assert counts is not None  # a SELECT without FROM always returns one row
        failing = await self._db.fetchall(
            f"""
            SELECT s.id AS search_id, s.url, coalesce({_FIRST_LABEL}, s.url) AS label,
                   s.consecutive_failures, s.last_error_kind, s.last_error, s.last_success_at,
                   (SELECT COUNT(*) FROM watches w WHERE w.search_id = s.id) AS watchers
            FROM searches s WHERE s.consecutive_failures > 0
            ORDER BY s.consecutive_failures DESC, s.id
            """
        )
        listings = await count_listings(self._db.reader)
        return Overview(
            **dict(counts),
            listings=listings,
            failing=[SearchHealth(**dict(row)) for row in failing],
        )

    # distance (`near`, issue 21)

    async def share_location(self, chat_id: int, point: Point) -> Located:
        """Keep `point` as the chat's location (what `near here` measures from), and say how
        habicht understands it."""
        async with self._db.transaction() as conn:
            now = self._clock()
            await conn.execute(_LOCATED, (chat_id, now, now, *point, now))
        return await locate(self._db.fetchall, point)

    async def location(self, chat_id: int) -> Located | None:
        """The location the chat last shared, as habicht understands it now; None if none."""
        point = await chat_location(self._db.fetchall, chat_id)
        return None if point is None else await locate(self._db.fetchall, point)

    async def place(self, postcode: str) -> Place | None:
        """Where habicht places `postcode`, None while it has read no advert of it."""
        return (await places_of(self._db.fetchall, [postcode])).get(postcode)
