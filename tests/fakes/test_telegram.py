"""The fake Bot API, driven by a real `telegram.Bot` over both adapters."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack

import httpx
import pytest
import telegram
from kit.fakes import FakeClock
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TimedOut,
)
from telegram.request import HTTPXRequest
from telegram.warnings import PTBDeprecationWarning

from habicht.fakes.telegram import DEFAULT_TOKEN, FakeBotAPI, Fault

CHAT = 4242


def _bot(
    fake: FakeBotAPI, adapter: str, stack: ExitStack, *, token: str, read: float
) -> telegram.Bot:
    if adapter == "loopback":
        server = stack.enter_context(fake.serve())
        return telegram.Bot(
            token,
            base_url=server.base_url,
            request=HTTPXRequest(read_timeout=read),
            get_updates_request=HTTPXRequest(),
        )
    return telegram.Bot(
        token,
        request=HTTPXRequest(read_timeout=read, httpx_kwargs={"transport": fake.transport()}),
        get_updates_request=HTTPXRequest(httpx_kwargs={"transport": fake.transport()}),
    )


@pytest.fixture(params=["transport", "loopback"])
def adapter(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def fake() -> Iterator[FakeBotAPI]:
    with FakeBotAPI() as api:
        yield api


@pytest.fixture
async def bot(fake: FakeBotAPI, adapter: str) -> AsyncIterator[telegram.Bot]:
    with ExitStack() as stack:
        async with _bot(fake, adapter, stack, token=DEFAULT_TOKEN, read=2.0) as real_bot:
            yield real_bot


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
        async with _bot(fake, adapter, stack, token=DEFAULT_TOKEN, read=0.2) as slow_bot:
            fake.fail_next(CHAT, Fault.slow(1.0))
            with pytest.raises(TimedOut, match=r"^Timed out$"):
                await slow_bot.send_message(CHAT, "hallo")
            await asyncio.to_thread(
                fake.wait_until, lambda: len(fake.messages(CHAT)) == 1, timeout=5
            )


async def test_wrong_token_is_invalid(fake: FakeBotAPI, adapter: str) -> None:
    """A token the fake does not know raises InvalidToken, as Telegram's 401 does."""
    with ExitStack() as stack:
        wrong = _bot(fake, adapter, stack, token="999:wrong", read=2.0)
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


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("<b>offen", "can't parse entities"),
        ("<div>x</div>", "can't parse entities"),
        ("AT&T", "can't parse entities"),
        ("1 < 2", "can't parse entities"),
        ("<b></b>", "message text is empty"),
        ("x" * 4097, "message is too long"),
    ],
)
async def test_bad_html_is_refused_like_telegram(
    bot: telegram.Bot, fake: FakeBotAPI, text: str, problem: str
) -> None:
    """Unescaped or unbalanced HTML, empty and over-long texts are a BadRequest."""
    with pytest.raises(BadRequest, match=f"(?i){problem}"):
        await bot.send_message(CHAT, text, parse_mode="HTML")
    assert fake.messages() == []


async def test_long_text_counts_visible_characters(bot: telegram.Bot, fake: FakeBotAPI) -> None:
    """4096 visible characters pass even when the markup makes the text longer."""
    await bot.send_message(CHAT, "<b>" + "&amp;" * 4096 + "</b>", parse_mode="HTML")
    assert len(fake.messages(CHAT)) == 1


def test_limits_are_counted_not_enforced() -> None:
    """More than 30 sends in a second, or two to one chat within a second, are violations."""
    clock = FakeClock()
    with FakeBotAPI(clock=clock) as fake:
        for chat in range(31):
            assert (
                fake.respond(DEFAULT_TOKEN, "sendMessage", {"chat_id": chat, "text": "x"})[0] == 200
            )
            clock.advance(0.01)
        assert [v.kind for v in fake.violations] == ["global"]
        clock.advance(0.75)
        fake.respond(DEFAULT_TOKEN, "sendMessage", {"chat_id": 30, "text": "x"})
        assert [v.kind for v in fake.violations] == ["global", "chat"]
        clock.advance(2)
        fake.respond(DEFAULT_TOKEN, "sendMessage", {"chat_id": 30, "text": "x"})
        assert len(fake.violations) == 2


def test_more_than_20_messages_to_a_group_in_a_minute_are_violations() -> None:
    """Issue 10: a group (negative id) takes 20 messages in any rolling minute; the 21st
    within 60 s of the first is a violation, one a second after that is not."""
    clock = FakeClock()
    with FakeBotAPI(clock=clock) as fake:
        for _ in range(21):
            fake.respond(DEFAULT_TOKEN, "sendMessage", {"chat_id": -100, "text": "x"})
            clock.advance(2.95)
        assert [(v.kind, v.chat_id) for v in fake.violations] == [("group", -100)]
        clock.advance(3.1)
        fake.respond(DEFAULT_TOKEN, "sendMessage", {"chat_id": -100, "text": "x"})
        assert len(fake.violations) == 1


def test_wait_until_names_what_it_waited_for() -> None:
    """A condition that never holds ends in a TimeoutError naming it."""
    with FakeBotAPI() as fake, pytest.raises(TimeoutError, match="the reply"):
        fake.wait_until(lambda: False, timeout=0.05, what="the reply")


def test_unknown_path_is_not_found() -> None:
    """A request outside /bot<token>/<method> gets Telegram's 404."""
    with FakeBotAPI() as fake:
        response = fake.handle(httpx.Request("GET", "http://fake/other"))
        assert response.status_code == 404
