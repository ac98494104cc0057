"""Telegram's HTML and its lengths (`habicht.bot.texts.markup`): UTF-16 and visible lengths,
shortening that never splits a character, prices written the local way."""

from __future__ import annotations

from decimal import Decimal

import pytest

from habicht.bot.texts import Html, format_price, shorten, utf16_len, visible_len


def test_shorten_collapses_whitespace_and_marks_the_cut() -> None:
    """Shortening keeps short text, collapses runs of whitespace, and ends a cut with "…"."""
    assert shorten("  a \n b  ", 10) == "a b"
    assert shorten("abcdefghij", 5) == "abcd…"


@pytest.mark.parametrize(
    ("price", "de", "en"),
    [
        (Decimal(1234), "€ 1.234", "€1,234"),
        (Decimal("676.2"), "€ 676,20", "€676.20"),
        (Decimal(0), "€ 0", "€0"),
    ],
)
def test_prices_are_written_the_local_way(price: Decimal, de: str, en: str) -> None:
    """German uses `.` for thousands and `,` for cents; English the other way round."""
    assert format_price(price, "de") == de
    assert format_price(price, "en") == en


def test_utf16_length_counts_astral_characters_twice() -> None:
    """Telegram's length: plain and accented letters count 1, an emoji outside the BMP 2."""
    assert utf16_len("aä€") == 3
    assert utf16_len("😀") == 2
    assert utf16_len("👍🏽") == 4


def test_shorten_counts_utf16_and_never_splits_an_emoji() -> None:
    """A cut text fits its budget in UTF-16 units and ends on whole characters."""
    cut = shorten("😀" * 50, 11)
    assert cut == "😀" * 5 + "…"
    assert utf16_len(cut) == 11
    assert shorten("a😀😀", 3) == "a…"
    assert shorten("😀😀", 4) == "😀😀"


def test_visible_len_counts_what_telegram_counts() -> None:
    """Tags and the link's address are not counted, an entity is one character, 😀 is 2."""
    assert visible_len(Html('<b><a href="https://x.at/very/long">&lt;😀</a></b>')) == 3
