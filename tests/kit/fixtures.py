"""The fixtures most test files share (issue 22); `tests/conftest.py` makes them available.

A file that needs a variant (another start time, other store limits) defines its own
fixture of the same name, which pytest prefers for that file.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from habicht.db import Database
from habicht.fakes.willhaben_site import MARKETPLACE, FakeWillhabenSite
from habicht.queue import NotificationStore
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from kit.clients import willhaben_client
from kit.fakes import FakeClock


@pytest.fixture(scope="session")
def empty_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with nothing in it, for the session."""
    return tmp_path_factory.mktemp("cwd")


@pytest.fixture(autouse=True)
def isolated_environment(monkeypatch: pytest.MonkeyPatch, empty_directory: Path) -> None:
    """Every test runs in an empty directory, so no stray `.env` of the developer's is read
    (one directory for the session: a `tmp_path` for each of a thousand tests costs seconds;
    tests that write files give them their own `tmp_path`); and a 429's `retry_after` is a
    timedelta (python-telegram-bot 22 warns about ints otherwise). A test of the int form
    sets PTB_TIMEDELTA itself."""
    monkeypatch.chdir(empty_directory)
    monkeypatch.setenv("PTB_TIMEDELTA", "true")


@pytest.fixture
def clock() -> FakeClock:
    """Virtual time, moved only by the test (and by sleeps on it)."""
    return FakeClock()


@pytest.fixture
def store(db: Database, clock: FakeClock) -> NotificationStore:
    """The outbox on the test's database and clock: 5 attempts, a day to live."""
    return NotificationStore(db, clock=clock, max_attempts=5, ttl=86400)


@pytest.fixture
def subs(db: Database, clock: FakeClock) -> Subscriptions:
    """Watches and searches on the test's database and clock."""
    return Subscriptions(db, clock=clock)


@pytest.fixture
def site() -> FakeWillhabenSite:
    """willhaben, every marketplace search listing the same adverts (none yet)."""
    site = FakeWillhabenSite()
    site.set_listings(MARKETPLACE, [])
    return site


@pytest.fixture
async def client(site: FakeWillhabenSite, clock: FakeClock) -> AsyncIterator[WillhabenClient]:
    """A client of `site` whose gaps and retries pass on the test's clock."""
    async with willhaben_client(site.transport(), clock) as willhaben:
        yield willhaben
