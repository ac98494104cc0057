"""Followed alerts for the tests of `watches.follow` and `watches.checks`: a chat watching a
search, adverts it was alerted about as delivered messages, and a renderer that says plainly
what it was asked to add."""

from __future__ import annotations

import json

import aiosqlite

from habicht.message import Button
from habicht.queue.rows import buttons_json
from habicht.watches.follow import AdvertNews, Following, note_alerted

CHAT = 7
WATCH = 1
FOLLOWING = Following(days=7, interval=300, max_attempts=5)
FLAT_URL = "https://www.willhaben.at/iad/immobilien/d/mietwohnungen/wien/wohnung-{ad}/"
SOFA_URL = "https://www.willhaben.at/iad/kaufen-und-verkaufen/d/sofa-{ad}/"
BUTTONS = (
    (Button(text="🔗 Öffnen", url="https://www.willhaben.at/x"),),
    (Button(text="⏸", data="w:p:1:t"), Button(text="🗑", data="w:r:1:t")),
)


async def watching(conn: aiosqlite.Connection, *, follow: bool = True) -> None:
    """Chat `CHAT` (following its alerts unless `follow` is off) with watch `WATCH`."""
    await conn.execute(
        "INSERT INTO chats (chat_id, created_at, updated_at, follow_alerts) VALUES (?, 0, 0, ?)",
        (CHAT, follow),
    )
    await conn.execute("INSERT INTO searches (id, url, created_at) VALUES (1, 'https://x/s', 0)")
    await conn.execute(
        "INSERT INTO watches (id, chat_id, search_id, label, baseline_at, created_at)"
        " VALUES (?, ?, 1, 'sofa', 0, 0)",
        (WATCH, CHAT),
    )


async def alerted(
    conn: aiosqlite.Connection,
    ad_id: str,
    *,
    at: float,
    message_id: int,
    price: str = "300",
    flat: bool = False,
    sent_as: str = "photo",
    digest_line: str | None = None,
    sent_text: str | None = None,
) -> None:
    """Advert `ad_id`, read at `at` at `price`, and its alert, delivered then as message
    `message_id` (a digest's when `sent_as` is "digest")."""
    url = (FLAT_URL if flat else SOFA_URL).format(ad=ad_id)
    await conn.execute(
        "INSERT INTO listings (ad_id, title, price, url, first_seen_at, updated_at)"
        " VALUES (?, 'Sofa', ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (ad_id, price, url, at, at),
    )
    await conn.execute(
        "INSERT INTO price_history (ad_id, seen_at, price) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
        (ad_id, at, price),
    )
    cursor = await conn.execute(
        "INSERT INTO notifications (chat_id, kind, ad_id, text, dedupe_key, status,"
        " max_attempts, next_attempt_at, created_at, queued_at, updated_at, sent_at,"
        " buttons, digest_line, message_id, sent_as, sent_text)"
        " VALUES (?, 'new', ?, ?, ?, 'sent', 5, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            CHAT,
            ad_id,
            f'🆕 <b><a href="{url}">Sofa {ad_id}</a></b>\n💶 € {price}',
            f"new:{ad_id}:{CHAT}",
            at,
            at,
            at,
            at,
            at,
            buttons_json(BUTTONS),
            digest_line,
            message_id,
            sent_as,
            sent_text,
        ),
    )
    await conn.execute(
        "INSERT INTO notification_watches (notification_id, watch_id) VALUES (?, ?)",
        (cursor.lastrowid, WATCH),
    )
    await note_alerted(conn, [ad_id], now=at, following=FOLLOWING)


async def edit_rows(conn: aiosqlite.Connection) -> list[tuple[int, str, str | None]]:
    """The queued edits: (message, text, buttons as JSON), in order."""
    rows = await conn.execute_fetchall(
        "SELECT message_id, text, buttons FROM notifications WHERE kind = 'edit' ORDER BY id"
    )
    return [(row[0], row[1], row[2]) for row in rows]


def button_texts(stored: str | None) -> list[str]:
    return [button["text"] for row in json.loads(stored or "[]") for button in row]


class PlainRenderer:
    """Says what it was asked to add, in brackets: `[reserved] text`, `[gone] text`, …"""

    def for_chat(self, chat_id: int) -> PlainRenderer:
        return self

    def followed(self, text: str, news: AdvertNews, *, caption: bool) -> str:
        return f"[{_said(news)}] {text}"

    def followed_line(self, line: str, news: AdvertNews) -> str:
        return f"[{_said(news)}] {line}"


def _said(news: AdvertNews) -> str:
    said: list[str] = [news.state] if news.state != "active" else []
    said += ["back"] if news.back else []
    said += [f"{news.alerted}→{news.price}"] if news.repriced else []
    return " ".join(said)
