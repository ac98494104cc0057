"""The `/filter` grammar (`habicht.watches.rules`): prices as people type them, amounts split
over words, and each bad rule refused with its reason and the words at fault."""

from __future__ import annotations

from decimal import Decimal

import pytest
from kit.filters import parse_rules

from habicht.watches.rules import FilterReason, InvalidFilter, parse_price


@pytest.mark.parametrize(
    ("typed", "euros"),
    [
        ("400", "400"),
        ("1.200", "1200"),
        ("12.500.000", "12500000"),
        ("€ 99,90", "99.90"),
        ("99,90€", "99.90"),
        ("99.90", "99.90"),
        ("1.200,50 €", "1200.50"),
        ("450 EUR", "450"),
        ("0", "0"),
    ],
)
def test_prices_are_read_as_people_type_them(typed: str, euros: str) -> None:
    assert parse_price(typed) == Decimal(euros)


@pytest.mark.parametrize(
    "typed", ["", "abc", "-5", "10%", "1,2,3", "999999999999", "\u0663\u0660\u0660", "\u00b2"]
)
def test_what_is_no_price_is_refused(typed: str) -> None:
    """Not a price, a negative one, or one in digits other than ASCII (issue 19)."""
    with pytest.raises(InvalidFilter) as caught:
        parse_price(typed)
    assert caught.value.reason is FilterReason.PRICE


def test_amounts_may_be_split_over_words_or_joined_to_their_unit() -> None:
    assert parse_rules(["max", "€", "99,90"]).max_price == Decimal("99.90")
    assert parse_rules(["drop", "50", "€"]).drop_amount == Decimal(50)
    assert parse_rules(["drop", "€50"]).drop_amount == Decimal(50)
    assert parse_rules(["drop", "15", "%"]).drop_percent == Decimal(15)


@pytest.mark.parametrize(
    ("rules", "reason", "token"),
    [
        ("cheap", FilterReason.UNKNOWN_RULE, "cheap"),
        ("max", FilterReason.PRICE, "max"),
        ("max lots", FilterReason.PRICE, "max lots"),
        ("min 10% ", FilterReason.PRICE, "min 10%"),
        ("max 400euros", FilterReason.PRICE, "max 400euros"),
        ("drop 50", FilterReason.DROP_UNIT, "drop 50"),
        ("drop 100%", FilterReason.PERCENT, "drop 100%"),
        ("drop 0%", FilterReason.PERCENT, "drop 0%"),
        # issue 21: `deal` takes a percentage within 1..99 (`deal 20` could mean euros)
        ("deal 20", FilterReason.DEAL_UNIT, "deal 20"),
        ("deal 20€", FilterReason.DEAL_UNIT, "deal 20€"),
        ("deal 0%", FilterReason.PERCENT, "deal 0%"),
        ("deal 100%", FilterReason.PERCENT, "deal 100%"),
        ("deal", FilterReason.PRICE, "deal"),
        ("deal viel", FilterReason.PRICE, "deal viel"),
        ("+", FilterReason.EMPTY_WORD, "+"),
        ("-" + "x" * 41, FilterReason.WORD_TOO_LONG, "-" + "x" * 41),
        ("min 500 max 400", FilterReason.MIN_ABOVE_MAX, "min 500 max 400"),
    ],
)
def test_a_bad_rule_is_refused_with_its_reason_and_the_words_at_fault(
    rules: str, reason: FilterReason, token: str
) -> None:
    with pytest.raises(InvalidFilter) as caught:
        parse_rules(rules.split())
    assert (caught.value.reason, caught.value.token) == (reason, token)
