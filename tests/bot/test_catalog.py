"""The typed catalogue (`habicht.bot.texts.catalog`): every language fills every text with the
same placeholders, one lacking a text fails at import, a text no language has is refused."""

from __future__ import annotations

import importlib.util
import string
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import get_args

import pytest

from habicht.bot.texts import CATALOGS, ENGLISH, GERMAN, Catalog, Lang


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("field", [f.name for f in fields(GERMAN) if f.name != "lang"])
def test_both_languages_have_the_same_placeholders(field: str) -> None:
    """Every German template takes exactly the values its English twin takes."""
    german, english = getattr(GERMAN, field), getattr(ENGLISH, field)
    if isinstance(german, str):
        assert placeholders(german) == placeholders(english)
    elif isinstance(german, Mapping):
        assert german.keys() == english.keys()
    else:  # a list of words, such as the months
        assert len(german) == len(english)


def test_a_language_lacking_a_text_fails_at_import(tmp_path: Path) -> None:
    """A language module whose catalog leaves out a text raises TypeError, naming it, as it
    is imported — when the bot starts, never in front of a subscriber."""
    given = {f.name: getattr(ENGLISH, f.name) for f in fields(ENGLISH) if f.name != "help"}
    module = tmp_path / "lacking.py"
    module.write_text(
        f"from habicht.bot.texts.catalog import Catalog\nLACKING = Catalog(**{given!r})\n",
        encoding="utf-8",
    )
    spec = importlib.util.spec_from_file_location("lacking", module)
    assert spec is not None
    assert spec.loader is not None
    with pytest.raises(TypeError, match="'help'"):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_a_text_no_language_has_is_refused() -> None:
    """A text the catalogue does not name is refused too: a typo is not a new text."""
    given = {f.name: getattr(GERMAN, f.name) for f in fields(GERMAN)}
    with pytest.raises(TypeError, match="helpp"):
        Catalog(**given, helpp="Hilfe")


def test_every_language_has_its_catalog() -> None:
    """Each `Lang` has a catalog, filed under its own code."""
    assert set(CATALOGS) == set(get_args(Lang))
    assert all(catalog.lang == lang for lang, catalog in CATALOGS.items())
