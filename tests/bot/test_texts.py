"""Messages: escaped, within Telegram's limits, the same in German and English (the catalogue
every language fills: test_catalog.py; HTML and its lengths: test_markup.py)."""

from __future__ import annotations

import html
from decimal import Decimal

import pytest

from habicht.bot.texts import (
    ENGLISH,
    GERMAN,
    MAX_MESSAGE,
    Html,
    Lang,
    Texts,
    utf16_len,
)
from habicht.willhaben.errors import InvalidReason


@pytest.mark.parametrize("lang", ["de", "en"])
def test_a_title_with_markup_arrives_as_text(lang: Lang) -> None:
    """`<b>&` in a title, a location and a URL is escaped, never sent as markup."""
    text = Texts(lang).new_listing(
        title="<b>RTX & Co</b>",
        url='https://www.willhaben.at/iad/x?a=1&b="2"',
        price=Decimal(350),
        price_display=None,
        location="Wien <script>",
    )
    assert "&lt;b&gt;RTX &amp; Co&lt;/b&gt;" in text
    assert "Wien &lt;script&gt;" in text
    assert 'href="https://www.willhaben.at/iad/x?a=1&amp;b=&quot;2&quot;"' in text
    assert "<b>RTX" not in text


def test_a_long_title_is_shortened_before_escaping() -> None:
    """A cut never falls inside an entity: the title is shortened, then escaped."""
    title = "&" * 5000
    text = Texts("de").new_listing(
        title=title, url="https://www.willhaben.at/a", price=None, price_display="VB", location=None
    )
    assert len(text) <= MAX_MESSAGE
    body = text.split('">', 1)[1].split("</a>", 1)[0]
    assert html.unescape(body) == "&" * 199 + "…"
    assert body.count("&amp;") == 199


def test_a_price_drop_shows_old_new_and_percent() -> None:
    """A drop from 400 to 300 reads 400 struck through, 300, and -25%."""
    text = Texts("en").price_drop(
        title="Sofa", url="https://www.willhaben.at/a", old=Decimal(400), new=Decimal(300)
    )
    assert "<s>€400</s> → <b>€300</b> (-25%)" in text


@pytest.mark.parametrize("line", ["x" * 100, "😀" * 100, "<" * 100])
def test_lists_stop_before_the_limit(line: str) -> None:
    """A list of many long lines ends with "…" and stays within 4096 UTF-16 code units, the
    way Telegram counts: an emoji counts 2."""
    text = Texts("de").lines("header", [line] * 100)
    assert utf16_len(text) <= MAX_MESSAGE
    assert utf16_len(text) > MAX_MESSAGE - 2 * utf16_len(line)  # not stopped early
    assert text.endswith("\n…")


def test_a_subscribers_words_are_echoed_short() -> None:
    """An echoed argument is shortened before escaping, so even 4000 times `<` stays short."""
    texts = Texts("de")
    text = texts.fill("not_a_number", given=texts.echo("<" * 4000))
    assert text.count("&lt;") == 39
    assert utf16_len(text) < 300


@pytest.mark.parametrize(
    ("seconds", "de", "en"),
    [(-5, "jetzt", "now"), (0, "jetzt", "now"), (300, "in 5 min", "in 5 min")],
)
def test_a_due_time_reads_as_now_or_in_so_long(seconds: float, de: str, en: str) -> None:
    """The next retry is `in 5 min`; one already due reads `now`, never a negative time."""
    assert Texts("de").until(seconds) == de
    assert Texts("en").until(seconds) == en


def test_the_command_menu_is_in_both_languages() -> None:
    """The menu offers the same commands in German and English, each described."""
    assert list(GERMAN.menu) == list(ENGLISH.menu)
    assert all(GERMAN.menu.values())
    assert all(ENGLISH.menu.values())


def test_values_are_escaped_unless_already_html() -> None:
    """`fill` escapes plain values and inserts `Html` values as they are."""
    texts = Texts("en")
    assert texts.fill("watch_invalid", reason="<i>") == "❌ I can't watch that: &lt;i&gt;"
    assert texts.fill("watch_invalid", reason=Html("<i>x</i>")).endswith("<i>x</i>")


@pytest.mark.parametrize("reason", list(InvalidReason))
def test_every_refusal_reason_has_its_own_text(reason: InvalidReason) -> None:
    """Each reason the URL rules can give is explained, in both languages."""
    assert reason.value in GERMAN.invalid_reasons
    assert reason.value in ENGLISH.invalid_reasons


# The catalogue is typed: a language that lacks a text, or names one it does not have, fails
# when its module is imported (issue 28 split the languages into texts/de.py and texts/en.py).
