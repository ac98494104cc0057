"""The bot token never reaches a log line, whatever logs it and at whatever level."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest
from kit.bot import ALICE

from habicht.bot.redact import REDACTED, redacted_logs, scrub
from habicht.cli import main
from habicht.fakes.telegram import FakeBotAPI

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


@pytest.mark.usefixtures("restore_logging")
def test_habicht_run_redacts_while_it_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """`habicht run` wraps all it runs in the redactor: a line carrying the token, logged by
    any library while the bot polls, reaches the handlers scrubbed. (The tests above call
    `redacted_logs` themselves; this one fails if `habicht run` never installs it.)"""
    with FakeBotAPI() as api, api.serve() as server:
        base_url = server.base_url
        monkeypatch.setenv("HABICHT_BOT_TOKEN", api.token)
        monkeypatch.setenv("HABICHT_TELEGRAM_API", base_url)
        monkeypatch.setenv("HABICHT_DB", str(tmp_path / "habicht.sqlite3"))

        def leak_then_stop() -> None:
            """Once the bot polls, log the token as a library's request line would; then
            end the run (a revoked token stops it with exit 1)."""
            try:
                api.wait_until(lambda: api.calls["getUpdates"] > 0, timeout=20, what="a poll")
                logging.getLogger("some.library").warning(
                    "POST %s%s/getUpdates", base_url, api.token
                )
            finally:
                api.revoke_token()
                api.push_message(-100, ALICE, "hallo")  # ends the long poll

        helper = threading.Thread(target=leak_then_stop)
        helper.start()
        try:
            assert main(["run"]) == 1
        finally:
            helper.join(timeout=30)
    [line] = [r.getMessage() for r in caplog.records if r.name == "some.library"]
    assert line == f"POST {base_url}{REDACTED}/getUpdates"
