"""`/settings`: one message with the chat's settings and a button for each choice.

A press changes the setting and edits that message to show it — in the new language, when
the language was changed. Callback data is `set:lang:<de|en>`, `set:style:<photo|compact>`,
`set:quiet:<off|hold|silent>`, `set:digest:<3|5|10|20>` or `set:follow:<on|off>` (at most 17
bytes); anything else,
forged or from an older version, does nothing. In a group, only its admins may press them
(`habicht.bot.guards`).

The quiet buttons end the quiet hours or switch their mode, keeping the chat's window (or
22:00-07:00 when it has none); `/quiet` sets any other window.

The alert style applies to alerts queued after the change (an alert is final once queued):
a "photo" alert is the listing's picture with the text as caption, a "compact" one a single
line of text without a preview (docs/using/alerts.md).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import time
from typing import get_args

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from habicht.bot.guards import admins_only, admins_only_button
from habicht.bot.handling import edit_in_place, reply
from habicht.bot.preferences import ALERT_STYLES, LANGS, ChatPrefs, Preferences
from habicht.bot.services import Context
from habicht.bot.texts import LANGUAGE_NAMES, Html, Texts, describe_quiet
from habicht.quiet import QuietHours, QuietMode

__all__ = ["PREFIX", "on_settings_button", "settings_command"]

PREFIX = "set:"
"""What the callback data of every settings button begins with (the handler's pattern)."""

_CHOSEN = "✓ "

QUIET_MODES: tuple[QuietMode, ...] = get_args(QuietMode)

DIGEST_CHOICES = (3, 5, 10, 20)
"""The digest thresholds the buttons offer (`HABICHT_DIGEST_AFTER` may set another default)."""

_NIGHT = QuietHours(start=time(22), end=time(7))
"""The window a quiet button sets in a chat that has none."""


def _view(prefs: Preferences, chat_id: int) -> tuple[Html, InlineKeyboardMarkup]:
    """The settings message of the chat: its text and its buttons, in its language."""
    lang, chat = prefs.lang(chat_id), prefs.of(chat_id)
    style, quiet, digest = chat.alert_style, chat.quiet, prefs.digest_after(chat_id)
    texts = Texts(lang)

    def button(label: str, chosen: bool, data: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(
            (_CHOSEN if chosen else "") + label, callback_data=f"{PREFIX}{data}"
        )

    rows = [
        [button(LANGUAGE_NAMES[code], code == lang, f"lang:{code}") for code in LANGS],
        [
            button(texts.fill(f"style_{code}"), code == style, f"style:{code}")
            for code in ALERT_STYLES
        ],
        [
            button(texts.fill("quiet_button_off"), quiet is None, "quiet:off"),
            *(
                button(
                    texts.fill(f"quiet_button_{mode}"),
                    quiet is not None and quiet.mode == mode,
                    f"quiet:{mode}",
                )
                for mode in QUIET_MODES
            ),
        ],
        [
            button(texts.fill("digest_button", count=n), n == digest, f"digest:{n}")
            for n in DIGEST_CHOICES
        ],
        [
            button(texts.fill("follow_button_on"), chat.follow, "follow:on"),
            button(texts.fill("follow_button_off"), not chat.follow, "follow:off"),
        ],
    ]
    text = texts.fill(
        "settings",
        lang=LANGUAGE_NAMES[lang],
        style=Html(texts.fill(f"style_{style}")),
        quiet=describe_quiet(texts, quiet),
        digest=digest,
        follow=Html(texts.fill("follow_on" if chat.follow else "follow_off")),
    )
    return text, InlineKeyboardMarkup(rows)


@admins_only
async def settings_command(update: Update, context: Context) -> None:
    """`/settings`: the chat's language and alert style, each changed by a button."""
    if update.effective_chat is None:
        return
    await reply(update, *_view(context.bot_data.preferences, update.effective_chat.id))


async def _apply(prefs: Preferences, chat_id: int, data: str) -> ChatPrefs | None:
    """Apply the button's choice; None for data no settings button carries."""
    setting, _, value = data.removeprefix(PREFIX).partition(":")
    for lang in LANGS:
        if setting == "lang" and value == lang:
            return await prefs.set_lang(chat_id, lang)
    for style in ALERT_STYLES:
        if setting == "style" and value == style:
            return await prefs.set_alert_style(chat_id, style)
    if setting == "quiet" and value == "off":
        await prefs.set_quiet(chat_id, None)
        return prefs.of(chat_id)
    if setting == "follow" and value in ("on", "off"):
        return await prefs.set_follow(chat_id, value == "on")
    for threshold in DIGEST_CHOICES:
        if setting == "digest" and value == str(threshold):
            return await prefs.set_digest_after(chat_id, threshold)
    for mode in QUIET_MODES:
        if setting == "quiet" and value == mode:
            await prefs.set_quiet(chat_id, replace(prefs.of(chat_id).quiet or _NIGHT, mode=mode))
            return prefs.of(chat_id)
    return None


@admins_only_button
async def on_settings_button(update: Update, context: Context) -> None:
    """A settings button: change that setting and show the settings as they are now."""
    query, chat = update.callback_query, update.effective_chat
    if query is None or query.data is None or chat is None:
        return
    prefs = context.bot_data.preferences
    before = _view(prefs, chat.id)
    changed = await _apply(prefs, chat.id, query.data)
    await query.answer()
    after = _view(prefs, chat.id)
    # Editing a message into what it already shows is an error at Telegram: skip it.
    if changed is not None and (after[0], after[1].to_json()) != (before[0], before[1].to_json()):
        await edit_in_place(query, *after)
