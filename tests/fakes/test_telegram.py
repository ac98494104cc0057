"""The fake Bot API (`habicht.fakes.telegram`), driven by a real `telegram.Bot` over both
adapters. Its faults, text rules and books have their own tests: test_telegram_faults.py,
test_telegram_text.py, test_telegram_books.py."""

from __future__ import annotations

import asyncio
from contextlib import ExitStack

import httpx
import pytest
import telegram
from kit.bot_api import CHAT, bot_over
from telegram.error import (
    InvalidToken,
)

from habicht.fakes.telegram import FakeBotAPI


async def test_get_me_names_the_bot(bot: telegram.Bot) -> None:
    """getMe answers with the bot whose id is the token's number."""
    me = await bot.get_me()
    assert me.id == 123456789
    assert me.is_bot
    assert me.username == "habicht_test_bot"


async def test_send_message_is_recorded_and_returned(bot: telegram.Bot, fake: FakeBotAPI) -> None:
    """A sent message comes back as a real Message and is recorded with its parse mode."""
    message = await bot.send_message(CHAT, "<b>Neu:</b> Grafikkarte &amp; Kabel", parse_mode="HTML")
    assert message.chat.id == CHAT
    assert message.text == "<b>Neu:</b> Grafikkarte &amp; Kabel"
    [recorded] = fake.messages(CHAT)
    assert recorded.message_id == message.message_id
    assert recorded.parse_mode == "HTML"
    assert fake.attempts[CHAT] == 1
    assert fake.calls["sendMessage"] == 1


async def test_reply_markup_is_recorded(bot: telegram.Bot, fake: FakeBotAPI) -> None:
    """Inline buttons arrive decoded, so a test can press them."""
    markup = telegram.InlineKeyboardMarkup(
        [[telegram.InlineKeyboardButton("Entfernen", callback_data="unwatch:3")]]
    )
    await bot.send_message(CHAT, "Watch 3", reply_markup=markup)
    [recorded] = fake.messages(CHAT)
    assert recorded.reply_markup == {
        "inline_keyboard": [[{"text": "Entfernen", "callback_data": "unwatch:3"}]]
    }


async def test_chat_members_are_answered_as_configured(bot: telegram.Bot, fake: FakeBotAPI) -> None:
    """getChatMember answers each (chat, user) with the status a test set, "member" otherwise,
    as the ChatMember subclass python-telegram-bot builds for it."""
    fake.set_member(-100, 7, "administrator")
    fake.set_member(-100, 8, "creator")
    answers = [
        await bot.get_chat_member(chat, user)
        for chat, user in ((-100, 7), (-100, 8), (-100, 9), (-200, 7))
    ]
    assert [type(a).__name__ for a in answers] == [
        "ChatMemberAdministrator",
        "ChatMemberOwner",
        "ChatMemberMember",
        "ChatMemberMember",
    ]


async def test_the_topic_of_a_message_is_recorded(bot: telegram.Bot, fake: FakeBotAPI) -> None:
    """A message sent into a forum topic keeps its `message_thread_id`; others have none."""
    await bot.send_message(-100, "im Thema", message_thread_id=12)
    await bot.send_message(-100, "allgemein")
    assert [m.thread_id for m in fake.messages(-100)] == [12, None]


async def test_get_updates_returns_pushed_commands_and_forgets_confirmed(
    bot: telegram.Bot, fake: FakeBotAPI
) -> None:
    """Pushed messages come back as updates with a command entity until an offset confirms them."""
    first = fake.push_message(CHAT, 77, "/watch grafikkarte max 300")
    fake.push_message(CHAT, 77, "hallo")
    updates = await bot.get_updates(timeout=0)
    assert updates[0].update_id == first
    command = updates[0].message
    assert command is not None
    assert command.from_user is not None
    assert command.from_user.id == 77
    assert command.parse_entities([telegram.MessageEntity.BOT_COMMAND]) == {
        command.entities[0]: "/watch"
    }
    assert updates[1].message is not None
    assert not updates[1].message.entities
    assert await bot.get_updates(offset=updates[-1].update_id + 1, timeout=0) == ()
    assert fake.pending_updates == 0


async def test_long_poll_waits_for_an_update(bot: telegram.Bot, fake: FakeBotAPI) -> None:
    """A long poll answers as soon as an update is pushed, not at its timeout."""
    poll = asyncio.create_task(bot.get_updates(timeout=30))
    await asyncio.to_thread(
        fake.wait_until, lambda: fake.calls["getUpdates"] == 1, timeout=5, what="a poll"
    )
    fake.push_message(CHAT, 77, "/start")
    [update] = await asyncio.wait_for(poll, 10)
    assert update.message is not None
    assert update.message.text == "/start"


async def test_long_poll_times_out_empty(bot: telegram.Bot) -> None:
    """With nothing queued, a long poll returns no updates after its timeout."""
    assert await bot.get_updates(timeout=0.2) == ()


async def test_callback_query_refers_to_the_pressed_message(
    bot: telegram.Bot, fake: FakeBotAPI
) -> None:
    """A button press arrives as a CallbackQuery on the bot's last message to the chat."""
    sent = await bot.send_message(CHAT, "Watch 3")
    fake.push_callback(CHAT, 77, "unwatch:3")
    [update] = await bot.get_updates(timeout=0)
    query = update.callback_query
    assert query is not None
    assert query.data == "unwatch:3"
    assert query.message is not None
    assert query.message.message_id == sent.message_id
    assert await bot.answer_callback_query(query.id)
    await bot.edit_message_text("entfernt", chat_id=CHAT, message_id=sent.message_id)
    assert [e.text for e in fake.edits] == ["entfernt"]
    assert fake.callback_answers[0]["callback_query_id"] == query.id


async def test_wrong_token_is_invalid(fake: FakeBotAPI, adapter: str) -> None:
    """A token the fake does not know raises InvalidToken, as Telegram's 401 does."""
    with ExitStack() as stack:
        wrong = bot_over(fake, adapter, stack, token="999:wrong", read=2.0)
        try:
            with pytest.raises(InvalidToken, match=r"^Unauthorized$"):
                await wrong.get_me()
        finally:
            await wrong.request.shutdown()  # initialize() failed, so shutdown() would not


async def test_revoked_token_is_invalid_from_then_on(bot: telegram.Bot, fake: FakeBotAPI) -> None:
    """After the token is revoked every call raises InvalidToken."""
    fake.revoke_token()
    with pytest.raises(InvalidToken, match=r"^Unauthorized$"):
        await bot.send_message(CHAT, "hallo")


def test_wait_until_names_what_it_waited_for() -> None:
    """A condition that never holds ends in a TimeoutError naming it."""
    with FakeBotAPI() as fake, pytest.raises(TimeoutError, match="the reply"):
        fake.wait_until(lambda: False, timeout=0.05, what="the reply")


def test_unknown_path_is_not_found() -> None:
    """A request outside /bot<token>/<method> gets Telegram's 404."""
    with FakeBotAPI() as fake:
        response = fake.handle(httpx.Request("GET", "http://fake/other"))
        assert response.status_code == 404
