"""The one reader of numbers that come from outside: typed in a command, carried in a
button's callback data, sent in an HTTP header, read from a willhaben page, set in the
environment.

Such a number is ASCII digits and nothing else. Python's own tests are wider: `"²".isdigit()`
and `"①".isdigit()` are true, and `int()` then raises; `int()` itself takes Arabic-Indic
`"٣"`, surrounding spaces, a sign and `"1_000"`; a regex `\\d` matches every Unicode digit.
So nothing in habicht calls `isdigit()` or `int()` on outside text, and patterns spell
digits `[0-9]`: they come here, and anything else is refused as "not a number" — a polite
answer, never an exception. A length cap keeps a number far from SQLite's 64-bit integers
(and from Python's limit on digits that `int()` converts).
"""

from __future__ import annotations

__all__ = ["MAX_DIGITS", "ROW_ID_MAX", "ascii_digits", "row_id", "whole_number"]

MAX_DIGITS = 9
"""Enough for any watch number, row id or count of days a person types; far from overflow."""

ROW_ID_MAX = 2**63 - 1
"""The largest integer SQLite stores: any row id it hands out, any Telegram id."""

_ASCII_DIGITS = frozenset("0123456789")


def ascii_digits(text: str) -> bool:
    """Whether `text` is one or more ASCII digits (`0` to `9`) and nothing else."""
    return bool(text) and _ASCII_DIGITS.issuperset(text)


def whole_number(text: str, *, max_digits: int = MAX_DIGITS) -> int | None:
    """`text` as a number of at most `max_digits` ASCII digits (so ≥ 0); None otherwise."""
    if len(text) > max_digits or not ascii_digits(text):
        return None
    return int(text)


def row_id(text: str) -> int | None:
    """`text` as an id SQLite can hold (ASCII digits, at most `ROW_ID_MAX`); None otherwise,
    so a made-up id never overflows a query."""
    number = whole_number(text, max_digits=len(str(ROW_ID_MAX)))
    return number if number is not None and number <= ROW_ID_MAX else None
