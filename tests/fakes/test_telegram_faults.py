"""The fake Telegram's scripted faults (`habicht.fakes.telegram_faults`): each raises
python-telegram-bot's own exception, per chat, a block until unblocked, a slow answer."""

from __future__ import annotations

import asyncio
import datetime as dt
from contextlib import ExitStack

import pytest
import telegram
from kit.bot_api import CHAT, bot_over
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TimedOut,
)
from telegram.warnings import PTBDeprecationWarning

from habicht.fakes.telegram import DEFAULT_TOKEN, FakeBotAPI, Fault


@pytest.mark.parametrize(
    ("fault", "error", "text"),
    [
        (Fault.server_error(), NetworkError, "Internal Server Error"),
        (Fault.server_error(502), NetworkError, "Bad Gateway"),
        (Fault.blocked(), Forbidden, "bot was blocked by the user"),
        (Fault.chat_not_found(), BadRequest, "chat not found"),
    ],
)
async def test_faults_raise_the_real_exceptions(
    bot: telegram.Bot, fake: FakeBotAPI, fault: Fault, error: type[Exception], text: str
) -> None:
    """Each scripted fault raises python-telegram-bot's own exception, then the chat recovers."""
    fake.fail_next(CHAT, fault)
    with pytest.raises(error, match=f"(?i){text}") as caught:
        await bot.send_message(CHAT, "hallo")
    if error is NetworkError:
        assert not isinstance(caught.value, BadRequest | TimedOut)
    assert fake.messages(CHAT) == []
    await bot.send_message(CHAT, "hallo")
    assert len(fake.messages(CHAT)) == 1
    assert fake.attempts[CHAT] == 2


@pytest.mark.parametrize("timedelta", [False, True], ids=["int", "timedelta"])
async def test_flood_carries_retry_after(
    bot: telegram.Bot, fake: FakeBotAPI, monkeypatch: pytest.MonkeyPatch, timedelta: bool
) -> None:
    """A scripted 429 raises RetryAfter whose retry_after is 7 s, as an int or a timedelta.

    python-telegram-bot 22 warns while building RetryAfter unless PTB_TIMEDELTA opts in to
    timedeltas; with warnings as errors that warning would replace the exception.
    """
    fake.fail_next(CHAT, Fault.flood(7))
    if timedelta:
        monkeypatch.setenv("PTB_TIMEDELTA", "1")
        with pytest.raises(RetryAfter) as caught:
            await bot.send_message(CHAT, "hallo")
        assert caught.value.retry_after == dt.timedelta(seconds=7)
    else:
        monkeypatch.delenv("PTB_TIMEDELTA", raising=False)
        with pytest.warns(PTBDeprecationWarning), pytest.raises(RetryAfter) as caught:
            await bot.send_message(CHAT, "hallo")
        with pytest.warns(PTBDeprecationWarning):
            assert caught.value.retry_after == 7


async def test_migrated_chat_names_its_new_id(bot: telegram.Bot, fake: FakeBotAPI) -> None:
    """A scripted migration raises ChatMigrated with the new chat id."""
    fake.fail_next(-100, Fault.migrated(-1001234))
    with pytest.raises(ChatMigrated) as caught:
        await bot.send_message(-100, "hallo")
    assert caught.value.new_chat_id == -1001234


async def test_blocked_chat_stays_blocked_until_unblocked(
    bot: telegram.Bot, fake: FakeBotAPI
) -> None:
    """A chat that blocked the bot refuses every send until it is unblocked."""
    fake.block(CHAT)
    for _ in range(2):
        with pytest.raises(Forbidden, match="bot was blocked by the user"):
            await bot.send_message(CHAT, "hallo")
    fake.unblock(CHAT)
    await bot.send_message(CHAT, "hallo")
    assert fake.attempts[CHAT] == 3
    assert len(fake.messages(CHAT)) == 1


async def test_faults_are_per_chat(bot: telegram.Bot, fake: FakeBotAPI) -> None:
    """A fault scripted for one chat leaves the others alone."""
    fake.fail_next(CHAT, Fault.server_error())
    await bot.send_message(CHAT + 1, "hallo")
    assert len(fake.messages(CHAT + 1)) == 1


async def test_slow_answer_times_out_after_delivering(fake: FakeBotAPI, adapter: str) -> None:
    """A slow answer makes the client time out although the message was delivered."""
    with ExitStack() as stack:
        async with bot_over(fake, adapter, stack, token=DEFAULT_TOKEN, read=0.2) as slow_bot:
            fake.fail_next(CHAT, Fault.slow(1.0))
            with pytest.raises(TimedOut, match=r"^Timed out$"):
                await slow_bot.send_message(CHAT, "hallo")
            await asyncio.to_thread(
                fake.wait_until, lambda: len(fake.messages(CHAT)) == 1, timeout=5
            )
