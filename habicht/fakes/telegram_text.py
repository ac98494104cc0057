"""What the fake Telegram accepts as a message's text — its HTML and its length — and how it
shows the text it accepted."""

from __future__ import annotations

import html
from html.parser import HTMLParser

from habicht.fakes.telegram_payloads import Params

__all__ = [
    "MAX_CAPTION_UTF16",
    "MAX_TEXT_UTF16",
    "Shown",
    "shown_text",
    "text_problem",
    "utf16_len",
]

MAX_TEXT_UTF16 = 4096
MAX_CAPTION_UTF16 = 1024

# Tags the Bot API accepts in parse_mode=HTML.
_HTML_TAGS = frozenset(
    {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a"}
    | {"code", "pre", "blockquote", "tg-emoji"}
)
_HTML_ENTITIES = frozenset({"lt", "gt", "amp", "quot"})
# Tags that show the same formatting as another one (Telegram's entity type is what it keeps).
_SAME_LOOK = {"strong": "b", "em": "i", "ins": "u", "strike": "s", "del": "s"}

Entity = tuple[str, str, int, int]
"""One formatting over the visible text: (tag, its attributes, start, end)."""
Shown = tuple[str, tuple[Entity, ...]]
"""A text as Telegram shows it: the visible characters and the formatting over them."""


class _HTMLCheck(HTMLParser):
    """Telegram's parse_mode=HTML rules: known tags, balanced, only four named entities."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.open: list[tuple[str, str, str, int]] = []
        """The tags open now: (tag, the formatting it shows, its attributes, where it starts)."""
        self.visible: list[str] = []
        self.entities: list[Entity] = []
        self.problem: str | None = None
        self._length = 0

    def _fail(self, problem: str) -> None:
        self.problem = self.problem or problem

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _HTML_TAGS:
            self._fail(f'unsupported start tag "{tag}" at byte offset {self.getpos()[1]}')
        if tag == "span" and ("class", "tg-spoiler") in attrs:
            kind, attributes = "tg-spoiler", ""
        else:
            kind = _SAME_LOOK.get(tag, tag)
            attributes = " ".join(f"{k}={v}" for k, v in sorted(attrs, key=str))
        self.open.append((tag, kind, attributes, self._length))

    def handle_endtag(self, tag: str) -> None:
        opened, kind, attributes, start = self.open.pop() if self.open else ("", "", "", 0)
        if opened != tag:
            self._fail(f'can\'t find end tag corresponding to start tag "{tag}"')
        elif start < self._length:  # Telegram drops formatting over nothing
            self.entities.append((kind, attributes, start, self._length))

    def _show(self, text: str) -> None:
        self.visible.append(text)
        self._length += len(text)

    def handle_data(self, data: str) -> None:
        if any(c in data for c in "<>&"):
            self._fail("unescaped '<', '>' or '&': write &lt;, &gt; and &amp;")
        self._show(data)

    def handle_entityref(self, name: str) -> None:
        if name not in _HTML_ENTITIES:
            self._fail(f'unsupported HTML entity "&{name};"')
        self._show(html.unescape(f"&{name};"))

    def handle_charref(self, name: str) -> None:
        self._show(html.unescape(f"&#{name};"))

    def verdict(self, text: str) -> tuple[str, str | None]:
        """(visible text, problem or None) of `text`."""
        self.feed(text)
        if self.rawdata:  # an unfinished '&…' or '<…' the parser would silently drop
            self._fail("unescaped '<' or '&': write &lt; and &amp;")
        self.close()
        if self.open:
            self._fail(f'can\'t find end tag corresponding to start tag "{self.open[-1][0]}"')
        return "".join(self.visible), self.problem


def utf16_len(text: str) -> int:
    """A text's length as Telegram counts it: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def shown_text(text: str, parse_mode: str | None) -> Shown:
    """`text` as Telegram shows it, so that two spellings of one look (`<b>` and `<strong>`,
    `&amp;` and `&#38;`, formatting nested either way) compare equal — as Telegram compares
    an edit with the message it would change. Only HTML is parsed; a text in another parse
    mode compares as written."""
    if parse_mode != "HTML":
        return text, ()
    check = _HTMLCheck()
    visible, _ = check.verdict(text)
    return visible, tuple(sorted(check.entities))


def text_problem(params: Params) -> str | None:
    """Why Telegram would refuse this text or caption (None: it would not)."""
    photo = "photo" in params or "caption" in params
    text = str(params.get("caption" if photo else "text", ""))
    visible = text
    if params.get("parse_mode") == "HTML":
        visible, problem = _HTMLCheck().verdict(text)
        if problem:
            return f"Bad Request: can't parse entities: {problem}"
    if photo:
        return (
            "Bad Request: message caption is too long"
            if (utf16_len(visible) > MAX_CAPTION_UTF16)
            else None
        )
    if not visible.strip():
        return "Bad Request: message text is empty"
    if utf16_len(visible) > MAX_TEXT_UTF16:
        return "Bad Request: message is too long"
    return None
