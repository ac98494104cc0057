"""The willhaben scraper: search URLs, polite fetching, parsing, and new/drop events.

Knows nothing of Telegram: it writes rendered texts into the outbox through a `Renderer` it
is given. Other code imports only the names listed here.
"""

from habicht.scraper.alert_times import Latency, Sample, latency, samples
from habicht.scraper.budget import Workload, workload
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
from habicht.scraper.filters import FilterReason, InvalidFilter, WatchFilter, parse_price
from habicht.scraper.going import MIN_PRICES, PriceStats, going_price, summarize
from habicht.scraper.history import PricePoint
from habicht.scraper.notes import NO_NOTES, AlertNotes, Repost, SearchFacts
from habicht.scraper.parse import Listing, SearchPage, parse_search_page
from habicht.scraper.scan import (
    FAILING_AFTER,
    MAX_PAGES,
    Alert,
    Renderer,
    ScanSummary,
    SearchFailure,
    scan,
)
from habicht.scraper.schedule import (
    BEHIND_FACTOR,
    Capacity,
    FeedCadence,
    Freshness,
    FreshnessWatch,
    RequestShare,
    capacity,
    freshness,
    run_pass,
)
from habicht.scraper.subscriptions import (
    AdvertHistory,
    Overview,
    SearchHealth,
    Subscriptions,
    WatchInfo,
)
from habicht.scraper.trend import (
    TREND_DAYS,
    GoingDay,
    advert_searches,
    day_bounds,
    going_by_day,
)
from habicht.scraper.urls import (
    PAGE_ROWS,
    Search,
    keyword_search,
    normalise_search_url,
    parse_watch_argument,
    request_url,
)

__all__ = [
    "BEHIND_FACTOR",
    "FAILING_AFTER",
    "MAX_PAGES",
    "MIN_PRICES",
    "NO_NOTES",
    "PAGE_ROWS",
    "PUBLISHED_SLACK",
    "TREND_DAYS",
    "AdvertHistory",
    "Alert",
    "AlertNotes",
    "Blocked",
    "BumpedListing",
    "Capacity",
    "DuplicateWatch",
    "ErrorKind",
    "Event",
    "FeedCadence",
    "FetchError",
    "FilterReason",
    "Freshness",
    "FreshnessWatch",
    "GoingDay",
    "InvalidFilter",
    "InvalidReason",
    "InvalidSearch",
    "Latency",
    "LayoutError",
    "Listing",
    "NewListing",
    "Overview",
    "PriceDrop",
    "PricePoint",
    "PriceStats",
    "Renderer",
    "Repost",
    "RequestShare",
    "Sample",
    "ScanSummary",
    "ScrapeError",
    "Search",
    "SearchFacts",
    "SearchFailure",
    "SearchHealth",
    "SearchPage",
    "Subscriptions",
    "TooManyWatches",
    "WatchError",
    "WatchFilter",
    "WatchInfo",
    "WillhabenClient",
    "Workload",
    "advert_searches",
    "capacity",
    "day_bounds",
    "diff",
    "freshness",
    "going_by_day",
    "going_price",
    "keyword_search",
    "latency",
    "normalise_search_url",
    "parse_price",
    "parse_search_page",
    "parse_watch_argument",
    "request_url",
    "run_pass",
    "samples",
    "scan",
    "summarize",
    "workload",
]
