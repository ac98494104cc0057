"""The grammar of `/filter`: the text a subscriber types → the rules it names.

Rules are typed as users write them: `/filter 2 +iphone -defekt max 1.200 drop 10%`. Prices
take the forms people type (`400`, `1.200`, `€ 99,90`, `99.90`, `1.200,50 €`). `read_rules`
reads them left to right, an amount possibly split over several words (`max € 99,90`), and
refuses the first it cannot take (`InvalidFilter`, with a `FilterReason` the bot turns into a
de/en text, and the part of the input at fault). What each rule means, and how rules make a
watch's filter, is `habicht.watches.filters`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum

from habicht.model import money

__all__ = [
    "HERE",
    "MAX_KM",
    "NO_REPOSTS",
    "FilterReason",
    "InvalidFilter",
    "Near",
    "Rule",
    "parse_price",
    "read_rules",
]

MAX_WORD_LENGTH = 40
_MAX_PRICE = Decimal(100_000_000)
# A price as typed: `400`, `1.200`, `1.200,50`, `99,90`, `99.90`, with an optional € sign or
# `eur`/`euro` before or after; a trailing `%` makes it a percentage (`drop` and `deal`).
# Digits are ASCII (`habicht.digits`): `\d` would take Arabic-Indic digits too.
_AMOUNT = re.compile(
    r"(?:€\s*)?(?P<number>[0-9]{1,3}(?:\.[0-9]{3})+(?:,[0-9]{1,2})?|[0-9]{1,9}(?:[.,][0-9]{1,2})?)"
    r"(?:\s*(?P<unit>€|euro|eur|%))?",
    re.IGNORECASE,
)
_FLAGS = frozenset({"priced", "private", "company", "lowest"})
MAX_KM = Decimal(300)
"""The widest `near` radius: about the farthest anyone drives for a pick-up and back in a day
(Vienna to Salzburg is 250 km); a wider one would hide next to nothing in Austria."""
HERE = "here"
_POSTCODE = re.compile(r"[1-9][0-9]{3}")
# A radius as typed: `5`, `12km`, `2,5`, `2.5 km` (the unit may be a word of its own).
_RADIUS = re.compile(r"(?P<number>[0-9]{1,6}(?:[.,][0-9]{1,2})?)(?:\s*km\b)?", re.IGNORECASE)
_WITH_AMOUNT = frozenset({"min", "max", "below", "drop", "deal"})
NO_REPOSTS = "-reposts"


class FilterReason(StrEnum):
    """Why a `/filter` rule was refused: a stable code the bot turns into a de/en text."""

    UNKNOWN_RULE = "unknown_rule"  # not one of the rules
    PRICE = "price"  # a rule that needs an amount got none, or not a sensible one
    DROP_UNIT = "drop_unit"  # `drop 50`: say `drop 10%` or `drop 50€`
    PERCENT = "percent"  # a percentage outside 1..99
    DEAL_UNIT = "deal_unit"  # `deal 20`: say `deal 20%`
    EMPTY_WORD = "empty_word"  # `+` or `-` with nothing after it
    WORD_TOO_LONG = "word_too_long"
    TOO_MANY_WORDS = "too_many_words"
    MIN_ABOVE_MAX = "min_above_max"
    POSTCODE = "postcode"  # `near` without a four-digit postcode or `here`
    RADIUS = "radius"  # `near` without a radius above 0 and at most `MAX_KM`


class InvalidFilter(ValueError):
    """A `/filter` rule habicht cannot take; `token` is the part of the input at fault."""

    def __init__(self, reason: FilterReason, token: str) -> None:
        super().__init__(f"{reason}: {token!r}")
        self.reason = reason
        self.token = token


def parse_price(text: str) -> Decimal:
    """An amount in euros as people type it; `InvalidFilter(PRICE)` if it is none."""
    match = _AMOUNT.fullmatch(text.strip())
    if match is None or match["unit"] == "%":
        raise InvalidFilter(FilterReason.PRICE, text)
    return _amount(match, text)


def _amount(match: re.Match[str], text: str) -> Decimal:
    number = match["number"]
    if "," in number:  # German: `.` groups thousands, `,` starts the cents
        number = number.replace(".", "").replace(",", ".")
    elif re.fullmatch(r"[0-9]{1,3}(?:\.[0-9]{3})+", number):  # `1.200`: thousands, not a decimal
        number = number.replace(".", "")
    try:
        value = Decimal(number)
    except InvalidOperation as exc:  # pragma: no cover - the pattern admits only numbers
        raise InvalidFilter(FilterReason.PRICE, text) from exc
    if not 0 <= value <= _MAX_PRICE:
        raise InvalidFilter(FilterReason.PRICE, text)
    return value


@dataclass(frozen=True, slots=True)
class Near:
    """Only adverts within `km` of `centre`: a four-digit postcode, or `here` (the location
    the chat last shared, looked up whenever the watch judges adverts)."""

    centre: str
    km: Decimal

    @property
    def here(self) -> bool:
        return self.centre == HERE

    def rule(self) -> str:
        return f"near {self.centre} {money(self.km)}"


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule as typed, read but not yet applied (`WatchFilter.with_rules` applies it)."""

    name: str  # '+', '-', a flag, '-reposts', 'min', 'max', 'below', 'drop%', 'drop€', 'deal' or
    # 'near'
    value: str | Decimal | Near | None
    token: str  # what the user typed, for the error


def read_rules(text: str) -> Iterable[Rule]:
    """The rules in `text`, left to right; an amount may be split over several words
    (`max € 99,90`)."""
    position = 0
    text = text.strip()
    while position < len(text):
        word_end = _word_end(text, position)
        word = text[position:word_end]
        keyword = word.casefold()
        if keyword == NO_REPOSTS:
            yield Rule(NO_REPOSTS, None, word)
            position = _skip_spaces(text, word_end)
        elif word[0] in "+-":
            phrase = word[1:]
            if not phrase:
                raise InvalidFilter(FilterReason.EMPTY_WORD, word)
            if len(phrase) > MAX_WORD_LENGTH:
                raise InvalidFilter(FilterReason.WORD_TOO_LONG, word)
            yield Rule(word[0], phrase, word)
            position = _skip_spaces(text, word_end)
        elif keyword in _FLAGS:
            yield Rule(keyword, None, word)
            position = _skip_spaces(text, word_end)
        elif keyword in _WITH_AMOUNT:
            start = _skip_spaces(text, word_end)
            match = _AMOUNT.match(text, start)
            end = match.end() if match else start
            if match is None or (end < len(text) and not text[end].isspace()):
                raise InvalidFilter(FilterReason.PRICE, text[position : _word_end(text, start)])
            token = text[position:end]
            yield _amount_rule(keyword, match, token)
            position = _skip_spaces(text, end)
        elif keyword == "near":
            rule, end = _near_rule(text, position, _skip_spaces(text, word_end))
            yield rule
            position = _skip_spaces(text, end)
        else:
            raise InvalidFilter(FilterReason.UNKNOWN_RULE, word)


def _near_rule(text: str, position: int, start: int) -> tuple[Rule, int]:
    """`near <postcode or here> <km>` from `start` (after `near`, which begins at
    `position`); the rule and where it ends. `hier` is taken for `here`."""
    centre_end = _word_end(text, start)
    centre = text[start:centre_end].casefold()
    if centre == "hier":
        centre = HERE
    if centre != HERE and not _POSTCODE.fullmatch(centre):
        raise InvalidFilter(FilterReason.POSTCODE, text[position:centre_end])
    radius_start = _skip_spaces(text, centre_end)
    match = _RADIUS.match(text, radius_start)
    end = match.end() if match else radius_start
    token = text[position : _word_end(text, end if match else radius_start)]
    if match is None or (end < len(text) and not text[end].isspace()):
        raise InvalidFilter(FilterReason.RADIUS, token)
    km = Decimal(match["number"].replace(",", "."))
    if not 0 < km <= MAX_KM:
        raise InvalidFilter(FilterReason.RADIUS, token)
    return Rule("near", Near(centre, km), token), end


def _amount_rule(keyword: str, match: re.Match[str], token: str) -> Rule:
    unit = (match["unit"] or "").casefold()
    euros = unit in ("€", "eur", "euro") or match.group(0).startswith("€")
    if keyword == "drop":
        if unit == "%":
            return Rule("drop%", _amount(match, token), token)
        if not euros:
            raise InvalidFilter(FilterReason.DROP_UNIT, token)
        return Rule("drop€", _amount(match, token), token)
    if keyword == "deal":
        if unit != "%":
            raise InvalidFilter(FilterReason.DEAL_UNIT, token)
        return Rule("deal", _amount(match, token), token)
    if unit == "%":
        raise InvalidFilter(FilterReason.PRICE, token)
    return Rule(keyword, _amount(match, token), token)


def _word_end(text: str, position: int) -> int:
    end = position
    while end < len(text) and not text[end].isspace():
        end += 1
    return end


def _skip_spaces(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position
