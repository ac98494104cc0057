"""The willhaben scraper: search URLs, polite fetching, parsing, and new/drop events.

Knows nothing of Telegram: it writes rendered texts into the outbox through a `Renderer` it
is given. Other code imports only the names listed here.
"""

from habicht.scraper.urls import (
    InvalidReason,
    InvalidSearch,
    Search,
    keyword_search,
    normalise_search_url,
    parse_watch_argument,
    request_url,
)

__all__ = [
    "InvalidReason",
    "InvalidSearch",
    "Search",
    "keyword_search",
    "normalise_search_url",
    "parse_watch_argument",
    "request_url",
]
