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
from habicht.scraper.figures import WatchFigures, watch_figures
from habicht.scraper.filters import (
    MAX_KM,
    NO_PLACE,
    FilterReason,
    InvalidFilter,
    Near,
    WatchFilter,
    parse_price,
)
from habicht.scraper.going import MIN_PRICES, PriceStats, going_price, summarize
from habicht.scraper.history import PricePoint
from habicht.scraper.local import FeedMatcher, LocalSearch, local_search
from habicht.scraper.notes import NO_NOTES, AlertNotes, Repost, SearchFacts
from habicht.scraper.parse import Listing, SearchPage, parse_search_page
from habicht.scraper.places import Located, Place, distance_km, in_austria
from habicht.scraper.preview import EXAMPLES, Example, Outcome, Preview
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
    "EXAMPLES",
    "FAILING_AFTER",
    "MAX_KM",
    "MAX_PAGES",
    "MIN_PRICES",
    "NO_NOTES",
    "NO_PLACE",
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
    "Example",
    "FeedCadence",
    "FeedMatcher",
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
    "LocalSearch",
    "Located",
    "Near",
    "NewListing",
    "Outcome",
    "Overview",
    "Place",
    "Preview",
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
    "WatchFigures",
    "WatchFilter",
    "WatchInfo",
    "WillhabenClient",
    "Workload",
    "advert_searches",
    "capacity",
    "day_bounds",
    "diff",
    "distance_km",
    "freshness",
    "going_by_day",
    "going_price",
    "in_austria",
    "keyword_search",
    "latency",
    "local_search",
    "normalise_search_url",
    "parse_price",
    "parse_search_page",
    "parse_watch_argument",
    "request_url",
    "run_pass",
    "samples",
    "scan",
    "summarize",
    "watch_figures",
    "workload",
]
