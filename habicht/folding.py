"""How words are compared: the one folding that filters, local matching and reposts share.

A leaf: imports nothing of habicht, so every module of the scraper can use it.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["fold"]

_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_COMBINING = re.compile(r"[\u0300-\u036f]")
_SPACES = re.compile(r"\s+")


def fold(text: str) -> str:
    """`text` as words are compared: case-, accent- and umlaut-insensitive, spaces collapsed."""
    lowered = text.casefold().translate(_UMLAUTS)
    bare = _COMBINING.sub("", unicodedata.normalize("NFKD", lowered))
    return _SPACES.sub(" ", bare).strip()
