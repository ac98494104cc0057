"""The willhaben scraper: search URLs, polite fetching, parsing, and new/drop events.

Knows nothing of Telegram: it writes rendered texts into the outbox through a `Renderer` it
is given. Other code imports only the names listed here.
"""

from habicht.scraper.diff import PUBLISHED_SLACK, Event, NewListing, PriceDrop, diff
from habicht.scraper.errors import (
    Blocked,
    DuplicateWatch,
    ErrorKind,
    FetchError,
    InvalidReason,
    InvalidSearch,
    LayoutError,
    ScrapeError,
    TooManyWatches,
    WatchError,
)
from habicht.scraper.fetch import WillhabenClient
from habicht.scraper.parse import Listing, SearchPage, parse_search_page
from habicht.scraper.scan import FAILING_AFTER, Renderer, ScanSummary, SearchFailure, scan
from habicht.scraper.schedule import (
    BEHIND_FACTOR,
    Capacity,
    Freshness,
    FreshnessWatch,
    capacity,
    freshness,
    run_pass,
)
from habicht.scraper.subscriptions import Overview, SearchHealth, Subscriptions, WatchInfo
from habicht.scraper.urls import (
    Search,
    keyword_search,
    normalise_search_url,
    parse_watch_argument,
    request_url,
)

__all__ = [
    "BEHIND_FACTOR",
    "FAILING_AFTER",
    "PUBLISHED_SLACK",
    "Blocked",
    "Capacity",
    "DuplicateWatch",
    "ErrorKind",
    "Event",
    "FetchError",
    "Freshness",
    "FreshnessWatch",
    "InvalidReason",
    "InvalidSearch",
    "LayoutError",
    "Listing",
    "NewListing",
    "Overview",
    "PriceDrop",
    "Renderer",
    "ScanSummary",
    "ScrapeError",
    "Search",
    "SearchFailure",
    "SearchHealth",
    "SearchPage",
    "Subscriptions",
    "TooManyWatches",
    "WatchError",
    "WatchInfo",
    "WillhabenClient",
    "capacity",
    "diff",
    "freshness",
    "keyword_search",
    "normalise_search_url",
    "parse_search_page",
    "parse_watch_argument",
    "request_url",
    "run_pass",
    "scan",
]
