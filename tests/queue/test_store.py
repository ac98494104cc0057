"""The outbox store as a whole (`habicht.queue.store`): every query of its parts walks an
index that leaves the sent rows out. Each part has its tests: test_enqueue, test_claim,
test_settle, test_upkeep, test_rows, test_table."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from kit.outbox import NOW

from habicht.db import Database
from habicht.queue import claim, edits, enqueue, figures, upkeep

# Indexes that leave the sent rows out: a query an owner or the health check runs may walk
# these whole, but nothing that holds every row (the million sent ones).
_SMALL = {
    "notifications_due",
    "notifications_lease",
    "notifications_age",
    "notifications_turn",
    "notifications_dead",
    "notifications_dead_reason",
    "notifications_due_alerts",
    "notifications_due_edits",
    "notifications_message",
}


def _scans(db_path: Path, sql: str, params: dict[str, object] | tuple[object, ...]) -> list[str]:
    """The lines of the query's plan that read notifications without a key or a range."""
    with sqlite3.connect(db_path) as conn:
        plan = [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params)]
    return [line for line in plan if line.startswith("SCAN notifications")]


@pytest.mark.parametrize(
    ("name", "sql"),
    [
        ("stats", upkeep._STATS),
        ("dead by reason", upkeep._DEAD_BY_REASON),
        ("dead", upkeep._DEAD),
        ("health", figures._WAITING),
        ("claim", claim._CLAIM_ALERTS),
        ("claim edits", claim._CLAIM_EDITS),
        ("next due", claim._NEXT_DUE),
        ("replace an edit", edits._REPLACE),
        ("queue an edit", edits._INSERT),
        ("shown", edits._SHOWN),
        ("enqueue", enqueue._INSERT),
        ("held", upkeep._HELD),
        ("digest rows", claim._DIGEST_WAITING),
        ("owe", enqueue._OWE),
        ("owed", enqueue._OWED),
        ("cancel", enqueue._CANCEL),
        ("retime", enqueue._RETIME),
        ("alert freshness", figures._ALERT_TIMES),
        *[(f"purge {i}", f"DELETE {old}") for i, old in enumerate(upkeep._PURGED)],
        *[(f"tombstones {i}", f"SELECT dedupe_key {old}") for i, old in enumerate(upkeep._PURGED)],
    ],
)
async def test_owner_and_health_queries_never_read_every_sent_row(
    db: Database, name: str, sql: str
) -> None:
    """Issue 10: every query of `/queue`, `habicht health`, purge, `dead()` and delivery
    walks an index that leaves the sent rows out (EXPLAIN QUERY PLAN on the real schema);
    the only whole-table read is the stats' count of all rows, a b-tree count."""
    params: dict[str, object] | tuple[object, ...] = {
        "now": NOW,
        "day_ago": NOW,
        "cutoff": NOW,
        "lease_until": NOW,
        "born_after": NOW,
        "limit": 5,
        "scan": 20,
        "per_chat": 1,
        "busy": "[]",
        "chat_id": 1,
        "kind": "new",
        "ad_id": None,
        "text": "x",
        "dedupe_key": "k",
        "max_attempts": 5,
        "gap": 1.0,
        "release": None,
        "silent": False,
        "digest_line": None,
        "source": None,
        "first_seen_at": None,
        "published_at": None,
        "id": 1,
        "at": NOW,
        "ids": "[]",
        "most": 5,
        "key": "k",
        "watch_id": 1,
        "watches": "[1]",
        "rows": "[1]",
        "why": "x",
        "photo_url": None,
        "buttons": None,
        "thread_id": None,
        "disable_notification": 0,
        "message_id": 7,
        "sent_as": "text",
    }
    if "?" in sql:
        params = (10,) * sql.count("?")
    scans = _scans(db.path, sql, params)
    allowed = [line for line in scans if line.split()[-1] in _SMALL]
    if name == "stats":  # SELECT count(*) FROM notifications: SQLite counts b-tree entries
        assert len(scans) - len(allowed) == 1
        assert "COVERING INDEX" in next(line for line in scans if line not in allowed)
    else:
        assert scans == allowed, f"{name} reads every row: {scans}"
