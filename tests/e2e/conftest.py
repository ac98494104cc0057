"""Fixtures of the end-to-end tests: a fresh world per test (fakes on free loopback ports,
an empty database, no process yet)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.harness import World
from habicht.fakes.telegram import FakeBotAPI
from habicht.fakes.willhaben_site import FakeWillhabenSite


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
