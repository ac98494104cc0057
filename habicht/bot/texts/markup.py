"""Telegram HTML and its limits: escaping, lengths as Telegram counts them, shortening, prices.

Templates hold the markup; every value put into them — a listing's title, a subscriber's
keywords, an error message — is escaped by `fill`, so a title like `<b>&` arrives as text,
never as markup or a parse error. Long values are shortened *before* escaping, so a cut can
never fall inside an entity such as `&amp;`.

A message never exceeds Telegram's limit of 4096 UTF-16 code units (an emoji outside the
Basic Multilingual Plane counts 2): values are shortened to fixed budgets and lists stop
with "…" before the limit, all measured in UTF-16 code units as Telegram measures. (Telegram
counts the text after parsing the entities, which is never longer than the HTML we measure.)
"""

from __future__ import annotations

import html
import re
from decimal import ROUND_HALF_UP, Decimal
from itertools import accumulate
from zoneinfo import ZoneInfo

from habicht.bot.texts.catalog import Lang

__all__ = [
    "ECHO_BUDGET",
    "ERROR_BUDGET",
    "LABEL_BUDGET",
    "LOCATION_BUDGET",
    "MAX_CAPTION",
    "MAX_MESSAGE",
    "PATH_POINTS",
    "PRICE_BUDGET",
    "SEARCH_BUDGET",
    "TITLE_BUDGET",
    "VIENNA",
    "Html",
    "escape",
    "fill",
    "format_price",
    "percent_drop",
    "short_age",
    "shorten",
    "utf16_len",
    "visible_len",
]

MAX_MESSAGE = 4096
"""Telegram's limit on a message's text, in UTF-16 code units."""
MAX_CAPTION = 1024
"""Telegram's limit on a photo's caption, in UTF-16 code units (counted after parsing): the
budgets below keep every alert within it (a test renders the longest one)."""

TITLE_BUDGET = 200
LABEL_BUDGET = 80
LOCATION_BUDGET = 100
PRICE_BUDGET = 40
"""willhaben's own price wording (`PRICE_FOR_DISPLAY`: "VB", "auf Anfrage") of a price-less one."""
ERROR_BUDGET = 300
SEARCH_BUDGET = 200
"""A real-estate search named in words in /list (23 districts and every filter fit)."""
ECHO_BUDGET = 40
"""A subscriber's own words repeated back (a bad argument): enough to recognise them."""
VIENNA = ZoneInfo("Europe/Vienna")
"""willhaben's clock: the zone its adverts' dates are told in."""
PATH_POINTS = 6
"""Prices a drop alert's path shows at most (the latest ones, after "…")."""


_TAG = re.compile(r"<[^>]*>")


class Html(str):
    """A string that is already safe HTML; `fill` inserts it as it is."""

    __slots__ = ()


def utf16_len(text: str) -> int:
    """The length Telegram sees: UTF-16 code units, so an emoji like 😀 counts 2."""
    return len(text.encode("utf-16-le")) // 2


def visible_len(text: Html) -> int:
    """The length Telegram counts of an HTML text: tags gone, entities decoded (UTF-16)."""
    return utf16_len(html.unescape(_TAG.sub("", text)))


def shorten(text: str, limit: int) -> str:
    """`text` with whitespace collapsed, cut to at most `limit` UTF-16 code units ending in "…".

    The cut falls between code points, never inside a surrogate pair.
    """
    text = " ".join(text.split())
    if utf16_len(text) <= limit:
        return text
    sizes = accumulate(2 if ord(char) > 0xFFFF else 1 for char in text)
    end = sum(1 for size in sizes if size <= limit - 1)  # room for the "…" (one unit)
    return text[:end].rstrip() + "…"


def escape(text: str) -> str:
    """`&`, `<`, `>` and `"` as the four named entities Telegram's HTML knows.

    (`html.escape` would also write `'` as `&#x27;`; Telegram accepts numeric entities, but
    the apostrophe needs no escaping anywhere, so it stays readable in logs and tests.)
    """
    return html.escape(text, quote=False).replace('"', "&quot;")


def fill(template: str, **values: object) -> Html:
    """`template.format(**values)`, escaping every value that is not already `Html`."""
    safe = {
        name: value if isinstance(value, Html) else escape(str(value))
        for name, value in values.items()
    }
    return Html(template.format(**safe))


def format_price(price: Decimal, lang: Lang) -> str:
    """`€ 1.234` / `€ 1.234,50` in German, `€1,234` / `€1,234.50` in English."""
    whole = price == price.to_integral_value()
    amount = price.quantize(Decimal(1) if whole else Decimal("0.01"), rounding=ROUND_HALF_UP)
    text = f"{amount:,.0f}" if whole else f"{amount:,.2f}"
    if lang == "de":
        return "€ " + text.replace(",", "\0").replace(".", ",").replace("\0", ".")
    return "€" + text


def percent_drop(old: Decimal, new: Decimal) -> int:
    """How much cheaper, in whole percent of the old price (rounded half up)."""
    if old <= 0:
        return 0
    return int(((old - new) * 100 / old).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def short_age(seconds: float, lang: Lang) -> str:
    """A short, rounded duration: `45 s`, `12 min`, `3 h`, `2 d` (`Tg` in German)."""
    seconds = max(0.0, seconds)
    day = "Tg" if lang == "de" else "d"
    for size, unit in ((86400, day), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit}"
    return f"{int(seconds)} s"
