"""The documentation keeps up with the code: every setting and every subcommand is described."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from habicht.cli import build_parser
from habicht.config import Settings

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def subcommands(parser: argparse.ArgumentParser, prefix: str = "habicht") -> list[str]:
    """`habicht run`, `habicht queue stats`, … for every leaf of the parser."""
    found: list[str] = []
    for action in parser._actions:  # argparse has no public API for listing subparsers
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                nested = subcommands(sub, f"{prefix} {name}")
                found.extend(nested or [f"{prefix} {name}"])
    return found


@pytest.mark.parametrize(("env", "default", "help_text"), Settings.documented())
def test_every_setting_is_in_the_readme_table(env: str, default: str, help_text: str) -> None:
    """The README's configuration table has a row for each HABICHT_* setting."""
    assert f"| `{env}` |" in README


@pytest.mark.parametrize("command", subcommands(build_parser()))
def test_every_subcommand_is_in_the_readme(command: str) -> None:
    """Each subcommand appears in the README's command table."""
    assert f"`{command}" in README


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
