"""The package's shape that the import contracts cannot check.

Which part may import which, and that no part's modules import one another in a circle, are
import-linter contracts (pyproject.toml, `[tool.importlinter]`; `make lint`). Here: the front
doors of queue and bot, private names staying home, numbers read by one parser, and each
module's tests found by its name."""

from __future__ import annotations

import ast
import importlib
from fnmatch import fnmatch
from pathlib import Path

import pytest

import habicht

PACKAGE = Path(habicht.__file__).parent
BENCHMARKS = PACKAGE.parent / "benchmarks"
TESTS = Path(__file__).parent
PARTS = ("queue", "bot")  # willhaben, scraper, watches and market have no front door (issue 28)


def imported_modules(path: Path) -> set[str]:
    """Every absolute module name a source file imports."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("part", PARTS)
def test_each_front_door_lists_what_it_exports(part: str) -> None:
    """Every name in a part's `__all__` exists, and every public name it defines is listed."""
    module = importlib.import_module(f"habicht.{part}")
    exported = set(module.__all__)
    assert all(hasattr(module, name) for name in exported)
    defined = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and getattr(value, "__module__", "").startswith("habicht.")
    }
    assert defined <= exported


@pytest.mark.parametrize("part", PARTS)
def test_other_parts_import_only_through_the_front_door(part: str) -> None:
    """Code outside a part imports `habicht.<part>`, never its inner modules — the
    benchmarks too, so that they follow the parts' changes instead of rotting."""
    inner = f"habicht.{part}."
    outside = [*PACKAGE.rglob("*.py"), *BENCHMARKS.glob("*.py")]
    offences = [
        f"{path.relative_to(PACKAGE.parent)} imports {name}"
        for path in outside
        if not path.is_relative_to(PACKAGE / part)
        for name in imported_modules(path)
        if name.startswith(inner)
    ]
    assert offences == []


def test_private_names_stay_in_their_module() -> None:
    """No module of habicht imports another's `_name`: what two modules share is public in the
    one it belongs to (issue 28)."""
    offences = [
        f"{path.relative_to(PACKAGE)}:{node.lineno} imports {node.module}.{alias.name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("habicht")
        for alias in node.names
        if alias.name.startswith("_")
    ]
    assert offences == []


def test_numbers_from_outside_are_read_by_one_parser() -> None:
    """Issue 19 (9): no module but `habicht.digits` tests text with `isdigit()` (true for
    "²", which `int()` refuses) or its kin, and no pattern spells a digit `\\d` (which takes
    every Unicode digit): numbers from outside go through `habicht.digits`."""
    offences = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "digits.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in _DIGIT_TESTS:
                offences.append(f"{path.relative_to(PACKAGE)}:{node.lineno} .{node.attr}()")
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and "\\d" in text:
                offences.append(f"{path.relative_to(PACKAGE)}:{node.lineno} \\d")
    assert offences == []


_DIGIT_TESTS = frozenset({"isdigit", "isdecimal", "isnumeric"})


UNTESTED_BY_NAME = {
    "clock.py": "type aliases and the system's clock only",
    "model.py": "the shared vocabulary (Listing, Search, money) every part's tests use",
    "digits.py": "tested where numbers come in (test_config, queue/test_report, bot/test_buttons)",
    "willhaben/errors.py": "exception classes only",
    "watches/errors.py": "exception classes only",
    "watches/watch.py": "one dataclass only",
    "watches/figures.py": "read by /stats <n>: tests/bot/test_figures.py",
    "watches/notes.py": "alerts' notes, through scans in market/test_going.py and test_places.py",
    "bot/services.py": "opened and closed with the Application: tests/bot/test_app.py",
    "bot/texts/de.py": "a catalogue, checked by tests/bot/test_catalog.py",
    "bot/texts/en.py": "a catalogue, checked by tests/bot/test_catalog.py",
    "fakes/clock.py": "a test double the delivery tests run on (tests/queue/test_deliver.py)",
    "fakes/telegram_payloads.py": "the fake Bot API's payloads: tests/fakes/test_telegram.py",
    "demo/*": "run whole by tests/test_demo.py",
}
"""Modules without a test file of their own name (path under habicht/ or a pattern), and why."""


def expected_tests(module: Path) -> Path:
    """Where a module's tests are: `tests/<part>/test_<module>.py` for a module of a part
    (a handler's or a text module's in tests/bot/), `tests/test_<module>.py` for one at the
    top (issue 28)."""
    parts = module.relative_to(PACKAGE).parts[:-1]
    return TESTS.joinpath(*parts[:1], f"test_{module.stem}.py")


def test_every_module_has_its_test_file() -> None:
    """A module's tests are found by its name; the few modules without a file of their own
    are listed above with the reason."""
    modules = [
        path.relative_to(PACKAGE).as_posix()
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name not in ("__init__.py", "__main__.py") and not expected_tests(path).exists()
    ]
    unexcused = [
        module
        for module in modules
        if not any(fnmatch(module, pattern) for pattern in UNTESTED_BY_NAME)
    ]
    assert unexcused == []
    stale = [
        pattern
        for pattern in UNTESTED_BY_NAME
        if not any(fnmatch(module, pattern) for module in modules)
    ]
    assert stale == []
