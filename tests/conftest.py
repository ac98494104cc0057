"""Shared fixtures; the header says which SQLite and python-telegram-bot this run uses."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import telegram

from habicht.db import Database

FIXTURES = Path(__file__).parent / "fixtures" / "willhaben"


def pytest_report_header() -> list[str]:
    return [f"sqlite {sqlite3.sqlite_version}, python-telegram-bot {telegram.__version__}"]


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    """A real, migrated SQLite file in WAL mode."""
    async with Database(tmp_path / "habicht.sqlite3") as database:
        yield database
