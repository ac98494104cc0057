"""The command line (`habicht.cli`): `habicht scrape` fetches one search and prints its
listings, bad input one line and exit 2; `habicht queue stats|dead|retry|purge` work on a
real database file named by HABICHT_DB; `habicht backup` refuses, in one line, a place where
the copy would hurt."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from kit.kills import LiveWriter

from habicht.cli import main
from habicht.clock import system_clock
from habicht.db import Database
from habicht.fakes import FakeAdvert, render_search_page
from habicht.fakes.willhaben_site import MARKETPLACE, FakeWillhabenSite
from habicht.message import Outgoing
from habicht.queue import NotificationStore

# `main` configures logging; and from tmp_path no stray `.env` of the repository is read.
pytestmark = pytest.mark.usefixtures("restore_logging")


# Page 1 of a search that found more than it shows.
PAGE = render_search_page(
    [FakeAdvert("101", "RTX 3070", Decimal(400)), FakeAdvert("102", "Sofa", None, bumped=True)],
    rows_found=57,
)


@pytest.fixture
def willhaben(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeWillhabenSite]:
    """The fake willhaben on 127.0.0.1, where HABICHT_WILLHABEN_URL points; it answers PAGE
    until a test lists adverts of its own (`intercept(None)`, then `set_listings`)."""
    site = FakeWillhabenSite()
    site.intercept(lambda request: httpx.Response(200, text=PAGE))
    with site.serve() as server:
        monkeypatch.setenv("HABICHT_WILLHABEN_URL", server.base_url)
        yield site


def paths(site: FakeWillhabenSite) -> list[str]:
    """Each request's path and query, as sent."""
    return [request.url.raw_path.decode() for request in site.log]


def test_scrape_prints_the_listings(
    willhaben: FakeWillhabenSite, capsys: pytest.CaptureFixture[str]
) -> None:
    """The normalised search is fetched from HABICHT_WILLHABEN_URL and its listings printed."""
    url = "https://willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx&utm_source=x"
    assert main(["scrape", url]) == 0
    assert paths(willhaben) == ["/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx&sort=1&rows=200"]
    out = capsys.readouterr().out
    assert "2 listings shown of 57 found" in out
    assert "RTX 3070" in out
    assert "€ 400" in out
    assert "Sofa (bumped)" in out
    assert "https://www.willhaben.at/iad/kaufen-und-verkaufen/d/rtx-3070-101/" in out


@pytest.mark.parametrize(
    "argument",
    ["https://evil.example/iad/kaufen-und-verkaufen/marktplatz", "ftp://willhaben.at/iad/x/y"],
)
def test_scrape_refuses_what_is_not_a_search(
    willhaben: FakeWillhabenSite, capsys: pytest.CaptureFixture[str], argument: str
) -> None:
    """An invalid URL is one clear line on stderr and exit code 2, with no request made."""
    assert main(["scrape", argument]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("habicht: error: not a willhaben search")
    assert paths(willhaben) == []


def test_a_malformed_page_is_one_line_and_exit_1(
    willhaben: FakeWillhabenSite, capsys: pytest.CaptureFixture[str]
) -> None:
    """An advert of an unknown shape is reported in one line, no traceback (review of issue 3)."""
    odd = '"attributes":{"attribute":5,"x":'
    willhaben.intercept(
        lambda request: httpx.Response(200, text=PAGE.replace('"attributes":{"attribute":', odd, 1))
    )
    assert main(["scrape", "rtx"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("habicht: error: layout: ")
    assert "advertSummary[0].attributes.attribute`" in err  # where on the page it is


def test_a_listing_without_location_prints_no_placeholder(
    willhaben: FakeWillhabenSite, capsys: pytest.CaptureFixture[str]
) -> None:
    """A listing with no location prints nothing for it, never "[None]"."""
    willhaben.intercept(None)
    willhaben.set_listings(MARKETPLACE, [FakeAdvert("7", "Lampe", Decimal(5), location="")])
    assert main(["scrape", "lampe"]) == 0
    out = capsys.readouterr().out
    assert "Lampe" in out
    assert "[" not in out


def test_reserved_and_bumped_listings_are_marked_as_such(
    willhaben: FakeWillhabenSite, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reserved advert prints as reserved under its plain title, a bumped one as bumped."""
    willhaben.intercept(None)
    willhaben.set_listings(
        MARKETPLACE,
        [
            FakeAdvert("7", "Lampe", Decimal(5), reserved=True),
            FakeAdvert("8", "Bett", Decimal(9), reserved=True, bumped=True),
            FakeAdvert("9", "Tisch", Decimal(7)),
        ],
    )
    assert main(["scrape", "lampe"]) == 0
    out = capsys.readouterr().out
    lines = [line.removesuffix("  [Wien, 07. Bezirk, Neubau]") for line in out.splitlines()]
    assert any(line.endswith("  Lampe (reserved)") for line in lines)
    assert any(line.endswith("  Bett (reserved, bumped)") for line in lines)
    assert any(line.endswith("  Tisch") for line in lines)
    assert "reserviert" not in out


# -- habicht queue ----------------------------------------------------------------------


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


@pytest.mark.parametrize(
    ("beside", "what"), [("-wal", "the write-ahead log"), ("-shm", "the shared-memory index")]
)
def test_a_backup_onto_the_running_databases_wal_or_shm_is_refused_and_loses_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    beside: str,
    what: str,
) -> None:
    """Issue 35: `habicht backup data/habicht.sqlite3-wal` while another process writes the
    database exited 0 and renamed the copy over the WAL — every commit in it lost, after a
    `kill -9` a file without tables — and over `-shm` it undid the locking ("database disk
    image is malformed"). Now either is one line and exit 2; the writer goes on, and after
    its `kill -9` every commit it reported is in the file, which SQLite finds intact."""
    path = tmp_path / "data" / "habicht.sqlite3"
    monkeypatch.setenv("HABICHT_DB", str(path))
    with LiveWriter(path) as writer:
        writer.wait_for(20)
        assert main(["backup", f"{path}{beside}"]) == 2
        assert capsys.readouterr().err == (
            f"habicht: error: {path}{beside} is {what} of the database {path}: writing there"
            " would break the database; choose another file\n"
        )
        writer.wait_for(20)
        writer.kill()
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        chats = [chat for (chat,) in conn.execute("SELECT chat_id FROM chats ORDER BY chat_id")]
    assert chats == list(range(1, len(chats) + 1))
    assert set(writer.committed) <= set(chats)
    assert sorted(child.name for child in path.parent.iterdir())[0] == "habicht.sqlite3"


def test_a_backup_onto_a_file_that_is_no_backup_needs_force(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 35: `habicht backup notes.txt` silently turned the text file into an SQLite
    file; now it says why not in one line (exit 2) and the file keeps every byte.
    `--force` replaces it, and an earlier backup is replaced without being told."""
    path = tmp_path / "habicht.sqlite3"
    monkeypatch.setenv("HABICHT_DB", str(path))
    asyncio.run(_fill(path))
    notes = tmp_path / "notes.txt"
    notes.write_text("milk, eggs\n")
    assert main(["backup", str(notes)]) == 2
    assert capsys.readouterr().err == (
        f"habicht: error: {notes} exists and is not a habicht backup (not an SQLite file); it"
        " is left as it is: choose another file, or give --force to replace it\n"
    )
    assert notes.read_text() == "milk, eggs\n"
    assert main(["backup", "--force", str(notes)]) == 0
    assert (
        capsys.readouterr().out == f"backed up {path} to {notes} ({notes.stat().st_size} bytes)\n"
    )
    assert main(["backup", str(notes)]) == 0  # a habicht backup now: replaced as it is
    assert notes.read_bytes().startswith(b"SQLite format 3\x00")


def test_backup_help_says_what_it_replaces(capsys: pytest.CaptureFixture[str]) -> None:
    """`habicht backup --help` says which file it replaces and what `--force` is for."""
    with pytest.raises(SystemExit):
        main(["backup", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "an earlier habicht backup, which is replaced" in out
    assert "--force replace PATH even if it is a file that is no habicht backup" in out
