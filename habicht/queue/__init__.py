"""The notification outbox: a durable SQLite queue, its retry policy, and delivery.

Knows nothing of willhaben; it stores each `Outgoing` it is handed and delivers its `Message`
(text, and optionally a photo URL, buttons, a forum topic, send options) through a `send`
callable it is given. What a message is belongs to no part: it is `habicht.message`,
a foundation those who write messages share with the outbox. Importing the queue does not
load `telegram` (the table of Telegram's errors is built on the first `classify`). Quiet
hours are not the queue's: they are a chat's setting (`habicht.quiet`), handed to it by
whoever queues the chat's alerts.

The front door answers three questions, and other code imports only the names listed here:
where messages wait (`NotificationStore`, the rows it reads, `Notification`, and what a
restart's `take_over_leases` found, `TakenOver`); how they go out (`drain` with its `Send`,
its hooks `ChatGoneHook` and `TopicGoneHook` and its `DrainSummary`, `DeliveryStopped` when
Telegram will take nothing more, the shared `Pacer`); and what an error means (`classify`,
whose outcome names itself by its `label`). The outcome classes and `backoff` stay inside
(`policy`): only the queue's own delivery (the drain, the direct line) acts on them.

Five modules are small faces of their own, each for the few callers that need it (and
tests/test_architecture.py names them): `enqueue` for writing alerts inside the caller's
transaction (`enqueue_within`, `disown_within`, `retime_within`), `edits` for the edits that
keep sent messages true (`watches.follow`), `direct` for sending from memory when the outbox
cannot be written (`DirectLine`), `report` for the owners' plain-text views
(`habicht queue …`), and `figures` for the outbox's figures others report (`/metrics`, alert
times, the watches' figures).

Its modules, each answering one question. The outbox table: what a row is (`rows`), the
store's settings and leases (`table`), what goes in and when its turn is (`enqueue`), the
edits that keep sent messages true (`edits`), which rows go out next (`claim`), what became
of them (`settle`), the owner's counts and repairs (`upkeep`) — `store.NotificationStore`
joins those four. Delivery: the drain (`deliver`), what it does with each send's outcome
(`outcome`), its writes through storage faults and cancels (`durable`), digest messages
(`digest`), Telegram's pace (`pacing`), what an error means (`policy`), sending from memory
(`direct`). For owners: plain-text views (`report`) and the figures others report
(`figures`).
"""

from habicht.queue.deliver import DeliveryStopped, DrainSummary, Send, drain
from habicht.queue.outcome import ChatGoneHook, TopicGoneHook
from habicht.queue.pacing import Pacer
from habicht.queue.policy import classify
from habicht.queue.rows import Notification
from habicht.queue.settle import TakenOver
from habicht.queue.store import NotificationStore

__all__ = [
    "ChatGoneHook",
    "DeliveryStopped",
    "DrainSummary",
    "Notification",
    "NotificationStore",
    "Pacer",
    "Send",
    "TakenOver",
    "TopicGoneHook",
    "classify",
    "drain",
]
