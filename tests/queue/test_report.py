"""The queue's plain-text reports for its owners, and the one parser of "ids or all"."""

from __future__ import annotations

import pytest

from habicht.queue.report import describe_dead, describe_stats, parse_ids
from habicht.queue.upkeep import QueueStats


def test_reports_of_an_empty_queue_say_so() -> None:
    """With nothing queued, stats show zeros without ages, and `dead` says there are none."""
    empty = QueueStats(0, 0, 0, 0, 0, 0, None, None, {}, {})
    assert describe_stats(empty, now=0).splitlines() == [
        "pending       0  (0 retrying)",
        "sending       0",
        "sent          0  (0 in the last 24 h)",
        "dead          0",
    ]
    assert describe_dead([], now=0) == "no dead notifications"


@pytest.mark.parametrize(
    ("words", "ids"), [(["all"], "all"), (["3", "#4"], [3, 4])], ids=["all", "ids"]
)
def test_parse_ids_takes_ids_or_all(words: list[str], ids: object) -> None:
    """`retry` takes notification ids (a leading # is fine) or the single word 'all'."""
    assert parse_ids(words) == ids


@pytest.mark.parametrize("word", ["\u00b2", "\u0663", "-3", "+3", "3_0", "##3", str(2**63)])
def test_parse_ids_refuses_what_is_no_ascii_number(word: str) -> None:
    """Issue 19 (9): an id is ASCII digits; "²" and "٣" are refused in a sentence."""
    with pytest.raises(ValueError, match="expected notification ids"):
        parse_ids(["3", word])
