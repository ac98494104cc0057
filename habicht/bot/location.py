"""Distance: the location a chat shares, and where a `near` rule measures from (issue 21).

A location message (Telegram's 📎 → Location; the first point of a live location) becomes
the chat's location, what `/filter <n> near here <km>` measures from; the answer names the
place understood — the nearest postcode habicht knows, or the coordinates while it knows
none — and says so when the place lies outside Austria (it is kept all the same). In a group
only its admins may set it, as it changes what the whole group is told; others get the polite
refusal. (With Telegram's privacy mode on, a bot in a group sees a location only when it is a
reply to one of the bot's messages: the hint to share one asks for just that.)

A new `near` rule is taken only when its centre can be placed: a postcode habicht has read
adverts of, or `here` once the chat has shared a location.
"""

from __future__ import annotations

from telegram import Update

from habicht.bot.handling import chat_of, reply
from habicht.bot.permissions import admins_only
from habicht.bot.services import BotServices, Context
from habicht.bot.texts import Html, Texts
from habicht.watches.rules import Near

__all__ = ["near_centre", "on_location"]


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


async def near_centre(
    services: BotServices, texts: Texts, chat_id: int, number: int, near: Near
) -> tuple[bool, Html]:
    """Whether `near` can be placed, and what to say: the line naming its centre, or the
    refusal with the hint (share a location, or take a postcode)."""
    km = format(near.km.normalize(), "f")
    km = km.replace(".", ",") if texts.lang == "de" else km
    if near.here:
        located = await services.subscriptions.location(chat_id)
        if located is None:
            return False, texts.fill("near_no_location", number=number, km=km)
        if located.nearest is None:
            lat, lon = located.point
            place = f"{lat:.5f}, {lon:.5f}"
        else:
            place = texts.where(located.nearest)
        return True, texts.fill("near_here", km=km, place=place)
    found = await services.subscriptions.place(near.centre)
    if found is None:
        return False, texts.fill(
            "near_unknown_postcode", postcode=near.centre, number=number, km=km
        )
    return True, texts.fill("near_postcode", km=km, place=texts.where(found))
