"""The benchmarks cannot rot: CI runs every script's `--quick` mode (`make bench-quick` in
`.ci/run`), so one that breaks fails there. What that run cannot catch is a script without a
quick mode that ignores its command line — CI would run its full form, minutes long — or a
CI file that stops running them: checked here, without running any benchmark."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py"))


def test_the_benchmarks_are_found() -> None:
    expected = {
        "charts.py",
        "delivery.py",
        "flats.py",
        "following.py",
        "freshness.py",
        "matching.py",
        "outbox.py",
        "parse.py",
        "replica.py",
        "scale.py",
        "stall.py",
    }
    assert expected <= {s.name for s in SCRIPTS}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda script: script.name)
def test_every_benchmark_has_a_quick_mode(script: Path) -> None:
    """Its command line offers `--quick` (what `make bench-quick` passes every script)."""
    shown = subprocess.run(
        [sys.executable, str(script), "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert "--quick" in shown.stdout


def test_ci_runs_the_quick_benchmarks_after_the_tests() -> None:
    steps = (ROOT / ".ci/run").read_text(encoding="utf-8").splitlines()
    assert steps.index("make bench-quick") > steps.index("make test")
