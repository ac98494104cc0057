"""What the fake Telegram accepts as an edit of a message the bot sent — editMessageText,
editMessageCaption, editMessageReplyMarkup — judged against the message as it shows now.

Telegram refuses an edit that would change nothing, so a bot that edits twice at once (a
button pressed twice) sees "message is not modified" and must take it for success. "Nothing"
is how the message looks: the same visible text and formatting (`shown_text`), and the same
inline keyboard, where an edit that leaves `reply_markup` out removes the keyboard.

This module only judges; `FakeBotAPI` finds the message, records the edit and answers.
"""

from __future__ import annotations

from dataclasses import replace

from habicht.fakes.telegram_books import SentMessage
from habicht.fakes.telegram_faults import (
    CANT_BE_EDITED,
    NO_CAPTION_TO_EDIT,
    NO_TEXT_TO_EDIT,
    NOT_MODIFIED,
)
from habicht.fakes.telegram_payloads import Params, Payload, json_param
from habicht.fakes.telegram_text import shown_text, text_problem

__all__ = ["EDIT_METHODS", "edit_refusal", "edited", "shown_keyboard"]

EDIT_METHODS = frozenset({"editmessagetext", "editmessagecaption", "editmessagereplymarkup"})
"""The edits the fake answers, by their lower-cased Bot API names."""


def edited(method: str, params: Params, shown: SentMessage, *, at: float) -> SentMessage:
    """`shown` as it shows after this edit at `at`: a new keyboard keeps the text, a new text
    or caption replaces it (editMessageCaption without one removes the caption); in every
    case the keyboard is the edit's, none if it sends none."""
    text, parse_mode = shown.text, shown.parse_mode
    if method != "editmessagereplymarkup":
        field = "caption" if method == "editmessagecaption" else "text"
        text, parse_mode = str(params.get(field, "")), params.get("parse_mode")
    return replace(
        shown,
        text=text,
        parse_mode=parse_mode,
        at=at,
        reply_markup=json_param(params, "reply_markup"),
        params=dict(params),
    )


def edit_refusal(method: str, params: Params, shown: SentMessage, *, editable: bool) -> str | None:
    """Why Telegram would refuse this edit of `shown`, a message the chat still has (None:
    it would not); the message was found, so "not found" is the caller's to answer."""
    if not editable:
        return CANT_BE_EDITED
    if method == "editmessagetext" and shown.photo is not None:
        return NO_TEXT_TO_EDIT
    if method == "editmessagecaption" and shown.photo is None:
        return NO_CAPTION_TO_EDIT
    if method == "editmessagetext":
        problem = text_problem({**params, "text": params.get("text", "")})
    elif method == "editmessagecaption":
        problem = text_problem({**params, "caption": params.get("caption", "")})
    else:
        problem = None
    if problem:
        return problem
    after = edited(method, params, shown, at=shown.at)
    same_text = shown_text(after.text, after.parse_mode) == shown_text(shown.text, shown.parse_mode)
    same_keyboard = shown_keyboard(after.reply_markup) == shown_keyboard(shown.reply_markup)
    return NOT_MODIFIED if same_text and same_keyboard else None


def shown_keyboard(markup: Payload | None) -> list[list[Payload]] | None:
    """The inline keyboard a message shows under `markup`: its rows with buttons, or None —
    no markup and a keyboard without buttons look the same."""
    rows = [row for row in (markup or {}).get("inline_keyboard", []) if row]
    return rows or None
