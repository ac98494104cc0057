"""What the owner can do (`HABICHT_ADMIN_IDS`): /queue and its repairs, /stats.

Anyone else who tries gets exactly what an unknown command gets (the hint in a private
chat, silence in a group), so the refusal reveals nothing about the bot's owner commands.
They answer only in a private chat: in a group, even an owner's `/queue dead` would show
every member other chats' ids and errors, so there they get no answer at all.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from datetime import datetime
from functools import wraps
from typing import Any
from zoneinfo import ZoneInfo

from telegram import Update
from telegram.constants import ChatType

from habicht.bot.alerts import describe_load
from habicht.bot.handlers.commands import unknown_command
from habicht.bot.handling import reply
from habicht.bot.redact import scrub
from habicht.bot.services import BotServices, Context
from habicht.bot.texts import Html, Texts, shorten
from habicht.digits import whole_number
from habicht.health import feed_cadence
from habicht.queue import DEFAULT_ZONE
from habicht.scraper.alert_times import Latency, latency
from habicht.scraper.budget import workload
from habicht.scraper.schedule import freshness

__all__ = ["owner_only", "queue_command", "stats_command"]

Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]

DEAD_SHOWN = 10
DEAD_MAX = 50
PURGE_DAYS = 30
FAILING_SHOWN = 5


def owner_only(handler: Handler) -> Handler:
    """Run `handler` for the owners in a private chat; answer anyone else there as if the
    command did not exist, and nobody in a group."""

    @wraps(handler)
    async def guarded(update: Update, context: Context) -> None:
        user, chat = update.effective_user, update.effective_chat
        if chat is None or chat.type != ChatType.PRIVATE:
            return
        if context.bot_data.is_admin(user.id if user else None):
            await handler(update, context)
        else:
            await unknown_command(update, context)

    return guarded


def _texts(update: Update, services: BotServices) -> Texts:
    """The texts of the owner's private chat, in its language."""
    assert update.effective_chat is not None  # `owner_only` answers only in private chats
    return services.texts_for(update.effective_chat.id)


async def _overview(services: BotServices, texts: Texts) -> Html:
    stats = await services.store.stats()
    now = services.clock()
    none = texts.fill("queue_none")
    reasons = Html(
        "".join(
            "\n" + texts.fill("queue_reason", reason=reason, count=count)
            for reason, count in stats.dead_by_reason.items()
        )
    )
    zone = ZoneInfo(DEFAULT_ZONE)
    held = Html(
        "".join(
            "\n"
            + texts.fill("queue_held", until=f"{datetime.fromtimestamp(at, zone):%H:%M}", count=n)
            for at, n in stats.held.items()
        )
    )
    return texts.fill(
        "queue_stats",
        pending=stats.pending - sum(stats.held.values()),
        held=held,
        oldest=none if stats.oldest_pending_age is None else texts.age(stats.oldest_pending_age),
        retrying=stats.retrying,
        next_retry=Html("")  # no retry waits: held rows are no retry
        if stats.next_retry_at is None
        else texts.fill("queue_next_retry", due=texts.until(stats.next_retry_at - now)),
        sending=stats.sending,
        sent_24h=stats.sent_last_24h,
        dead=stats.dead,
        reasons=reasons,
    )


def _one_number(args: list[str], *, default: int) -> int | None:
    """The single number in `args`, `default` when there are none; None for anything else."""
    if not args:
        return default
    return whole_number(args[0]) if len(args) == 1 else None


async def _dead(services: BotServices, texts: Texts, args: list[str]) -> Html | None:
    token = services.settings.bot_token
    limit = _one_number(args, default=DEAD_SHOWN)
    if not limit:  # also refuses 0: "the last 0 dead messages" is a typo, not a question
        return None
    rows = await services.store.dead(min(DEAD_MAX, limit))
    if not rows:
        return texts.fill("queue_dead_none")
    now = services.clock()
    lines = [
        texts.fill(
            "queue_dead_line",
            id=row.id,
            chat_id=row.chat_id,
            kind=row.kind,
            reason=shorten(scrub(f"{row.dead_reason}: {row.last_error or ''}", token), 120),
            age=texts.age(now - row.updated_at),
        )
        for row in rows
    ]
    return texts.lines(texts.fill("queue_dead_header"), lines)


async def _retry(services: BotServices, texts: Texts, args: list[str]) -> Html | None:
    if args == ["all"]:
        count = await services.store.requeue("all")
    else:
        ids = [number for number in map(whole_number, args) if number is not None]
        if not args or len(ids) != len(args):
            return None
        count = await services.store.requeue(ids)
    return texts.fill("queue_retried", count=count)


async def _purge(services: BotServices, texts: Texts, args: list[str]) -> Html | None:
    days = _one_number(args, default=PURGE_DAYS)
    if days is None:
        return None
    count = await services.store.purge(days * 86400)
    return texts.fill("queue_purged", count=count, days=days)


@owner_only
async def queue_command(update: Update, context: Context) -> None:
    """`/queue`, `/queue dead [n]`, `/queue retry <id…|all>`, `/queue purge [days]`."""
    services = context.bot_data
    texts = _texts(update, services)
    action, *rest = context.args or ["stats"]
    answer: Html | None
    if action == "stats":
        answer = await _overview(services, texts)
    elif action == "dead":
        answer = await _dead(services, texts, rest)
    elif action == "retry":
        answer = await _retry(services, texts, rest)
    elif action == "purge":
        answer = await _purge(services, texts, rest)
    else:
        answer = None
    await reply(update, answer or texts.fill("queue_usage"))


@owner_only
async def stats_command(update: Update, context: Context) -> None:
    """Chats, watches, unique searches, listings, the last pass, freshness, what the budget
    serves (searches polled, feeds), feed misses, the last hour's alert freshness, and failing
    searches."""
    services = context.bot_data
    texts = _texts(update, services)
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
            search_id=search.search_id,
            kind=search.last_error_kind or "?",
            count=search.consecutive_failures,
            watchers=search.watchers,
            url=shorten(search.url, 120),
        )
        for search in overview.failing[:FAILING_SHOWN]
    ]
    cadence = feed_cadence(services.settings)
    load = await workload(services.db, now=services.clock(), cadence=cadence)
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
            describe_load(texts, load, cadence)
            + "; "
            + texts.fill("stats_feeds", misses=load.misses, uncovered=load.uncovered)
        ),
        alerts=_alert_freshness(texts, await latency(services.db, now=services.clock())),
        failing=len(overview.failing),
    )
    await reply(update, texts.lines(header, failing))


def _alert_freshness(texts: Texts, fresh: Latency) -> Html:
    """The last hour's new-listing alerts and how fresh they were (`scraper.alert_times`)."""
    return texts.fill(
        "stats_alerts",
        count=fresh.alerts,
        seen_p50=texts.age_or_none(fresh.seen_p50),
        seen_p95=texts.age_or_none(fresh.seen_p95),
        published_p50=texts.age_or_none(fresh.published_p50),
        published_p95=texts.age_or_none(fresh.published_p95),
    )
