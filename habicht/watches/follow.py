"""Alerts that stay true: what habicht learns of an alerted advert becomes an edit of its alert.

Every read that shows an advert — a search's own scan, a feed, the advert's own page — says
whether it is on offer or reserved, and at what price. For the adverts whose alerts are
*followed* (sent within HABICHT_FOLLOW_DAYS as a message habicht can edit, to a chat that
wants it, for a watch that is not paused), `observe` records that state (`advert_states`);
when it changed, `refresh` works out what each of their messages should say now and queues
an edit (`queue.edit_within`) where that differs from what the message shows. A page check
(`watches.checks`) that proves an advert gone does the same.

What an edited alert says is the chat's renderer's (`FollowRenderer`): a line on top of the
alert as it was sent — reserved since when, available again, the price now and then, gone
since when with the title struck through — and a digest's line marked alike. A gone advert's
"open" button goes; the other buttons stay. The edit is worked out from the alert as sent and
the advert's state now, never from an earlier edit, so states that come and go never pile up.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Literal, Protocol

import aiosqlite

from habicht.market.history import price_at
from habicht.market.listings import stored
from habicht.message import Buttons
from habicht.model import Listing, money
from habicht.queue import Notification
from habicht.queue.edits import Edit, edit_within, message_rows, owed_by, sent_alerts
from habicht.queue.edits import shown_text as queued_text

__all__ = [
    "DAY",
    "OLD_CAP",
    "YOUNG_CAP",
    "AdvertNews",
    "FollowRenderer",
    "Following",
    "State",
    "due_after",
    "followed_ads",
    "note_alerted",
    "observe",
    "record_state",
    "refresh",
]

DAY = 86400.0

State = Literal["active", "reserved", "gone"]


@dataclass(frozen=True, slots=True)
class Following:
    """How long sent alerts are followed (HABICHT_FOLLOW_DAYS, in days; 0: not at all), the
    scrape interval that paces page checks, and the attempts an edit gets."""

    days: float
    interval: float
    max_attempts: int

    @property
    def on(self) -> bool:
        return self.days > 0

    def since(self, now: float) -> float:
        """The oldest sent alert still followed at `now`."""
        return now - self.days * DAY


@dataclass(frozen=True, slots=True)
class AdvertNews:
    """What an alert should add to itself at `now`: the advert's `state` since `since`, its
    `price` now beside the `alerted` price its alert told, and whether it is `back` on offer
    after it was reserved or gone since the alert. `plain` when nothing needs saying."""

    state: State
    since: float
    price: Decimal | None
    alerted: Decimal | None
    now: float
    back: bool = False

    @property
    def repriced(self) -> bool:
        return None not in (self.price, self.alerted) and self.price != self.alerted

    @property
    def plain(self) -> bool:
        return self.state == "active" and not self.back and not self.repriced


class FollowRenderer(Protocol):
    """Writes what an alert says once its advert changed, in one chat's language."""

    def for_chat(self, chat_id: int) -> FollowRenderer: ...

    def followed(self, text: str, news: AdvertNews, *, caption: bool) -> str:
        """The alert's `text` as sent, with what changed on top (a `caption` stays within
        Telegram's caption limit)."""
        ...

    def followed_line(self, line: str, news: AdvertNews) -> str:
        """One digest line as sent, marked the same way."""
        ...


# Of the chats of some sent alerts, those that want them kept true; and of the watches that
# owe them (`queue.edits.owed_by`), the active ones.
_FOLLOWING_CHATS = """
SELECT chat_id FROM chats
WHERE chat_id IN (SELECT value FROM json_each(?)) AND status = 'active' AND follow_alerts = 1
"""

_ACTIVE_WATCHES = """
SELECT id FROM watches WHERE id IN (SELECT value FROM json_each(?)) AND status = 'active'
"""

_STATES = """
SELECT ad_id, state, since, left_at, price FROM advert_states
WHERE ad_id IN (SELECT value FROM json_each(?))
"""

YOUNG_CAP = 24
"""A page check that finds the advert still there doubles the wait before the next, up to
this many intervals while its newest alert is younger than a day…"""
OLD_CAP = 144
"""…and up to this many after (`watches.checks`)."""


def due_after(checks: str) -> str:
    """SQL: when the next page check of an `advert_states` row is due after `checks` checks in
    a row found it still there — an interval doubled for each, capped by its alert's age."""
    return (
        f":now + :interval * min(1 << min({checks}, 8), "
        f"CASE WHEN alerted_at >= :now - {DAY} THEN {YOUNG_CAP} ELSE {OLD_CAP} END)"
    )


# A read that showed the advert on offer or reserved: its state and price; the proof of a
# page check that found it missing starts over, and its next check is an interval after this
# read. A page check that showed it counts one more check in a row that found it there.
_RECORD = f"""
UPDATE advert_states SET
    since = CASE WHEN state = :state THEN since ELSE :now END,
    left_at = CASE WHEN :state != 'active' AND state = 'active' THEN :now ELSE left_at END,
    state = :state, price = :price, seen_at = :now, missing_at = NULL,
    checks = CASE WHEN :page THEN checks + 1 ELSE 0 END,
    checked_at = CASE WHEN :page THEN :now ELSE checked_at END,
    check_due_at = CASE WHEN :page THEN {due_after("checks + 1")} ELSE :now + :interval END
WHERE ad_id = :ad_id
"""

# An alert of this advert was queued now: followed from here on, its first page check due
# once no read has shown it for an interval, at the URL of its newest alert. What the advert
# is comes from the market (`market.listings.stored`), read in the same transaction.
_ALERTED = """
INSERT INTO advert_states
    (ad_id, url, state, since, price, seen_at, alerted_at, flat, check_due_at)
VALUES (:ad_id, :url, 'active', :now, :price, :now, :now, :url LIKE '%/iad/immobilien/%',
        :now + :interval)
ON CONFLICT (ad_id) DO UPDATE SET
    url = excluded.url,
    alerted_at = excluded.alerted_at,
    check_due_at = CASE WHEN state = 'gone' THEN NULL
                        ELSE coalesce(check_due_at, excluded.check_due_at) END
"""


async def followed(
    conn: aiosqlite.Connection, ad_ids: Iterable[str], *, now: float, following: Following
) -> list[Notification]:
    """The followed alerts of these adverts (module docstring)."""
    ids = set(ad_ids)
    if not following.on or not ids:
        return []
    alerts = await sent_alerts(conn, ids, since=following.since(now))
    if not alerts:
        return []
    chats = json.dumps(sorted({alert.chat_id for alert in alerts}))
    following_chats = {row[0] for row in await conn.execute_fetchall(_FOLLOWING_CHATS, (chats,))}
    alerts = [alert for alert in alerts if alert.chat_id in following_chats]
    owed = await owed_by(conn, [alert.id for alert in alerts])
    owers = json.dumps(sorted({watch for watches in owed.values() for watch in watches}))
    active = {row[0] for row in await conn.execute_fetchall(_ACTIVE_WATCHES, (owers,))}
    return [alert for alert in alerts if owed.get(alert.id, set()) & active]


async def followed_ads(
    conn: aiosqlite.Connection, ad_ids: Iterable[str], *, now: float, following: Following
) -> set[str]:
    """Which of these adverts have a followed alert."""
    return {
        alert.ad_id
        for alert in await followed(conn, ad_ids, now=now, following=following)
        if alert.ad_id is not None
    }


async def observe(
    conn: aiosqlite.Connection,
    listings: Sequence[Listing],
    renderer: FollowRenderer,
    *,
    now: float,
    following: Following,
) -> int:
    """A read showed `listings` (reserved ones too): record the state of the followed ones and
    queue the edits their change calls for, inside the read's transaction. Returns how many
    adverts changed."""
    shown = {listing.id: listing for listing in listings}
    ads = await followed_ads(conn, shown, now=now, following=following)
    changed = [
        ad_id
        for ad_id in sorted(ads)
        if await record_state(
            conn,
            ad_id,
            "reserved" if shown[ad_id].reserved else "active",
            money(shown[ad_id].price),
            now=now,
            interval=following.interval,
        )
    ]
    await refresh(conn, changed, renderer, now=now, following=following)
    return len(changed)


async def record_state(
    conn: aiosqlite.Connection,
    ad_id: str,
    state: State,
    price: str | None,
    *,
    now: float,
    interval: float,
    page: bool = False,
) -> bool:
    """Record that a read — or, with `page`, a page check — showed the followed advert
    `state` at `price` now, and when its next page check is due; whether that is news (its
    state or price changed)."""
    before = await _states(conn, [ad_id])
    params = {
        "ad_id": ad_id,
        "state": state,
        "price": price,
        "now": now,
        "interval": interval,
        "page": page,
    }
    await conn.execute(_RECORD, params)
    known = before.get(ad_id)
    return known is not None and (known.state, known.price) != (state, price)


async def note_alerted(
    conn: aiosqlite.Connection, ad_ids: Iterable[str], *, now: float, following: Following
) -> None:
    """Alerts of these adverts were queued now (inside the transaction that read them): from
    here on what habicht learns of them may call for an edit, and a page check once no read
    shows them (`watches.checks`)."""
    if following.on:
        adverts = await stored(conn, ad_ids)
        params = [
            {
                "ad_id": advert.ad_id,
                "price": None if advert.price is None else str(advert.price),
                "url": advert.url,
                "now": now,
                "interval": following.interval,
            }
            for _, advert in sorted(adverts.items())
        ]
        await conn.executemany(_ALERTED, params)


@dataclass(frozen=True, slots=True)
class _Known:
    state: State
    since: float
    left_at: float | None
    price: str | None


async def _states(conn: aiosqlite.Connection, ad_ids: Iterable[str]) -> dict[str, _Known]:
    rows = await conn.execute_fetchall(_STATES, (json.dumps(sorted(set(ad_ids))),))
    return {row[0]: _Known(row[1], row[2], row[3], row[4]) for row in rows}


async def refresh(
    conn: aiosqlite.Connection,
    ad_ids: Sequence[str],
    renderer: FollowRenderer,
    *,
    now: float,
    following: Following,
) -> int:
    """Queue an edit of every followed message about these adverts whose text should change
    (one pending edit per message); returns how many edits were queued or replaced."""
    alerts = await followed(conn, ad_ids, now=now, following=following)
    messages = sorted({(alert.chat_id, alert.message_id) for alert in alerts}, key=str)
    queued = 0
    for chat_id, message_id in messages:
        assert message_id is not None  # `sent_alerts` returns delivered rows only
        rows = await message_rows(conn, chat_id, message_id)
        edit = await _edit(conn, rows, renderer.for_chat(chat_id), now=now)
        if edit is None:
            continue
        shown = await queued_text(conn, chat_id, message_id) or _as_sent(rows)
        if edit.text != shown:
            await edit_within(conn, edit, now=now, max_attempts=following.max_attempts)
            queued += 1
    return queued


def _as_sent(rows: Sequence[Notification]) -> str:
    """What a message said when it went out: a digest's kept text, or its one alert's."""
    return rows[0].sent_text or rows[0].text


async def _edit(
    conn: aiosqlite.Connection,
    rows: Sequence[Notification],
    renderer: FollowRenderer,
    *,
    now: float,
) -> Edit | None:
    """The message's whole content as it should read now; None if it cannot say more."""
    first = rows[0]
    if first.message_id is None or first.sent_as is None:
        return None
    known = await _states(conn, (row.ad_id for row in rows if row.ad_id is not None))
    news = {row.id: await _news(conn, row, known, now=now) for row in rows}
    if first.sent_as == "digest":
        text = _as_sent(rows)
        for row in rows:
            change = news[row.id]
            if row.digest_line and change is not None and not change.plain:
                text = text.replace(
                    row.digest_line, renderer.followed_line(row.digest_line, change)
                )
        buttons = first.message.buttons
        ad_id = None
    else:
        change = news[first.id]
        if change is None:
            return None
        caption = first.sent_as == "photo"
        text = (
            first.text if change.plain else renderer.followed(first.text, change, caption=caption)
        )
        buttons = (
            _without_link(first.message.buttons)
            if change.state == "gone"
            else first.message.buttons
        )
        ad_id = first.ad_id
    return Edit(
        chat_id=first.chat_id,
        message_id=first.message_id,
        sent_as=first.sent_as,
        text=text,
        buttons=buttons,
        thread_id=first.thread_id,
        ad_id=ad_id,
    )


async def _news(
    conn: aiosqlite.Connection, row: Notification, known: dict[str, _Known], *, now: float
) -> AdvertNews | None:
    """What the advert of `row` says now beside its alert; None if habicht knows nothing."""
    state = known.get(row.ad_id or "")
    if state is None:
        return None
    # The price an alert told: the advert's price when the alert was written.
    alerted = await price_at(conn, row.ad_id or "", at=row.created_at)
    news = AdvertNews(
        state=state.state,
        since=state.since,
        price=_decimal(state.price),
        alerted=alerted,
        now=now,
    )
    sent_at = row.sent_at or row.created_at
    if state.state == "active" and state.left_at is not None and state.left_at >= sent_at:
        news = replace(news, back=True)
    return news


def _decimal(price: str | None) -> Decimal | None:
    return None if price is None else Decimal(price)


def _without_link(buttons: Buttons) -> Buttons:
    """The buttons without the ones that open a link (a gone advert's page is no more)."""
    rows = (tuple(button for button in row if button.url is None) for row in buttons)
    return tuple(row for row in rows if row)
