"""Answers with a picture: the chart as a photo with the text as its caption, or the text alone.

`/history <advert>` answers with the advert's price path against its searches' going price,
and `/stats <n>` with its watch's going price day by day; both through `reply_with_chart`,
which draws in a task of its own (the chart worker's thread, `habicht.bot.chart_worker`), so
the handler returns at once and the next update — another chat's /list — does not wait for
the picture. When no chart can be drawn (too few prices, a burst that fills the worker's
queue, a drawing that failed) or Telegram refuses the photo, the text goes alone: a chart is
a better answer, never a condition for one.

matplotlib (≈ 45 MB of memory and half a second to import) is imported at the first chart, in
the worker's thread (`history_png`, `search_png`), not when the bot starts: a bot whose users
never ask for a chart never pays for it, and the first one who does waits half a second more.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

from telegram import Update
from telegram.error import BadRequest

from habicht.bot.handling import reply
from habicht.bot.services import BotServices, Context
from habicht.bot.texts import MAX_CAPTION, VIENNA, Html, Texts, visible_len
from habicht.market.history import PricePoint
from habicht.market.trend import GoingDay, advert_searches, going_by_day, path_as_going
from habicht.watches.subscriptions import AdvertHistory

__all__ = [
    "CHART_REPLY",
    "HISTORY_DAYS",
    "fit_caption",
    "history_chart",
    "history_png",
    "reply_with_chart",
    "search_png",
    "stats_chart",
]

log = logging.getLogger(__name__)

HISTORY_DAYS = 60
"""Days of going price a /history chart sets the advert against at most (its path is drawn
whole)."""

CHART_REPLY = "chart reply"
"""The name of the task that answers with a chart."""

Chart = Callable[[], Awaitable[bytes | None]]
"""Draws a chart when called (None: none can be drawn)."""


def history_png(
    path: Sequence[PricePoint], days: Sequence[GoingDay], *, now: float, texts: Texts
) -> bytes | None:
    """`charts.history_png`, matplotlib imported at the first call (module docstring)."""
    from habicht.bot import charts

    return charts.history_png(path, days, now=now, texts=texts)


def search_png(days: Sequence[GoingDay], *, texts: Texts) -> bytes | None:
    """`charts.search_png`, matplotlib imported at the first call (module docstring)."""
    from habicht.bot import charts

    return charts.search_png(days, texts=texts)


def _today(now: float) -> str:
    return datetime.fromtimestamp(now, VIENNA).date().isoformat()


async def history_chart(
    services: BotServices, chat_id: int, advert: AdvertHistory, texts: Texts
) -> bytes | None:
    """The advert's prices against the going price of the chat's searches that showed it
    (per m² for real estate: `path_as_going`), from the cache when drawn today for the same
    last price."""
    if not advert.points:
        return None
    now = services.clock()
    mine = await services.subscriptions.search_ids(chat_id)
    searches = await advert_searches(services.db, advert.ad_id, among=mine)
    last = advert.points[-1]
    key = ("history", advert.ad_id, tuple(searches), texts.lang, _today(now), last.seen_at)
    cached = services.charts.cached(key)
    if cached is not None:
        return cached
    first_day = datetime.fromtimestamp(advert.points[0].seen_at, VIENNA).date()
    back = (datetime.fromtimestamp(now, VIENNA).date() - first_day).days
    days = max(2, min(HISTORY_DAYS, back + 1))
    going = await going_by_day(services.db, searches, now=now, days=days) if searches else []
    path, band = await path_as_going(services.db, advert.ad_id, advert.points, going)
    return await services.charts.draw(key, history_png, path, band, now=now, texts=texts)


async def stats_chart(services: BotServices, search_id: int, texts: Texts) -> bytes | None:
    """Search `search_id`'s going price and count over the last 30 days, from the cache when
    drawn today (`/stats <n>` passes its watch's search)."""
    now = services.clock()
    key = ("stats", search_id, texts.lang, _today(now))
    cached = services.charts.cached(key)
    if cached is not None:
        return cached
    days = await going_by_day(services.db, [search_id], now=now)
    return await services.charts.draw(key, search_png, days, texts=texts)


async def reply_with_chart(
    update: Update, context: Context, chart: Chart, *, caption: Html, text: Html
) -> None:
    """Answer `update` with `chart()` as a photo captioned `caption` (at most `MAX_CAPTION`:
    see `fit_caption`), or with `text` when it draws none — in a task of its own, so the
    handler that calls this returns at once. The task is one of the bot's (`services.tasks`:
    a shutdown cancels it); what fails in it goes to the bot's error handler."""
    services = context.bot_data
    task = asyncio.get_running_loop().create_task(
        _answer(update, context, chart, caption=caption, text=text), name=CHART_REPLY
    )
    services.tasks.add(task)
    task.add_done_callback(services.tasks.discard)


async def _answer(
    update: Update, context: Context, chart: Chart, *, caption: Html, text: Html
) -> None:
    message = update.effective_message
    if message is None:
        return
    try:
        png = await chart()
    except Exception:  # a chart is a nicety: its failure must not cost the answer
        log.exception("the chart for %r could not be made: the text goes alone", message.text)
        png = None
    try:
        if png is not None:
            try:
                await message.reply_photo(png, caption=caption, filename="chart.png")
                return
            except BadRequest as exc:
                log.warning("Telegram refused a chart (%s): the text goes alone", exc.message)
        await reply(update, text)
    except Exception as exc:
        await context.application.process_error(update, exc)


def fit_caption(
    fill: Callable[[Html], Html], lines: Sequence[str], *, more: str = "…", limit: int = MAX_CAPTION
) -> Html:
    """`fill(lines joined by newlines)` with as many of `lines` (from the first) as fit in
    `limit` visible UTF-16 units (as Telegram counts a caption), the cut ones said by `more`."""
    for keep in range(len(lines), -1, -1):
        shown = [*lines[:keep], *([more] if keep < len(lines) else [])]
        text = fill(Html("\n".join(shown)))
        if visible_len(text) <= limit:
            return text
    raise ValueError(f"not even an empty list fits a caption of {limit}")
