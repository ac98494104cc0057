"""What a subscriber may ask habicht to watch: willhaben search URLs and keyword searches.

This is the guard that keeps the bot from fetching arbitrary URLs for strangers: only
`http(s)://(www.)willhaben.at/iad/<section>/…` search pages pass, in one normalised form, and
every request then goes to `HABICHT_WILLHABEN_URL` with the normalised path and query — never
to a host a subscriber typed (an advert's own page, `advert_request_url`, passes the same
kind of guard). The sections are willhaben's three search verticals
(`SEARCH_SECTIONS`, keep in sync with docs/internals/scraper.md); the rest of /iad/ is profiles, the
watch list, placing an advert, single adverts — nothing to watch.

Whatever cannot be read as one plain URL is MALFORMED, never passed on for a later layer to
interpret differently: invisible (zero-width, bidi, control) characters anywhere, a host the
URL parser cannot read, and percent-encoded `.`, `/` or `\\` in the path (a server that decodes
them would see dot segments or other separators than we checked).

Normalised form (two subscribers with the same search share one URL, so it is fetched once):
https, host `www.willhaben.at`, newest first (`sort=1`), no `page` or `rows`, no tracking or
session parameters, no fragment, query parameters sorted, and a `keyword` in lower case with
its whitespace collapsed (willhaben's keyword search ignores case, so "RTX  3070" and
"rtx 3070" are one search). `request_url` adds `rows=PAGE_ROWS` and the page number.

Near misses are refused with the reason that says what to paste instead: a single advert
(`/iad/<vertical>/d/…-<id>/`, `/iad/object?adId=`, an old-style link with `?adId=`, a share
link `/iad/share/<id>`) is AD_PAGE; a Suchagent link (`/iad/searchagent/…`, from willhaben's
alert e-mails) is SEARCH_AGENT — it names a saved search, not the results to watch.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from habicht.digits import ascii_digits
from habicht.model import Search
from habicht.willhaben.errors import InvalidReason, InvalidSearch

__all__ = [
    "PAGE_ROWS",
    "SEARCH_SECTIONS",
    "advert_request_url",
    "keyword_search",
    "normalise_search_url",
    "parse_watch_argument",
    "request_url",
]

HOST = "www.willhaben.at"
_ACCEPTED_HOSTS = frozenset({HOST, "willhaben.at"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_MARKETPLACE = "/iad/kaufen-und-verkaufen/marktplatz"
SEARCH_SECTIONS = frozenset({"kaufen-und-verkaufen", "immobilien", "gebrauchtwagen"})
_MAX_URL = 2000
_MAX_KEYWORDS = 100
_MAX_KEYWORD_TEXT = 200  # before the price suffix is split off; the regex is quadratic
_MAX_PRICE = Decimal(100_000_000)
PAGE_ROWS = 200
"""Adverts asked for per page: willhaben's cap (a page asked for more answers 200)."""

# Parameters that say how a page was reached or shown, not what is searched for.
_DROPPED = frozenset(
    {"page", "sort", "rows", "sfId", "isNavigation", "fbclid", "gclid", "msclkid", "_ga"}
)
_DROPPED_PREFIXES = ("utm_",)

# `rtx 3070 max 400`, `sofa bis 1.000 €`: keywords, then an optional maximum price at the end
# (ASCII digits, `habicht.digits`: `\d` would take Arabic-Indic digits too).
_MAX_PRICE_SUFFIX = re.compile(
    r"^(?P<words>.*?)\s+(?:max|bis)\.?\s*(?:€|eur)?\s*"
    r"(?P<price>[0-9]{1,3}(?:\.[0-9]{3})+|[0-9]+)\s*(?:€|eur|euro)?$",
    re.IGNORECASE,
)
# A host typed without a scheme: `willhaben.at/…`, `www.willhaben.at.evil.example/…`.
_BARE_HOST = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:[:/?#@]|$)", re.IGNORECASE)
_ENCODED_SEPARATOR = re.compile(r"%(?:2e|2f|5c)", re.IGNORECASE)
# What makes an argument a URL attempt rather than keywords (then refused with a reason).
_LOOKS_LIKE_URL = re.compile(
    r"^(?:[a-z][a-z0-9+.-]*://|(?:javascript|data|file|mailto|about|blob):|www\.|"
    r"[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:[:/?#@]|$))",
    re.IGNORECASE,
)


def normalise_search_url(text: str) -> str:
    """The normalised form of a willhaben search URL, or `InvalidSearch` saying why not."""
    text = text.strip()
    if not text:
        raise InvalidSearch(InvalidReason.EMPTY, "no URL given")
    if len(text) > _MAX_URL:
        raise InvalidSearch(InvalidReason.TOO_LONG, f"URL longer than {_MAX_URL} characters")
    if not _plain(text):
        raise InvalidSearch(
            InvalidReason.MALFORMED, "URL contains spaces, backslashes or invisible characters"
        )
    if "://" not in text and _BARE_HOST.match(text):
        text = "https://" + text  # so a typed look-alike host is refused as a host
    try:
        parts = urlsplit(text)
        hostname, port = parts.hostname, parts.port
    except ValueError as exc:  # brackets, a non-numeric port, characters NFKC turns into / ? #
        raise InvalidSearch(InvalidReason.MALFORMED, f"not a readable URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        shown = scheme or "none"
        raise InvalidSearch(InvalidReason.SCHEME, f"only http(s) links, got scheme {shown!r}")
    if "@" in parts.netloc:
        raise InvalidSearch(InvalidReason.HOST, "links with user@host are not accepted")
    host = (hostname or "").lower()
    if host not in _ACCEPTED_HOSTS:
        raise InvalidSearch(InvalidReason.HOST, f"only willhaben.at links, got host {host!r}")
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        raise InvalidSearch(InvalidReason.HOST, f"only the standard port, got {port}")
    path = parts.path
    params = parse_qsl(parts.query)
    _check_path(path, has_ad_id=any(key == "adId" for key, _ in params))
    query = [(key, _normal_value(key, value)) for key, value in params if _kept(key)]
    query.append(("sort", "1"))
    return urlunsplit(("https", HOST, path, urlencode(sorted(query)), ""))


def _check_path(path: str, *, has_ad_id: bool) -> None:
    """Refuse hidden separators, dot segments, single adverts and non-searches under /iad/.

    `has_ad_id`: the query names an advert (`adId=`), as old-style advert links do.
    """
    problem = _path_problem(path)
    if problem is not None:
        raise InvalidSearch(InvalidReason.MALFORMED, problem)
    segments = [segment for segment in path.split("/") if segment]
    if segments[:1] != ["iad"]:
        raise InvalidSearch(InvalidReason.NOT_SEARCH, f"not a willhaben search page: {path!r}")
    # An advert is `/iad/<vertical>/d/…/<slug>-<id>/`, `/iad/object?adId=<id>` (an old-style
    # link without `/d/` but with `?adId=<id>`) or the share link `/iad/share/<id>`.
    if (
        has_ad_id
        or segments[1:2] in (["object"], ["share"])
        or ("d" in segments and ascii_digits(segments[-1][-1:]))
    ):
        raise InvalidSearch(InvalidReason.AD_PAGE, "a single advert, not a search")
    if segments[1:2] == ["searchagent"]:
        raise InvalidSearch(
            InvalidReason.SEARCH_AGENT, "a Suchagent link; paste the results page's address"
        )
    if len(segments) < 3 or segments[1] not in SEARCH_SECTIONS:
        raise InvalidSearch(InvalidReason.NOT_SEARCH, f"not a willhaben search page: {path!r}")


def _plain(text: str) -> bool:
    """Whether `text` has no backslash and no space, control, zero-width or bidi character."""
    return "\\" not in text and not any(unicodedata.category(char)[0] in "CZ" for char in text)


def _path_problem(path: str) -> str | None:
    """Why `path` is not one plain path (an encoded separator, a dot segment); None if it is."""
    if _ENCODED_SEPARATOR.search(path):
        return "the path contains an encoded . / or \\"
    if any(segment in (".", "..") for segment in path.split("/")):
        return "the path contains . or .. segments"
    return None


def _kept(key: str) -> bool:
    return key not in _DROPPED and not key.startswith(_DROPPED_PREFIXES)


def _normal_value(key: str, value: str) -> str:
    """A `keyword` as willhaben reads it: case and runs of whitespace do not matter."""
    return _normal_keywords(value) if key == "keyword" else value


def _normal_keywords(text: str) -> str:
    return " ".join(text.split()).lower()


def keyword_search(keywords: str, *, max_price: Decimal | None = None) -> Search:
    """A marketplace search for `keywords`, newest first, optionally up to `max_price` euros.

    The URL holds the keywords in lower case (one search however they are typed); the label
    keeps them as the subscriber typed them.
    """
    words = " ".join(keywords.split())
    if not words:
        raise InvalidSearch(InvalidReason.EMPTY, "no keywords given")
    if len(words) > _MAX_KEYWORDS:
        raise InvalidSearch(
            InvalidReason.TOO_LONG, f"keywords longer than {_MAX_KEYWORDS} characters"
        )
    query = [("keyword", _normal_keywords(words)), ("sort", "1")]
    label = words
    if max_price is not None:
        if not 0 < max_price <= _MAX_PRICE or max_price != max_price.to_integral_value():
            raise InvalidSearch(
                InvalidReason.PRICE, f"max price must be whole euros above 0, got {max_price}"
            )
        query.append(("PRICE_TO", str(int(max_price))))
        label = f"{words} (max € {int(max_price)})"
    url = urlunsplit(("https", HOST, _MARKETPLACE, urlencode(sorted(query)), ""))
    return Search(url=url, label=label)


def parse_watch_argument(text: str) -> Search:
    """What `/watch <text>` asks for: a search URL, or keywords with an optional `max <price>`."""
    text = text.strip()
    if not text:
        raise InvalidSearch(InvalidReason.EMPTY, "give a willhaben search URL or keywords")
    if _LOOKS_LIKE_URL.match(text):
        url = normalise_search_url(text)
        return Search(url=url, label=_label(url))
    if len(text) > _MAX_KEYWORD_TEXT:
        raise InvalidSearch(
            InvalidReason.TOO_LONG, f"keywords longer than {_MAX_KEYWORDS} characters"
        )
    match = _MAX_PRICE_SUFFIX.match(text)
    if match and match.group("words").strip():
        price = Decimal(match.group("price").replace(".", ""))
        return keyword_search(match.group("words"), max_price=price)
    return keyword_search(text)


def _label(url: str) -> str:
    """`keyword` if the search has one, else the last path segment, plus any price range (a
    lower bound of 0, which bounds nothing, left out: "sofa (max € 300)", not "€ 0 - 300")."""
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query))
    segment = parts.path.rstrip("/").rsplit("/", 1)[-1]
    label = params.get("keyword") or re.sub(r"-[0-9]+$", "", segment).replace("-", " ")
    low, high = params.get("PRICE_FROM"), params.get("PRICE_TO")
    if low is not None and re.fullmatch(r"0+(?:\.0*)?", low):
        low = None
    if low and high:
        label += f" (€ {low} - {high})"
    elif high:
        label += f" (max € {high})"
    elif low:
        label += f" (min € {low})"
    return label


def request_url(normalised: str, base_url: str, *, page: int = 1) -> str:
    """Where to fetch page `page` of a normalised search: `base_url` (HABICHT_WILLHABEN_URL)
    + path + query, asking for `PAGE_ROWS` adverts per page."""
    parts = urlsplit(normalised)
    paging = [("rows", str(PAGE_ROWS))] + ([("page", str(page))] if page > 1 else [])
    query = "&".join(part for part in (parts.query, urlencode(paging)) if part)
    return f"{base_url.rstrip('/')}{parts.path}?{query}"


def advert_request_url(url: str, base_url: str) -> str:
    """Where to fetch the advert page `url` (a `Listing.url`): `base_url` (HABICHT_WILLHABEN_URL)
    + its path and query; `ValueError` for anything but `https://(www.)willhaben.at/iad/…`.

    Advert links come from willhaben's pages, not from subscribers, but they are fetched on
    their own, so they pass the same guard as a search URL: one plain URL, on willhaben's host
    and standard port, without user@host, under /iad/ — never a request to a host a page named.
    """
    if len(url) > _MAX_URL or not _plain(url):
        raise ValueError(f"not one plain URL of at most {_MAX_URL} characters: {url[:100]!r}")
    try:
        parts = urlsplit(url)
        hostname, port = parts.hostname, parts.port
    except ValueError as exc:
        raise ValueError(f"not a readable URL: {exc}") from None
    if (
        parts.scheme.lower() != "https"
        or "@" in parts.netloc
        or (hostname or "").lower() not in _ACCEPTED_HOSTS
        or port not in (None, _DEFAULT_PORTS["https"])
    ):
        raise ValueError(f"not an https link to willhaben.at: {url[:100]!r}")
    problem = _path_problem(parts.path)
    if problem is not None or not parts.path.startswith("/iad/") or parts.path == "/iad/":
        raise ValueError(problem or f"not a page under /iad/: {parts.path[:100]!r}")
    query = f"?{parts.query}" if parts.query else ""
    return f"{base_url.rstrip('/')}{parts.path}{query}"
