"""What a watch would do with the adverts its search showed last: the answer to `/preview`.

Built from the database alone, never with a request to willhaben: the adverts are the ones
the search showed (`search_listings`) at or after its latest successful scan — that scan's
pages, and what its feed matched to it since (as much the search's as its own pages) —
rebuilt as `Listing`s from `listings`. Reserved adverts are in neither (a scan records them as
not on the page).

They are judged by the very code a scan judges with: the search's facts (`search_facts`),
the watch's notes of each advert (`watch_notes`) and `WatchFilter.hidden_by`, so every
listing rule — the ones of today and any added later — is previewed as it acts. An advert is
counted under the first rule that hides it, as a scan counts it for `/list`.

Price rules (`drop`, `below`, `lowest`) judge price drops only, which a preview has none of:
they are named (`Preview.price_rules`), never applied. Nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import aiosqlite

from habicht.market.listings import latest_shown
from habicht.model import Listing
from habicht.watches.filters import WatchFilter
from habicht.watches.notes import AlertNotes, search_facts, watch_notes
from habicht.watches.watch import WatchInfo

__all__ = ["EXAMPLES", "Example", "Preview", "PreviewGroup", "preview"]

EXAMPLES = 3
"""Adverts shown of each group (the newest in the search first)."""


@dataclass(frozen=True, slots=True)
class Example:
    """One advert of a group, with the notes its alert would carry (its distance, …)."""

    listing: Listing
    notes: AlertNotes


@dataclass(frozen=True, slots=True)
class PreviewGroup:
    """The adverts that went one way: through the filter (`rule` None), or hidden by `rule`
    (as `WatchFilter.rules()` writes it); `count` of them, up to `EXAMPLES` shown."""

    rule: str | None
    count: int
    examples: tuple[Example, ...]


@dataclass(frozen=True, slots=True)
class Preview:
    """What watch `watch` would do with the adverts of its search's latest read.

    `scanned_at` is the search's latest successful scan (None: it has never been scanned, and
    there is nothing to preview); `adverts` how many it showed since; `alerted` the ones the
    filter lets through; `hidden` the ones each rule hid, in the order of the filter's rules;
    `price_rules` the rules a preview does not apply (they judge drops only); `muted_until`
    when a mute of the watch ends, if it is muted now.
    """

    watch: WatchInfo
    scanned_at: float | None
    adverts: int
    alerted: PreviewGroup
    hidden: tuple[PreviewGroup, ...]
    price_rules: tuple[str, ...]
    muted_until: float | None


async def preview(conn: aiosqlite.Connection, watch: WatchInfo, *, now: float) -> Preview:
    """Judge the adverts of `watch`'s search's latest read as a scan at `now` would (module
    docstring); reads only."""
    watch_filter = watch.filter
    price_rules = tuple(_price_rules(watch_filter).rules())
    muted_until = await _muted_until(conn, watch.id, now=now)
    scanned_at = watch.last_success_at
    if scanned_at is None:
        nothing = PreviewGroup(None, 0, ())
        return Preview(watch, None, 0, nothing, (), price_rules, muted_until)
    listings = await latest_shown(conn, watch.search_id, since=scanned_at)
    # Every advert shown since the latest scan, judged as it was when first shown: a repost
    # of an advert the search last showed before that scan.
    facts = await search_facts(
        conn, watch.search_id, listings, now=now, read_at=0.0, gone_before=scanned_at
    )
    notes_of = await watch_notes(conn, watch_filter.centre, watch.chat_id, listings, facts)
    alerted: list[Example] = []
    hidden_by: dict[str, list[Example]] = {}
    for listing in listings:
        notes = notes_of[listing.id]
        rule = watch_filter.hidden_by(listing, notes)
        example = Example(listing, notes)
        if rule is None:
            alerted.append(example)
        else:
            hidden_by.setdefault(rule, []).append(example)
    # A rule `rules()` does not write as `hidden_by` names it comes last, in name order.
    order = {rule: position for position, rule in enumerate(watch_filter.rules())}
    hidden = sorted(hidden_by.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))
    return Preview(
        watch=watch,
        scanned_at=scanned_at,
        adverts=len(listings),
        alerted=_group(None, alerted),
        hidden=tuple(_group(rule, examples) for rule, examples in hidden),
        price_rules=price_rules,
        muted_until=muted_until,
    )


def _group(rule: str | None, examples: list[Example]) -> PreviewGroup:
    return PreviewGroup(rule, len(examples), tuple(examples[:EXAMPLES]))


def _price_rules(watch_filter: WatchFilter) -> WatchFilter:
    """The filter's price rules alone (the listing rules taken out)."""
    return replace(
        WatchFilter(),
        drop_percent=watch_filter.drop_percent,
        drop_amount=watch_filter.drop_amount,
        below=watch_filter.below,
        lowest=watch_filter.lowest,
    )


async def _muted_until(conn: aiosqlite.Connection, watch_id: int, *, now: float) -> float | None:
    async with conn.execute("SELECT muted_until FROM watches WHERE id = ?", (watch_id,)) as cursor:
        row = await cursor.fetchone()
    until = None if row is None else row["muted_until"]
    return until if until is not None and until > now else None
