"""The outbox table's settings (`habicht.queue.table`): limits that cannot work are refused."""

from __future__ import annotations

import pytest
from kit.fakes import FakeClock

from habicht.db import Database
from habicht.queue import NotificationStore


def test_the_store_refuses_nonsense_settings(db: Database, clock: FakeClock) -> None:
    """No attempts, no TTL, or a lease too short to start a send is refused in one sentence."""
    with pytest.raises(ValueError, match="max_attempts must be at least 1"):
        NotificationStore(db, clock=clock, max_attempts=0, ttl=1)
    with pytest.raises(ValueError, match=r"lease at least 60 s, got .* lease=59"):
        NotificationStore(db, clock=clock, max_attempts=1, ttl=1, lease=59)
