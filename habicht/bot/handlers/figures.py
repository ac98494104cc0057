"""`/stats`: a watch's figures for its subscribers, or the owners' overview.

`/stats <n>` shows watch n of the chat it is typed in: its search's going price (median and
quartiles of the last 30 days, or how many prices are still missing), what the search showed,
the alerts the chat was sent, and what a `deal` rule lets through. Reading is for everyone,
in groups too. `/stats` without a number stays the owners' (`owners_stats`, `owner_only`) in
their private chat; anyone else, and anywhere else, gets the usage.

`/stats <n>` answers with a chart of its search's going price over 30 days and the text as
its caption (`chart_replies`), or the text alone when no chart can be drawn. `watch_stats` is
the text on its own, so that the chart can carry it: it stays within a caption's 1,024
UTF-16 units.
"""

from __future__ import annotations

import math
from functools import partial

from telegram import Update
from telegram.constants import ChatType

from habicht.bot.alerts import budget_now, describe_load
from habicht.bot.chart_replies import reply_with_chart, stats_chart
from habicht.bot.guards import owner_only
from habicht.bot.handling import chat_of, reply
from habicht.bot.services import BotServices, Context
from habicht.bot.texts import Html, Texts
from habicht.digits import whole_number
from habicht.health import feed_cadence, following
from habicht.scraper.figures import Capacity, FeedLoad, Latency, Workload, freshness, latency
from habicht.watches.figures import watch_figures
from habicht.watches.follow_figures import FollowFigures, follow_figures
from habicht.watches.watch import WatchInfo

__all__ = ["FAILING_SHOWN", "owners_stats", "stats_command", "watch_stats"]

FAILING_SHOWN = 5
"""Failing searches the owners' overview names at most."""


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
        await owners_stats(update, context)
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
        label=texts.search_name(watch.search),
        url=watch.url,
        figures=figures,
        deal=watch.filter.deal,
    )


@owner_only
async def owners_stats(update: Update, context: Context) -> None:
    """Chats, watches, unique searches, listings, the last pass, freshness, what the budget
    serves (searches polled, feeds), feed misses, the plain searches (the real-estate ones
    apart) and each feed, the last hour's alert freshness, and failing searches (named as
    `/list` names them, their URL behind the words)."""
    services = context.bot_data
    texts = services.texts_for(chat_of(update))
    overview = await services.subscriptions.overview()
    interval = services.settings.scrape_interval
    fresh = await freshness(services.db, now=services.clock(), interval=interval)
    none = texts.fill("queue_none")
    cycle = services.last_cycle
    last_cycle = (
        texts.fill("never")
        if cycle is None
        else texts.fill(
            "cycle",
            age=texts.age(services.clock() - cycle[1]),
            took=texts.age(cycle[1] - cycle[0]),
        )
    )
    failing = [
        texts.fill(
            "failing_line",
            url=search.url,
            label=texts.search_name(search.search),
            kind=search.last_error_kind or "?",
            count=search.consecutive_failures,
            watchers=search.watchers,
        )
        for search in overview.failing[:FAILING_SHOWN]
    ]
    settings = services.settings
    cadence = feed_cadence(settings)
    load, fits = await budget_now(services, now=services.clock(), cadence=cadence)
    header = texts.fill(
        "stats",
        chats=overview.chats,
        active_chats=overview.active_chats,
        watches=overview.watches,
        active_watches=overview.active_watches,
        searches=overview.searches,
        listings=overview.listings,
        last_cycle=last_cycle,
        stalest=none if fresh.stalest is None else texts.age(fresh.stalest),
        p95=none if fresh.p95 is None else texts.age(fresh.p95),
        interval=texts.age(interval),
        load=Html(
            "\n".join(
                [
                    describe_load(texts, load, cadence)
                    + "; "
                    + texts.fill("stats_feeds", misses=load.misses, uncovered=load.uncovered),
                    *_feeds(texts, load, fits),
                ]
            )
        ),
        alerts=_alert_freshness(texts, await latency(services.db, now=services.clock())),
        following=_following(
            texts,
            await follow_figures(services.db, now=services.clock(), following=following(settings)),
        ),
        failing=len(overview.failing),
    )
    await reply(update, texts.lines(header, failing))


def _alert_freshness(texts: Texts, fresh: Latency) -> Html:
    """The last hour's new-listing alerts and how fresh they were (`scraper.figures`)."""
    return texts.fill(
        "stats_alerts",
        count=fresh.alerts,
        seen_p50=texts.age_or_none(fresh.seen_p50),
        seen_p95=texts.age_or_none(fresh.seen_p95),
        published_p50=texts.age_or_none(fresh.published_p50),
        published_p95=texts.age_or_none(fresh.published_p95),
    )


def _following(texts: Texts, figures: FollowFigures) -> Html:
    """What keeping sent alerts true did (`watches.follow_figures`)."""
    return texts.fill(
        "stats_following",
        followed=figures.followed,
        checks=figures.page_checks_hour,
        sent=figures.edits_sent,
        impossible=figures.edits_impossible,
        gone=figures.gone_found,
    )


def _feeds(texts: Texts, load: Workload, fits: Capacity) -> list[Html]:
    """With feeds on: the plain searches, if any, and the real-estate ones among them, with
    the round a new advert of theirs waits; then a line for each feed (`scraper.figures`)."""
    feeds = [_feed(texts, feed) for feed in load.by_feed]
    if not load.plain:
        return feeds
    round_ = None if math.isinf(fits.round) else fits.round
    plain = texts.fill(
        "stats_plain",
        plain=load.plain,
        estate=load.plain_real_estate,
        round=texts.age_or_none(round_),
    )
    return [plain, *feeds]


def _feed(texts: Texts, feed: FeedLoad) -> Html:
    """One feed: its name in words (a path habicht does not know as it is), the searches it
    serves of its own, its feed and coverage misses, and how long it stays switched off."""
    off = (
        Html("")
        if feed.off_for is None
        else texts.fill("stats_feed_off", age=texts.age(feed.off_for))
    )
    return texts.fill(
        "stats_feed",
        name=texts.feed(feed.name),
        served=feed.served,
        searches=feed.searches,
        misses=feed.feed_misses,
        uncovered=feed.coverage_misses,
        off=off,
    )
