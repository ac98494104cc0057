"""What the owner can do (`HABICHT_ADMIN_IDS`): /queue and its repairs.

Like every owner command (the overview of `/stats` is `habicht.bot.handlers.figures`'), it is
`owner_only` (`habicht.bot.guards`): anyone else gets what an unknown command gets, and in a
group nobody gets an answer.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from telegram import Update

from habicht.bot.guards import owner_only
from habicht.bot.handling import reply
from habicht.bot.redact import scrub
from habicht.bot.services import BotServices, Context
from habicht.bot.texts import Html, Texts, shorten
from habicht.digits import whole_number
from habicht.quiet import DEFAULT_ZONE

__all__ = ["queue_command"]

DEAD_SHOWN = 10
DEAD_MAX = 50
PURGE_DAYS = 30


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
