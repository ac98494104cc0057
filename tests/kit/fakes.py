"""Fakes shared by the tests: plain objects, no mocks."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from habicht.market.history import PricePoint
from habicht.model import Listing, Search
from habicht.watches.judge import Alert
from habicht.watches.notes import NO_NOTES, AlertNotes


class FakeClock:
    """A clock that only moves when told; `sleep` advances it instead of waiting."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += max(0.0, seconds)


class TextRenderer:
    """The scraper's Renderer as plain texts that show what was rendered; the notes of each
    advert's latest alert are kept in `notes` (by advert id) for tests to look at."""

    def __init__(self) -> None:
        self.notes: dict[str, AlertNotes] = {}

    def for_chat(self, chat_id: int) -> TextRenderer:
        return self

    def new_listing(
        self,
        listing: Listing,
        *,
        watch_id: int,
        bumped: bool = False,
        entered: bool = False,
        notes: AlertNotes = NO_NOTES,
    ) -> Alert:
        kind = "bumped" if bumped else "entered" if entered else "new"
        self.notes[listing.id] = notes
        return Alert(f"{kind} {listing.id}")

    def price_drop(
        self,
        listing: Listing,
        old: Decimal,
        new: Decimal,
        *,
        watch_id: int,
        path: Sequence[PricePoint] = (),
        entered: bool = False,
        notes: AlertNotes = NO_NOTES,
    ) -> Alert:
        self.notes[listing.id] = notes
        way = "->".join(str(point.price) for point in path)
        return Alert(
            f"drop {listing.id} {old}->{new}"
            + (" entered" if entered else "")
            + (f" path {way}" if len(path) > 2 else "")
        )

    def digest_line(
        self,
        listing: Listing,
        *,
        drop: tuple[Decimal, Decimal] | None = None,
        bumped: bool = False,
        entered: bool = False,
        notes: AlertNotes = NO_NOTES,
    ) -> str:
        return f"line {listing.id}" + ("" if drop is None else f" {drop[0]}->{drop[1]}")

    def baseline(self, search: Search, count: int) -> str:
        return f"watching {search.label}: {count}"
