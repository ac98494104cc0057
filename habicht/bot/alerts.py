"""Telling the owners, through the same durable outbox as every alert (kind `admin`) — but
for a storage fault, which the outbox cannot hold: that is told straight through the Bot,
from memory (`alert_storage`, `habicht.queue.DirectLine`).

Alerts are aggregated per run: one message for the items that went dead in a drain; one
per scheduler pass for the searches that reached the scraper's `FAILING_AFTER` failed scans
in a row (or recovered), for willhaben's block starting or ending and for a database error
stopping the pass (and the pass after it that went through); one when freshness fell behind
for an interval and one when it is back; one when delivery stopped; one when `habicht run`
created its database (a data volume that is not mounted looks like that). Each key names its
occurrence (the pass's start time), so the same event is never queued twice and a later one
is never mistaken for it. A search is named as `/list` names it (`Texts.search_name`: a
real-estate search in words), its URL the link behind the words. Unexpected errors are keyed by
their type and minute: one message per kind of error per minute, however often it happens,
so nobody can flood the owners by making a handler fail. Alerts about dead *admin* messages
are not sent: they would feed on themselves. Each owner gets the alert in the language of
their own chat, rendered when it is queued like every alert.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections import Counter
from collections.abc import Callable

from habicht.bot.redact import scrub
from habicht.bot.services import BotServices, NotReady
from habicht.bot.texts import ERROR_BUDGET, Html, Texts, shorten
from habicht.health import feed_cadence
from habicht.message import Message, Outgoing
from habicht.model import Search
from habicht.restore import Restore, mark_announced, unannounced
from habicht.scraper.figures import Capacity, Workload, capacity, feed_name, freshness, workload
from habicht.scraper.scan import ScanSummary
from habicht.scraper.schedule import FeedCadence
from habicht.storage import StorageFault, fault_kind

__all__ = [
    "alert_dead",
    "alert_error",
    "alert_freshness",
    "alert_new_database",
    "alert_replica",
    "alert_restored",
    "alert_scan",
    "alert_stopped",
    "alert_storage",
    "budget_now",
    "describe_load",
    "report_error",
    "tell_owners",
]

log = logging.getLogger(__name__)

_occurrence = itertools.count(1)
"""Tells apart stops of this process that share a clock reading."""

ERROR_WINDOW = 60.0
"""Seconds in which errors of one type make at most one alert."""

DEAD_LOOKBACK = 500
"""How many of the newest dead rows a drain's alert looks at."""


async def tell_owners(services: BotServices, render: Callable[[Texts], Html], *, key: str) -> int:
    """Queue the alert `render` writes in each owner's language for every owner; `key`
    makes it once-only. Returns how many were new."""
    items = [
        Outgoing(
            chat_id=owner,
            kind="admin",
            text=render(services.texts_for(owner)),
            dedupe_key=f"admin:{key}:{owner}",
        )
        for owner in sorted(services.settings.admin_ids)
    ]
    return await services.store.enqueue_many(items)


_NO_NEWS = frozenset({"cancelled", "message_gone"})
"""Dead reasons that are what a user did, not something broken."""


async def alert_dead(services: BotServices, *, since: float) -> None:
    """After a drain that started at `since`: what went dead in it, counted by reason.
    Alerts cancelled because their watch was removed, paused or muted are no news, and nor
    is an edit of a message its user deleted (`/stats` counts those)."""
    rows = await services.store.dead(DEAD_LOOKBACK)
    fresh = [
        row
        for row in rows
        if row.updated_at >= since and row.kind != "admin" and row.dead_reason not in _NO_NEWS
    ]
    if not fresh:
        return
    reasons = Counter(row.dead_reason or "unknown" for row in fresh).most_common()

    def render(texts: Texts) -> Html:
        return texts.fill("alert_dead", count=len(fresh), reasons=texts.reasons(reasons))

    await tell_owners(services, render, key=f"dead:{since:.6f}")


async def alert_replica(services: BotServices, code: int) -> None:
    """Litestream exited (`code`): the replica is not written until it is back."""
    minute = int(services.clock() // 60)

    def render(texts: Texts) -> Html:
        return texts.fill("alert_replica", code=code)

    await tell_owners(services, render, key=f"replica:{minute}")


async def alert_scan(
    services: BotServices, summary: ScanSummary, *, cycle: float, key: str
) -> None:
    """After a scan started at `cycle` (`key` names it: a pass, or a baseline of some
    searches): searches that just reached their failure streak or recovered from one,
    willhaben's block starting or ending, a feed switched off because its searches find
    what it does not list, and a database error stopping the pass (or the first pass after
    it that went through) — one message."""
    blocked = summary.paused_until is not None
    block_changed = blocked != services.site_blocked
    services.site_blocked = blocked
    wait = (summary.paused_until or cycle) - services.clock()
    # A storage fault (the disk full, the database locked) has a notice of its own.
    database = summary.database_error is not None and services.storage.fault is None
    database_changed = database != services.database_failing

    told = summary.newly_failing or summary.recovered or summary.feeds_off
    urls = [failure.url for failure in summary.newly_failing] + summary.recovered
    found = await services.subscriptions.searches(urls) if urls else {}
    # named as /list names them; by its URL a search nobody watches any more
    searches = {url: found.get(url) or Search(url=url, label=url) for url in urls}

    def render(texts: Texts) -> Html:
        lines = [
            texts.fill(
                "alert_failing",
                url=failure.url,
                label=texts.search_name(searches[failure.url]),
                count=failure.consecutive_failures,
                kind=failure.kind,
                error=shorten(failure.message, ERROR_BUDGET),
            )
            for failure in summary.newly_failing
        ]
        lines += [
            texts.fill("alert_recovered", url=url, label=texts.search_name(searches[url]))
            for url in summary.recovered
        ]
        if block_changed and blocked:
            lines.append(texts.fill("alert_blocked", wait=texts.age(wait)))
        elif block_changed:
            lines.append(texts.fill("alert_unblocked"))
        lines += [
            texts.fill("alert_feed_off", feed=texts.feed(feed_name(off.url)), searches=off.searches)
            for off in summary.feeds_off
        ]
        if database_changed:
            error = shorten(summary.database_error or "", ERROR_BUDGET)
            template = "alert_database" if database else "alert_database_ok"
            lines.append(texts.fill(template, error=error))
        return texts.lines(lines[0], lines[1:])

    if block_changed or database_changed or told:
        await tell_owners(services, render, key=key)
    services.database_failing = database  # only once told: a failed enqueue tries again


async def budget_now(
    services: BotServices, *, now: float, cadence: FeedCadence | None
) -> tuple[Workload, Capacity]:
    """What the budget serves now and what it fits at the measured time per scan (the fetch
    gap before the first pass): for `/stats` and the "behind" alert."""
    settings = services.settings
    load = await workload(services.db, now=now, cadence=cadence)
    fits = capacity(
        load.polled,
        interval=settings.scrape_interval,
        fetch_gap=settings.fetch_gap,
        seconds_per_search=services.seconds_per_search or settings.fetch_gap,
        fed=load.fed,
        feeds=load.feeds,
        cadence=cadence,
    )
    return load, fits


def describe_load(texts: Texts, load: Workload, cadence: FeedCadence | None) -> Html:
    """What the budget serves, searches and feeds apart: the searches polled on their own
    (and the stalest), and the live feeds — how many searches they serve, their stalest read
    and worst failure streak, how often those searches are meant to be scanned on their own
    and how long the stalest has waited (the safety net's real cadence)."""
    polled = texts.fill("load_polled", polled=load.polled, age=texts.age_or_none(load.polled_age))
    if cadence is None or not load.feeds:
        return polled
    failing = (
        texts.fill("load_feed_failing", count=load.feed_failures)
        if load.feed_failures
        else Html("")
    )
    feeds = texts.fill(
        "load_feeds",
        feeds=load.feeds,
        fed=load.fed,
        age=texts.age_or_none(load.feed_age),
        failing=failing,
        safety=texts.age(cadence.safety),
        safety_age=texts.age_or_none(load.safety_age),
    )
    return Html(polled + feeds)


def _advice(texts: Texts, fits: Capacity) -> Html:
    """Which setting would fit every request that competes for the budget."""
    if fits.interval_needed == math.inf:
        if fits.gap_that_fits is None:
            return texts.fill("advice_cadence")
        return texts.fill("advice_gap_only", gap=f"{fits.gap_that_fits:.1f}")
    if fits.gap_that_fits is None:
        return texts.fill("advice_interval", interval=texts.age(fits.interval_needed))
    return texts.fill(
        "advice_gap", gap=f"{fits.gap_that_fits:.1f}", interval=texts.age(fits.interval_needed)
    )


async def alert_freshness(services: BotServices) -> None:
    """Freshness behind for an interval (`FreshnessWatch`): once, with what the budget serves
    (searches polled on their own, feeds and the searches they serve) and what would fit the
    requests that compete for it; and once when it is back. Not while willhaben blocks us:
    that has its own alert, and no fetch gap or interval would help."""
    if services.client.paused_until is not None:
        return
    settings, now = services.settings, services.clock()
    fresh = await freshness(services.db, now=now, interval=settings.scrape_interval)
    change = services.freshness_watch.update(fresh, now=now)
    if change is None:
        return
    cadence = feed_cadence(settings)
    load, fits = await budget_now(services, now=now, cadence=cadence)

    def render(texts: Texts) -> Html:
        if change == "recovered":
            return texts.fill("alert_fresh_again", stalest=texts.age(fresh.stalest or 0.0))
        return texts.fill(
            "alert_behind",
            searches=fresh.searches,
            stalest=texts.age(fresh.stalest or 0.0),
            interval=texts.age(settings.scrape_interval),
            load=describe_load(texts, load, cadence),
            fits=fits.fits,
            requests=f"{fits.requests:.0f}",
            per_search=f"{fits.seconds_per_search:.1f}",
            advice=_advice(texts, fits),
        )

    await tell_owners(services, render, key=f"freshness:{change}:{now:.6f}")


async def alert_new_database(services: BotServices, created_at: float) -> None:
    """This run created the database at `created_at`: every watch and queued alert of an
    earlier one would be gone, so the owners hear of it (keyed by that time: once)."""
    path = shorten(str(services.settings.db), ERROR_BUDGET)
    await tell_owners(
        services,
        lambda texts: texts.fill("alert_new_database", path=path),
        key=f"new-database:{created_at:.6f}",
    )


async def alert_restored(services: BotServices) -> None:
    """The database was restored (`habicht restore`) since the last start: the owners hear,
    once, to which moment, how many alerts were waiting and that later ones may repeat."""
    for restored in await unannounced(services.db):

        def render(texts: Texts, restored: Restore = restored) -> Html:
            return texts.fill(
                "alert_restored",
                source=shorten(restored.source, ERROR_BUDGET),
                moment=texts.when(restored.moment),
                pending=restored.pending,
            )

        await tell_owners(services, render, key=f"restore:{restored.id}")
        await mark_announced(services.db, restored, now=services.clock())


async def alert_error(services: BotServices, error: BaseException, *, what: str) -> None:
    """An unexpected error, scrubbed of the token and shortened, as `what` happened; only
    the first of its type in its `ERROR_WINDOW` is queued (the log has every one)."""
    kind = type(error).__qualname__
    detail = scrub(f"{what}: {kind}: {error}", services.settings.bot_token)
    window = int(services.clock() // ERROR_WINDOW)
    await tell_owners(
        services,
        lambda texts: texts.fill("alert_error", error=shorten(detail, ERROR_BUDGET)),
        key=f"error:{type(error).__module__}.{kind}:{window}",
    )


def alert_storage(services: BotServices, fault: StorageFault) -> None:
    """A storage fault opened or ended (the listener of `services.storage`): each owner is
    told, in their language, straight through the Bot from memory — the outbox is what
    cannot be written — retried until Telegram takes it (`habicht.queue.DirectLine`)."""
    if fault.until is not None:
        key = "storage_ok"
    else:
        key = {"full": "storage_full", "locked": "storage_locked", "io": "storage_io"}[fault.kind]
    messages = []
    for owner in sorted(services.settings.admin_ids):
        texts = services.texts_for(owner)
        text = texts.fill(
            key,
            path=fault.path,
            error=shorten(fault.error, ERROR_BUDGET),
            duration=texts.age((fault.until or fault.since) - fault.since),
        )
        messages.append(Message(owner, text))
    services.direct.post(messages)


async def report_error(services: BotServices, error: BaseException, *, what: str) -> None:
    """Log first (nothing below may hide the error), then tell the owners via the outbox;
    never raises. A storage fault is one line and no alert: the storage watch has logged it
    and tells the owners itself."""
    if fault_kind(error) is not None:
        log.warning("%s failed: the database refuses writes (%s)", what, error)
        return
    log.error("error while handling %s", what, exc_info=error)
    try:
        await alert_error(services, error, what=what)
    except NotReady:
        log.warning("the owners were not told: the bot is not open")
    except Exception:
        log.exception("telling the owners about the error failed")


async def alert_stopped(services: BotServices, reason: str) -> None:
    """Delivery stopped on a fatal error; the alert waits in the outbox for a working token."""
    reason = shorten(scrub(reason, services.settings.bot_token), ERROR_BUDGET)
    await tell_owners(
        services,
        lambda texts: texts.fill("alert_stopped", reason=reason),
        key=f"stopped:{services.clock():.6f}:{next(_occurrence)}",
    )
