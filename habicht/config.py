"""Settings: one typed, immutable object read from the environment and a `.env` file.

Every setting is one row of `Settings`: its environment name, default and help live on
the field, and the value is parsed by the type of the default. A bad value raises
`ConfigError` with one sentence naming the variable; the CLI prints it and exits 2, so an
operator never reads a traceback for a typo.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from habicht.digits import row_id, whole_number

__all__ = ["ConfigError", "Settings", "load_settings", "parse_replica", "read_env_file"]


_DAY = 86400
_WEEK = 7 * _DAY


class ConfigError(Exception):
    """A setting is missing or malformed; the message names the variable and what to do."""


def _setting(
    env: str,
    default: Any,
    help: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
) -> Any:
    """A field that knows its environment name, help and bounds (numbers only)."""
    bounds = {"minimum": minimum, "maximum": maximum}
    return field(default=default, metadata={"env": env, "help": help, **bounds})


@dataclass(frozen=True, kw_only=True)
class Settings:
    """All of habicht's configuration; see DESIGN.md's configuration contract (keep in sync)."""

    bot_token: str = _setting("HABICHT_BOT_TOKEN", "", "Telegram bot token (required for run)")
    admin_ids: frozenset[int] = _setting(
        "HABICHT_ADMIN_IDS", frozenset(), "comma-separated Telegram user ids of the owners"
    )
    db: Path = _setting(
        "HABICHT_DB",
        Path("data/habicht.sqlite3"),
        "SQLite database path: habicht's own file, or none yet (another program's is refused)",
    )
    scrape_interval: float = _setting(
        "HABICHT_SCRAPE_INTERVAL",
        300.0,
        "seconds from one scan of a search to its next (a target the fetch gap may stretch)",
        minimum=1,
        maximum=_WEEK,
    )
    feed_interval: float = _setting(
        "HABICHT_FEED_INTERVAL",
        60.0,
        "seconds from one read of a category feed to its next (0: no feeds)",
        minimum=0,
        maximum=_DAY,
    )
    safety_interval: float = _setting(
        "HABICHT_SAFETY_INTERVAL",
        1800.0,
        "the longest a search a feed serves waits for its own scan under load (the safety"
        " net); with budget to spare it is scanned every HABICHT_SCRAPE_INTERVAL",
        minimum=1,
        maximum=_WEEK,
    )
    queue_interval: float = _setting(
        "HABICHT_QUEUE_INTERVAL", 30.0, "seconds between queue drains", minimum=0.1, maximum=_DAY
    )
    queue_batch: int = _setting(
        "HABICHT_QUEUE_BATCH",
        50,
        "most notifications a drain holds claimed at once",
        minimum=1,
        maximum=1000,
    )
    digest_after: int = _setting(
        "HABICHT_DIGEST_AFTER",
        5,
        "more alerts than this due at once for one chat go out as a digest",
        minimum=1,
        maximum=1000,
    )
    max_attempts: int = _setting(
        "HABICHT_MAX_ATTEMPTS", 5, "failed attempts before an item is dead", minimum=1, maximum=100
    )
    backoff_base: float = _setting(
        "HABICHT_BACKOFF_BASE", 60.0, "first retry delay in seconds", minimum=0, maximum=_WEEK
    )
    backoff_cap: float = _setting(
        "HABICHT_BACKOFF_CAP", 3600.0, "longest retry delay in seconds", minimum=0, maximum=_WEEK
    )
    message_ttl: float = _setting(
        "HABICHT_MESSAGE_TTL",
        86400.0,
        "seconds after which an undelivered item is dead",
        minimum=1,
        maximum=30 * _DAY,
    )
    fetch_gap: float = _setting(
        "HABICHT_FETCH_GAP",
        2.0,
        "least seconds between two requests to willhaben",
        minimum=0,
        maximum=3600,
    )
    max_watches: int = _setting(
        "HABICHT_MAX_WATCHES", 20, "watches one chat may have", minimum=1, maximum=1000
    )
    lang: str = _setting("HABICHT_LANG", "de", "language of subscriber texts: de or en")
    telegram_api: str = _setting(
        "HABICHT_TELEGRAM_API", "https://api.telegram.org/bot", "Bot API base URL"
    )
    willhaben_url: str = _setting(
        "HABICHT_WILLHABEN_URL", "https://www.willhaben.at", "where willhaben requests go"
    )
    follow_days: float = _setting(
        "HABICHT_FOLLOW_DAYS",
        7.0,
        "days a sent alert follows its advert: edited when reserved, cheaper or gone (0: off)",
        minimum=0,
        maximum=30,
    )
    retention_days: int = _setting(
        "HABICHT_RETENTION_DAYS",
        30,
        "sent and dead notifications older than this many days are purged daily",
        minimum=1,
        maximum=3650,
    )
    metrics_port: int = _setting(
        "HABICHT_METRICS_PORT",
        0,
        "port of the Prometheus /metrics endpoint; 0 = off",
        minimum=0,
        maximum=65535,
    )
    metrics_host: str = _setting(
        "HABICHT_METRICS_HOST", "127.0.0.1", "address the /metrics endpoint listens on"
    )
    replica: str = _setting(
        "HABICHT_REPLICA",
        "",
        "where the database is replicated continuously (Litestream): a folder, file:///…,"
        " or s3://bucket/path; empty: no replica",
    )
    replica_lag: float = _setting(
        "HABICHT_REPLICA_LAG",
        60.0,
        "seconds the replica may lag behind before `habicht health` says unhealthy",
        minimum=5,
        maximum=_DAY,
    )

    def __post_init__(self) -> None:
        if self.backoff_cap < self.backoff_base:
            raise ConfigError(
                f"HABICHT_BACKOFF_CAP ({self.backoff_cap:g}) must not be below "
                f"HABICHT_BACKOFF_BASE ({self.backoff_base:g})"
            )
        if not self.metrics_host.strip():
            raise ConfigError("HABICHT_METRICS_HOST must be an address to listen on, got ''")
        if self.lang not in ("de", "en"):
            raise ConfigError(f"HABICHT_LANG must be 'de' or 'en', got {self.lang!r}")
        urls = (
            ("HABICHT_TELEGRAM_API", self.telegram_api),
            ("HABICHT_WILLHABEN_URL", self.willhaben_url),
        )
        for name, value in urls:
            if urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).netloc:
                raise ConfigError(f"{name} must be an http(s) URL, got {value!r}")
        parse_replica(self.replica)  # refuses one it cannot replicate to

    @property
    def replica_url(self) -> str | None:
        """HABICHT_REPLICA as Litestream takes it (`file:///…` or `s3://…`); None: no replica."""
        return parse_replica(self.replica)

    def require_token(self) -> str:
        """The bot token, or a `ConfigError` saying how to provide one."""
        if not self.bot_token.strip():
            raise ConfigError("HABICHT_BOT_TOKEN is required: set it to the token @BotFather gave")
        return self.bot_token.strip()

    @staticmethod
    def documented() -> list[tuple[str, str, str]]:
        """(variable, default, help) for every setting: the source of --help and of
        docs/configuration.md."""
        return [(f.metadata["env"], _show(f.default), f.metadata["help"]) for f in fields(Settings)]


def parse_replica(raw: str) -> str | None:
    """HABICHT_REPLICA as a Litestream replica URL: a folder (absolute, or relative to the
    working directory) or `file:///abs/path` becomes `file:///abs/path`, `s3://bucket/path`
    stays; empty is None (no replica). Anything else is a `ConfigError`."""
    raw = raw.strip()
    if not raw:
        return None
    parts = urlsplit(raw)
    if parts.scheme == "s3":
        if not parts.netloc:
            raise ConfigError(f"HABICHT_REPLICA must name a bucket: s3://bucket/path, got {raw!r}")
        return raw
    if parts.scheme == "file":
        if parts.netloc or not parts.path.startswith("/"):
            raise ConfigError(f"HABICHT_REPLICA must be file:///an/absolute/path, got {raw!r}")
        return f"file://{parts.path}"
    if parts.scheme and len(parts.scheme) > 1:  # a drive letter is no scheme, but not here
        raise ConfigError(f"HABICHT_REPLICA must be a folder, file:///… or s3://…, got {raw!r}")
    return f"file://{Path(raw).resolve()}"


def _show(value: Any) -> str:
    if isinstance(value, frozenset):
        return ",".join(str(v) for v in sorted(value))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _parse(env: str, raw: str, default: Any, minimum: float | None, maximum: float | None) -> Any:
    """Parse `raw` by the type of `default`, or raise a `ConfigError` naming `env`."""
    raw = raw.strip()
    if isinstance(default, frozenset):
        parts = [part.strip() for part in raw.split(",") if part.strip()]
        ids = [row_id(part) for part in parts]
        if None in ids:
            raise ConfigError(f"{env} must be comma-separated Telegram user ids, got {raw!r}")
        return frozenset(i for i in ids if i is not None)
    if isinstance(default, Path):
        if not raw:
            raise ConfigError(f"{env} must be a file path, got an empty value")
        return Path(raw)
    if isinstance(default, bool | str):
        return raw
    value = _number(env, raw, integer=isinstance(default, int))
    if value != value or value in (float("inf"), float("-inf")):
        raise ConfigError(f"{env} must be a finite number, got {raw!r}")
    if minimum is not None and value < minimum:
        raise ConfigError(f"{env} must be at least {_show(minimum)}, got {raw!r}")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{env} must be at most {_show(maximum)}, got {raw!r}")
    return value


def _number(env: str, raw: str, *, integer: bool) -> int | float:
    """`raw` as an integer (an optional minus, then ASCII digits: `habicht.digits`) or a
    number (what `float` reads, in ASCII: it would take "٣" too)."""
    if integer:
        # Long enough for any value to reach the bounds check and be named "at most …".
        digits = whole_number(raw.removeprefix("-"), max_digits=100)
        if digits is None:
            raise ConfigError(f"{env} must be an integer, got {raw!r}")
        return -digits if raw.startswith("-") else digits
    try:
        if not raw.isascii():
            raise ValueError(raw)
        return float(raw)
    except ValueError:
        raise ConfigError(f"{env} must be a number, got {raw!r}") from None


def read_env_file(path: Path) -> dict[str, str]:
    """`KEY=value` lines of a `.env` file; blank lines, comments and `export ` are allowed."""
    if not path.is_file():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} cannot be read as UTF-8 text: {exc}") from None
    values: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").strip()
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{path}:{number}: expected KEY=value, got {line!r}")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def load_settings(
    environ: Mapping[str, str] | None = None, *, env_file: Path | None = Path(".env")
) -> Settings:
    """Settings from `environ` (default: the process environment) over the `.env` file.

    The real environment wins over `.env`, so a container's `environment:` overrides the file.
    """
    source: dict[str, str] = read_env_file(env_file) if env_file is not None else {}
    source.update(os.environ if environ is None else environ)
    values: dict[str, Any] = {}
    for f in fields(Settings):
        env = f.metadata["env"]
        if env in source:
            meta = f.metadata
            values[f.name] = _parse(env, source[env], f.default, meta["minimum"], meta["maximum"])
    return Settings(**values)
