"""The notification outbox in SQLite: enqueue, claim with a lease, settle, inspect.

`NotificationStore` joins the table's parts, each in a module of its own: what goes in and
when its turn is (`enqueue`), which rows go out next (`claim`), what became of them
(`settle`), the owner's counts and repairs (`upkeep`); a row itself is in `rows`.
"""

from __future__ import annotations

from habicht.queue.claim import Claims
from habicht.queue.enqueue import Enqueues
from habicht.queue.settle import Settles
from habicht.queue.upkeep import Upkeep

__all__ = ["NotificationStore"]


class NotificationStore(Enqueues, Claims, Settles, Upkeep):
    """The outbox table behind a small API; `clock` dates every write.

    `max_attempts` is stamped on each new row; `ttl` seconds after it was queued an
    undelivered row is dead (`expired`); `lease` is how long a claim owns its rows.
    """
