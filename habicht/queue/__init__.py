"""The notification outbox: a durable SQLite queue, its retry policy, and delivery.

Knows nothing of willhaben; it delivers each row's `Message` (text, and optionally a photo
URL, buttons, a forum topic, send options) through a `send` callable it is given — and, for
the few messages the outbox cannot hold (it cannot be written), the same way from memory
(`DirectLine`). Importing it does not load `telegram` (the table of Telegram's errors is
built on the first `classify`). Other code imports only the names listed here.

Its modules, each answering one question. The outbox table: what a row is (`rows`), the
store's settings and leases (`table`), what goes in and when its turn is (`enqueue`), the
edits that keep sent messages true (`edits`), which
rows go out next (`claim`), what became of them (`settle`), the owner's counts and repairs
(`upkeep`) — `store.NotificationStore` joins those four. Delivery: the drain (`deliver`),
what it does with each send's outcome (`outcome`), its writes through storage faults and
cancels (`durable`), digest messages (`digest`), Telegram's pace (`pacing`), what an error
means (`policy`), quiet hours (`quiet`), sending from memory (`direct`). For owners:
plain-text views (`report`).
"""

from habicht.queue.deliver import DeliveryStopped, DrainSummary, Send, drain
from habicht.queue.direct import DIRECT, DirectLine
from habicht.queue.edits import Edit, edit_within, message_rows, sent_alerts, shown_text
from habicht.queue.enqueue import disown_within, enqueue_within, retime_within
from habicht.queue.outcome import ChatGoneHook, TopicGoneHook
from habicht.queue.pacing import Pacer
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
from habicht.queue.quiet import (
    DEFAULT_ZONE,
    InvalidQuietHours,
    QuietHours,
    QuietMode,
    QuietReason,
    parse_quiet_hours,
    stored_quiet_hours,
)
from habicht.queue.report import describe_dead, describe_stats, parse_ids
from habicht.queue.rows import (
    Button,
    Buttons,
    Delivered,
    Kind,
    Message,
    Notification,
    Outgoing,
    SentAs,
    Source,
)
from habicht.queue.settle import TakenOver
from habicht.queue.store import NotificationStore
from habicht.queue.upkeep import QueueStats

__all__ = [
    "DEFAULT_ZONE",
    "DIRECT",
    "Button",
    "Buttons",
    "ChatGoneHook",
    "Dead",
    "Delivered",
    "DeliveryStopped",
    "DirectLine",
    "DrainSummary",
    "Edit",
    "Fatal",
    "InvalidQuietHours",
    "Kind",
    "Message",
    "Migrate",
    "Notification",
    "NotificationStore",
    "Outcome",
    "Outgoing",
    "Pacer",
    "QueueStats",
    "QuietHours",
    "QuietMode",
    "QuietReason",
    "Retry",
    "RetryAt",
    "Send",
    "SentAs",
    "Source",
    "TakenOver",
    "TopicGoneHook",
    "backoff",
    "classify",
    "describe_dead",
    "describe_stats",
    "disown_within",
    "drain",
    "edit_within",
    "enqueue_within",
    "error_rules",
    "message_rows",
    "parse_ids",
    "parse_quiet_hours",
    "retime_within",
    "retry_after_seconds",
    "sent_alerts",
    "shown_text",
    "stored_quiet_hours",
]
