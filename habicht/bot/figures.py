"""A watch's figures for its subscribers: `/stats <n>`, and the note `/filter … deal` adds.

`/stats <n>` shows watch n of the chat it is typed in: its search's going price (median and
quartiles of the last 30 days, or how many prices are still missing), what the search showed,
the alerts the chat was sent, and what a `deal` rule lets through. Reading is for everyone,
in groups too. `/stats` without a number stays the owners' (`admin.stats_command`) in their
private chat; anyone else, and anywhere else, gets the usage.

`/stats <n>` answers with a chart of its search's going price over 30 days and the text as
its caption (`chart_replies`), or the text alone when no chart can be drawn. `watch_stats` is
the text on its own, so that the chart can carry it: it stays within a caption's 1,024
UTF-16 units.
"""

from __future__ import annotations

from functools import partial

from telegram import Update
from telegram.constants import ChatType

from habicht.bot import admin
from habicht.bot.chart_replies import reply_with_chart, stats_chart
from habicht.bot.handling import chat_of, reply
from habicht.bot.services import BotServices, Context
from habicht.bot.texts import Html, Texts
from habicht.digits import whole_number
from habicht.market.going import MIN_PRICES
from habicht.watches.figures import watch_figures
from habicht.watches.filters import WatchFilter
from habicht.watches.watch import WatchInfo

__all__ = ["deal_note", "stats_command", "watch_stats"]


def _owner_in_private(update: Update, services: BotServices) -> bool:
    user, chat = update.effective_user, update.effective_chat
    private = chat is not None and chat.type == ChatType.PRIVATE
    return private and services.is_admin(user.id if user else None)


async def stats_command(update: Update, context: Context) -> None:
    """`/stats <n>`: the figures of the chat's watch n; `/stats`: the owners' overview for an
    owner in a private chat, the usage for everyone else."""
    services = context.bot_data
    args = context.args or []
    if not args and _owner_in_private(update, services):
        await admin.stats_command(update, context)
        return
    texts = services.texts_for(chat_of(update))
    if not args:
        await reply(update, texts.fill("stats_usage"))
        return
    number = whole_number(args[0]) if len(args) == 1 else None
    if number is None:
        await reply(update, texts.fill("not_a_number", given=texts.echo(" ".join(args))))
        return
    watch = await services.subscriptions.watch(chat_of(update), number)
    if watch is None:
        await reply(update, texts.fill("no_such_watch", number=number))
        return
    figures = await watch_stats(services, texts, watch)
    chart = partial(stats_chart, services, watch.search_id, texts)
    await reply_with_chart(update, context, chart, caption=figures, text=figures)


async def watch_stats(services: BotServices, texts: Texts, watch: WatchInfo) -> Html:
    """The `/stats <n>` text of `watch`, as of now (a caption: ≤ 1,024 UTF-16 units)."""
    figures = await watch_figures(
        services.db, search_id=watch.search_id, chat_id=watch.chat_id, now=services.clock()
    )
    return texts.watch_stats(
        number=watch.number,
        label=watch.label,
        url=watch.url,
        figures=figures,
        deal=watch.filter.deal,
    )


async def deal_note(
    services: BotServices, texts: Texts, watch: WatchInfo, changed: WatchFilter
) -> Html | None:
    """What to add when `/filter` sets (or changes) `deal` on a search that has no going price
    yet: until it has, `deal` hides every advert, and the subscriber should know. None
    otherwise."""
    if changed.deal is None or changed.deal == watch.filter.deal:
        return None
    figures = await watch_figures(
        services.db, search_id=watch.search_id, chat_id=watch.chat_id, now=services.clock()
    )
    going = figures.going
    if going is not None and going.enough:
        return None
    count = 0 if going is None else going.count
    return texts.fill("deal_waiting", number=watch.number, count=count, min=MIN_PRICES)
