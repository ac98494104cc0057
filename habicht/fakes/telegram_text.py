"""What the fake Telegram accepts as a message's text: its HTML and its length."""

from __future__ import annotations

from html.parser import HTMLParser

from habicht.fakes.telegram_payloads import Params

__all__ = ["MAX_CAPTION_UTF16", "MAX_TEXT_UTF16", "text_problem", "utf16_len"]

MAX_TEXT_UTF16 = 4096
MAX_CAPTION_UTF16 = 1024

# Tags the Bot API accepts in parse_mode=HTML.
_HTML_TAGS = frozenset(
    {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a"}
    | {"code", "pre", "blockquote", "tg-emoji"}
)
_HTML_ENTITIES = frozenset({"lt", "gt", "amp", "quot"})


class _HTMLCheck(HTMLParser):
    """Telegram's parse_mode=HTML rules: known tags, balanced, only four named entities."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.open: list[str] = []
        self.visible: list[str] = []
        self.problem: str | None = None

    def _fail(self, problem: str) -> None:
        self.problem = self.problem or problem

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _HTML_TAGS:
            self._fail(f'unsupported start tag "{tag}" at byte offset {self.getpos()[1]}')
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open.pop() != tag:
            self._fail(f'can\'t find end tag corresponding to start tag "{tag}"')

    def handle_data(self, data: str) -> None:
        if any(c in data for c in "<>&"):
            self._fail("unescaped '<', '>' or '&': write &lt;, &gt; and &amp;")
        self.visible.append(data)

    def handle_entityref(self, name: str) -> None:
        if name not in _HTML_ENTITIES:
            self._fail(f'unsupported HTML entity "&{name};"')
        self.visible.append("x")  # an entity is one visible character

    def handle_charref(self, name: str) -> None:
        self.visible.append("x")

    def verdict(self, text: str) -> tuple[str, str | None]:
        """(visible text, problem or None) of `text`."""
        self.feed(text)
        if self.rawdata:  # an unfinished '&…' or '<…' the parser would silently drop
            self._fail("unescaped '<' or '&': write &lt; and &amp;")
        self.close()
        if self.open:
            self._fail(f'can\'t find end tag corresponding to start tag "{self.open[-1]}"')
        return "".join(self.visible), self.problem


def utf16_len(text: str) -> int:
    """A text's length as Telegram counts it: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


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
