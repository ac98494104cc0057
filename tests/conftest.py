"""Shared fixtures; the header says which SQLite and python-telegram-bot this run uses."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import telegram
from kit.bot import Bot, running
from kit.fixtures import client, clock, empty_directory, isolated_environment, site, store, subs

from habicht.db import Database

FIXTURES = Path(__file__).parent / "fixtures" / "willhaben"

__all__ = [  # the kit's fixtures, and the willhaben pages
    "FIXTURES",
    "client",
    "clock",
    "empty_directory",
    "isolated_environment",
    "site",
    "store",
    "subs",
]


def pytest_report_header() -> list[str]:
    return [f"sqlite {sqlite3.sqlite_version}, python-telegram-bot {telegram.__version__}"]


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    """A real, migrated SQLite file in WAL mode."""
    async with Database(tmp_path / "habicht.sqlite3") as database:
        yield database


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """`habicht.cli.main` configures logging (a root handler, httpx quietened); undo it after
    the test, so later tests' `caplog` sees what it expects."""
    loggers = [logging.getLogger(name) for name in ("", "httpx", "httpcore", "apscheduler")]
    saved = [(logger, logger.level, list(logger.handlers)) for logger in loggers]
    yield
    for logger, level, handlers in saved:
        logger.setLevel(level)
        logger.handlers[:] = handlers


@pytest.fixture
async def bot(tmp_path: Path) -> AsyncIterator[Bot]:
    """The real Application, started as `post_init` starts it, over the fake Bot API."""
    async with running(tmp_path) as started:
        yield started
