"""Keep the bot token out of every log line, at every level, from every library.

python-telegram-bot's HTTP requests carry the token in the URL path
(`https://api.telegram.org/bot<token>/sendMessage`), and httpx logs request URLs at INFO and
puts them into exception messages. Quieting the `httpx` logger (done in `habicht.cli`) is
the first guard; this is the second, and the one that holds at DEBUG: a log-record factory
that rewrites each record's message, traceback and stack text with the secret replaced, before
any handler or filter sees it. A factory rather than a handler filter, because pytest, a
container runtime or a library may add handlers we never attached a filter to.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

__all__ = ["REDACTED", "redacted_logs", "scrub"]

REDACTED = "[REDACTED]"


def _forms(secret: str) -> tuple[str, ...]:
    """The secret as written and as it appears URL-quoted (`:` becomes `%3A`)."""
    return tuple(s for s in dict.fromkeys((secret, quote(secret, safe=""))) if s)


def _scrub(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return text


def scrub(text: str, secret: str) -> str:
    """`text` with every occurrence of `secret` replaced: for error texts sent to the owner."""
    return _scrub(text, _forms(secret))


def _redact(record: logging.LogRecord, secrets: tuple[str, ...]) -> None:
    try:
        message = record.getMessage()
    except Exception:  # a broken format string: keep its parts, scrubbed
        message = f"{record.msg} {record.args}"
    record.msg, record.args = _scrub(message, secrets), None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = _scrub(record.exc_text, secrets)
    if record.stack_info:
        record.stack_info = _scrub(record.stack_info, secrets)


@contextmanager
def redacted_logs(secret: str) -> Iterator[None]:
    """While inside, no log record contains `secret` (nor its URL-quoted form).

    Records created inside are rewritten once, at creation; the previous factory is
    restored on exit.
    """
    secrets = _forms(secret)
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _redact(record, secrets)
        return record

    logging.setLogRecordFactory(factory)
    try:
        yield
    finally:
        logging.setLogRecordFactory(previous)
