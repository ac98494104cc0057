"""Reposts: a new advert of a search that its seller had up before, in the same search.

A new advert (one the search shows for the first time on this read) reposts an older one when
all of these hold (keep in sync with docs/using/alerts.md, "Reposts"):

- the same seller (`ORGID`, which private sellers have too; an advert without one is never a
  repost, nor reposted);
- the same title as the older one, normalised (`title_words`), or a very close one
  (`same_item`);
- the older one is a different advert of the same search that has *left its pages*: this read
  did not show it (a reserved advert counts as not shown, as everywhere in habicht), and the
  search last showed it no more than `WINDOW` (60 days) ago;
- the read shows no other advert of the same item by that seller: a seller with several of
  one item up at once (a dealer's identical cars, a shop's phones) puts up another unit when
  one sells, which is no repost of it.

"Left the pages" is what the search's own reads know without another request: a search
bigger than the pages a scan reads does not show an older advert that has sunk below them,
though it is still on willhaben. Such an advert counts as gone too. That is the right call for
a subscriber: a second advert of the same item by the same seller is the same sofa again,
whether or not the first still sits on page 4.

A feed reads only the marketplace's newest adverts, so it cannot tell whether an advert the
search showed at or after its latest own scan has left its pages since — a sofa taken down a
moment ago and put up again at once, or a dealer's first unit still listed beside a second
(issue 36). An advert whose verdict hangs on that — a *possible repost*: a repost if those
adverts have left, another verdict if they are still there — is not judged by the feed
(`feed_reposts`): the feed records it neither as shown by the search nor as seen by its
watches, and asks for the search's own scan (`scraper.feeds`), which reads the pages and
judges it at once, as with feeds off. Every other verdict is the same whichever of those
adverts has left, and the feed gives it (older adverts the search last showed before its
latest own scan are gone for both). Same seller, same item: rare, so this costs a request
now and then.

Only strong matches count, because a false repost can hide a real new advert (`-reposts`) or
misreport a price: the seller must match exactly, every number in the title must match
exactly (`128GB` is not `256GB`, size `38` is not `39`), and of the words at most one may
differ, by one letter, in a word of at least `MIN_TYPO_WORD` letters (a typo or a plural:
`Couch`/`Coutch`, `Sessel`/`Sesseln`, not `blau`/`grau` or `rot`/`tot`). Word order does not
count, and neither do the words sellers add when they put an advert up again (`NOISE`: "neu",
"top", "vb", "reserviert", "preis gesenkt", …).

The older advert's `Repost` says when habicht first saw the item (the earliest of the matching
older adverts, so a sofa reposted every week reads as on the market since its first week) and
the last price of the most recent one (what a lower price reads as a drop from).

Reads inside the caller's transaction; knows nothing of Telegram.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

import aiosqlite

from habicht.folding import fold
from habicht.model import Listing

__all__ = [
    "CANDIDATES",
    "MIN_TYPO_WORD",
    "NOISE",
    "WINDOW",
    "Repost",
    "feed_reposts",
    "find_reposts",
    "repost_drop",
    "same_item",
    "title_words",
]

WINDOW = 60 * 86400.0
"""How long after a search last showed an advert a new one can repost it (seconds)."""
MIN_TYPO_WORD = 5
"""The shortest word in which one wrong letter still reads as a typo, not as another word."""
NOISE = frozenset(
    {
        "reserviert",
        "reserved",
        "neu",
        "new",
        "top",
        "vb",
        "np",
        "nur",
        "preis",
        "gesenkt",
        "reduziert",
        "preissenkung",
        "dringend",
        "angebot",
        "aktion",
        "schnaeppchen",
    }
)
"""Words sellers add or drop when they put an advert up again; they do not tell items apart."""

_PUNCTUATION = re.compile(r"[^0-9a-z]+")
_NUMBER = re.compile(r"[0-9]")


@dataclass(frozen=True, slots=True)
class Repost:
    """The advert a new one reposts: same seller, same title, gone from the search's pages;
    when habicht first saw the item and the older advert's last price."""

    ad_id: str
    first_seen_at: float
    price: Decimal | None


def repost_drop(listing: Listing, repost: Repost | None) -> tuple[Decimal, Decimal] | None:
    """The drop a repost reads as: from its older advert's last price to its own lower one;
    None when it is no repost, or not cheaper (or a price is not known)."""
    if repost is None or repost.price is None or listing.price is None:
        return None
    return (repost.price, listing.price) if listing.price < repost.price else None


def title_words(title: str) -> tuple[str, ...]:
    """`title` as reposts compare it: folded (`filters.fold`), punctuation gone, `NOISE` words
    gone, the words sorted (order does not tell items apart)."""
    words = _PUNCTUATION.sub(" ", fold(title)).split()
    return tuple(sorted(word for word in words if word not in NOISE))


def same_item(one: str, other: str) -> bool:
    """Whether two titles of one seller name the same item (module docstring): the same words,
    or all numbers the same and one word off by one letter."""
    a, b = title_words(one), title_words(other)
    if not a or not b:
        return False
    if a == b:
        return True
    if len(a) != len(b):
        return False
    only_a = [word for word in a if word not in b]
    only_b = [word for word in b if word not in a]
    if len(only_a) != 1 or len(only_b) != 1:
        return False
    x, y = only_a[0], only_b[0]
    if _NUMBER.search(x + y):  # a number that differs names another item
        return False
    return min(len(x), len(y)) >= MIN_TYPO_WORD and _one_edit(x, y)


def _one_edit(a: str, b: str) -> bool:
    """Whether `b` is `a` with exactly one letter changed, added or removed."""
    if len(a) > len(b):
        a, b = b, a
    if len(b) - len(a) > 1 or a == b:
        return False
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            rest = i + 1 if len(a) == len(b) else i
            return a[rest:] == b[i + 1 :]
    return True  # `b` is `a` with one letter added at the end


def _one_of_several(ad_id: str, read: list[Listing]) -> bool:
    """Whether the read shows another advert of the same item by the seller of `ad_id`: a
    seller with several of one item up at once (a shop's "VW Golf 1.6 TDI", a dealer's
    phones) puts up another unit, not the one that left, so nothing is a repost of it."""
    new = next(listing for listing in read if listing.id == ad_id)
    return any(
        other.id != ad_id and other.seller_id == new.seller_id and same_item(other.title, new.title)
        for other in read
    )


# The adverts that may be reposts of a read's new ones (public for its query-plan test).
CANDIDATES = """
WITH fresh (search_id, ad_id, seller_id, title, shown_at) AS (
    SELECT s.search_id, l.ad_id, l.seller_id, l.title, s.first_seen_at
    FROM json_each(:reads) j
    CROSS JOIN search_listings s
        ON s.search_id = json_extract(j.value, '$[0]') AND s.ad_id = json_extract(j.value, '$[1]')
    CROSS JOIN listings l ON l.ad_id = s.ad_id
    WHERE s.first_seen_at >= :read_at AND l.seller_id IS NOT NULL
)
SELECT f.search_id, f.ad_id AS new_id, f.title AS new_title, o.ad_id, o.title, o.first_seen_at,
       COALESCE(o.price, (SELECT h.price FROM price_history h WHERE h.ad_id = o.ad_id
                          ORDER BY h.seen_at DESC LIMIT 1)) AS price,
       s.last_seen_at
FROM fresh f
CROSS JOIN listings o ON o.seller_id = f.seller_id AND o.ad_id <> f.ad_id
CROSS JOIN search_listings s ON s.search_id = f.search_id AND s.ad_id = o.ad_id
WHERE s.last_seen_at < min(:gone_before, f.shown_at) AND s.last_seen_at >= :since
"""
"""The older adverts of the same seller that a search last showed within the window, before
`:gone_before` and before it first showed the advert they are compared with — an advert of
`:reads`, `[search id, advert id]` pairs, that its search first showed on this read, since
`:read_at`. Walks the adverts of the read, their sellers' adverts (`listings_seller`), then
each candidate's row of the search, never a search's whole history: `CROSS JOIN` fixes that
order, which SQLite's planner would otherwise not choose on tables without statistics. One
statement for every search of a read (a feed's serves many)."""


async def _candidates(
    conn: aiosqlite.Connection,
    reads: Mapping[int, Sequence[Listing]],
    *,
    read_at: float,
    gone_before: float,
    since: float,
) -> dict[int, list[aiosqlite.Row]]:
    """The rows of `CANDIDATES` for the sellers' adverts of `reads` (by search id), by search."""
    pairs = [
        [search_id, listing.id]
        for search_id, read in reads.items()
        for listing in read
        if listing.seller_id is not None
    ]
    if not pairs:
        return {}
    params = {
        "reads": json.dumps(pairs),
        "read_at": read_at,
        "gone_before": gone_before,
        "since": since,
    }
    out: dict[int, list[aiosqlite.Row]] = {}
    async with conn.execute(CANDIDATES, params) as cursor:
        for row in await cursor.fetchall():
            out.setdefault(row["search_id"], []).append(row)
    return out


def _reposts(rows: Iterable[aiosqlite.Row], read: Sequence[Listing]) -> dict[str, Repost]:
    """The reposts of `read` (one search's) that the candidate `rows` make (module docstring)."""
    matches: dict[str, list[aiosqlite.Row]] = {}
    for row in rows:
        if same_item(row["new_title"], row["title"]):
            matches.setdefault(row["new_id"], []).append(row)
    sold = [listing for listing in read if listing.seller_id is not None]
    for new_id in [new_id for new_id in matches if _one_of_several(new_id, sold)]:
        del matches[new_id]
    reposts = {}
    for new_id, older in matches.items():
        latest = max(older, key=lambda row: (row["last_seen_at"], row["ad_id"]))
        price = latest["price"]
        reposts[new_id] = Repost(
            ad_id=latest["ad_id"],
            first_seen_at=min(row["first_seen_at"] for row in older),
            price=None if price is None else Decimal(price),
        )
    return reposts


async def find_reposts(
    conn: aiosqlite.Connection,
    search_id: int,
    listings: Iterable[Listing],
    *,
    now: float,
    read_at: float | None = None,
    gone_before: float | None = None,
    window: float = WINDOW,
) -> dict[str, Repost]:
    """The reposts among `listings` (the adverts a read of search `search_id` showed since
    `read_at`, now unless told, already recorded as shown), by advert id.

    An older advert has left the pages when the search last showed it before `gone_before`
    (`read_at`, unless told). The search's own scan reads its pages: what it did not show now
    is gone. `/preview`, which judges every advert shown since the latest scan, asks from then.
    (A feed read asks `feed_reposts`.)
    """
    read = list(listings)
    read_at = now if read_at is None else read_at
    gone_before = read_at if gone_before is None else gone_before
    rows = await _candidates(
        conn, {search_id: read}, read_at=read_at, gone_before=gone_before, since=now - window
    )
    return _reposts(rows.get(search_id, []), read)


async def feed_reposts(
    conn: aiosqlite.Connection,
    reads: Mapping[int, Sequence[Listing]],
    *,
    showing: Collection[str],
    scanned_at: Mapping[int, float],
    now: float,
) -> tuple[dict[int, dict[str, Repost]], dict[int, set[str]]]:
    """What a feed read at `now` can tell of reposts, in one query for all its searches
    (`reads`: the adverts it matched to each search, already recorded as shown; `showing`:
    every active advert the read shows; `scanned_at`: each search's latest own scan): by
    search, the reposts, and the adverts it must leave to the search's own scan (module
    docstring).

    The feed does not know which of the adverts the search showed at or after its latest own
    scan (`scanned_at`) are still on its pages, but for those the read shows. Counting all
    the others as gone (the own scan's rule, should they have left) and none of them (should
    they all be there) gives the same verdict for an advert unless one of them is the same
    item by the same seller — then the verdict is its own scan's to give (the advert is a
    *possible repost*). Else the verdict stands, whichever of them has left.
    """
    rows = await _candidates(conn, reads, read_at=now, gone_before=now, since=now - WINDOW)
    reposts: dict[int, dict[str, Repost]] = {}
    possible: dict[int, set[str]] = {}
    for search_id, read in reads.items():
        candidates = [row for row in rows.get(search_id, []) if row["ad_id"] not in showing]
        if_gone = _reposts(candidates, read)
        if_there = _reposts(
            [row for row in candidates if row["last_seen_at"] < scanned_at[search_id]], read
        )
        reposts[search_id] = if_there
        possible[search_id] = {
            ad_id
            for ad_id in if_gone.keys() | if_there.keys()
            if if_gone.get(ad_id) != if_there.get(ad_id)
        }
    return reposts, possible
