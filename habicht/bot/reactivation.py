"""A chat back from a block: active again, its watches rescanned, and welcomed back.

A chat that had blocked the bot (or removed it from a group) and writes again has unblocked
it. Both `/start` (`habicht.bot.handlers.commands`) and the look at every message before the
commands (`habicht.bot.handlers.presence`) notice it, so both use these two.
"""

from __future__ import annotations

from habicht.bot.jobs import scan_now
from habicht.bot.services import Context
from habicht.bot.texts import Html, Texts

__all__ = ["reactivate", "welcome_back"]


async def reactivate(context: Context, chat_id: int) -> int | None:
    """Make a chat that had blocked the bot active again and take its watches' new
    baselines now; how many of its watches are active again, or None (and nothing done)
    if it was not blocked."""
    subscriptions = context.bot_data.subscriptions
    if not await subscriptions.is_blocked(chat_id) or not await subscriptions.register_chat(
        chat_id
    ):
        return None
    scan_now(context.application)  # register_chat asked for its searches' scans
    return sum(not watch.paused for watch in await subscriptions.watches(chat_id))


def welcome_back(texts: Texts, resumed: int) -> Html:
    """The greeting of a chat back from a block, with how many of its watches run again."""
    if resumed == 1:
        return texts.fill("start_again_one")
    return texts.fill("start_again", count=resumed)
