"""The generated reference's filling (`habicht.reference`): a page needs both markers, and only
what lies between them is replaced (that the pages are current: tests/test_docs.py)."""

from __future__ import annotations

import pytest

from habicht.reference import BEGIN, END, fill


def test_fill_needs_both_markers() -> None:
    """A page whose markers were edited away is refused, not silently left stale."""
    with pytest.raises(ValueError, match="needs a line"):
        fill("# Configuration\n", "| table |")
    assert fill(f"a\n{BEGIN}\nold\n{END}\nb\n", "new") == f"a\n{BEGIN}\nnew\n{END}\nb\n"
