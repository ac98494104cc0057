"""The notification outbox: a durable SQLite queue, its retry policy, and delivery.

Knows nothing of willhaben; it delivers `(chat_id, text)` through a `send` callable it is
given. Other code imports only the names listed here.
"""

from habicht.queue.store import Kind, Outgoing, enqueue_within

__all__ = ["Kind", "Outgoing", "enqueue_within"]
