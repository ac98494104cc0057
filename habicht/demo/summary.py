"""The demo's closing account, counted in the database: of the alerts detected (new listings
and price drops), how many were delivered, retried, dead, still pending — and lost, which
must be none: `lost = detected - delivered - dead - pending`.

Telegram's side is counted too: how many of the delivered alerts the fake Bot API received,
and how many it received more than once. `placement_rows` counts what became of the paid
placements on top of the flat pages: nothing, when habicht tells them from the flats.

Edits of sent alerts (issue 34: reserved, repriced, gone) are rows of the same outbox but no
alerts: nothing new was detected, so they stay out of that arithmetic and are counted on a
line of their own — sent, not possible (dead: the message was deleted or can no longer be
edited), pending — beside the edits Telegram accepted.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from habicht.db import Database
from habicht.fakes.telegram import SentMessage

__all__ = ["Summary", "describe", "placement_rows", "summarise"]


@dataclass(frozen=True)
class Summary:
    """Counts of alert rows (kinds `new` and `drop`) by what became of them."""

    detected: int
    delivered: int
    retried: int
    """Rows that took more than one attempt."""
    dead: Mapping[str, int]
    """Dead rows by reason."""
    pending: int
    received: int
    """Delivered alerts the fake Telegram holds at least once."""
    duplicates: int
    """Extra copies of delivered alerts the fake Telegram holds."""
    rate_limited: int
    """429 answers during the run (the held-back rows keep their attempt, so the database
    cannot tell)."""
    others: Mapping[str, tuple[int, int]]
    """Other kinds in the same outbox (baseline notes, owner alerts): (rows, delivered)."""
    edits: int = 0
    """Edit rows queued to keep sent alerts true."""
    edits_sent: int = 0
    edits_dead: Mapping[str, int] = field(default_factory=dict)
    """Edits that were not possible, by reason."""
    edits_pending: int = 0
    edits_accepted: int = 0
    """Edits of the outbox's the fake Telegram accepted (a message already as the edit would
    make it is "not modified": sent, yet no edit of Telegram's)."""

    @property
    def lost(self) -> int:
        return self.detected - self.delivered - sum(self.dead.values()) - self.pending


async def summarise(
    db: Database,
    received: Iterable[SentMessage],
    *,
    edited: Iterable[SentMessage] = (),
    rate_limited: int,
) -> Summary:
    """Count the outbox of `db`, the alerts among the messages Telegram `received`, and the
    edits it accepted (`edited`)."""
    rows = await db.fetchall(
        "SELECT chat_id, kind, text, digest_line, status, attempts, dead_reason, message_id"
        " FROM notifications"
    )
    alerts = [row for row in rows if row["kind"] in ("new", "drop")]
    received = list(received)

    def copies(row: sqlite3.Row) -> int:
        """How often Telegram received the alert: as its own message or in a digest."""
        return sum(
            message.chat_id == row["chat_id"]
            and (
                message.text == row["text"]
                or (bool(row["digest_line"]) and row["digest_line"] in message.text)
            )
            for message in received
        )

    delivered = [row for row in alerts if row["status"] == "sent"]
    edits = [row for row in rows if row["kind"] == "edit"]
    # Telegram's edits of the outbox's edit rows: a button press edits its message's buttons
    # too (the pause button under Anna's alert), and that is no edit of the outbox's.
    texts = {(row["chat_id"], row["message_id"], row["text"]) for row in edits}
    accepted = sum((edit.chat_id, edit.message_id, edit.text) in texts for edit in edited)
    others: dict[str, tuple[int, int]] = {}
    for row in rows:
        if row["kind"] not in ("new", "drop", "edit"):
            total, sent = others.get(row["kind"], (0, 0))
            others[row["kind"]] = (total + 1, sent + (row["status"] == "sent"))
    return Summary(
        detected=len(alerts),
        delivered=len(delivered),
        retried=sum(row["attempts"] > 1 for row in alerts),
        dead=dict(Counter(row["dead_reason"] for row in alerts if row["status"] == "dead")),
        pending=sum(row["status"] == "pending" for row in alerts),
        received=sum(copies(row) > 0 for row in delivered),
        duplicates=sum(max(0, copies(row) - 1) for row in delivered),
        rate_limited=rate_limited,
        others=others,
        edits=len(edits),
        edits_sent=sum(row["status"] == "sent" for row in edits),
        edits_dead=dict(Counter(row["dead_reason"] for row in edits if row["status"] == "dead")),
        edits_pending=sum(row["status"] == "pending" for row in edits),
        edits_accepted=accepted,
    )


async def placement_rows(db: Database, ad_ids: Sequence[str]) -> tuple[int, int]:
    """The chats alerted of any of the adverts `ad_ids` (the paid placements), and the
    searches that keep one among their listings (and so in their going price)."""
    marks = ", ".join("?" * len(ad_ids))
    chats = await db.fetchall(
        f"SELECT DISTINCT chat_id FROM notifications WHERE ad_id IN ({marks})"
        " AND kind IN ('new', 'drop')",
        tuple(ad_ids),
    )
    searches = await db.fetchall(
        f"SELECT DISTINCT search_id FROM search_listings WHERE ad_id IN ({marks})", tuple(ad_ids)
    )
    return len(chats), len(searches)


_KINDS = {"info": "baseline notes", "admin": "owner alerts"}


def describe(summary: Summary) -> list[str]:
    """The summary as lines: `name  number  explanation`; the test reads the numbers back."""
    dead = sum(summary.dead.values())
    reasons = ", ".join(f"{reason}: {n}" for reason, n in sorted(summary.dead.items()))
    others = "; ".join(
        f"{_KINDS.get(kind, kind)}: {sent} of {total} delivered"
        for kind, (total, sent) in sorted(summary.others.items())
    )
    rows = [
        ("detected", summary.detected, "new listings and price drops, each written to the outbox"),
        (
            "delivered",
            summary.delivered,
            f"Telegram received {summary.received}, duplicates: {summary.duplicates}",
        ),
        (
            "retried",
            summary.retried,
            f"needed more than one attempt; 429s answered: {summary.rate_limited}",
        ),
        ("dead", dead, reasons or "none"),
        ("pending", summary.pending, "still waiting for a retry"),
        ("lost", summary.lost, "= detected - delivered - dead - pending"),
    ]
    if summary.edits:
        rows.append(("edited", summary.edits_sent, _edits(summary)))
    lines = [f"  {name:<10}{number:>4}   {note}" for name, number, note in rows]
    if others:
        lines.append(f"  also in the outbox: {others}")
    return lines


def _edits(summary: Summary) -> str:
    """The edits' line: no alerts, so outside `lost`; what became of each edit queued."""
    dead = sum(summary.edits_dead.values())
    reasons = ", ".join(f"{reason}: {n}" for reason, n in sorted(summary.edits_dead.items()))
    pending = f", pending: {summary.edits_pending}" if summary.edits_pending else ""
    return (
        f"of {summary.edits} edits of sent alerts (no alerts: not in lost), Telegram accepted"
        f" {summary.edits_accepted}; not possible: {dead}{f' ({reasons})' if dead else ''}"
        f"{pending}"
    )
