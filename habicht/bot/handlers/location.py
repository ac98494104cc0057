"""The location a chat shares: where its `near here` rules measure from (issue 21).

A location message (Telegram's 📎 → Location; the first point of a live location) becomes
the chat's location, what `/filter <n> near here <km>` measures from; the answer names the
place understood — the nearest postcode habicht knows, or the coordinates while it knows
none — and says so when the place lies outside Austria (it is kept all the same). In a group
only its admins may set it, as it changes what the whole group is told; others get the polite
refusal. (With Telegram's privacy mode on, a bot in a group sees a location only when it is a
reply to one of the bot's messages: the hint to share one asks for just that.)

A new `near` rule is placed by `/filter` (`habicht.bot.handlers.filtering.near_centre`).
"""

from __future__ import annotations

from telegram import Update

from habicht.bot.guards import admins_only
from habicht.bot.handling import chat_of, reply
from habicht.bot.services import Context

__all__ = ["on_location"]


@admins_only
async def on_location(update: Update, context: Context) -> None:
    """A shared location: kept as the chat's, and confirmed with the place understood."""
    message = update.effective_message
    if message is None or message.location is None:
        return
    services = context.bot_data
    chat_id = chat_of(update)
    point = (message.location.latitude, message.location.longitude)
    located = await services.subscriptions.share_location(chat_id, point)
    await reply(update, services.texts_for(chat_id).located(located))
