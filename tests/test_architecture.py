"""The package's shape that the import contracts cannot check.

Which part may import which, and that no part's modules import one another in a circle, are
import-linter contracts (pyproject.toml, `[tool.importlinter]`; `make lint`). Here: the front
doors of queue and bot, private names staying home, numbers read by one parser, each
module's tests found by its name, and each table named in SQL by its owner only."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path

import pytest

import habicht

PACKAGE = Path(habicht.__file__).parent
BENCHMARKS = PACKAGE.parent / "benchmarks"
TESTS = Path(__file__).parent
PARTS = ("queue", "bot")  # willhaben, scraper, watches and market have no front door (issue 28)

SIDE_DOORS = {
    "habicht.queue.enqueue": "alerts written inside the caller's transaction: the scan's "
    "(watches.judge, which asks `drops_told` to tell a price cut once), a watch's change "
    "(watches.subscriptions), new quiet hours (bot.preferences)",
    "habicht.queue.edits": "the edits that keep sent alerts true, in watches.follow's transaction",
    "habicht.queue.direct": "sending from memory when the outbox cannot be written (the bot's "
    "services and app)",
    "habicht.queue.report": "the owners' plain-text views (`habicht queue …`)",
    "habicht.queue.figures": "the outbox's figures: rows by status and delivery times for "
    "/metrics, the unsent rows for `habicht health`, the alert times scraper.alert_times "
    "reads, edits and sent alerts for the watches' figures",
}
"""Modules of a part that are small faces of their own (issue 37): each for the few callers
that need it, which import from it only what its `__all__` lists."""


def imported_names(path: Path) -> Iterator[tuple[str, str]]:
    """(module, name) for each name a source file imports `from` an absolute module."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield from ((node.module, alias.name) for alias in node.names)


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
    offences = [
        f"{path.relative_to(PACKAGE.parent)} imports {name}"
        for path in _outside(part)
        for name in imported_modules(path)
        if name.startswith(inner) and name not in SIDE_DOORS
    ]
    assert offences == []


def _outside(part: str) -> list[Path]:
    """The code outside a part that its doors serve: habicht's other modules, the benchmarks."""
    return [
        path
        for path in [*PACKAGE.rglob("*.py"), *BENCHMARKS.glob("*.py")]
        if not path.is_relative_to(PACKAGE / part)
    ]


@pytest.mark.parametrize("part", PARTS)
def test_each_door_lists_what_other_code_imports_from_it(part: str) -> None:
    """Issue 37: other code imports from a front door (or a side door) only what its
    `__all__` lists, and the front door lists nothing that no code outside the part — nor
    a test — imports: a door is what others need, not all a part has."""
    doors = [
        f"habicht.{part}",
        *(door for door in SIDE_DOORS if door.startswith(f"habicht.{part}.")),
    ]
    listed = {door: set(importlib.import_module(door).__all__) for door in doors}
    offences = [
        f"{path.relative_to(PACKAGE.parent)} imports {module}.{name}, not in its __all__"
        for path in _outside(part)
        for module, name in imported_names(path)
        if module in listed and name not in listed[module]
    ]
    assert offences == []
    used = {
        name
        for path in [*_outside(part), *TESTS.rglob("*.py")]
        for module, name in imported_names(path)
        if module == f"habicht.{part}"
    }
    assert listed[f"habicht.{part}"] - used == set()


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
    "message.py": "what a message is, dataclasses only: a queued one goes out as it was "
    "queued in tests/queue/test_rows.py",
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


OWNERS = {
    "chats": "watches",
    "watches": "watches",
    "watch_listings": "watches",
    "filter_hits": "watches",
    "advert_states": "watches",
    "page_checks": "watches",
    "searches": "scraper",
    "search_places": "scraper",
    "feeds": "scraper",
    "feed_listings": "scraper",
    "coverage_candidates": "scraper",
    "listings": "market",
    "search_listings": "market",
    "price_history": "market",
    "postcode_places": "market",
    "notifications": "queue",
    "notification_watches": "queue",
    "notification_tombstones": "queue",
    "heartbeats": "health.py",
    "origin": "db.py",
    "restores": "restore.py",
}
"""Each table's owner: a part (a folder of habicht/) or a top-level module, the only code
whose SQL names the table (docs/internals/database.md, "Who owns which table")."""

PUBLISHED = {
    "watched_searches": (
        "watches",
        "the searches with an active watch of an active chat, joined into every scheduling"
        " query of the scraper (one per pass, inside its ORDER BY and LIMIT)",
    ),
}
"""Each view the migrations make → (its owner, the question it answers). A view is its owner's
published answer: any part may name it, and it names only tables its owner owns, so a change
of the owner's columns changes the view and no other part."""

CROSSINGS = {
    ("retention.py", "*"): "deletes the old rows of every table by design, in one place",
    ("restore.py", "*"): "puts a backup's database in place whole, and checks what it holds",
    ("demo/*", "*"): "the demo reads what it shows of every part",
    ("watches/subscriptions.py", "searches"): "a watch's search is made, found and dropped "
    "with the watch, and the watches sit below the scraper and cannot ask it",
}
"""(module under habicht/ or a pattern, table or "*") → why that module names a table it does
not own. A module named here beyond what it names fails the test, so the list stays short."""

_TABLE_WORDS = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(\w+)", re.IGNORECASE)


def _migrations() -> str:
    return "\n".join(
        path.read_text(encoding="utf-8") for path in sorted((PACKAGE / "migrations").glob("*.sql"))
    )


def _tables() -> set[str]:
    """Every table the migrations create (not the ones a rebuild moves aside)."""
    made = set(re.findall(r"CREATE TABLE (\w+)", _migrations()))
    return {name for name in made if not name.endswith(("_moved", "_rebuilt"))}


def _views() -> dict[str, str]:
    """Every view the migrations create → its SELECT (up to the statement's end)."""
    return dict(re.findall(r"CREATE VIEW (\w+) AS\s+([^;]+);", _migrations()))


def named_tables(path: Path, tables: set[str]) -> Iterator[tuple[int, str]]:
    """(line, table) for each table a string literal of the module names after FROM, JOIN,
    INTO, UPDATE or TABLE (DELETE FROM and INSERT OR … INTO included)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            for match in _TABLE_WORDS.finditer(node.value):
                if match.group(1) in tables:
                    yield node.lineno, match.group(1)


def _owns(owner: str, module: str) -> bool:
    return module == owner or module.startswith(f"{owner}/")


def _excused(module: str, table: str) -> tuple[str, str] | None:
    return next(
        (
            (pattern, name)
            for pattern, name in CROSSINGS
            if fnmatch(module, pattern) and name in (table, "*")
        ),
        None,
    )


def test_every_table_has_one_owner() -> None:
    """The owners cover every table the migrations make, and name parts or modules that
    exist."""
    assert set(OWNERS) == _tables()
    assert all(
        (PACKAGE / owner).is_dir() or (PACKAGE / owner).is_file() for owner in OWNERS.values()
    )


def test_a_view_is_published_by_the_owner_of_what_it_reads() -> None:
    """Every view is listed with its owner, and names only tables that owner owns."""
    views = _views()
    assert set(views) == set(PUBLISHED)
    for view, select in views.items():
        read = {match.group(1) for match in _TABLE_WORDS.finditer(select)}
        assert read, view
        assert {OWNERS[table] for table in read} == {PUBLISHED[view][0]}, view


def test_only_a_tables_owner_names_it_in_sql() -> None:
    """Issue 37: a module's SQL names only the tables its part owns; every other part asks the
    owner through typed functions. The crossings left are listed above, each with its reason,
    and an excuse nothing uses any more fails too."""
    tables = _tables()
    used: set[tuple[str, str]] = set()
    offences = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        for line, table in named_tables(path, tables):
            if _owns(OWNERS[table], module):
                continue
            excuse = _excused(module, table)
            if excuse is None:
                offences.append(f"{module}:{line} names {table} (owner: {OWNERS[table]})")
            else:
                used.add(excuse)
    assert offences == []
    assert [key for key in CROSSINGS if key not in used] == []
