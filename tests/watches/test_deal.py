"""Issue 21, the rule `deal N%`: typed, shown, stored and applied like every filter rule;
it keeps only adverts at least N % under their search's going price."""

from __future__ import annotations

from decimal import Decimal

import pytest
from kit import sofa
from kit.filters import parse_rules

from habicht.market.going import PriceStats
from habicht.watches.filters import WatchFilter
from habicht.watches.notes import NO_NOTES, AlertNotes

GOING = AlertNotes(going=PriceStats(30, Decimal(450), Decimal(400), Decimal(500)))


@pytest.mark.parametrize(
    ("typed", "percent"),
    [
        (["deal", "20%"], "20"),
        (["deal", "20", "%"], "20"),
        (["DEAL", "12,5%"], "12.5"),
        (["deal", "99%"], "99"),
    ],
)
def test_deal_is_typed_as_a_percentage(typed: list[str], percent: str) -> None:
    """`deal 20%` (a space before `%`, capitals and a decimal comma are fine); a deal without
    a sensible percentage is refused like every bad rule (tests/watches/test_rules.py)."""
    rules = parse_rules(typed)
    assert rules.deal == Decimal(percent)
    assert rules.rules() == [f"deal {Decimal(percent).normalize():f}%"]


def test_a_new_deal_replaces_the_one_before_and_keeps_the_rest() -> None:
    watch = WatchFilter().with_rules(["-defekt", "deal", "10%", "max", "500"])
    changed = watch.with_rules(["deal", "25%"])
    assert changed.rules() == ["-defekt", "max 500", "deal 25%"]


def test_deal_survives_the_database() -> None:
    """Stored as JSON on the watch row and read back the same; a filter stored before `deal`
    existed reads as one without it."""
    watch = WatchFilter().with_rules(["+sofa", "deal", "12,5%"])
    assert WatchFilter.from_json(watch.to_json()) == watch
    assert WatchFilter.from_json('{"include": ["sofa"]}').deal is None


@pytest.mark.parametrize(
    ("price", "hidden"),
    [
        ("300", None),
        ("360", None),  # exactly 20 % under € 450
        ("360.50", "deal 20%"),
        ("450", "deal 20%"),
        (None, "deal 20%"),  # price-less: nothing to compare
        ("0", "deal 20%"),  # placeholders are not prices
        ("1", "deal 20%"),
        ("40", "deal 20%"),  # more than ten times under: a "Tausch", not a bargain
    ],
)
def test_deal_hides_what_is_not_far_enough_under_the_median(
    price: str | None, hidden: str | None
) -> None:
    assert WatchFilter(deal=Decimal(20)).hidden_by(sofa(price), GOING) == hidden


def test_without_a_going_price_deal_hides_everything() -> None:
    """No going price (fewer than 10 prices): nothing can be called a bargain."""
    assert WatchFilter(deal=Decimal(20)).hidden_by(sofa("1"), NO_NOTES) == "deal 20%"
    assert WatchFilter(deal=Decimal(20)).hidden_by(sofa("100"), NO_NOTES) == "deal 20%"


def test_the_other_listing_rules_are_named_first() -> None:
    """A word rule that hides an advert is named before `deal` (the first rule that hid it)."""
    watch = WatchFilter().with_rules(["-sofa", "deal", "20%"])
    assert watch.hidden_by(sofa("450"), GOING) == "-sofa"
    assert WatchFilter().hidden_by(sofa("450"), NO_NOTES) is None
