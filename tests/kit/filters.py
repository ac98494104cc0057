"""A filter from its rules alone, as `/filter <n> …` would make it on a watch with none."""

from __future__ import annotations

from collections.abc import Sequence

from habicht.watches.filters import WatchFilter


def parse_rules(args: Sequence[str]) -> WatchFilter:
    """The filter that `args` (the words after `/filter <n>`) describe on their own."""
    return WatchFilter().with_rules(args)
