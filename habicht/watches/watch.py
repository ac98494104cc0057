"""One watch as its chat sees it (`WatchInfo`): what `/list`, `/preview` and the refusals of
`/watch` show. `Subscriptions` reads it from the database; the preview and `DuplicateWatch`
only hand it on, so it lives apart from both.
"""

from __future__ import annotations

from dataclasses import dataclass

from habicht.model import ErrorKind, Search
from habicht.watches.filters import WatchFilter

__all__ = ["HIT_WINDOW", "WatchInfo"]

HIT_WINDOW = 86400.0
"""How far back `/list` counts what a filter hid (and how long a hit is kept)."""


@dataclass(frozen=True, slots=True)
class WatchInfo:
    """One watch as a chat sees it, with the health of the search behind it."""

    id: int
    number: int
    chat_id: int
    search_id: int
    url: str
    label: str
    paused: bool
    baseline_at: float | None
    listings_known: int
    last_success_at: float | None
    consecutive_failures: int
    last_error_kind: ErrorKind | None
    thread_id: int | None
    """The forum topic the watch was created in (Telegram's `message_thread_id`), if any."""
    filter: WatchFilter
    hidden: tuple[tuple[str, int], ...]
    """(rule, adverts) the filter hid in the last `HIT_WINDOW`, most first."""

    @property
    def search(self) -> Search:
        """The search the watch reads, as habicht names searches everywhere."""
        return Search(url=self.url, label=self.label)
