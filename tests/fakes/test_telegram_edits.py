"""What the fake Telegram accepts as an edit (`habicht.fakes.telegram_edits`): a real
`telegram.Bot` edits the text, caption and buttons of messages it sent, and gets Telegram's
own refusals — word for word — for a deleted, unknown, unchanged or uneditable message and
for the wrong kind of edit; scripted faults apply to edits as to sends."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Awaitable, Callable

import pytest
import telegram
from kit.bot_api import CHAT
from kit.fakes import FakeClock
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter

from habicht.fakes.telegram import (
    CANT_BE_EDITED,
    DEFAULT_TOKEN,
    EDIT_NOT_FOUND,
    NO_CAPTION_TO_EDIT,
    NO_TEXT_TO_EDIT,
    NOT_MODIFIED,
    FakeBotAPI,
    Fault,
)

PHOTO = "https://cache.willhaben.at/mmo/1/002/sofa.jpg"
ALERT = "<b>Neues Sofa</b> · € 90"


def keyboard(*labels: str) -> telegram.InlineKeyboardMarkup:
    """One row of buttons, each with its label as callback data."""
    return telegram.InlineKeyboardMarkup(
        [[telegram.InlineKeyboardButton(label, callback_data=label) for label in labels]]
    )


BUTTONS = keyboard("⏸ Pausieren", "🗑 Entfernen")
ONLY_OPEN = keyboard("🔗 Öffnen")

Edit = Callable[[telegram.Bot, int], Awaitable[object]]
"""One way to edit message `message_id` in CHAT: with a new text, caption or keyboard."""


async def _edit_text(bot: telegram.Bot, message_id: int) -> object:
    return await bot.edit_message_text(
        "entfernt", chat_id=CHAT, message_id=message_id, parse_mode="HTML"
    )


async def _edit_caption(bot: telegram.Bot, message_id: int) -> object:
    return await bot.edit_message_caption(
        chat_id=CHAT, message_id=message_id, caption="entfernt", parse_mode="HTML"
    )


async def _edit_markup(bot: telegram.Bot, message_id: int) -> object:
    return await bot.edit_message_reply_markup(
        chat_id=CHAT, message_id=message_id, reply_markup=ONLY_OPEN
    )


EDITS = pytest.mark.parametrize(
    "edit", [_edit_text, _edit_caption, _edit_markup], ids=["text", "caption", "markup"]
)


async def _sent_for(bot: telegram.Bot, edit: Edit) -> telegram.Message:
    """A message `edit` applies to: a photo for a caption edit, a text otherwise."""
    if edit is _edit_caption:
        return await bot.send_photo(
            CHAT, PHOTO, caption=ALERT, parse_mode="HTML", reply_markup=BUTTONS
        )
    return await bot.send_message(CHAT, ALERT, parse_mode="HTML", reply_markup=BUTTONS)


def refused(description: str) -> str:
    """A pattern matching only the message of the `BadRequest` python-telegram-bot raises for
    Telegram's 400 `description` (it drops the "Bad Request: " and capitalises the rest)."""
    return f"^{re.escape(BadRequest(description).message)}$"


async def test_an_edit_shows_from_then_on_and_is_recorded(
    bot: telegram.Bot, fake: FakeBotAPI
) -> None:
    """An accepted edit comes back as the edited Message (sent date kept, edit date set), is
    what a later button press sees, and is one of `edits_of` that message, in order."""
    sent = await bot.send_message(CHAT, ALERT, parse_mode="HTML", reply_markup=BUTTONS)
    other = await bot.send_message(CHAT, "anderer Alarm")
    answer = await bot.edit_message_text(
        "<b>Neues Sofa</b> · pausiert",
        chat_id=CHAT,
        message_id=sent.message_id,
        parse_mode="HTML",
        reply_markup=ONLY_OPEN,
    )
    await bot.edit_message_text("verkauft", chat_id=CHAT, message_id=sent.message_id)
    await bot.edit_message_text("weg", chat_id=CHAT, message_id=other.message_id)

    assert isinstance(answer, telegram.Message)
    assert answer.text == "<b>Neues Sofa</b> · pausiert"
    assert answer.date == sent.date
    assert answer.edit_date is not None
    assert answer.reply_markup == ONLY_OPEN
    history = fake.edits_of(CHAT, sent.message_id)
    assert [(e.text, e.parse_mode) for e in history] == [
        ("<b>Neues Sofa</b> · pausiert", "HTML"),
        ("verkauft", None),
    ]
    assert history[1].reply_markup is None
    shown = fake.as_shown(CHAT, sent.message_id) or {}
    assert shown["text"] == "verkauft"
    assert "reply_markup" not in shown
    assert [m.text for m in fake.messages(CHAT)] == [ALERT, "anderer Alarm"]
    assert fake.edits_of(CHAT, 999) == []


async def test_a_new_keyboard_keeps_the_text_and_a_new_caption_keeps_the_photo(
    bot: telegram.Bot, fake: FakeBotAPI
) -> None:
    """editMessageReplyMarkup changes only the buttons; editMessageCaption only the caption
    (and the buttons) under the same photo."""
    text = await bot.send_message(CHAT, ALERT, parse_mode="HTML", reply_markup=BUTTONS)
    photo = await bot.send_photo(CHAT, PHOTO, caption=ALERT, parse_mode="HTML")
    await bot.edit_message_reply_markup(CHAT, text.message_id, reply_markup=ONLY_OPEN)
    await bot.edit_message_caption(CHAT, photo.message_id, caption="<i>pausiert</i>")

    [markup_edit] = fake.edits_of(CHAT, text.message_id)
    assert (markup_edit.text, markup_edit.parse_mode) == (ALERT, "HTML")
    assert markup_edit.reply_markup == ONLY_OPEN.to_dict()
    [caption_edit] = fake.edits_of(CHAT, photo.message_id)
    assert (caption_edit.photo, caption_edit.text) == (PHOTO, "<i>pausiert</i>")
    shown = fake.as_shown(CHAT, photo.message_id) or {}
    assert shown["caption"] == "<i>pausiert</i>"
    assert "photo" in shown


@EDITS
async def test_a_message_the_user_deleted_is_not_found(
    bot: telegram.Bot, fake: FakeBotAPI, edit: Edit
) -> None:
    """Once the user deleted the message, every edit of it is "message to edit not found";
    it stays among the delivered messages but shows nowhere any more."""
    sent = await _sent_for(bot, edit)
    fake.delete_message(CHAT, sent.message_id)
    with pytest.raises(BadRequest, match=refused(EDIT_NOT_FOUND)):
        await edit(bot, sent.message_id)
    assert fake.edits == []
    assert fake.as_shown(CHAT, sent.message_id) is None
    assert len(fake.messages(CHAT)) == 1


@EDITS
async def test_a_message_the_bot_never_sent_is_not_found(
    bot: telegram.Bot, fake: FakeBotAPI, edit: Edit
) -> None:
    """An edit of a message id the bot never sent to the chat — or sent to another chat —
    is "message to edit not found", whatever it would change."""
    elsewhere = await bot.send_message(CHAT + 1, "anderswo")
    for message_id in (elsewhere.message_id, 999):
        with pytest.raises(BadRequest, match=refused(EDIT_NOT_FOUND)):
            await edit(bot, message_id)
    assert fake.edits == []


def test_the_refusal_is_telegrams_wire_format() -> None:
    """A refused edit is HTTP 400 with `ok` false, `error_code` 400 and Telegram's text."""
    with FakeBotAPI() as fake:
        status, payload = fake.respond(
            DEFAULT_TOKEN, "editMessageText", {"chat_id": CHAT, "message_id": 1, "text": "x"}
        )
    assert (status, payload) == (
        400,
        {"ok": False, "error_code": 400, "description": EDIT_NOT_FOUND},
    )


@pytest.mark.parametrize(
    ("text", "parse_mode"),
    [
        (ALERT, "HTML"),
        ("<strong>Neues Sofa</strong> &#183; &#8364; 90", "HTML"),
    ],
    ids=["same-html", "same-look"],
)
async def test_an_edit_that_changes_nothing_is_not_modified(
    bot: telegram.Bot, fake: FakeBotAPI, text: str, parse_mode: str
) -> None:
    """The same text — the same HTML, or HTML that shows the same — with the same buttons is
    "message is not modified", and is not recorded."""
    sent = await bot.send_message(CHAT, ALERT, parse_mode="HTML", reply_markup=BUTTONS)
    with pytest.raises(BadRequest, match=refused(NOT_MODIFIED)):
        await bot.edit_message_text(
            text, CHAT, sent.message_id, parse_mode=parse_mode, reply_markup=BUTTONS
        )
    with pytest.raises(BadRequest, match=refused(NOT_MODIFIED)):
        await bot.edit_message_reply_markup(CHAT, sent.message_id, reply_markup=BUTTONS)
    assert fake.edits_of(CHAT, sent.message_id) == []


async def test_an_unchanged_caption_is_not_modified(bot: telegram.Bot, fake: FakeBotAPI) -> None:
    """A photo's caption and buttons set again as they are is "message is not modified"."""
    sent = await bot.send_photo(CHAT, PHOTO, caption=ALERT, parse_mode="HTML", reply_markup=BUTTONS)
    with pytest.raises(BadRequest, match=refused(NOT_MODIFIED)):
        await bot.edit_message_caption(
            CHAT, sent.message_id, caption=ALERT, parse_mode="HTML", reply_markup=BUTTONS
        )
    assert fake.edits == []


async def test_the_second_of_two_equal_edits_is_not_modified(
    bot: telegram.Bot, fake: FakeBotAPI
) -> None:
    """An edit compares with the message as last edited, not as sent: a button pressed twice
    edits once and the second edit is "not modified"."""
    sent = await bot.send_message(CHAT, ALERT, parse_mode="HTML", reply_markup=BUTTONS)
    await bot.edit_message_reply_markup(CHAT, sent.message_id, reply_markup=ONLY_OPEN)
    with pytest.raises(BadRequest, match=refused(NOT_MODIFIED)):
        await bot.edit_message_reply_markup(CHAT, sent.message_id, reply_markup=ONLY_OPEN)
    with pytest.raises(BadRequest, match=refused(NOT_MODIFIED)):
        await bot.edit_message_text(
            ALERT, CHAT, sent.message_id, parse_mode="HTML", reply_markup=ONLY_OPEN
        )
    assert len(fake.edits_of(CHAT, sent.message_id)) == 1


@pytest.mark.parametrize(
    ("text", "parse_mode", "markup"),
    [
        (ALERT, "HTML", None),
        (ALERT, "HTML", ONLY_OPEN),
        (ALERT, None, BUTTONS),
        ("<i>Neues Sofa</i> · € 90", "HTML", BUTTONS),
        ("<b>Neues Sofa</b> · € 80", "HTML", BUTTONS),
    ],
    ids=["buttons-removed", "buttons-changed", "shown-as-written", "formatting", "text"],
)
async def test_an_edit_that_changes_the_look_is_accepted(
    bot: telegram.Bot,
    fake: FakeBotAPI,
    text: str,
    parse_mode: str | None,
    markup: telegram.InlineKeyboardMarkup | None,
) -> None:
    """Any change a user would see is an edit: other buttons, or none (an edit without
    `reply_markup` removes them), other formatting, the HTML shown as written, other text."""
    sent = await bot.send_message(CHAT, ALERT, parse_mode="HTML", reply_markup=BUTTONS)
    await bot.edit_message_text(
        text, CHAT, sent.message_id, parse_mode=parse_mode, reply_markup=markup
    )
    [edit] = fake.edits_of(CHAT, sent.message_id)
    assert edit.reply_markup == (None if markup is None else markup.to_dict())


async def test_removing_buttons_a_message_does_not_have_is_not_modified(
    bot: telegram.Bot, fake: FakeBotAPI
) -> None:
    """No keyboard and a keyboard without buttons look the same: setting an empty one under a
    message without buttons changes nothing."""
    sent = await bot.send_message(CHAT, "ohne Knöpfe")
    with pytest.raises(BadRequest, match=refused(NOT_MODIFIED)):
        await bot.edit_message_reply_markup(
            CHAT, sent.message_id, reply_markup=telegram.InlineKeyboardMarkup([])
        )
    with pytest.raises(BadRequest, match=refused(NOT_MODIFIED)):
        await bot.edit_message_text("ohne Knöpfe", CHAT, sent.message_id)
    assert fake.edits == []


@EDITS
async def test_a_message_that_can_no_longer_be_edited_says_so(
    bot: telegram.Bot, fake: FakeBotAPI, edit: Edit
) -> None:
    """After `make_uneditable` every edit of the message is "message can't be edited"."""
    sent = await _sent_for(bot, edit)
    fake.make_uneditable(CHAT, sent.message_id)
    with pytest.raises(BadRequest, match=refused(CANT_BE_EDITED)):
        await edit(bot, sent.message_id)
    assert fake.edits == []


async def test_a_caption_edit_of_a_text_and_a_text_edit_of_a_photo_are_refused(
    bot: telegram.Bot, fake: FakeBotAPI
) -> None:
    """editMessageCaption of a text message has "no caption" to edit; editMessageText of a
    photo has "no text" to edit; each works on the other kind."""
    text = await bot.send_message(CHAT, ALERT, parse_mode="HTML")
    photo = await bot.send_photo(CHAT, PHOTO, caption=ALERT, parse_mode="HTML")
    with pytest.raises(BadRequest, match=refused(NO_CAPTION_TO_EDIT)):
        await _edit_caption(bot, text.message_id)
    with pytest.raises(BadRequest, match=refused(NO_TEXT_TO_EDIT)):
        await _edit_text(bot, photo.message_id)
    assert fake.edits == []
    await _edit_text(bot, text.message_id)
    await _edit_caption(bot, photo.message_id)
    assert [e.message_id for e in fake.edits] == [text.message_id, photo.message_id]


@pytest.mark.parametrize(
    ("text", "problem"),
    [("<b>offen", "can't parse entities"), ("<b></b>", "message text is empty")],
)
async def test_an_edit_with_a_text_telegram_refuses_is_refused(
    bot: telegram.Bot, fake: FakeBotAPI, text: str, problem: str
) -> None:
    """An edit's new text passes the same checks as a sent one."""
    sent = await bot.send_message(CHAT, ALERT, parse_mode="HTML")
    with pytest.raises(BadRequest, match=f"(?i){problem}"):
        await bot.edit_message_text(text, CHAT, sent.message_id, parse_mode="HTML")
    assert fake.edits == []


@pytest.mark.parametrize(
    ("fault", "error", "text"),
    [
        (Fault.server_error(), NetworkError, "Internal Server Error"),
        (Fault.blocked(), Forbidden, r"^Forbidden: bot was blocked by the user$"),
        (Fault.chat_not_found(), BadRequest, refused("Bad Request: chat not found")),
    ],
)
@EDITS
async def test_a_scripted_fault_answers_the_next_edit(
    bot: telegram.Bot,
    fake: FakeBotAPI,
    edit: Edit,
    fault: Fault,
    error: type[Exception],
    text: str,
) -> None:
    """`fail_next` answers an edit as it answers a send — the edit is not made — and the
    next edit goes through."""
    sent = await _sent_for(bot, edit)
    fake.fail_next(CHAT, fault)
    with pytest.raises(error, match=text):
        await edit(bot, sent.message_id)
    assert fake.edits == []
    await edit(bot, sent.message_id)
    assert len(fake.edits_of(CHAT, sent.message_id)) == 1


async def test_a_flood_answers_an_edit_with_retry_after(
    bot: telegram.Bot, fake: FakeBotAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scripted 429 raises RetryAfter for an edit too (as a timedelta: PTB_TIMEDELTA, see
    test_telegram_faults.py), and leaves the message as it was."""
    monkeypatch.setenv("PTB_TIMEDELTA", "1")
    sent = await bot.send_message(CHAT, ALERT, parse_mode="HTML", reply_markup=BUTTONS)
    fake.fail_next(CHAT, Fault.flood(7))
    with pytest.raises(RetryAfter) as caught:
        await _edit_markup(bot, sent.message_id)
    assert caught.value.retry_after == dt.timedelta(seconds=7)
    assert fake.edits == []
    assert (fake.as_shown(CHAT, sent.message_id) or {})["reply_markup"] == BUTTONS.to_dict()


@EDITS
async def test_a_chat_that_blocked_the_bot_refuses_edits(
    bot: telegram.Bot, fake: FakeBotAPI, edit: Edit
) -> None:
    """A chat that blocked the bot answers every edit with 403 "bot was blocked by the user"
    until it unblocks it."""
    sent = await _sent_for(bot, edit)
    fake.block(CHAT)
    for _ in range(2):
        with pytest.raises(Forbidden, match=r"^Forbidden: bot was blocked by the user$"):
            await edit(bot, sent.message_id)
    assert fake.edits == []
    fake.unblock(CHAT)
    await edit(bot, sent.message_id)
    assert len(fake.edits) == 1


def test_edits_count_against_telegrams_limits() -> None:
    """An accepted edit counts like a send: one within a second of the message before it in
    the chat is a violation; a refused edit counts nothing."""
    clock = FakeClock()
    with FakeBotAPI(clock=clock) as fake:
        fake.respond(DEFAULT_TOKEN, "sendMessage", {"chat_id": CHAT, "text": "x"})
        clock.advance(0.5)
        edit = {"chat_id": CHAT, "message_id": 1, "text": "y"}
        assert fake.respond(DEFAULT_TOKEN, "editMessageText", edit)[0] == 200
        assert [(v.kind, v.chat_id) for v in fake.violations] == [("chat", CHAT)]
        assert fake.respond(DEFAULT_TOKEN, "editMessageText", edit)[0] == 400
        assert len(fake.violations) == 1
