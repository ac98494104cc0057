"""The willhaben scraper: search URLs, polite fetching, parsing, and new/drop events.

Knows nothing of Telegram: it writes rendered texts into the outbox through a `Renderer` it
is given. Other code imports only the names listed here.
"""

from habicht.scraper.diff import (
    PUBLISHED_SLACK,
    BumpedListing,
    Event,
    NewListing,
    PriceDrop,
    diff,
)
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
from habicht.scraper.scan import (
    FAILING_AFTER,
    MAX_PAGES,
    Renderer,
    ScanSummary,
    SearchFailure,
    scan,
)
from habicht.scraper.subscriptions import Overview, SearchHealth, Subscriptions, WatchInfo
from habicht.scraper.urls import (
    PAGE_ROWS,
    Search,
    keyword_search,
    normalise_search_url,
    parse_watch_argument,
    request_url,
)

__all__ = [
    "FAILING_AFTER",
    "MAX_PAGES",
    "PAGE_ROWS",
    "PUBLISHED_SLACK",
    "Blocked",
    "BumpedListing",
    "DuplicateWatch",
    "ErrorKind",
    "Event",
    "FetchError",
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
    "diff",
    "keyword_search",
    "normalise_search_url",
    "parse_search_page",
    "parse_watch_argument",
    "request_url",
    "scan",
]
