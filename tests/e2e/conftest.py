"""Fixtures of the end-to-end tests: a fresh world per test (fakes on free loopback ports,
an empty database, no process yet)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kit.e2e import World

from habicht.fakes.telegram import FakeBotAPI
from habicht.fakes.willhaben_site import FakeWillhabenSite

E2E_TIMEOUT = 300
"""Seconds an end-to-end test may take (the slowest, a crash loop of real processes, ~40 s)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The end-to-end tests start real processes: a longer timeout than the unit tests'."""
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here):
            item.add_marker(pytest.mark.timeout(E2E_TIMEOUT))


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with FakeBotAPI() as telegram, telegram.serve() as bot_api:
        site = FakeWillhabenSite()
        with site.serve() as willhaben:
            world = World(
                telegram=telegram,
                site=site,
                telegram_url=bot_api.base_url,
                site_url=willhaben.base_url,
                workdir=tmp_path,
            )
            try:
                yield world
            finally:
                world.close()
