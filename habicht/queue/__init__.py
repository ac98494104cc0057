"""The notification outbox: a durable SQLite queue, its retry policy, and delivery.

Knows nothing of willhaben; it delivers `(chat_id, text)` through a `send` callable it is
given. Other code imports only the names listed here.
"""

from habicht.queue.deliver import (
    ChatGoneHook,
    ChatMigratedHook,
    DeliveryStopped,
    DrainSummary,
    Pacer,
    Send,
    drain,
)
from habicht.queue.policy import (
    Dead,
    Fatal,
    Migrate,
    Outcome,
    Retry,
    RetryAt,
    backoff,
    classify,
    retry_after_seconds,
)
from habicht.queue.report import describe_dead, describe_stats, parse_ids
from habicht.queue.store import (
    DEFAULT_LEASE,
    LEASE_MARGIN,
    Kind,
    Notification,
    NotificationStore,
    Outgoing,
    QueueStats,
    Status,
    enqueue_within,
)

__all__ = [
    "DEFAULT_LEASE",
    "LEASE_MARGIN",
    "ChatGoneHook",
    "ChatMigratedHook",
    "Dead",
    "DeliveryStopped",
    "DrainSummary",
    "Fatal",
    "Kind",
    "Migrate",
    "Notification",
    "NotificationStore",
    "Outcome",
    "Outgoing",
    "Pacer",
    "QueueStats",
    "Retry",
    "RetryAt",
    "Send",
    "Status",
    "backoff",
    "classify",
    "describe_dead",
    "describe_stats",
    "drain",
    "enqueue_within",
    "parse_ids",
    "retry_after_seconds",
]
