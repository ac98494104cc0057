"""A watch's own filters and price rules, applied at detection time; the text `/filter` takes
is read into rules by `habicht.watches.rules` (its grammar), and made a filter here.

Pure: no I/O, no clock. The search row is the willhaben query that is fetched; the filter
belongs to the watch, so watches that differ only in their filters share one fetch. A filter
has two halves:

- **Listing rules** decide whether an advert concerns the watch at all, for new listings and
  drops alike, judged on the advert as it is now: words that must (`+word`) or must not
  (`-word`) appear in the title or description snippet, a price range (`min`, `max`), only
  adverts with a price (`priced`), only private sellers or only companies, only adverts
  within a radius (`near 1070 5`: 5 km around postcode 1070; `near here 12km`: around the
  location the chat shared), measured by the watch's notes (`AlertNotes.km`), no reposts
  (`-reposts`: a new advert by the seller of one that left the search, `scraper.reposts`).
- **The deal rule** (`deal 20%`) keeps only adverts at least that many percent under their
  search's going price (`habicht.market.going`), read from the advert's notes. While the
  search has fewer than `MIN_PRICES` prices there is no going price, and `deal` hides every
  advert: its watch asked for bargains only, and nothing can be called one yet (the advert
  still counts as seen, as with every rule). A price-less advert, a placeholder (€ 0, € 1)
  and a price the going price itself leaves out as an outlier are never a deal.
- **Price rules** decide which drops are worth a message: at least N % (`drop 10%`) or N euros
  (`drop 50€`), crossing a target price (`below 300`: once, when the price falls under it), a
  new lowest price (`lowest`). Several price rules must all hold.

Words match case-, accent- and umlaut-insensitively (`kaese` = `Käse`, `Cafe` = `Café`) as
parts of words: `-defekt` also hides "Defekte Platine". `-reposts` is the rule, not the word;
to hide adverts that say "reposts", type `-repost` (a part of the word finds it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Literal, Protocol

from habicht.folding import fold
from habicht.model import money
from habicht.watches.notes import NO_NOTES, AlertNotes
from habicht.watches.rules import NO_REPOSTS, FilterReason, InvalidFilter, Near, Rule, read_rules

__all__ = [
    "MAX_WORDS",
    "NO_PLACE",
    "Filterable",
    "WatchFilter",
]

MAX_WORDS = 20
"""Most `+word`/`-word` rules one watch may have."""
_HUNDRED = Decimal(100)

Seller = Literal["private", "company"]

NO_PLACE = "without a place"
"""What `hidden_by` names when `near` hid an advert habicht cannot place (no coordinates, and
a postcode it has not placed): counted apart from the adverts beyond the radius."""


class Filterable(Protocol):
    """What the listing rules look at (a parsed `Listing` has all of it)."""

    @property
    def title(self) -> str: ...

    @property
    def body(self) -> str | None: ...

    @property
    def price(self) -> Decimal | None: ...

    @property
    def is_private(self) -> bool | None: ...


@dataclass(frozen=True, slots=True)
class WatchFilter:
    """Everything `/filter` set on one watch; the empty filter lets everything through."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    priced: bool = False
    seller: Seller | None = None
    drop_percent: Decimal | None = None
    drop_amount: Decimal | None = None
    below: Decimal | None = None
    lowest: bool = False
    near: Near | None = None
    no_reposts: bool = False
    deal: Decimal | None = None
    """`deal N%`: only adverts at least N % under their search's going price."""
    _folded: tuple[tuple[str, ...], tuple[str, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        folded = (tuple(map(fold, self.include)), tuple(map(fold, self.exclude)))
        object.__setattr__(self, "_folded", folded)

    @property
    def empty(self) -> bool:
        return self == WatchFilter()

    @property
    def centre(self) -> str | None:
        """Where the `near` rule measures from (a postcode or `here`); None without one."""
        return None if self.near is None else self.near.centre

    def rules(self) -> list[str]:
        """The rules in the form `/filter` takes them, for showing and for hide reasons."""
        out = [f"+{word}" for word in self.include] + [f"-{word}" for word in self.exclude]
        if self.min_price is not None:
            out.append(f"min {money(self.min_price)}")
        if self.max_price is not None:
            out.append(f"max {money(self.max_price)}")
        if self.priced:
            out.append("priced")
        if self.seller is not None:
            out.append(self.seller)
        if self.near is not None:
            out.append(self.near.rule())
        if self.no_reposts:
            out.append(NO_REPOSTS)
        if self.drop_percent is not None:
            out.append(f"drop {money(self.drop_percent)}%")
        if self.drop_amount is not None:
            out.append(f"drop {money(self.drop_amount)}€")
        if self.below is not None:
            out.append(f"below {money(self.below)}")
        if self.lowest:
            out.append("lowest")
        if self.deal is not None:
            out.append(f"deal {money(self.deal)}%")
        return out

    def hidden_by(self, listing: Filterable, notes: AlertNotes = NO_NOTES) -> str | None:
        """The first listing rule (as `rules()` writes it) that hides `listing`, or None;
        `notes` are what its alert would say beside it (distance, going price, repost), which
        the rules about those read."""
        text = fold(f"{listing.title} {listing.body or ''}")
        includes, excludes = self._folded
        for word, folded in zip(self.include, includes, strict=True):
            if folded not in text:
                return f"+{word}"
        for word, folded in zip(self.exclude, excludes, strict=True):
            if folded in text:
                return f"-{word}"
        price = listing.price
        if self.priced and price is None:
            return "priced"
        if self.min_price is not None and price is not None and price < self.min_price:
            return f"min {money(self.min_price)}"
        if self.max_price is not None and price is not None and price > self.max_price:
            return f"max {money(self.max_price)}"
        known = listing.is_private is not None
        if self.seller is not None and known and listing.is_private != (self.seller == "private"):
            return self.seller
        if self.near is not None:
            if notes.km is None:
                return NO_PLACE
            if notes.km > float(self.near.km):
                return self.near.rule()
        if self.no_reposts and notes.repost is not None:
            return NO_REPOSTS
        if self.deal is not None and not _a_deal(price, notes, self.deal):
            return f"deal {money(self.deal)}%"
        return None

    def drop_held_by(
        self,
        old: Decimal,
        new: Decimal,
        *,
        told: Decimal | None = None,
        lowest_before: Decimal | None,
    ) -> str | None:
        """The first price rule (as `rules()` writes it) a drop from `old` (the last price
        seen) to `new` fails, or None when it passes them all.

        `drop N%` and `drop N€` measure from `told`, the last price the chat was told of the
        advert (`old` when none is known): a slow slide the rule held back step by step passes
        once it has fallen far enough from what the chat knows, and a fall back after a rise
        passes only below it. `below P` is crossed between `old` and `new`. `lowest_before` is
        the lowest price the advert was seen at before this one (None if none is known):
        `lowest` wants `new` below it.
        """
        known = old if told is None else told
        if self.drop_percent is not None and (known - new) * _HUNDRED < self.drop_percent * known:
            return f"drop {money(self.drop_percent)}%"
        if self.drop_amount is not None and known - new < self.drop_amount:
            return f"drop {money(self.drop_amount)}€"
        if self.below is not None and not new < self.below <= old:
            return f"below {money(self.below)}"
        if self.lowest and lowest_before is not None and new >= lowest_before:
            return "lowest"
        return None

    def to_json(self) -> str | None:
        """The filter as stored on the watch row; None for the empty filter."""
        if self.empty:
            return None
        data: dict[str, object] = {
            "include": list(self.include),
            "exclude": list(self.exclude),
            "priced": self.priced,
            "seller": self.seller,
            "lowest": self.lowest,
        }
        if self.no_reposts:  # only when set: filters stored before it read the same
            data["no_reposts"] = True
        for name in ("min_price", "max_price", "drop_percent", "drop_amount", "below", "deal"):
            value: Decimal | None = getattr(self, name)
            data[name] = None if value is None else money(value)
        if self.near is not None:
            data["near"] = {"centre": self.near.centre, "km": money(self.near.km)}
        return json.dumps(data, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> WatchFilter:
        """The filter stored by `to_json` (None or empty: no filter)."""
        if not text:
            return cls()
        data = json.loads(text)

        def amount(name: str) -> Decimal | None:
            value = data.get(name)
            return None if value is None else Decimal(value)

        return cls(
            include=tuple(data.get("include", ())),
            exclude=tuple(data.get("exclude", ())),
            min_price=amount("min_price"),
            max_price=amount("max_price"),
            priced=bool(data.get("priced", False)),
            seller=data.get("seller"),
            drop_percent=amount("drop_percent"),
            drop_amount=amount("drop_amount"),
            below=amount("below"),
            lowest=bool(data.get("lowest", False)),
            near=_near(data.get("near")),
            no_reposts=bool(data.get("no_reposts", False)),
            deal=amount("deal"),
        )

    def with_rules(self, rules: Iterable[str]) -> WatchFilter:
        """This filter with `rules` added: words accumulate, an amount or seller replaces the
        one set before. Refused whole (`InvalidFilter`) if any rule is."""
        current = self
        for rule in read_rules(" ".join(rules)):
            current = current._with(rule)
        if len(current.include) + len(current.exclude) > MAX_WORDS:
            raise InvalidFilter(FilterReason.TOO_MANY_WORDS, str(MAX_WORDS))
        low, high = current.min_price, current.max_price
        if low is not None and high is not None and low > high:
            raise InvalidFilter(FilterReason.MIN_ABOVE_MAX, f"min {money(low)} max {money(high)}")
        return current

    def _with(self, rule: Rule) -> WatchFilter:
        name, value, token = rule.name, rule.value, rule.token
        if name in ("+", "-"):
            word = str(value)
            words = self.include if name == "+" else self.exclude
            if fold(word) in map(fold, words):
                return self
            added = (*words, word)
            return replace(self, include=added) if name == "+" else replace(self, exclude=added)
        if name == "priced":
            return replace(self, priced=True)
        if name == "private":
            return replace(self, seller="private")
        if name == "company":
            return replace(self, seller="company")
        if name == "lowest":
            return replace(self, lowest=True)
        if name == NO_REPOSTS:
            return replace(self, no_reposts=True)
        if isinstance(value, Near):
            return replace(self, near=value)
        assert isinstance(value, Decimal), token
        if name == "drop%":
            if not 0 < value < _HUNDRED:
                raise InvalidFilter(FilterReason.PERCENT, token)
            return replace(self, drop_percent=value)
        if name == "drop€":
            return replace(self, drop_amount=value)
        if name == "deal":
            if not 0 < value < _HUNDRED:
                raise InvalidFilter(FilterReason.PERCENT, token)
            return replace(self, deal=value)
        if name == "min":
            return replace(self, min_price=value)
        if name == "max":
            return replace(self, max_price=value)
        return replace(self, below=value)


def _a_deal(price: Decimal | None, notes: AlertNotes, percent: Decimal) -> bool:
    """Whether an advert at `price` is at least `percent` % under the going price in its
    `notes` (none there: the search has too few prices to tell, and nothing is a deal), per m²
    for real estate (`AlertNotes.compared`)."""
    value = notes.compared(price)
    return value is not None and notes.going is not None and notes.going.under_by(value, percent)


def _near(data: dict[str, str] | None) -> Near | None:
    return None if data is None else Near(data["centre"], Decimal(data["km"]))
