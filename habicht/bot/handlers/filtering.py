"""What subscribers shape their watches with: /filter, and /history of an advert's prices.

`/filter <n> <rule> …` adds rules to watch n, `/filter <n>` shows them, `/filter <n> clear`
removes them; the rules are `habicht.watches.filters`'. A change is refused whole when one
rule is bad, and the answer names the words at fault; a new `near` rule also when its centre
cannot be placed (`near_centre`: a postcode habicht has read adverts of, or `here` once the
chat has shared a location), and its answer says where it measures from. A new `deal` rule on
a search without a going price yet gets a note (`deal_note`). In a group only its admins may
use /filter (it changes what the whole group is told); /history is for everyone, and answers
with a chart when it can (`habicht.bot.chart_replies`).
"""

from __future__ import annotations

import re
from functools import partial

from telegram import Update

from habicht.bot.chart_replies import fit_caption, history_chart, reply_with_chart
from habicht.bot.guards import admins_only
from habicht.bot.handling import chat_of, reply
from habicht.bot.services import BotServices, Context
from habicht.bot.texts import Html, Texts
from habicht.digits import whole_number
from habicht.market.going import MIN_PRICES
from habicht.watches.figures import watch_figures
from habicht.watches.filters import WatchFilter
from habicht.watches.rules import InvalidFilter, Near
from habicht.watches.watch import WatchInfo

__all__ = [
    "HISTORY_LINES",
    "advert_id",
    "deal_note",
    "filter_command",
    "history_command",
    "near_centre",
]

HISTORY_LINES = 20
"""Prices /history lists at most, the newest (its chart draws them all)."""

# An advert's code in what people paste: `…/schoene-wohnung-1622906706/`, `?adId=95640092`,
# `/iad/share/1622906706`, or the bare code willhaben shows under the advert.
_ADVERT_CODE = re.compile(r"(?:adId=|/share/|-|^)([0-9]{4,12})(?=[/?#&]|$)")


def advert_id(text: str) -> str | None:
    """The advert code in a pasted link or typed number; None if there is none."""
    matches = _ADVERT_CODE.findall(text.strip())
    return matches[-1] if matches else None


@admins_only
async def filter_command(update: Update, context: Context) -> None:
    """`/filter <n> [rules … | clear]`; in a group, for its admins (a filter changes what the
    whole group is told)."""
    services = context.bot_data
    texts = services.texts_for(chat_of(update))
    args = context.args or []
    if not args:
        await reply(update, texts.fill("filter_usage"))
        return
    number = whole_number(args[0])
    if number is None:
        await reply(update, texts.fill("not_a_number", given=texts.echo(args[0])))
        return
    watch = await services.subscriptions.watch(chat_of(update), number)
    if watch is None:
        await reply(update, texts.fill("no_such_watch", number=number))
        return
    rules = args[1:]
    label = texts.search_name(watch.search)
    if not rules:
        if watch.filter.empty:
            await reply(update, texts.fill("filter_none", number=number, label=label))
        else:
            shown = texts.rules(watch.filter.rules())
            await reply(update, texts.fill("filter_show", number=number, label=label, rules=shown))
        return
    cleared = [rule.casefold() for rule in rules] == ["clear"]
    try:
        changed = WatchFilter() if cleared else watch.filter.with_rules(rules)
    except InvalidFilter as exc:
        await reply(update, texts.filter_invalid(exc.reason, exc.token))
        return
    centre = None
    if changed.near is not None and changed.near != watch.filter.near:
        placed, centre = await near_centre(services, texts, chat_of(update), number, changed.near)
        if not placed:
            await reply(update, centre)
            return
    await services.subscriptions.set_filter(chat_of(update), number, changed)
    if changed.empty:
        await reply(update, texts.fill("filter_cleared", number=number, label=label))
    else:
        shown = texts.rules(changed.rules())
        answer = texts.fill("filter_set", number=number, label=label, rules=shown)
        if centre is not None:
            answer = Html(f"{answer}\n{centre}")
        note = await deal_note(services, texts, watch, changed)
        await reply(update, answer if note is None else Html(f"{answer}\n\n{note}"))


async def history_command(update: Update, context: Context) -> None:
    """`/history <advert link or code>`: every price the chat's watches saw it at, newest
    first, under a chart of them against the going price of the searches that showed it
    (the text alone when no chart can be drawn)."""
    services = context.bot_data
    chat_id = chat_of(update)
    texts = services.texts_for(chat_id)
    code = advert_id(" ".join(context.args or []))
    if code is None:
        await reply(update, texts.fill("history_usage"))
        return
    advert = await services.subscriptions.history(chat_id, code)
    if advert is None:
        await reply(update, texts.fill("history_unknown"))
        return
    now = services.clock()
    lines = [
        texts.fill(
            "history_line", price=texts.price(point.price), age=texts.age(now - point.seen_at)
        )
        for point in reversed(advert.points)
    ][:HISTORY_LINES] or [texts.fill("history_none")]

    def fill(shown: Html) -> Html:
        return texts.fill("history", url=advert.url, title=texts.label(advert.title), lines=shown)

    text = fill(Html("\n".join(lines)))
    if not advert.points:
        await reply(update, text)
        return
    await reply_with_chart(
        update,
        context,
        partial(history_chart, services, chat_id, advert, texts),
        caption=fit_caption(fill, lines),
        text=text,
    )


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
