"""What a drain does with each send's outcome (`policy.classify`): settle its rows.

Sent, retried after one backoff for the whole message, paused by a 429 (its chat, or every
chat when the bot is flooded), dead — with the chat or the forum topic that is gone, whose
hooks are told — migrated to a supergroup's new id, or stopped by a fatal error. Each settle
is a commit of `Writes`, so a storage fault never loses an outcome.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial

from habicht.clock import Clock
from habicht.message import Delivered, Message
from habicht.queue.durable import Writes
from habicht.queue.pacing import Pacer
from habicht.queue.policy import Dead, Fatal, Migrate, Outcome, Retry, RetryAt, backoff
from habicht.queue.rows import Notification
from habicht.queue.store import NotificationStore

__all__ = ["ChatGoneHook", "ChatMigratedHook", "Landing", "Outcomes", "TopicGoneHook"]

log = logging.getLogger(__name__)

ChatGoneHook = Callable[[int, str], Awaitable[object]]
"""Called with `(chat_id, reason)` when a chat cannot be written to any more."""
TopicGoneHook = Callable[[int, int, str], Awaitable[object]]
"""Called with `(chat_id, thread_id, reason)` when a forum topic was deleted or closed: only
what goes to that topic is affected, not the rest of the chat."""
ChatMigratedHook = Callable[[int, int], Awaitable[object]]
"""Called with `(old_chat_id, new_chat_id)` when a group became a supergroup."""


_LEAST_PAUSE = 1.0
"""A 429 pauses its chat at least this long, so `retry_after=0` cannot make a drain spin."""


@dataclass(frozen=True, slots=True)
class Landing:
    """How one message of a flight ended for the flight: whether it may send its next
    message, and if not, when the rows it still holds are due again (None: at their turn)."""

    go_on: bool
    until: float | None = None


@dataclass(kw_only=True)
class Outcomes(Writes):
    """What settling needs of a drain: its store, its backoff, its pacer and hooks, and the
    counts, the flood and the fatal error its outcomes leave behind."""

    store: NotificationStore
    clock: Clock
    rand: random.Random
    backoff_base: float
    backoff_cap: float
    pacer: Pacer
    flood_chats: int
    on_chat_gone: ChatGoneHook | None
    on_chat_migrated: ChatMigratedHook | None
    on_topic_gone: TopicGoneHook | None
    stop: asyncio.Event
    # Counted with `tally.update(sent=await …)`, never `self.sent += await …`: the latter
    # reads the old value before the await, and concurrent flights would lose updates.
    tally: Counter[str] = field(default_factory=Counter)
    flood_until: float | None = None
    fatal: str | None = None

    @property
    def stopping(self) -> bool:
        return self.fatal is not None or self.flood_until is not None or self.stop.is_set()

    async def settle(
        self, rows: list[Notification], message: Message, outcome: Outcome | Delivered | None
    ) -> Landing:
        """Record what happened to the rows of one message (`Delivered` or None: it went out);
        a chat-wide outcome also settles the chat's other waiting rows. Says whether the
        flight may send its next message, and if not, when the rows it still holds are due
        again."""
        store = self.store
        chat_id = rows[0].chat_id
        spent = [row for row in rows if row.attempts >= row.max_attempts]
        left = [row for row in rows if row.attempts < row.max_attempts]
        match outcome:
            case None | Delivered():
                # A digest's text is rendered from its rows; a single row's is the row's own.
                digest = len(rows) > 1 or message.text != rows[0].text
                sent = partial(
                    store.mark_sent, rows, delivered=outcome, digest=digest, text=message.text
                )
                self.tally.update(sent=await self.commit(sent))
            case Retry(error=error):
                # One backoff for the whole message: a digest retries as one, and the rest of
                # its flight waits with it, so all of them form one digest again.
                await self._bury(spent, "attempts_exhausted", error)
                attempt = max(row.attempts for row in rows)
                at = self.clock() + backoff(
                    attempt, base=self.backoff_base, cap=self.backoff_cap, rand=self.rand
                )
                for row in left:
                    retry = partial(store.mark_retry, row, at=at, error=error)
                    self.tally.update(retried=await self.commit(retry))
                return Landing(go_on=False, until=at)
            case RetryAt(delay=delay):
                # The pause first: other rows of the chat (and other chats) see it at once.
                until = self.clock() + max(delay, _LEAST_PAUSE)
                self._rate_limited(chat_id, until)
                self.tally.update(
                    deferred=await self.commit(partial(store.release, rows, until=until))
                )
                await self.commit(partial(store.postpone, until, chat_id=chat_id))
                return Landing(go_on=False, until=until)
            case Dead(error=error, reason=reason, chat_gone=True):
                await self._bury(rows, reason, error)
                bury = partial(store.bury_chat, chat_id, reason=reason, error=error)
                self.count_dead(await self.commit(bury))
                await self._hook(self.on_chat_gone, chat_id, reason)
                return Landing(go_on=False)
            case Dead(error=error, reason=reason, topic_gone=True) if message.thread_id is not None:
                # Only this topic's rows: a digest to another topic of the chat goes on.
                await self._bury(rows, reason, error)
                topic = message.thread_id
                bury = partial(store.bury_topic, chat_id, topic, reason=reason, error=error)
                self.count_dead(await self.commit(bury))
                await self._hook(self.on_topic_gone, chat_id, topic, reason)
            case Dead(error=error, reason=reason):
                await self._bury(rows, reason, error)
            case Migrate(error=error, new_chat_id=new_chat_id):
                # A chat "migrating" on every try ends; else at once, to the new id, the
                # attempt spent, so a loop ends.
                await self._bury(spent, "attempts_exhausted", error)
                for row in left:
                    await self.commit(partial(store.mark_retry, row, at=self.clock(), error=error))
                await self.commit(partial(store.migrate_chat, chat_id, new_chat_id))
                await self._hook(self.on_chat_migrated, chat_id, new_chat_id)
                return Landing(go_on=False)
            case Fatal(error=error):
                self.fatal = error
                self.tally.update(deferred=await self.commit(partial(store.release, rows)))
                return Landing(go_on=False)
        return Landing(go_on=not self.stopping)

    def _rate_limited(self, chat_id: int, until: float) -> None:
        """Pause the chat; private chats paused by 429s at once mean the bot is flooded.
        A group's 429 pauses that group only: groups have a limit of their own."""
        self.pacer.pause(until, chat_id=chat_id)
        if chat_id > 0 and self.pacer.paused_private_chats() >= self.flood_chats:
            self.flood_until = max(self.flood_until or until, until)
            self.pacer.pause(self.flood_until)

    def count_dead(self, rows: list[Notification]) -> None:
        """Count and log rows the store returned dead (reaped, or buried with their chat)."""
        self.tally.update(dead=len(rows))
        for row in rows:
            self._dead(row, row.dead_reason or "", row.last_error or "")

    async def _bury(self, rows: list[Notification], reason: str, error: str) -> None:
        dead = partial(self.store.mark_dead, rows, reason=reason, error=error)
        self.tally.update(dead=await self.commit(dead))
        for row in rows:
            self._dead(row, reason, error)

    @staticmethod
    def _dead(row: Notification, reason: str, error: str) -> None:
        log.warning(
            "notification %d to chat %d is dead (%s): %s", row.id, row.chat_id, reason, error
        )

    @staticmethod
    async def _hook(hook: Callable[..., Awaitable[object]] | None, *args: object) -> None:
        """Run a hook; its failure is logged, never allowed to stop delivery."""
        if hook is None:
            return
        try:
            await hook(*args)
        except Exception:
            log.exception("delivery hook %r failed", hook)
