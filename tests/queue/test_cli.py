"""`habicht queue stats|dead|retry|purge` against a real database file named by HABICHT_DB."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from habicht.cli import main
from habicht.clock import system_clock
from habicht.db import Database
from habicht.queue import (
    NotificationStore,
    Outgoing,
    QueueStats,
    describe_dead,
    describe_stats,
    parse_ids,
)


async def _fill(path: Path) -> None:
    """Three rows: one sent, one dead (blocked), one pending."""
    async with Database(path) as db:
        store = NotificationStore(db, clock=system_clock, max_attempts=5, ttl=86400)
        await store.enqueue_many(
            [
                Outgoing(chat_id=chat, kind="new", text=f"<b>{k}</b>", dedupe_key=k)
                for chat, k in zip((6, 7, 8), "abc", strict=True)
            ]
        )
        sent, dead = await store.start(await store.claim(2))
        await store.mark_sent([sent])
        await store.mark_dead([dead], reason="blocked", error="Forbidden: bot was blocked")


# `main` configures logging; and from tmp_path no stray `.env` of the repository is read.
pytestmark = pytest.mark.usefixtures("restore_logging")


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "habicht.sqlite3"
    monkeypatch.setenv("HABICHT_DB", str(path))
    asyncio.run(_fill(path))
    return path


def test_stats_prints_counts_per_status(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`queue stats` shows each status with its count and the dead reasons."""
    assert main(["queue", "stats"]) == 0
    out = capsys.readouterr().out
    assert "pending       1  (0 retrying; next due now; oldest queued" in out
    assert "sent          1  (1 in the last 24 h)" in out
    assert "dead          1  (blocked 1)" in out


def test_dead_lists_why_items_died(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`queue dead` names each dead item's id, chat, reason and error."""
    assert main(["queue", "dead", "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^#2  chat 7  blocked  \d+ s ago  attempts 1$", out, re.MULTILINE)
    assert "Forbidden: bot was blocked" in out


def test_retry_requeues_by_id_and_all(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`queue retry 2` and `queue retry all` bring dead items back; bad ids are refused."""
    assert main(["queue", "retry", "2"]) == 0
    assert "requeued 1 dead notification(s)" in capsys.readouterr().out
    assert main(["queue", "retry", "all"]) == 0
    assert "requeued 0 dead notification(s)" in capsys.readouterr().out
    assert main(["queue", "retry", "two"]) == 2
    assert "expected notification ids or 'all', got 'two'" in capsys.readouterr().err


def test_purge_deletes_old_settled_items(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`queue purge --days 0` removes sent and dead rows, keeping pending ones."""
    assert main(["queue", "purge", "--days", "0"]) == 0
    assert "purged 2 sent/dead notification(s) older than 0 days" in capsys.readouterr().out
    assert main(["queue", "stats"]) == 0
    assert "pending       1" in capsys.readouterr().out


def test_a_missing_database_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pointing HABICHT_DB at nothing is an error (exit 2), and creates no file."""
    missing = tmp_path / "nope.sqlite3"
    monkeypatch.setenv("HABICHT_DB", str(missing))
    assert main(["queue", "stats"]) == 2
    assert f"no database at {missing}; check HABICHT_DB" in capsys.readouterr().err
    assert not missing.exists()


def test_reports_of_an_empty_queue_say_so() -> None:
    """With nothing queued, stats show zeros without ages, and `dead` says there are none."""
    empty = QueueStats(0, 0, 0, 0, 0, 0, None, None, {}, {})
    assert describe_stats(empty, now=0).splitlines() == [
        "pending       0  (0 retrying)",
        "sending       0",
        "sent          0  (0 in the last 24 h)",
        "dead          0",
    ]
    assert describe_dead([], now=0) == "no dead notifications"


@pytest.mark.parametrize(
    ("words", "ids"), [(["all"], "all"), (["3", "#4"], [3, 4])], ids=["all", "ids"]
)
def test_parse_ids_takes_ids_or_all(words: list[str], ids: object) -> None:
    """`retry` takes notification ids (a leading # is fine) or the single word 'all'."""
    assert parse_ids(words) == ids


@pytest.mark.parametrize("word", ["\u00b2", "\u0663", "-3", "+3", "3_0", "##3", str(2**63)])
def test_parse_ids_refuses_what_is_no_ascii_number(word: str) -> None:
    """Issue 19 (9): an id is ASCII digits; "²" and "٣" are refused in a sentence."""
    with pytest.raises(ValueError, match="expected notification ids"):
        parse_ids(["3", word])
