"""A watch's filters: the `/filter` syntax, what the listing rules hide, which drops pass."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import pytest
from kit.filters import parse_rules

from habicht.watches.filters import MAX_WORDS, WatchFilter
from habicht.watches.rules import FilterReason, InvalidFilter, parse_price


@dataclass(frozen=True)
class Advert:
    title: str
    price: Decimal | None = Decimal(100)
    body: str | None = None
    is_private: bool | None = None


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


def test_every_rule_of_the_syntax_is_read_and_shown_back_in_it() -> None:
    rules = "+iPhone -defekt min 100 max € 1.200 priced private drop 10% below 300 lowest"
    watch_filter = parse_rules(rules.split())
    assert watch_filter.rules() == [
        "+iPhone",
        "-defekt",
        "min 100",
        "max 1200",
        "priced",
        "private",
        "drop 10%",
        "below 300",
        "lowest",
    ]
    assert parse_rules(watch_filter.rules()) == watch_filter


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


def test_one_bad_rule_refuses_the_whole_change() -> None:
    before = parse_rules(["-defekt"])
    with pytest.raises(InvalidFilter, match=r"^unknown_rule: 'nonsense'$"):
        before.with_rules(["max", "300", "nonsense"])
    assert before.rules() == ["-defekt"]


def test_words_accumulate_once_and_amounts_and_sellers_replace() -> None:
    watch_filter = parse_rules(["-defekt", "max", "300", "private"])
    changed = watch_filter.with_rules(["-Defekt", "-bastler", "max", "250", "company"])
    assert changed.rules() == ["-defekt", "-bastler", "max 250", "company"]


def test_a_watch_has_at_most_max_words_words() -> None:
    watch_filter = parse_rules([f"+w{n}" for n in range(MAX_WORDS)])
    with pytest.raises(InvalidFilter) as caught:
        watch_filter.with_rules(["-one-more"])
    assert caught.value.reason is FilterReason.TOO_MANY_WORDS


def test_words_match_title_and_snippet_whatever_their_spelling() -> None:
    watch_filter = parse_rules(["+kaese", "-defekt"])
    assert watch_filter.hidden_by(Advert("Käsereibe, neu")) is None
    assert watch_filter.hidden_by(Advert("Reibe", body="für Käse")) is None
    assert watch_filter.hidden_by(Advert("Reibe")) == "+kaese"
    assert watch_filter.hidden_by(Advert("Käsereibe", body="leider DEFEKTE Kurbel")) == "-defekt"


def test_price_rules_of_the_listing_half() -> None:
    watch_filter = parse_rules(["min", "100", "max", "400", "priced"])
    assert watch_filter.hidden_by(Advert("a", price=Decimal(99))) == "min 100"
    assert watch_filter.hidden_by(Advert("a", price=Decimal(401))) == "max 400"
    assert watch_filter.hidden_by(Advert("a", price=None)) == "priced"
    assert watch_filter.hidden_by(Advert("a", price=Decimal(400))) is None
    # Without `priced`, a price-less advert is not judged by a range it cannot be in.
    assert parse_rules(["max", "400"]).hidden_by(Advert("a", price=None)) is None


def test_sellers() -> None:
    private, company = parse_rules(["private"]), parse_rules(["company"])
    assert private.hidden_by(Advert("a", is_private=False)) == "private"
    assert private.hidden_by(Advert("a", is_private=True)) is None
    assert company.hidden_by(Advert("a", is_private=True)) == "company"
    assert company.hidden_by(Advert("a", is_private=None)) is None  # unknown: not hidden


def test_the_empty_filter_hides_nothing_and_holds_back_no_drop() -> None:
    empty = WatchFilter()
    assert empty.empty
    assert empty.hidden_by(Advert("anything", price=None)) is None
    assert empty.drop_held_by(Decimal(500), Decimal(499), lowest_before=Decimal(10)) is None


def test_drop_by_percent_or_euros() -> None:
    percent, euros = parse_rules(["drop", "10%"]), parse_rules(["drop", "50€"])
    assert percent.drop_held_by(Decimal(500), Decimal(450), lowest_before=None) is None
    assert percent.drop_held_by(Decimal(500), Decimal(451), lowest_before=None) == "drop 10%"
    assert euros.drop_held_by(Decimal(500), Decimal(450), lowest_before=None) is None
    assert euros.drop_held_by(Decimal(500), Decimal("450.01"), lowest_before=None) == "drop 50€"


def test_below_fires_when_the_target_is_crossed_not_on_every_drop_under_it() -> None:
    below = parse_rules(["below", "300"])
    assert below.drop_held_by(Decimal(400), Decimal(320), lowest_before=None) == "below 300"
    assert below.drop_held_by(Decimal(320), Decimal(299), lowest_before=None) is None
    assert below.drop_held_by(Decimal(300), Decimal(250), lowest_before=None) is None
    assert below.drop_held_by(Decimal(299), Decimal(250), lowest_before=None) is not None


def test_lowest_wants_a_price_below_every_one_seen() -> None:
    lowest = parse_rules(["lowest"])
    assert lowest.drop_held_by(Decimal(450), Decimal(420), lowest_before=Decimal(400)) == "lowest"
    assert lowest.drop_held_by(Decimal(450), Decimal(399), lowest_before=Decimal(400)) is None
    assert lowest.drop_held_by(Decimal(450), Decimal(420), lowest_before=None) is None


def test_several_price_rules_must_all_hold() -> None:
    both = parse_rules(["drop", "10%", "below", "300"])
    assert both.drop_held_by(Decimal(305), Decimal(299), lowest_before=None) == "drop 10%"
    assert both.drop_held_by(Decimal(330), Decimal(290), lowest_before=None) is None


def test_stored_form_round_trips_and_the_empty_filter_stores_nothing() -> None:
    watch_filter = parse_rules(["+Käse", "-defekt", "min", "1,50", "drop", "5€", "company"])
    assert WatchFilter.from_json(watch_filter.to_json()) == watch_filter
    assert WatchFilter().to_json() is None
    assert WatchFilter.from_json(None) == WatchFilter()
