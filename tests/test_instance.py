"""One habicht per database (`habicht.instance`): the lock `habicht run` and `habicht restore`
hold, released however the holder ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from habicht.db import DatabaseError
from habicht.instance import single_instance


def test_a_second_holder_is_refused_until_the_first_lets_go(tmp_path: Path) -> None:
    db = tmp_path / "data" / "habicht.sqlite3"
    refused = pytest.raises(DatabaseError, match="another habicht run is using the database")
    with single_instance(db), refused, single_instance(db):
        pass
    with single_instance(db):  # released
        assert (tmp_path / "data" / "habicht.sqlite3.lock").exists()
