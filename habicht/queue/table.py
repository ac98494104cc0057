"""The outbox table's settings: the database, the clock, attempts, TTL and lease.

Every write goes through `Database.transaction()`. The store's parts (`enqueue`, `claim`,
`settle`, `upkeep`) each add their methods to this base; `NotificationStore` joins them.
"""

from __future__ import annotations

from habicht.clock import Clock
from habicht.db import Database

__all__ = ["DEFAULT_LEASE", "LEASE_MARGIN", "OutboxTable"]

DEFAULT_LEASE = 120.0
"""Seconds a claim owns its rows, and a started send its rows again from its start (`start`
renews the lease). Sized above the worst send: the bot's send is a photo and, if Telegram
refuses the photo, the text in the same attempt — two requests of at most 20 s each (pool,
connect, write and read timeouts of 5 s) — and `drain` cuts any send off at the lease less
`LEASE_MARGIN` (90 s), so no send outlives its lease and the reaper never buries a row whose
send still runs. A crash does not wait for the lease — the restarted process takes over the
dead one's leases (`take_over_leases`) — so it bounds only how long a live drain that hangs
can hold its rows."""

LEASE_MARGIN = 30.0
"""`drain` starts no send later than this many seconds before its claim's lease ends (it
gives the row back instead), and a started send gets the lease less this to finish: the rest
is room for the settle. A lease must be at least twice this, so every claim leaves time to
send."""


class OutboxTable:
    """What every part of the store needs: the database, the clock that dates every write,
    and the limits of a row (see `NotificationStore`); refuses limits that cannot work."""

    def __init__(
        self,
        db: Database,
        *,
        clock: Clock,
        max_attempts: int,
        ttl: float,
        lease: float = DEFAULT_LEASE,
    ) -> None:
        if max_attempts < 1 or ttl <= 0 or lease < 2 * LEASE_MARGIN:
            raise ValueError(
                f"max_attempts must be at least 1, ttl positive and lease at least "
                f"{2 * LEASE_MARGIN:g} s, got max_attempts={max_attempts}, ttl={ttl}, "
                f"lease={lease}"
            )
        self.db = db
        self.clock = clock
        self.max_attempts = max_attempts
        self.ttl = ttl
        self.lease = lease
