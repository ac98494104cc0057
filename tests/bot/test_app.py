"""`serve` and `habicht run`: start, stop without losing a message, refuse a bad token."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kit import within
from kit.bot import ALICE, OWNER, running, settings_for
from kit.fakes import FakeClock
from kit.files import FOREIGN, contents, foreign_database
from telegram.error import InvalidToken

from habicht.bot import BotApplication, build_application, deliver, serve
from habicht.bot.app import TOKEN_REJECTED
from habicht.bot.services import NotReady
from habicht.cli import main
from habicht.db import Database, DatabaseError
from habicht.fakes.telegram import FakeBotAPI
from habicht.fakes.willhaben_site import FakeWillhabenSite, SiteFault
from habicht.instance import single_instance
from habicht.message import Outgoing
from habicht.queue.enqueue import enqueue_within

CHATS = 200
FAST_DRAINS = {"queue_interval": 0.1, "scrape_interval": 3600.0}


@pytest.fixture
def off_site() -> Iterator[FakeWillhabenSite]:
    """The willhaben these bots must never call (they have no watches): it knows no search
    and answers 503 to anything, and its log is checked at teardown. Failing the request
    instead would prove nothing: the scan's catch-all counts any exception as a layout
    failure and goes on."""
    site = FakeWillhabenSite()
    site.intercept(SiteFault.server_error(503))
    yield site
    urls = [str(request.url) for request in site.log]
    assert urls == [], f"no willhaben request expected, got {urls}"


async def arrived(api: FakeBotAPI, count: int) -> None:
    """Wait (re-checking on every change, 20 s at most) until `count` messages arrived."""
    await asyncio.to_thread(
        api.wait_until,
        lambda: len(api.messages()) >= count,
        timeout=20,
        what=f"{count} messages",
    )


async def enqueue(path: Path, count: int) -> None:
    """`count` messages to as many chats, queued before the bot starts."""
    async with Database(path) as db, db.transaction() as conn:
        await enqueue_within(
            conn,
            [Outgoing(9000 + n, "info", f"Nachricht {n}", f"test:{n}") for n in range(count)],
            now=time.time(),
            max_attempts=5,
        )


async def counts(path: Path) -> dict[str, int]:
    async with Database(path) as db:
        rows = await db.fetchall("SELECT status, count(*) FROM notifications GROUP BY status")
    return {row[0]: row[1] for row in rows}


def app_for(
    tmp_path: Path, api: FakeBotAPI, off_site: FakeWillhabenSite, **changes: Any
) -> BotApplication:
    return build_application(
        settings_for(tmp_path, api.token, **FAST_DRAINS, **changes),
        telegram_transport=api.transport(),
        willhaben_transport=off_site.transport(),
    )


async def test_a_stop_during_a_drain_loses_nothing_and_sends_nothing_twice(
    tmp_path: Path, off_site: FakeWillhabenSite
) -> None:
    """Asked to stop mid-drain, `serve` returns 0; every row is sent or pending again, none
    is left `sending`, and each delivered message is recorded as sent exactly once."""
    await enqueue(tmp_path / "habicht.sqlite3", CHATS)
    with FakeBotAPI(delay=0.05) as api:
        app = app_for(tmp_path, api, off_site)
        running = asyncio.create_task(serve(app, stop_signals=(), grace=1.0))
        await arrived(api, 20)
        app.bot_data.request_stop()
        assert await asyncio.wait_for(running, timeout=10) == 0
        delivered = len(api.messages())
    after = await counts(tmp_path / "habicht.sqlite3")
    assert after.get("sending", 0) == 0
    assert after["sent"] == delivered
    assert after["sent"] + after.get("pending", 0) == CHATS
    assert after["pending"] > 0  # it really stopped in the middle
    assert len({m.chat_id for m in api.messages()}) == delivered


async def test_sigterm_stops_the_bot_cleanly(tmp_path: Path, off_site: FakeWillhabenSite) -> None:
    """SIGTERM to the process reaches `serve`'s handler mid-drain: exit code 0, nothing left
    leased, every row sent or pending."""
    await enqueue(tmp_path / "habicht.sqlite3", CHATS)
    with FakeBotAPI(delay=0.05) as api:
        app = app_for(tmp_path, api, off_site)
        running = asyncio.create_task(serve(app, grace=1.0))
        await arrived(api, 5)
        os.kill(os.getpid(), signal.SIGTERM)
        assert await asyncio.wait_for(running, timeout=10) == 0
        delivered = len(api.messages())
    after = await counts(tmp_path / "habicht.sqlite3")
    assert after.get("sending", 0) == 0
    assert after["sent"] == delivered
    assert after["pending"] > 0  # it really stopped in the middle
    assert after["sent"] + after["pending"] == CHATS


async def test_a_restart_delivers_the_rest(tmp_path: Path, off_site: FakeWillhabenSite) -> None:
    """After a stop mid-drain, the next run delivers what was left, each message once."""
    await enqueue(tmp_path / "habicht.sqlite3", 60)
    with FakeBotAPI(delay=0.05) as api:
        first = app_for(tmp_path, api, off_site)
        running = asyncio.create_task(serve(first, stop_signals=(), grace=1.0))
        await arrived(api, 10)
        first.bot_data.request_stop()
        assert await within(running, "the first run to stop") == 0
        second = app_for(tmp_path, api, off_site)
        running = asyncio.create_task(serve(second, stop_signals=(), grace=1.0))
        await arrived(api, 60)
        second.bot_data.request_stop()
        assert await within(running, "the second run to stop") == 0
        assert sorted(m.chat_id for m in api.messages()) == [9000 + n for n in range(60)]
    assert await counts(tmp_path / "habicht.sqlite3") == {"sent": 60}


async def test_a_revoked_token_stops_delivery_with_a_failure(
    tmp_path: Path, off_site: FakeWillhabenSite
) -> None:
    """A token rejected while delivering stops the bot with exit code 1; no row is lost or
    spent, and the owners' alert waits in the outbox."""
    await enqueue(tmp_path / "habicht.sqlite3", CHATS)
    with FakeBotAPI(delay=0.05) as api:
        app = app_for(tmp_path, api, off_site)
        running = asyncio.create_task(serve(app, stop_signals=(), grace=1.0))
        await arrived(api, 5)
        api.revoke_token()
        assert await asyncio.wait_for(running, timeout=10) == 1
        delivered = len(api.messages())
    assert app.bot_data.fatal is not None
    assert "delivery stopped" in app.bot_data.fatal
    after = await counts(tmp_path / "habicht.sqlite3")
    assert after["sent"] == delivered
    assert after.get("sending", 0) == 0
    assert after.get("dead", 0) == 0
    assert after["pending"] == CHATS - delivered + 1  # + the alert to the owner


def closed(app: BotApplication) -> bool:
    """Whether the database, the Bot's HTTP clients and the instance lock are all let go."""
    services = app.bot_data
    try:
        services.db  # noqa: B018  # the property raises once the database is closed
    except NotReady:
        pass
    else:
        return False
    with single_instance(services.settings.db):  # raises while it is still held
        pass
    return all(not request._client or request._client.is_closed for request in services.http)


async def test_a_bad_token_fails_at_startup(tmp_path: Path) -> None:
    """A token Telegram rejects raises `InvalidToken` from startup; nothing is left open."""
    with FakeBotAPI() as api:
        app = build_application(
            settings_for(tmp_path, "42:not-the-token", **FAST_DRAINS),
            telegram_transport=api.transport(),
        )
        with pytest.raises(InvalidToken, match="`42:not-the-token` was rejected"):
            await serve(app, stop_signals=(), grace=1.0)
    assert closed(app)


async def test_a_token_revoked_while_idle_stops_the_bot(
    tmp_path: Path, off_site: FakeWillhabenSite
) -> None:
    """Issue 4: Telegram rejecting the token of an idle bot's long poll (no send to notice
    it) stops the bot with exit code 1 and says why; the shutdown runs every step."""
    with FakeBotAPI() as api:
        app = app_for(tmp_path, api, off_site)
        running = asyncio.create_task(serve(app, stop_signals=(), grace=1.0))
        await asyncio.to_thread(
            api.wait_until, lambda: api.calls["getUpdates"] > 0, timeout=10, what="a poll"
        )
        api.revoke_token()
        api.push_message(-100, ALICE, "hallo")  # chatter in a group: ends the long poll
        assert await asyncio.wait_for(running, timeout=20) == 1
    assert app.bot_data.fatal == TOKEN_REJECTED
    assert not app.running
    assert closed(app)


async def test_only_one_bot_serves_a_database(tmp_path: Path, off_site: FakeWillhabenSite) -> None:
    """Issue 4: a second `serve` of the same database is refused with a sentence naming it,
    and leaves the first one running; once the first stops, the database is free again."""
    with FakeBotAPI() as api:
        first = app_for(tmp_path, api, off_site)
        running = asyncio.create_task(serve(first, stop_signals=(), grace=1.0))
        await asyncio.to_thread(
            api.wait_until, lambda: api.calls["getUpdates"] > 0, timeout=10, what="a poll"
        )
        with pytest.raises(DatabaseError, match="another habicht run is using the database"):
            await serve(app_for(tmp_path, api, off_site), stop_signals=(), grace=1.0)
        assert not running.done()
        first.bot_data.request_stop()
        assert await asyncio.wait_for(running, timeout=10) == 0
    assert closed(first)


@pytest.mark.usefixtures("restore_logging")
def test_a_second_habicht_run_prints_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`habicht run` on a database another run holds: exit 2, one line naming the database,
    before anything talks to Telegram."""
    path = tmp_path / "habicht.sqlite3"
    monkeypatch.setenv("HABICHT_BOT_TOKEN", "42:secret-token-value")
    monkeypatch.setenv("HABICHT_TELEGRAM_API", "http://127.0.0.1:9/bot")  # never reached
    monkeypatch.setenv("HABICHT_DB", str(path))
    with single_instance(path):
        assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"habicht: error: another habicht run is using the database {path}")
    assert err.count("\n") == 1


@pytest.mark.usefixtures("restore_logging")
def test_habicht_run_with_a_bad_token_prints_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`habicht run` against a Bot API that rejects the token: exit 1, one line, no token."""
    token = "42:secret-token-value"
    with FakeBotAPI() as api, api.serve() as server:
        monkeypatch.setenv("HABICHT_BOT_TOKEN", token)
        monkeypatch.setenv("HABICHT_TELEGRAM_API", server.base_url)
        monkeypatch.setenv("HABICHT_DB", str(tmp_path / "habicht.sqlite3"))
        assert main(["run"]) == 1
    err = capsys.readouterr().err
    assert "habicht: error: Telegram rejected HABICHT_BOT_TOKEN\n" in err
    assert token not in err
    assert "secret-token-value" not in err


@pytest.mark.parametrize("table", sorted(FOREIGN))
@pytest.mark.usefixtures("restore_logging")
def test_habicht_run_refuses_another_applications_database(
    tmp_path: Path, table: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27: `habicht run` with HABICHT_DB naming another application's SQLite file —
    with a table named like habicht's outbox (it used to be switched to WAL) or with none in
    common (it used to get habicht's tables added) — exits 2 with one line naming the file,
    before anything talks to Telegram; no byte of the folder changes, no lock file appears."""
    path = tmp_path / "other.sqlite3"
    foreign_database(path, table)
    before = contents(tmp_path)
    monkeypatch.setenv("HABICHT_BOT_TOKEN", "42:secret-token-value")
    monkeypatch.setenv("HABICHT_TELEGRAM_API", "http://127.0.0.1:9/bot")  # never reached
    monkeypatch.setenv("HABICHT_DB", str(path))
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"habicht: error: {path} is not habicht's database")
    assert table in err
    assert err.count("\n") == 1
    assert contents(tmp_path) == before


@pytest.mark.usefixtures("restore_logging")
def test_habicht_run_refuses_a_file_that_is_no_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Random bytes under HABICHT_DB: exit 2, one line saying so, the bytes as they were."""
    path = tmp_path / "noise.sqlite3"
    path.write_bytes(random.Random(27).randbytes(8192))
    before = contents(tmp_path)
    monkeypatch.setenv("HABICHT_BOT_TOKEN", "42:secret-token-value")
    monkeypatch.setenv("HABICHT_TELEGRAM_API", "http://127.0.0.1:9/bot")  # never reached
    monkeypatch.setenv("HABICHT_DB", str(path))
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err == f"habicht: error: cannot read database {path}: file is not a database\n"
    assert contents(tmp_path) == before


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "de",
            "Gestartet mit einer neuen, leeren Datenbank unter <code>{path}</code> — gab es"
            " beobachtete Suchen, ist das Daten-Volume nicht eingebunden.",
        ),
        (
            "en",
            "Started with a new, empty database at <code>{path}</code> — if you had watches,"
            " the data volume is not mounted.",
        ),
    ],
)
async def test_a_new_database_is_logged_and_told_to_the_owners_once(
    tmp_path: Path, lang: str, words: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 27: a bot that has to create its database (its file moved away, a data volume
    not mounted) says so at WARNING and tells the owners, in their language, once; the next
    start, on the database it made, tells nobody anything."""
    path = tmp_path / "habicht.sqlite3"
    clock = FakeClock()
    with caplog.at_level(logging.WARNING, logger="habicht.bot.services"):
        async with running(tmp_path, clock=clock, lang=lang, new_database=True) as bot:
            await deliver(bot.app.bot_data)
            assert [m.text for m in bot.api.messages(OWNER)] == ["🗄 " + words.format(path=path)]
            assert bot.api.messages() == bot.api.messages(OWNER)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        f"started with a new, empty database at {path} — if you had watches, the data volume"
        " is not mounted"
    ]
    caplog.clear()
    async with running(tmp_path, clock=clock, lang=lang, new_database=True) as bot:
        await deliver(bot.app.bot_data)
        assert bot.api.messages() == []
        assert (
            await bot.app.bot_data.db.single_value(
                "SELECT count(*) FROM notifications WHERE kind = 'admin'"
            )
            == 1
        )
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
