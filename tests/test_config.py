"""Settings: defaults, parsing by type, and one clear line for every bad value."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from habicht.config import ConfigError, Settings, load_settings


def test_defaults_match_the_design_contract() -> None:
    """With nothing set, every setting has DESIGN.md's default."""
    s = load_settings({}, env_file=None)
    assert s.db == Path("data/habicht.sqlite3")
    assert (s.scrape_interval, s.queue_interval, s.queue_batch) == (300, 30, 50)
    assert (s.max_attempts, s.backoff_base, s.backoff_cap, s.message_ttl) == (5, 60, 3600, 86400)
    assert (s.fetch_gap, s.max_watches, s.lang) == (2, 20, "de")
    assert s.admin_ids == frozenset()
    assert s.telegram_api == "https://api.telegram.org/bot"
    assert s.willhaben_url == "https://www.willhaben.at"


def test_values_parse_by_the_type_of_their_default() -> None:
    """Numbers, id lists and paths come from strings."""
    s = load_settings(
        {
            "HABICHT_ADMIN_IDS": " 12, 34 ,",
            "HABICHT_QUEUE_BATCH": "7",
            "HABICHT_BACKOFF_BASE": "0.5",
            "HABICHT_DB": "/tmp/x.db",
            "HABICHT_LANG": "en",
        },
        env_file=None,
    )
    assert s.admin_ids == frozenset({12, 34})
    assert s.queue_batch == 7
    assert s.backoff_base == 0.5
    assert s.db == Path("/tmp/x.db")
    assert s.lang == "en"


@pytest.mark.parametrize(
    ("env", "value", "message"),
    [
        ("HABICHT_QUEUE_BATCH", "fifty", "HABICHT_QUEUE_BATCH must be an integer, got 'fifty'"),
        ("HABICHT_QUEUE_BATCH", "0", "HABICHT_QUEUE_BATCH must be at least 1"),
        ("HABICHT_SCRAPE_INTERVAL", "nan", "HABICHT_SCRAPE_INTERVAL must be a finite number"),
        ("HABICHT_ADMIN_IDS", "alice", "HABICHT_ADMIN_IDS must be comma-separated"),
        # Issue 19 (9): digits that `int()` and `float()` take but are not ASCII.
        ("HABICHT_ADMIN_IDS", "1,\u0661\u0662", "HABICHT_ADMIN_IDS must be comma-separated"),
        ("HABICHT_QUEUE_BATCH", "\u0665\u0660", "HABICHT_QUEUE_BATCH must be an integer"),
        ("HABICHT_QUEUE_BATCH", "1_000", "HABICHT_QUEUE_BATCH must be an integer"),
        ("HABICHT_FETCH_GAP", "\u0662", "HABICHT_FETCH_GAP must be a number"),
        ("HABICHT_LANG", "fr", "HABICHT_LANG must be 'de' or 'en'"),
        ("HABICHT_BACKOFF_CAP", "10", "HABICHT_BACKOFF_CAP (10) must not be below"),
        ("HABICHT_WILLHABEN_URL", "ftp://x", "HABICHT_WILLHABEN_URL must be an http(s) URL"),
        ("HABICHT_DB", "  ", "HABICHT_DB must be a file path"),
        (
            "HABICHT_MAX_ATTEMPTS",
            "99999999999999999999",
            "HABICHT_MAX_ATTEMPTS must be at most 100",
        ),
        ("HABICHT_MESSAGE_TTL", "1e12", "HABICHT_MESSAGE_TTL must be at most 2592000"),
    ],
)
def test_a_bad_value_names_its_variable(env: str, value: str, message: str) -> None:
    """Each malformed value raises one sentence that names the variable."""
    with pytest.raises(ConfigError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        load_settings({env: value}, env_file=None)


def test_env_file_is_read_and_the_environment_wins(tmp_path: Path) -> None:
    """`.env` supplies values; the real environment overrides them."""
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# comment\nexport HABICHT_QUEUE_BATCH=9\nHABICHT_LANG='en'\n\nHABICHT_MAX_WATCHES=3\n"
    )
    s = load_settings({"HABICHT_MAX_WATCHES": "4"}, env_file=env_file)
    assert (s.queue_batch, s.lang, s.max_watches) == (9, "en", 4)


def test_an_unreadable_env_file_is_one_clear_error(tmp_path: Path) -> None:
    """A `.env` that is not UTF-8 text is refused with its path, not a traceback."""
    env_file = tmp_path / ".env"
    env_file.write_bytes(b"HABICHT_LANG=\xff\xfe\n")
    with pytest.raises(ConfigError, match=r"\.env cannot be read as UTF-8 text"):
        load_settings({}, env_file=env_file)


def test_token_is_required_only_when_asked_for() -> None:
    """A missing token is fine for `queue stats`, but `require_token` explains how to set it."""
    s = load_settings({}, env_file=None)
    with pytest.raises(ConfigError, match="HABICHT_BOT_TOKEN is required"):
        s.require_token()
    assert load_settings({"HABICHT_BOT_TOKEN": " 1:abc "}, env_file=None).require_token() == "1:abc"


def test_settings_are_immutable() -> None:
    """Settings cannot be changed after startup."""
    s = Settings()
    with pytest.raises(AttributeError, match="cannot assign to field"):
        s.queue_batch = 3  # type: ignore[misc]  # the point of the test is that this fails


def test_cli_reports_bad_config_in_one_line_with_exit_2(tmp_path: Path) -> None:
    """A real `habicht` process refuses a bad setting with one stderr line, no traceback."""
    result = subprocess.run(
        [sys.executable, "-m", "habicht", "queue", "stats"],
        env={"HABICHT_QUEUE_BATCH": "fifty", "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "habicht: error: HABICHT_QUEUE_BATCH must be an integer, got 'fifty'"
    ]


@pytest.mark.parametrize(
    ("given", "url"),
    [
        ("", None),
        ("/srv/replica", "file:///srv/replica"),
        ("file:///srv/replica", "file:///srv/replica"),
        ("s3://bucket/habicht", "s3://bucket/habicht"),
    ],
)
def test_the_replica_is_a_folder_a_file_url_or_s3(given: str, url: str | None) -> None:
    """Issue 35: HABICHT_REPLICA as Litestream takes it; a relative folder is made absolute."""
    assert load_settings({"HABICHT_REPLICA": given}, env_file=None).replica_url == url
    relative = load_settings({"HABICHT_REPLICA": "replica"}, env_file=None).replica_url
    assert relative == f"file://{Path('replica').resolve()}"


@pytest.mark.parametrize(
    "given", ["http://example.com/x", "file://relative/x", "s3://", "gs://b/p"]
)
def test_a_replica_habicht_cannot_write_to_is_one_clear_line(given: str) -> None:
    with pytest.raises(ConfigError, match=r"^HABICHT_REPLICA must"):
        load_settings({"HABICHT_REPLICA": given}, env_file=None)
