"""Retry policy: how long to wait (`backoff`) and what an error means (`classify`).

Pure functions: no clock, no I/O. The only Telegram knowledge of the queue lives here, in
one table from `telegram.error` classes to outcomes, built on the first `classify` — so
importing the queue (as the scraper does, which knows nothing of Telegram) never loads
`telegram`:

- `Retry`   — try again after a backoff (network trouble, 5xx, anything unknown);
- `RetryAt` — try again after exactly this delay (a 429's `retry_after`), no attempt spent;
- `Dead`    — never retry; `reason` is a short stable slug, `chat_gone` says the chat itself
              cannot be written to any more (blocked, deleted …) rather than this message;
- `Migrate` — the group became a supergroup: resend to `new_chat_id` at once;
- `Fatal`   — delivery as a whole cannot work (the token was revoked): stop, spend nothing.

Each outcome names itself (`label`: `retry`, `retry_after`, `dead`, `migrated`, `fatal`), the
name `/metrics` counts failed sends by (`habicht_sends_total{outcome}`), so that nothing
outside the queue needs the classes.
"""

from __future__ import annotations

import functools
import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from telegram import error as tg

__all__ = [
    "Dead",
    "Fatal",
    "Migrate",
    "Outcome",
    "Retry",
    "RetryAt",
    "backoff",
    "classify",
    "error_rules",
    "retry_after_seconds",
]

_MAX_DOUBLINGS = 62
"""2**62 exceeds any sane cap/base ratio; beyond it the delay is the cap anyway, and the
exponent never grows into a float overflow (stamina issue #104)."""


def backoff(attempt: int, *, base: float, cap: float, rand: random.Random) -> float:
    """Seconds to wait after failed attempt number `attempt` (1-based), with full jitter:

        uniform(0, min(cap, base · 2^(attempt-1)))

    — keep in sync with docs/internals/queue.md. Clamped for any attempt number.
    """
    doublings = min(max(attempt, 1) - 1, _MAX_DOUBLINGS)
    return rand.uniform(0.0, min(cap, base * float(2**doublings)))


def retry_after_seconds(value: int | float | timedelta) -> float:
    """A 429's `retry_after` (an int, or a timedelta since PTB 22.2) as seconds ≥ 0.

    The one place where this value is normalised."""
    seconds = value.total_seconds() if isinstance(value, timedelta) else float(value)
    return max(0.0, seconds)


@dataclass(frozen=True, slots=True)
class Retry:
    """Transient: retry after a backoff. `unexpected` marks an exception nobody mapped."""

    label: ClassVar[str] = "retry"
    error: str
    unexpected: bool = False


@dataclass(frozen=True, slots=True)
class RetryAt:
    """Rate-limited: retry after exactly `delay` seconds; the attempt is given back."""

    label: ClassVar[str] = "retry_after"
    error: str
    delay: float


@dataclass(frozen=True, slots=True)
class Dead:
    """Permanent: never retry. `reason` is a stable slug such as `blocked`; `chat_gone`: the
    chat cannot be written to any more, `topic_gone`: only the message's forum topic."""

    label: ClassVar[str] = "dead"
    error: str
    reason: str
    chat_gone: bool = False
    topic_gone: bool = False


@dataclass(frozen=True, slots=True)
class Migrate:
    """The chat moved to `new_chat_id` (a group upgraded to a supergroup)."""

    label: ClassVar[str] = "migrated"
    error: str
    new_chat_id: int


@dataclass(frozen=True, slots=True)
class Fatal:
    """Nothing can be delivered (the bot token is invalid): stop draining."""

    label: ClassVar[str] = "fatal"
    error: str


Outcome = Retry | RetryAt | Dead | Migrate | Fatal


Rule = tuple[type[BaseException], Callable[[Any], Outcome]]
"""A row of the table: an exception class, and what an instance of it means."""


def _retry_after(exc: tg.RetryAfter) -> Outcome:
    from telegram.warnings import PTBDeprecationWarning  # lazily, as in `error_rules`

    # Reading `retry_after` warns unless PTB_TIMEDELTA is set; either type is fine here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = exc.retry_after
    return RetryAt(str(exc), retry_after_seconds(value))


_TOPIC_GONE = frozenset({"topic_deleted", "topic_closed"})
"""Slugs of a forum topic the bot cannot post in any more (the group itself is fine)."""


def _text_rule(
    slugs: tuple[tuple[str, str], ...], default: str, *, gone: Callable[[str], bool]
) -> Callable[[Any], Outcome]:
    """Dead, with the slug of the first substring found in the (case-folded) error text.

    PTB rewrites Bot API texts ("Bad Request: chat not found" arrives as "Chat not found"),
    so only the class and a case-insensitive substring are reliable."""

    def rule(exc: Any) -> Outcome:
        text = str(exc)
        folded = text.casefold()
        reason = next((slug for needle, slug in slugs if needle in folded), default)
        return Dead(text, reason, chat_gone=gone(reason), topic_gone=reason in _TOPIC_GONE)

    return rule


_forbidden = _text_rule(
    (
        # A private chat that never sent /start (the bot may not write first): not a block.
        ("can't initiate conversation", "not_started"),
        ("blocked", "blocked"),
        ("deactivated", "deactivated"),
        ("kicked", "kicked"),
        ("not a member", "kicked"),
        ("chat was deleted", "chat_not_found"),
    ),
    "forbidden",
    # Every other 403 means the chat stopped hearing the bot; one that never started it
    # has nothing to pause and nothing to welcome back — its `/start` is a first one.
    gone=lambda reason: reason != "not_started",
)
_bad_request = _text_rule(
    (
        ("chat not found", "chat_not_found"),
        ("user not found", "chat_not_found"),
        ("peer_id_invalid", "chat_not_found"),
        # A deleted topic: "message thread not found" (or TOPIC_DELETED); a closed one.
        ("message thread not found", "topic_deleted"),
        ("topic_deleted", "topic_deleted"),
        ("topic_closed", "topic_closed"),
        # An edit of a message the user deleted, or one too old to edit: nothing to correct.
        ("message to edit not found", "message_gone"),
        ("message can't be edited", "message_gone"),
    ),
    "bad_request",  # message-level (too long, bad HTML): a bug to report, not a gone chat
    gone=lambda reason: reason == "chat_not_found",
)


@functools.cache
def error_rules() -> tuple[Rule, ...]:
    """The table `classify` reads, most specific class first; built on first use, because
    only a send's failure needs `telegram.error` (the scraper imports the queue too)."""
    from telegram import error as tg

    return (
        # Subclasses before their bases: BadRequest and TimedOut are NetworkErrors, and the
        # first matching row wins. A test walks telegram.error and requires a row per class.
        (tg.RetryAfter, _retry_after),
        (tg.ChatMigrated, lambda exc: Migrate(str(exc), int(exc.new_chat_id))),
        (tg.InvalidToken, lambda exc: Fatal(str(exc))),
        (tg.EndPointNotFound, lambda exc: Fatal(str(exc))),  # the API URL is wrong
        (tg.Forbidden, _forbidden),
        (tg.BadRequest, _bad_request),
        (tg.TimedOut, lambda exc: Retry(str(exc))),  # may have been delivered: at-least-once
        (tg.NetworkError, lambda exc: Retry(str(exc))),  # connection trouble, 5xx
        (tg.Conflict, lambda exc: Retry(str(exc))),  # another getUpdates poller; not ours
        # Raised only when decrypting Telegram Passport data, never by a send; were it ever,
        # retrying the same message could not help.
        (tg.PassportDecryptionError, lambda exc: Dead(str(exc), "bad_request")),
        (tg.TelegramError, lambda exc: Retry(str(exc))),  # e.g. an unparsable server response
        # The named catch-all: bounded by max_attempts and the TTL; drain logs its traceback.
        (Exception, lambda exc: Retry(f"{type(exc).__name__}: {exc}", unexpected=True)),
    )


def classify(exc: Exception) -> Outcome:
    """What a failed send means; the first row of `error_rules()` whose class matches decides.

    The last row matches every `Exception`, so there always is one."""
    return next(rule(exc) for cls, rule in error_rules() if isinstance(exc, cls))
