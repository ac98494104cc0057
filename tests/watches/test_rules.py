"""The `/filter` grammar (`habicht.watches.rules`): prices as people type them, amounts split
over words, `near` with its postcode and radius, and each bad rule refused with its reason and
the words at fault."""

from __future__ import annotations

from decimal import Decimal

import pytest
from kit.filters import parse_rules

from habicht.watches.rules import MAX_KM, FilterReason, InvalidFilter, parse_price


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


@pytest.mark.parametrize(
    ("typed", "rule"),
    [
        ("near 1070 5", "near 1070 5"),
        ("near here 12km", "near here 12"),
        ("near here 12 km", "near here 12"),
        ("NEAR 1070 5KM", "near 1070 5"),
        ("near hier 2,5", "near here 2.5"),
        ("near 9020 300", "near 9020 300"),
    ],
)
def test_near_takes_a_postcode_or_here_and_a_radius_with_an_optional_unit(
    typed: str, rule: str
) -> None:
    """`near <postcode> <km>` and `near here <km>`: the unit is optional, `hier` is `here`."""
    assert parse_rules(typed.split()).rules() == [rule]


@pytest.mark.parametrize(
    ("typed", "reason", "token"),
    [
        ("near 107 5", FilterReason.POSTCODE, "near 107"),
        ("near 10700 5", FilterReason.POSTCODE, "near 10700"),
        ("near 0170 5", FilterReason.POSTCODE, "near 0170"),
        ("near wien 5", FilterReason.POSTCODE, "near wien"),
        ("near", FilterReason.POSTCODE, "near"),
        ("near 1070 0", FilterReason.RADIUS, "near 1070 0"),
        ("near 1070 0km", FilterReason.RADIUS, "near 1070 0km"),
        ("near 1070 10000", FilterReason.RADIUS, "near 1070 10000"),
        ("near 1070 300.5", FilterReason.RADIUS, "near 1070 300.5"),
        ("near 1070", FilterReason.RADIUS, "near 1070"),
        ("near here viel", FilterReason.RADIUS, "near here viel"),
        ("near here 12kmh", FilterReason.RADIUS, "near here 12kmh"),
        ("near 1070 -5", FilterReason.RADIUS, "near 1070 -5"),
    ],
)
def test_a_bad_postcode_or_radius_is_refused_naming_the_words_at_fault(
    typed: str, reason: FilterReason, token: str
) -> None:
    """A postcode is four digits (Austria's start at 1), a radius above 0 and at most
    `MAX_KM` (300 km)."""
    with pytest.raises(InvalidFilter) as refused:
        parse_rules(typed.split())
    assert (refused.value.reason, refused.value.token) == (reason, token)
    assert Decimal(300) == MAX_KM
