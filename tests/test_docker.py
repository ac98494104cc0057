"""The container files: no Docker daemon here, so check what the image would run, and that it
behaves (the end-to-end tests run exactly these commands against a live process)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from habicht.cli import build_parser
from habicht.config import Settings, load_settings, read_env_file

ROOT = Path(__file__).parent.parent
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")
COMPOSE = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
ENV_EXAMPLE = ROOT / ".env.example"
HABICHT = Path(sys.executable).parent / "habicht"


def _instruction(name: str) -> list[str]:
    """The exec-form JSON argument list of the Dockerfile's (last) `name` instruction."""
    joined = DOCKERFILE.replace("\\\n", " ")
    found = re.findall(rf"^{name}\s+(?:--\S+\s+)*(?:CMD\s+)?(\[.*\])\s*$", joined, re.MULTILINE)
    assert found, f"no exec-form {name} in the Dockerfile"
    return list(json.loads(found[-1]))


def _run(argv: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HABICHT_")}
    return subprocess.run(
        [str(HABICHT), *argv[1:]],
        cwd=tmp_path,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_cmd_and_healthcheck_name_existing_commands() -> None:
    """CMD runs `habicht run`, HEALTHCHECK `habicht health`: a console script and subcommands."""
    cmd, check = _instruction("CMD"), _instruction("HEALTHCHECK")
    assert cmd == ["habicht", "run"]
    assert check == ["habicht", "health"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["habicht"] == "habicht.cli:main"
    for argv in (cmd, check):
        assert build_parser().parse_args(argv[1:]).command == argv[1]
    assert HABICHT.is_file()


def test_healthcheck_command_is_unhealthy_without_a_running_bot(tmp_path: Path) -> None:
    """The HEALTHCHECK command prints JSON and exits 1 when no bot has written a heartbeat."""
    result = _run(_instruction("HEALTHCHECK"), tmp_path, HABICHT_DB=str(tmp_path / "x.sqlite3"))
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "unhealthy"
    assert "no database" in report["reason"]
    assert not (tmp_path / "x.sqlite3").exists()


def test_cmd_without_a_token_fails_with_one_line(tmp_path: Path) -> None:
    """The CMD without HABICHT_BOT_TOKEN stops at once with one line naming the variable."""
    result = _run(_instruction("CMD"), tmp_path, HABICHT_DB=str(tmp_path / "x.sqlite3"))
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "HABICHT_BOT_TOKEN" in result.stderr


def test_image_runs_as_non_root_with_data_volume() -> None:
    """A non-root user, the database inside the /app/data volume and the replica in one of
    its own, on a slim Python base."""
    assert re.search(r"^FROM python:3\.11-slim\b", DOCKERFILE, re.MULTILINE)
    users = re.findall(r"^USER\s+(\S+)", DOCKERFILE, re.MULTILINE)
    assert users
    assert users[-1] not in ("root", "0")
    assert re.search(r'^VOLUME\s+\["/app/data", "/app/replica"\]', DOCKERFILE, re.MULTILINE)
    assert "HABICHT_DB=/app/data/habicht.sqlite3" in DOCKERFILE


def test_dependencies_are_their_own_layer() -> None:
    """Only pyproject.toml is copied before the dependencies install; the code comes after."""
    joined = DOCKERFILE.replace("\\\n", " ").splitlines()
    lines = [line for line in joined if re.match(r"^(COPY|RUN)\b", line)]
    first_copy = next(i for i, line in enumerate(lines) if line.startswith("COPY"))
    assert lines[first_copy].split()[1:] == ["pyproject.toml", "./"]
    assert "pip install -r" in lines[first_copy + 1]
    code = next(i for i, line in enumerate(lines) if line.startswith("COPY habicht"))
    assert code > first_copy + 1


def test_compose_replicates_to_a_volume_of_its_own() -> None:
    """Issue 35: compose turns the live replica on, on a second named volume (unless .env
    points HABICHT_REPLICA elsewhere)."""
    assert re.search(r"HABICHT_REPLICA: \$\{HABICHT_REPLICA:-/app/replica\}", COMPOSE)
    assert re.search(r"^\s+- habicht-replica:/app/replica\s*$", COMPOSE, re.MULTILINE)
    assert re.search(r"^  habicht-replica:\n    name: habicht-replica$", COMPOSE, re.MULTILINE)


def test_compose_limits_the_bots_memory() -> None:
    """Issue 35: the habicht service runs under a memory limit between 256 MB and 2 GB, its
    size argued from measurements in the comment right above it."""
    found = re.search(
        r"^services:\n  habicht:\n(?:    .*\n|\s*\n)*?((?:    #.*\n)+)    mem_limit: (\d+)m$",
        COMPOSE,
        re.MULTILINE,
    )
    assert found, "no mem_limit (in MB, with a comment above it) for the habicht service"
    comment, megabytes = found.group(1), int(found.group(2))
    assert 256 <= megabytes <= 2048
    assert re.search(r"\d+ MB", comment), "the comment names no measured figure"


def test_compose_restarts_and_keeps_the_data() -> None:
    """The service restarts unless stopped, reads .env, and keeps /app/data in a volume."""
    assert re.search(r"^\s+restart:\s+unless-stopped\s*$", COMPOSE, re.MULTILINE)
    assert re.search(r"^\s+env_file:\s+\.env\s*$", COMPOSE, re.MULTILINE)
    assert re.search(r"^\s+-\s+habicht-data:/app/data\s*$", COMPOSE, re.MULTILINE)
    assert re.search(r"^volumes:\s*\n\s+habicht-data:", COMPOSE, re.MULTILINE)


def test_compose_volume_has_a_name_of_its_own() -> None:
    """Issue 27: the data volume is named outright, so compose run from another folder or
    project name mounts the same database instead of a new, empty one."""
    assert re.search(
        r"^volumes:\s*\n\s+habicht-data:\s*\n(?:\s+#.*\n)*\s+name:\s+habicht-data\s*$",
        COMPOSE,
        re.MULTILINE,
    )


def test_dockerignore_keeps_secrets_and_local_state_out() -> None:
    """The token file, the virtualenv and the runtime database never enter the build context."""
    ignored = (ROOT / ".dockerignore").read_text().split()
    for path in (".env", ".venv", "data/", ".git"):
        assert path in ignored


def test_env_example_documents_every_setting_once() -> None:
    """.env.example names every HABICHT_* setting exactly once and no other."""
    names = re.findall(r"^#?\s*(HABICHT_[A-Z_]+)=", ENV_EXAMPLE.read_text(), re.MULTILINE)
    assert sorted(names) == sorted(env for env, _, _ in Settings.documented())


def test_env_example_shows_the_real_defaults_and_loads() -> None:
    """Its commented values are the defaults, and the file as shipped is valid configuration."""
    commented = "\n".join(
        line.removeprefix("# ")
        for line in ENV_EXAMPLE.read_text().splitlines()
        if re.match(r"^# HABICHT_[A-Z_]+=", line)
    )
    shown = dict(line.split("=", 1) for line in commented.splitlines())
    defaults = {env: default for env, default, _ in Settings.documented()}
    assert shown == {env: defaults[env] for env in shown}
    settings = load_settings({}, env_file=ENV_EXAMPLE)
    assert settings.require_token()
    assert read_env_file(ENV_EXAMPLE).keys() == {"HABICHT_BOT_TOKEN"}


@pytest.mark.parametrize("name", ["Dockerfile", "docker-compose.yml", ".env.example"])
def test_operating_docs_mention(name: str) -> None:
    """docs/operating.md, the operators' page, refers to each container file."""
    assert name in (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
