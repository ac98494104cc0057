"""Every error the scraper raises, grouped by what the caller does next.

- `ScrapeError` — a search could not be scanned this cycle: count a failure, keep the
  watches' state, try again next cycle. `kind` is what `searches.last_error_kind` records.
  - `FetchError` — transient: connect error, timeout, 5xx, still failing after the retries.
  - `Blocked` — willhaben refuses us (403, 429, or its block page): back off from willhaben
    as a whole, honouring `retry_after` when the site sent one.
  - `LayoutError` — the page has no data we recognise: a changed site, tell the owner.
- `InvalidSearch` — a subscriber's `/watch` argument is not something habicht may fetch:
  show them `reason` (a stable code) in their language.

A change to a chat's watches that cannot be made is a `WatchError` (`habicht.watches.errors`).

httpx errors become `FetchError`/`Blocked` in exactly one place (`fetch.py`), chained with
`from`; nothing above the scraper catches `httpx.*`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from habicht.model import ErrorKind

__all__ = [
    "Blocked",
    "FetchError",
    "InvalidReason",
    "InvalidSearch",
    "LayoutError",
    "ScrapeError",
]


class ScrapeError(Exception):
    """A search could not be scanned this cycle; it produces no events."""

    kind: ClassVar[ErrorKind]


class FetchError(ScrapeError):
    """willhaben did not answer usably (connect error, timeout, 5xx) even after retries.

    `retryable` is False for answers another try within the cycle would not change (a 404).
    """

    kind = "fetch"

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


class Blocked(ScrapeError):
    """willhaben refused us (403, 429, block page); `retry_after` seconds if it said so."""

    kind = "blocked"

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class LayoutError(ScrapeError):
    """The page lacks the search data or its structure is not the one we know."""

    kind = "layout"


class InvalidReason(StrEnum):
    """Why a watch argument was refused: a stable code the bot turns into a de/en text."""

    EMPTY = "empty"  # nothing given
    TOO_LONG = "too_long"  # a URL or keyword text longer than anyone types
    MALFORMED = "malformed"  # not a parseable URL (spaces, backslashes, dot segments, bad port)
    SCHEME = "scheme"  # not http or https
    HOST = "host"  # not willhaben.at: other hosts, look-alikes, IPs, user@host, other ports
    AD_PAGE = "ad_page"  # a single advert (also its share link), not a search
    SEARCH_AGENT = "search_agent"  # a Suchagent link from willhaben's alert e-mails
    NOT_SEARCH = "not_search"  # a willhaben page that is not a search (outside /iad/…)
    PRICE = "price"  # the maximum price is not a sensible amount


class InvalidSearch(ValueError):
    """The argument is not something habicht may watch; `reason` says why, `detail` in English."""

    def __init__(self, reason: InvalidReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
