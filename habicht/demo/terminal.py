"""Plain terminal output for the demo: colour only on a terminal that wants it, and message
texts (Telegram HTML) turned into one readable line.

Colour follows https://no-color.org: none when `NO_COLOR` is set to anything non-empty, and
none when the output is not a terminal (a pipe, a file, a test's buffer).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from html.parser import HTMLParser
from typing import TextIO

__all__ = ["Terminal", "one_line", "plain", "wants_colour"]

_CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}


def wants_colour(out: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Colour for a terminal, unless NO_COLOR says otherwise."""
    environ = os.environ if environ is None else environ
    return out.isatty() and not environ.get("NO_COLOR")


class _Visible(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def plain(html: str) -> str:
    """What a Telegram user reads of an HTML message: the tags gone, entities decoded."""
    parser = _Visible()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def one_line(html: str, width: int) -> str:
    """A message as one line of at most `width` characters: lines joined by ' · '."""
    text = " · ".join(line.strip() for line in plain(html).splitlines() if line.strip())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


class Terminal:
    """Writes lines to `out`, styled when `colour` is on; `style` words are `_CODES` keys."""

    def __init__(self, out: TextIO, *, colour: bool) -> None:
        self.out = out
        self.colour = colour

    def paint(self, text: str, *styles: str) -> str:
        if not self.colour or not styles:
            return text
        codes = ";".join(_CODES[style] for style in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def line(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def heading(self, text: str) -> None:
        self.line()
        self.line(self.paint(f"━━ {text} " + "━" * max(3, 72 - len(text)), "bold", "cyan"))
