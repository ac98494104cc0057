"""Retry policy: the backoff formula and the classification of every Telegram error."""

from __future__ import annotations

import inspect
import random
import subprocess
import sys
from dataclasses import replace
from datetime import timedelta
from typing import get_args

import pytest
from telegram import error as tg

from habicht.queue.policy import (
    Dead,
    Fatal,
    Migrate,
    Outcome,
    Retry,
    RetryAt,
    backoff,
    classify,
    error_rules,
    retry_after_seconds,
)


def test_backoff_is_full_jitter_below_the_doubling_ceiling() -> None:
    """Attempt n waits uniform(0, min(cap, base·2^(n-1))) — reproducible with a seed."""
    for attempt, ceiling in [(1, 60), (2, 120), (3, 240), (6, 1920), (7, 3600), (50, 3600)]:
        delays = [
            backoff(attempt, base=60, cap=3600, rand=random.Random(seed)) for seed in range(200)
        ]
        assert all(0 <= d <= ceiling for d in delays)
        assert max(delays) > 0.9 * ceiling
    assert backoff(3, base=60, cap=3600, rand=random.Random(1)) == backoff(
        3, base=60, cap=3600, rand=random.Random(1)
    )


@pytest.mark.parametrize("attempt", [0, -3, 1024, 10_000, 10**9])
def test_backoff_stays_clamped_at_any_attempt(attempt: int) -> None:
    """No overflow and no negative delay, whatever the attempt number (cf. stamina #104)."""
    assert 0 <= backoff(attempt, base=60, cap=3600, rand=random.Random(0)) <= 3600


@pytest.mark.parametrize("value", [7, 7.0, timedelta(seconds=7)], ids=["int", "float", "timedelta"])
def test_retry_after_becomes_seconds(value: int | float | timedelta) -> None:
    """retry_after arrives as an int or a timedelta; both mean the same seconds."""
    assert retry_after_seconds(value) == 7.0


def test_every_telegram_error_class_has_its_own_row() -> None:
    """Walking telegram.error: each exception class is named in the table, none shadowed."""
    classes = {
        cls
        for _, cls in inspect.getmembers(tg, inspect.isclass)
        if issubclass(cls, Exception) and cls.__module__ == tg.__name__
    }
    assert classes, "telegram.error exposes no classes?"
    named = [cls for cls, _ in error_rules()]
    assert classes - set(named) == set()
    for i, earlier in enumerate(named):
        for later in named[i + 1 :]:
            assert not issubclass(later, earlier), f"{later} is shadowed by {earlier}"


@pytest.mark.parametrize(
    ("exc", "outcome"),
    [
        (tg.Forbidden("Forbidden: bot was blocked by the user"), Dead("", "blocked", True)),
        (tg.Forbidden("Forbidden: user is deactivated"), Dead("", "deactivated", True)),
        (tg.Forbidden("Forbidden: bot was kicked from the group chat"), Dead("", "kicked", True)),
        (
            tg.Forbidden("Forbidden: bot is not a member of the channel chat"),
            Dead("", "kicked", True),
        ),
        (
            tg.Forbidden("Forbidden: bot can't initiate conversation with a user"),
            Dead("", "not_started", False),  # issue 19 (11): never started, not a block
        ),
        (tg.Forbidden("Forbidden: something new"), Dead("", "forbidden", True)),
        (tg.BadRequest("Bad Request: chat not found"), Dead("", "chat_not_found", True)),
        (tg.BadRequest("Bad Request: PEER_ID_INVALID"), Dead("", "chat_not_found", True)),
        (tg.BadRequest("Bad Request: message is too long"), Dead("", "bad_request", False)),
        (tg.BadRequest("Bad Request: can't parse entities"), Dead("", "bad_request", False)),
        (
            tg.BadRequest("Bad Request: message thread not found"),
            Dead("", "topic_deleted", topic_gone=True),
        ),
        (tg.BadRequest("Bad Request: TOPIC_DELETED"), Dead("", "topic_deleted", topic_gone=True)),
        (tg.BadRequest("Bad Request: TOPIC_CLOSED"), Dead("", "topic_closed", topic_gone=True)),
        (tg.TimedOut(), Retry("")),
        (tg.NetworkError("Bad Gateway"), Retry("")),
        (tg.Conflict("terminated by other getUpdates request"), Retry("")),
        (tg.TelegramError("Invalid server response"), Retry("")),
        (tg.ChatMigrated(-1009), Migrate("", -1009)),
        (tg.InvalidToken(), Fatal("")),
        (tg.EndPointNotFound("Endpoint 'x' not found"), Fatal("")),
        (tg.PassportDecryptionError("bad key"), Dead("", "bad_request", False)),
        (KeyError("surprise"), Retry("", unexpected=True)),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_classify_maps_class_and_text(exc: Exception, outcome: Outcome) -> None:
    """Most specific class first, then a case-insensitive substring of PTB's rewritten text;
    the error text is always kept."""
    got = classify(exc)
    assert got.error
    assert replace(got, error="") == outcome


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
def test_classify_reads_retry_after_as_int(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 429 in PTB's int mode is retried after exactly its seconds."""
    monkeypatch.setenv("PTB_TIMEDELTA", "false")
    assert classify(tg.RetryAfter(12)) == RetryAt(
        "Flood control exceeded. Retry in 12 seconds", 12.0
    )


def test_classify_reads_retry_after_as_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 429 in PTB's timedelta mode is retried after exactly its seconds, without a warning."""
    monkeypatch.setenv("PTB_TIMEDELTA", "true")
    outcome = classify(tg.RetryAfter(timedelta(seconds=12)))
    assert isinstance(outcome, RetryAt)
    assert outcome.delay == 12.0


def test_each_outcome_names_itself_as_the_metrics_count_it() -> None:
    """`/metrics` counts a failed send by its outcome's `label` (`habicht_sends_total`): the
    operators' dashboards read these names, so a renamed class never changes them."""
    assert {outcome: outcome.label for outcome in get_args(Outcome)} == {
        Retry: "retry",
        RetryAt: "retry_after",
        Dead: "dead",
        Migrate: "migrated",
        Fatal: "fatal",
    }


@pytest.mark.parametrize("module", ["habicht.scraper", "habicht.queue"])
def test_importing_the_queue_does_not_load_telegram(module: str) -> None:
    """The scraper imports the queue and knows nothing of Telegram: neither import loads
    `telegram`, whose error table `classify` builds on first use (review of issue 2)."""
    check = (
        f"import {module}, sys; "
        "assert not any(m == 'telegram' or m.startswith('telegram.') for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", check], check=True)
