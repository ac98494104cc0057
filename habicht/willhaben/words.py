"""Words as local matching reads them: an advert's title and snippet, a search's keyword.

Local matching (`habicht.willhaben.local`) may only say an advert is in a keyword search where
willhaben's own search surely lists it, and how willhaben cuts text into words is not
published. So words are read the way that finds a word only where every plausible reader
finds it: a search engine's Unicode word splitting (UAX #29, as Lucene and Elasticsearch
split), a plain split at every non-letter, with or without umlaut and accent folding. Where
these readers differ, the text holds fewer words here than in any of them, never more:

- **Markup is text.** The snippet (`BODY_DYN`) and the title come HTML-escaped: `&nbsp;` is
  a space and `&amp;` an ampersand, never the words "nbsp" and "amp".
- **A mark between two digits joins them** (a dot, comma, semicolon or apostrophe): "1.6",
  "6,1", "23.11.2021", "1.200" and "2'000" are one word each, so `golf 6` does not find
  "Golf 7 1.6 TDI". A dot, colon, middle dot or apostrophe between two letters joins them
  too ("gekauft.Verkaufe", "geht's", "Mieter:innen"): UAX #29 reads those as one word.
  Spaces, hyphens, slashes and a comma between letters separate words (every reader splits
  there). Underscores, combining marks and soft hyphens stay inside a word.
- **A cut snippet's last word does not count.** A snippet that was cut ends with "..." (or
  "…") after a word that may itself be cut: "form..." may be "format", and "form" is then
  no word of the advert's.
- **Case does not matter; umlauts, accents and ß do.** Both sides are lower-cased and in
  Unicode's composed form (NFC), then compared exactly: "käse" finds "Käse" and "KÄSE" but
  neither "kaese" nor "kase", and "straße" does not find "STRASSE". Whether willhaben folds
  "ä" to "a" or to "ae" is not known, and only words that are equal before any folding are
  equal after every one. Lower-casing, not `str.casefold`: casefolding makes "ß" "ss",
  which a search that only lower-cases keeps apart.

So this is not `habicht.folding.fold`, which filters and reposts use: a watch's own
`+word` is habicht's rule, and there `kaese` finding "Käse" is the friendly reading; here
it would be an alert for an advert the subscriber's search may not show.

Pure and a leaf: imports nothing of habicht.
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["advert_words", "keyword_words", "words"]

_INSIDE = (
    "\\w\u00ad\u200c\u200d\u2060\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
)
"""What a word is made of: letters, digits and the underscore (`\\w`), and what stays inside
a word without showing (combining marks NFC leaves, the soft hyphen, zero-width joiners)."""
_JOINED = re.compile(
    f"[{_INSIDE}]+"
    "(?:"
    f"(?:(?<![0-9])[.:\u00b7'\u2018\u2019](?![0-9])|(?<=[0-9])[.,;'\u2018\u2019](?=[0-9]))"
    f"[{_INSIDE}]+"
    ")*"
)
"""A word: runs of word characters joined by one mark between two letters (a dot, colon,
middle dot or apostrophe) or between two ASCII digits (a dot, comma, semicolon or
apostrophe). Another script's digits count as letters: joined more, never less."""
_KEYWORD_WORD = re.compile(r"[^\W_]+")
"""A keyword's word: letters and digits only. Anything else may mean something to
willhaben's search (a phrase, an exclusion) that habicht does not know."""
_CUT = ("...", "\u2026")


def words(text: str) -> list[str]:
    """The words of `text`, an advert's HTML-escaped title or snippet, in order (module
    docstring)."""
    return _JOINED.findall(_normal(html.unescape(text)))


def advert_words(title: str, snippet: str | None) -> frozenset[str]:
    """Every word of an advert's title and snippet that willhaben's search surely finds:
    without a cut snippet's last word."""
    found = words(title)
    if snippet:
        body = words(snippet)
        if html.unescape(snippet).rstrip().endswith(_CUT):
            del body[-1:]
        found += body
    return frozenset(found)


def keyword_words(keyword: str) -> tuple[str, ...] | None:
    """The words of a search's `keyword`, read as the advert's words are; None when it holds
    anything but letters, digits and whitespace, or nothing."""
    found = tuple(_normal(keyword).split())
    if not found or not all(_KEYWORD_WORD.fullmatch(word) for word in found):
        return None
    return found


def _normal(text: str) -> str:
    """`text` lower-cased, in NFC (lower-casing may decompose: "İ" becomes "i" and a dot)."""
    return unicodedata.normalize("NFC", text.lower())
