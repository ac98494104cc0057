"""The bot token never reaches a log line, whatever logs it and at whatever level."""

from __future__ import annotations

import logging

import pytest

from habicht.bot.redact import REDACTED, redacted_logs, scrub

TOKEN = "123456:ABC-secret_token"


def test_messages_arguments_and_tracebacks_are_scrubbed(caplog: pytest.LogCaptureFixture) -> None:
    """A DEBUG message, its %-arguments and an exception's traceback all lose the token."""
    log = logging.getLogger("httpx")
    # `httpx` by name: `habicht.cli` raises that logger to WARNING, and tests may have run it.
    with caplog.at_level(logging.DEBUG, logger="httpx"), redacted_logs(TOKEN):
        log.debug("GET https://api.telegram.org/bot%s/getMe", TOKEN)
        log.info("quoted: 123456%3AABC-secret_token")
        try:
            raise RuntimeError(f"POST /bot{TOKEN}/sendMessage failed")
        except RuntimeError:
            log.exception("send failed")
    text = caplog.text
    assert TOKEN not in text
    assert "123456%3AABC" not in text
    assert text.count(REDACTED) == 3


def test_the_previous_record_factory_is_restored(caplog: pytest.LogCaptureFixture) -> None:
    """Outside the block, records are left alone again."""
    with redacted_logs(TOKEN):
        pass
    with caplog.at_level(logging.INFO):
        logging.getLogger("x").info("not a secret: %s", "ABC")
    assert caplog.records[-1].getMessage() == "not a secret: ABC"


def test_scrub_hides_the_token_in_any_text() -> None:
    """Error texts forwarded to the owner are scrubbed the same way."""
    assert scrub(f"url /bot{TOKEN}/x", TOKEN) == f"url /bot{REDACTED}/x"
