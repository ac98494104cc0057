"""The documentation keeps up with the code: the generated reference pages are current, every
setting and subcommand is described, and what the docs name in the code still exists."""

from __future__ import annotations

import argparse
import importlib
import re
from pathlib import Path

import pytest

from habicht.cli import build_parser
from habicht.config import Settings
from habicht.reference import render_pages

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
REGENERATE = "make docs-generate (python -m habicht.reference docs)"


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def pages() -> list[Path]:
    """README.md and every Markdown page under docs/."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def subcommands(parser: argparse.ArgumentParser, prefix: str = "habicht") -> list[str]:
    """`habicht run`, `habicht queue stats`, … for every leaf of the parser."""
    found: list[str] = []
    for action in parser._actions:  # argparse has no public API for listing subparsers
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                nested = subcommands(sub, f"{prefix} {name}")
                found.extend(nested or [f"{prefix} {name}"])
    return found


@pytest.mark.parametrize("page", ["configuration.md", "cli.md"])
def test_the_generated_reference_is_current(page: str) -> None:
    """docs/configuration.md and docs/cli.md hold what the code renders today."""
    expected = render_pages(DOCS)[DOCS / page]
    assert read(DOCS / page) == expected, f"docs/{page} is out of date: run {REGENERATE}"


@pytest.mark.parametrize(("env", "default", "help_text"), Settings.documented())
def test_every_setting_is_in_the_configuration_table(
    env: str, default: str, help_text: str
) -> None:
    """docs/configuration.md has a row for each HABICHT_* setting."""
    assert f"| `{env}` |" in read(DOCS / "configuration.md")


@pytest.mark.parametrize("command", subcommands(build_parser()))
def test_every_subcommand_is_in_the_cli_reference(command: str) -> None:
    """Each subcommand has its section in docs/cli.md."""
    assert f"`{command}`" in read(DOCS / "cli.md")


def test_help_lists_every_subcommand_and_setting(capsys: pytest.CaptureFixture[str]) -> None:
    """`habicht --help` names every subcommand and every setting."""
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for command in {c.split()[1] for c in subcommands(build_parser())}:
        assert command in text
    for env, _default, _help in Settings.documented():
        assert env in text


def test_every_setting_the_docs_name_exists() -> None:
    """A HABICHT_* name in the README or docs/ is a real setting (none renamed or made up)."""
    known = {env for env, _default, _help in Settings.documented()}
    unknown = {
        f"{page.relative_to(ROOT)}: {name}"
        for page in pages()
        for name in re.findall(r"HABICHT_[A-Z_]*[A-Z]", read(page))
        if name not in known
    }
    assert not unknown, f"settings that do not exist: {sorted(unknown)}"


def _cited(row: str) -> list[str]:
    return re.findall(r"`(habicht(?:\.\w+)*:[\w.]+)`", row)


def _resolves(citation: str) -> bool:
    """The name exists in the module, and is defined there: a reader who opens the module finds
    it, instead of an import of it from somewhere else."""
    module_name, _, attributes = citation.partition(":")
    try:
        found: object = importlib.import_module(module_name)
    except ImportError:
        return False
    for attribute in attributes.split("."):
        if not hasattr(found, attribute):
            return False
        found = getattr(found, attribute)
        if getattr(found, "__module__", module_name) != module_name:
            return False
    return True


def test_the_code_map_names_code_that_exists() -> None:
    """Every `module:name` in docs/internals/code-map.md is defined where it says; a failure
    names the rows."""
    rows = [line for line in read(DOCS / "internals" / "code-map.md").splitlines() if "|" in line]
    cited = [(row, citation) for row in rows for citation in _cited(row)]
    assert len(cited) > 50  # the map is there, and its citations are found
    stale = [
        f"{row.split('|')[1].strip()} → {citation}"
        for row, citation in cited
        if not _resolves(citation)
    ]
    assert not stale, "stale rows in docs/internals/code-map.md:\n" + "\n".join(stale)


# A file of the repository named in prose: `scraper/scan.py`, `habicht/bot/app.py`,
# `benchmarks/parse.py`, `tests/kit/bot.py`, `kit/fixtures.py`.
SOURCE = re.compile(r"(?<![\w/.-])((?:[a-z_]+/)+[a-z_]+\.py)\b")
PLACES = ("", "habicht/", "tests/")


def test_every_source_file_the_docs_name_exists() -> None:
    """A path like `scraper/scan.py` in the docs is a file of habicht/, tests/ or the root."""
    missing = {
        f"{page.relative_to(ROOT)}: {path}"
        for page in pages()
        for path in SOURCE.findall(read(page))
        if not any((ROOT / place / path).is_file() for place in PLACES)
    }
    assert not missing, f"files the docs name that do not exist: {sorted(missing)}"


# Where a link points: `[text](target)`, a reference `[label]: target`, an `href="target"`.
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)|^\s*\[[^\]]+\]:\s*<?(\S+?)>?\s*$|href=\"([^\"]+)\"", re.M)


def subscriber_pages() -> list[Path]:
    """docs/using.md and the pages under docs/using/: what a subscriber reads."""
    return [DOCS / "using.md", *sorted((DOCS / "using").glob("*.md"))]


def test_the_subscriber_pages_link_nothing_under_internals() -> None:
    """A subscriber's answer stands on the subscriber's pages: none of them sends the reader
    into docs/internals/ (issue 37), whose pages are written for developers."""
    found = {
        f"{page.relative_to(ROOT)}: {target}"
        for page in subscriber_pages()
        for groups in LINK.findall(read(page))
        for target in groups
        if "internals/" in target
    }
    assert len(subscriber_pages()) > 5  # using.md and its pages are there
    assert not found, f"subscriber pages link into internals/: {sorted(found)}"


def test_the_readme_stays_short_and_its_links_resolve() -> None:
    """README.md is the front page (≤ 200 lines); its relative links reach real files (the
    docs/ pages' own links are checked by `make docs`, mkdocs --strict)."""
    text = read(README)
    assert len(text.splitlines()) <= 200
    targets = re.findall(r"\]\((?![a-z]+:)([^)#\s]+)", text)
    assert "docs/index.md" in targets
    broken = [target for target in targets if not (ROOT / target).exists()]
    assert not broken, f"README links to files that do not exist: {broken}"
