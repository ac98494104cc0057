"""Deadlines for awaits that a regression could leave hanging.

The per-test timeout (pytest-timeout) ends a hung test too, but with a traceback into the
event loop; `within` fails it at the await that hung, saying what it waited for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

import pytest

from habicht.fakes.telegram import FakeBotAPI, SentMessage

T = TypeVar("T")

WAIT = 10.0
"""Seconds any of these awaits may take on a busy machine: all of them end in milliseconds."""


async def within(awaitable: Awaitable[T], what: str, *, seconds: float = WAIT) -> T:
    """`await awaitable`, or fail the test naming `what` after `seconds`; what the awaitable
    raises itself (a `CancelledError` the test expects, a `TimeoutError`) passes through."""
    deadline = asyncio.timeout(seconds)
    try:
        async with deadline:
            return await awaitable
    except TimeoutError:
        if deadline.expired():
            pytest.fail(f"waited {seconds:g} s for {what}")
        raise


async def answered(api: FakeBotAPI, chat_id: int, count: int) -> SentMessage:
    """The `count`-th message the chat received, once it arrived: for answers sent from a task
    of their own (a chart reply), which come after the update's handler returned."""
    await asyncio.to_thread(
        api.wait_until,
        lambda: len(api.messages(chat_id)) >= count,
        timeout=WAIT,
        what=f"message {count} to chat {chat_id}",
    )
    return api.messages(chat_id)[count - 1]
