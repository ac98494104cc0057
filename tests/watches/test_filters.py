"""A watch's filters: rules shown back and combined, what the listing rules hide, which drops
pass (the `/filter` grammar itself: tests/watches/test_rules.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

import pytest
from kit.filters import parse_rules

from habicht.watches.filters import MAX_WORDS, WatchFilter
from habicht.watches.rules import FilterReason, InvalidFilter, Near


@dataclass(frozen=True)
class Advert:
    title: str
    price: Decimal | None = Decimal(100)
    body: str | None = None
    is_private: bool | None = None


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


def test_a_new_near_replaces_the_previous_one_and_survives_storage() -> None:
    """The newest `near` wins; the rule is stored with the watch and read back the same, and
    a filter stored before `near` existed reads as having none."""
    first = parse_rules(["near", "1070", "5", "max", "400"])
    second = first.with_rules(["near", "here", "12km"])
    assert second.near == Near("here", Decimal(12))
    assert second.rules() == ["max 400", "near here 12"]
    assert WatchFilter.from_json(second.to_json()) == second
    old = json.dumps({"include": [], "exclude": ["defekt"], "priced": False})
    assert WatchFilter.from_json(old).near is None
