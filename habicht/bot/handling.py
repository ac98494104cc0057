"""What the subscriber and owner handlers share: answering.

A pressed button is answered in place: its message is edited to the result. A message too
old to edit (date 0, or an `InaccessibleMessage`) gets the result as a new message instead,
since the action ran either way.

A number typed by a person is read by `habicht.digits.whole_number`, like every number from
outside.
"""

from __future__ import annotations

from telegram import CallbackQuery, InlineKeyboardMarkup, LinkPreviewOptions, Message, Update

from habicht.bot.texts import Html

__all__ = ["NO_PREVIEW", "chat_of", "edit_in_place", "reply"]

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


def chat_of(update: Update) -> int:
    """The id of the chat an update came from (every handler registered here has one)."""
    if update.effective_chat is None:
        raise ValueError("this update has no chat")
    return update.effective_chat.id


async def reply(update: Update, text: Html, markup: InlineKeyboardMarkup | None = None) -> None:
    """Answer in the update's chat, without link previews (a command's answer is the point)."""
    if update.effective_message is not None:
        await update.effective_message.reply_html(
            text, reply_markup=markup, link_preview_options=NO_PREVIEW
        )


async def edit_in_place(
    query: CallbackQuery, text: Html, markup: InlineKeyboardMarkup | None = None
) -> None:
    """Show `text` in the pressed button's message, or anew when that is too old to edit."""
    message = query.message
    if isinstance(message, Message) and message.is_accessible:
        await query.edit_message_text(text, reply_markup=markup, link_preview_options=NO_PREVIEW)
    elif message is not None:
        await query.get_bot().send_message(
            message.chat.id, text, reply_markup=markup, link_preview_options=NO_PREVIEW
        )
