"""Every error a change to a chat's watches raises: tell the subscriber.

- `WatchError` — a change to a chat's watches cannot be made.
  - `DuplicateWatch` — the chat already watches this search (`watch` is the existing one).
  - `TooManyWatches` — the chat already has `limit` watches.

A `/filter` rule habicht cannot take is an `InvalidFilter` (`habicht.watches.filters`), and a
`/watch` argument it may not fetch an `InvalidSearch` (`habicht.willhaben.errors`).
"""

from __future__ import annotations

from habicht.watches.watch import WatchInfo

__all__ = ["DuplicateWatch", "TooManyWatches", "WatchError"]


class WatchError(Exception):
    """A change to a chat's watches cannot be made."""


class DuplicateWatch(WatchError):
    """The chat already watches this search; `watch` is the existing watch."""

    def __init__(self, watch: WatchInfo) -> None:
        super().__init__(f"chat {watch.chat_id} already watches {watch.url} as #{watch.number}")
        self.watch = watch


class TooManyWatches(WatchError):
    """The chat already has `limit` watches (HABICHT_MAX_WATCHES)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"a chat may have at most {limit} watches")
        self.limit = limit
