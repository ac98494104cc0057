"""`/quiet`: a chat's quiet hours — shown, set (`/quiet 22-7 [hold|silent]`) or ended.

The syntax is fixed (users and tests rely on it): whole hours or `HH:MM`, then `hold` (the
default: alerts wait in the outbox until the window ends) or `silent` (they arrive at once,
without a sound). Times are wall-clock times in the chat's zone (Europe/Vienna unless it has
another). A change re-times what is held at once: `/quiet off` releases it, a new window
holds it until its own end (`Preferences.set_quiet`). In a group, only its admins may change
them; anyone may look.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from telegram import Update

from habicht.bot.guards import admins_only
from habicht.bot.handling import reply
from habicht.bot.jobs import kick_delivery
from habicht.bot.services import Context
from habicht.bot.texts import Html, Texts, describe_quiet
from habicht.quiet import (
    DEFAULT_ZONE,
    InvalidQuietHours,
    QuietHours,
    QuietReason,
    parse_quiet_hours,
)

__all__ = ["quiet_command", "quiet_reply"]

_REFUSALS = {
    QuietReason.SYNTAX: "quiet_usage",
    QuietReason.ZONE: "quiet_usage",
    QuietReason.TIME: "quiet_bad_time",
    QuietReason.EMPTY: "quiet_empty",
}


def quiet_reply(texts: Texts, quiet: QuietHours | None, retimed: int, *, now: float) -> Html:
    """What the change did: the new setting, and where the held alerts went."""
    if quiet is None:
        said = texts.fill("quiet_off")
    else:
        said = texts.fill("quiet_set", quiet=describe_quiet(texts, quiet))
    release = None if quiet is None or quiet.mode == "silent" else quiet.release_at(now)
    if not retimed:
        note = Html("")
    elif quiet is None or release is None:
        note = texts.fill("quiet_released", count=retimed)
    else:
        until = f"{datetime.fromtimestamp(release, ZoneInfo(quiet.zone)):%H:%M}"
        note = texts.fill("quiet_held_until", count=retimed, until=until)
    return Html(f"{said}\n{note}" if note else said)


async def quiet_command(update: Update, context: Context) -> None:
    """`/quiet` shows the chat's quiet hours; `/quiet <from>-<to> [hold|silent]` and
    `/quiet off` change them (admins only, in a group)."""
    if update.effective_chat is None:
        return
    if context.args:
        await _change_quiet(update, context)
        return
    services = context.bot_data
    chat_id = update.effective_chat.id
    texts = services.texts_for(chat_id)
    quiet = services.preferences.of(chat_id).quiet
    await reply(update, texts.fill("quiet_show", quiet=describe_quiet(texts, quiet)))


@admins_only
async def _change_quiet(update: Update, context: Context) -> None:
    if update.effective_chat is None:
        return
    services = context.bot_data
    chat_id = update.effective_chat.id
    texts = services.texts_for(chat_id)
    typed = " ".join(context.args or [])
    current = services.preferences.of(chat_id).quiet
    quiet: QuietHours | None = None
    if typed.lower() != "off":
        try:
            quiet = parse_quiet_hours(typed, zone=DEFAULT_ZONE if current is None else current.zone)
        except InvalidQuietHours as exc:
            await reply(update, texts.fill(_REFUSALS[exc.reason], given=exc.given))
            return
    retimed = await services.preferences.set_quiet(chat_id, quiet)
    await reply(update, quiet_reply(texts, quiet, retimed, now=services.clock()))
    if retimed:
        kick_delivery(services)  # released rows are due now (re-held ones wait: no harm)
