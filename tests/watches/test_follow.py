"""What a read learns of an alerted advert becomes an edit of its alert (`watches.follow`):
on a real SQLite file, with a renderer that says plainly what it was asked to add."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from kit.following import (
    CHAT,
    FOLLOWING,
    PlainRenderer,
    alerted,
    button_texts,
    edit_rows,
    watching,
)
from kit.listings import sofa

from habicht.db import Database
from habicht.watches.follow import observe, record_state, refresh

T = 1_700_000_000.0


async def test_a_read_that_shows_an_alerted_advert_reserved_queues_one_edit(db: Database) -> None:
    """Reserved: one edit of its message, the alert as sent with the news on top and its
    buttons kept; the same state read again queues nothing more."""
    async with db.transaction() as conn:
        await watching(conn)
        await alerted(conn, "11", at=T, message_id=70)
        reserved = replace(sofa("300", ad_id="11"), reserved=True)
        assert await observe(conn, [reserved], PlainRenderer(), now=T + 60, following=FOLLOWING)
        assert not await observe(
            conn, [reserved], PlainRenderer(), now=T + 120, following=FOLLOWING
        )
        [(message, text, buttons)] = await edit_rows(conn)
    assert message == 70
    assert text.startswith("[reserved] 🆕 <b><a href=")
    assert button_texts(buttons) == ["🔗 Öffnen", "⏸", "🗑"]


async def test_back_on_offer_and_a_new_price_are_said_from_the_alert_as_sent(
    db: Database,
) -> None:
    """Reserved, then on offer again at € 250: the message says "back" and the price — once,
    worked out from the alert as sent, not on top of the earlier edit."""
    renderer = PlainRenderer()
    async with db.transaction() as conn:
        await watching(conn)
        await alerted(conn, "11", at=T, message_id=70)
        advert = sofa("300", ad_id="11")
        await observe(
            conn, [replace(advert, reserved=True)], renderer, now=T + 60, following=FOLLOWING
        )
        await observe(
            conn, [replace(advert, price=Decimal(250))], renderer, now=T + 120, following=FOLLOWING
        )
        [(_, text, _)] = await edit_rows(conn)
    assert text.startswith("[back 300→250] 🆕"), "the pending edit was replaced"


async def test_a_gone_advert_loses_its_open_button(db: Database) -> None:
    async with db.transaction() as conn:
        await watching(conn)
        await alerted(conn, "11", at=T, message_id=70)
        await record_state(conn, "11", "gone", "300", now=T + 60, interval=300)
        await refresh(conn, ["11"], PlainRenderer(), now=T + 60, following=FOLLOWING)
        [(_, text, buttons)] = await edit_rows(conn)
    assert text.startswith("[gone] ")
    assert button_texts(buttons) == ["⏸", "🗑"]


async def test_a_digest_gets_the_line_of_its_changed_advert_marked(db: Database) -> None:
    """Two adverts in one digest message; one is reserved: its line is marked inside the
    digest's text as sent, the other line stays."""
    digest = "📬 2 alerts\nline 11\nline 12"
    async with db.transaction() as conn:
        await watching(conn)
        await alerted(
            conn,
            "11",
            at=T,
            message_id=80,
            sent_as="digest",
            digest_line="line 11",
            sent_text=digest,
        )
        await alerted(conn, "12", at=T, message_id=80, sent_as="digest", digest_line="line 12")
        reserved = replace(sofa("300", ad_id="12"), reserved=True)
        await observe(conn, [reserved], PlainRenderer(), now=T + 60, following=FOLLOWING)
        [(message, text, _)] = await edit_rows(conn)
    assert (message, text) == (80, "📬 2 alerts\nline 11\n[reserved] line 12")


async def test_alerts_not_followed_are_never_edited(db: Database) -> None:
    """A chat that turned following off, a paused watch, and an alert older than
    HABICHT_FOLLOW_DAYS: no edit."""
    reserved = replace(sofa("300", ad_id="11"), reserved=True)
    async with db.transaction() as conn:
        await watching(conn, follow=False)
        await alerted(conn, "11", at=T, message_id=70)
        await observe(conn, [reserved], PlainRenderer(), now=T + 60, following=FOLLOWING)
        assert await edit_rows(conn) == []
        await conn.execute("UPDATE chats SET follow_alerts = 1")
        await conn.execute("UPDATE watches SET status = 'paused'")
        await observe(conn, [reserved], PlainRenderer(), now=T + 70, following=FOLLOWING)
        assert await edit_rows(conn) == []
        await conn.execute("UPDATE watches SET status = 'active'")
        eight_days = T + 8 * 86400
        await observe(conn, [reserved], PlainRenderer(), now=eight_days, following=FOLLOWING)
        assert await edit_rows(conn) == []
        await observe(conn, [reserved], PlainRenderer(), now=T + 80, following=FOLLOWING)
        assert len(await edit_rows(conn)) == 1, f"chat {CHAT}, followed again, is edited"
