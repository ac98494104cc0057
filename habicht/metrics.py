"""Prometheus metrics for operators, served at `/metrics` when HABICHT_METRICS_PORT is set.

Every number comes from outside the outbox's internals (keep in sync with docs/operating.md,
"Metrics"):

- `habicht_notifications{status}` (gauge) — outbox rows by status, read from the database;
- `habicht_sends_total{outcome}` (counter) — sends by outcome, counted by a wrapper around
  the `send` the bot hands the drain: `sent`, or the `label` of what `classify` makes of the
  error (`retry`, `retry_after`, `dead`, `migrated`, `fatal`);
- `habicht_fetches_total{outcome}` (counter) — searches scanned, `ok` or the error kind
  (`fetch`, `blocked`, `layout`, `database`), as the scheduler reports each one;
- `habicht_scan_staleness_seconds{quantile}` (gauge) — seconds since the last scan of the
  stalest active search (`max`) and of the 95th percentile (`0.95`);
- `habicht_searches_active` (gauge) — searches with an active watch;
- `habicht_delivery_seconds` (histogram) — detection to delivery: from a sent row's
  `created_at` to its `sent_at`, read from the database for rows sent since the last refresh;
- `habicht_alert_freshness_seconds{since}` (histogram) — for each new-listing alert of an
  advert new on willhaben (`scraper.figures`), seconds to its enqueue from habicht's first
  read of the advert (`first_seen`) and from its `PUBLISHED` time (`published`), read from
  the database for alerts queued since the last refresh;
- `habicht_following{figure}` (gauge) — keeping sent alerts true (`watches.follow_figures`):
  `followed` adverts, `page_checks_hour`, and of the last day `edits_sent`,
  `edits_impossible` (the message was deleted or too old) and `gone_found`;
- `habicht_feed_misses_total` (counter) — alerts a search's own scan sent for adverts its
  feed had shown (`ScanSummary.feed_misses`), counted from each pass's summary. Not the sum
  of `searches.feed_misses`: that falls when a search goes with its last watch, and a
  counter that falls reads to Prometheus as a restart (a false jump in `rate()`); counted
  here it only rises, and starts at 0 with the process like every counter;
- `habicht_coverage_misses_total` (counter) — adverts a fed search's own scan found that its
  feed never showed (`ScanSummary.coverage_misses`, `scraper.coverage`), counted the same way;
- `habicht_feed_searches{feed}`, `habicht_feed_coverage_misses{feed}`, `habicht_feed_off{feed}`
  (gauges, with feeds on) — per feed, named in words (`marketplace`, `flats to rent`,
  `flats to buy`, or the path of a feed this code does not know: `scraper.figures.feed_name`):
  the searches it serves now, the coverage misses counted on it, and whether it is switched
  off (1) or not (0). Feeds of one name are added up (`habicht_feed_off` then counts the ones
  switched off); a feed that is gone loses its series.

The gauges and the histogram are refreshed by `refresh`, which the bot calls on the
scheduler's tick; the endpoint itself runs in prometheus-client's own thread, so a busy event
loop never delays a scrape of the metrics. Each `Metrics` has its own registry: two bots in
one process (the tests) never share counters.
"""

from __future__ import annotations

import logging
from threading import Thread
from typing import Literal
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from habicht.config import ConfigError
from habicht.db import Database
from habicht.message import Delivered, Message
from habicht.model import ErrorKind
from habicht.queue import Send, classify
from habicht.queue.figures import by_status, deliveries
from habicht.scraper.figures import feed_loads, freshness, samples
from habicht.scraper.scan import ScanSummary
from habicht.scraper.schedule import FeedCadence
from habicht.watches.follow import Following
from habicht.watches.follow_figures import follow_figures

__all__ = ["DELIVERY_BUCKETS", "FRESHNESS_BUCKETS", "Metrics"]

log = logging.getLogger(__name__)

DELIVERY_BUCKETS = (1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 86400)
"""Seconds; from "at once" over one scrape interval to the message TTL."""

FRESHNESS_BUCKETS = (10, 30, 60, 90, 120, 300, 600, 1800, 3600, 4 * 3600, 86400)
"""Seconds; around a feed interval (the goal: within two minutes), up to a day."""


class Metrics:
    """The bot's metrics, on a registry of their own; `serve` starts the endpoint."""

    def __init__(self, *, since: float) -> None:
        """`since`: rows sent before this (a previous run's) stay out of the histogram."""
        self.registry = CollectorRegistry()
        self.notifications = Gauge(
            "habicht_notifications",
            "Outbox rows by status.",
            ["status"],
            registry=self.registry,
        )
        self.sends = Counter(
            "habicht_sends", "Send attempts by outcome.", ["outcome"], registry=self.registry
        )
        self.fetches = Counter(
            "habicht_fetches",
            "Searches scanned, by outcome.",
            ["outcome"],
            registry=self.registry,
        )
        self.staleness = Gauge(
            "habicht_scan_staleness_seconds",
            "Seconds since the last scan of an active search: the stalest, and the 95th"
            " percentile.",
            ["quantile"],
            registry=self.registry,
        )
        self.searches = Gauge(
            "habicht_searches_active", "Searches with an active watch.", registry=self.registry
        )
        self.following = Gauge(
            "habicht_following",
            "Keeping sent alerts true: adverts followed, page checks of the last hour, and of"
            " the last day edits sent, edits not possible and adverts found gone.",
            ["figure"],
            registry=self.registry,
        )
        self.delivery = Histogram(
            "habicht_delivery_seconds",
            "Seconds from detecting an event to delivering its message.",
            buckets=DELIVERY_BUCKETS,
            registry=self.registry,
        )
        self.alert_freshness = Histogram(
            "habicht_alert_freshness_seconds",
            "Seconds from a new advert's first read (first_seen) or its PUBLISHED time"
            " (published) to its alert's enqueue.",
            ["since"],
            buckets=FRESHNESS_BUCKETS,
            registry=self.registry,
        )
        self.feed_misses = Counter(
            "habicht_feed_misses",
            "Alerts a search's own scan sent for adverts its feed had shown but not matched.",
            registry=self.registry,
        )
        self.coverage_misses = Counter(
            "habicht_coverage_misses",
            "Adverts a fed search's own scan found that its feed never showed.",
            registry=self.registry,
        )
        self.feed_searches = Gauge(
            "habicht_feed_searches",
            "Searches each feed serves now.",
            ["feed"],
            registry=self.registry,
        )
        self.feed_coverage_misses = Gauge(
            "habicht_feed_coverage_misses",
            "Coverage misses counted on each feed: adverts its searches found that it never"
            " showed.",
            ["feed"],
            registry=self.registry,
        )
        self.feed_off = Gauge(
            "habicht_feed_off",
            "Feeds of the name switched off (1 for one feed) because their searches find what they"
            " do not list.",
            ["feed"],
            registry=self.registry,
        )
        self._feeds: set[str] = set()
        """The `feed` labels the per-feed gauges carry."""
        self._observed: tuple[float, int] = (since, 0)
        """(sent_at, id) of the last sent row the histogram has seen."""
        self._sampled: tuple[float, int] = (since, 0)
        """(created_at, id) of the last new-listing alert the freshness histogram has seen."""
        self._server: tuple[WSGIServer, Thread] | None = None

    def sending(self, send: Send) -> Send:
        """`send`, counting each attempt by its outcome."""

        async def counted(message: Message) -> Delivered | None:
            try:
                delivered = await send(message)
            except Exception as exc:
                self.sends.labels(classify(exc).label).inc()
                raise
            self.sends.labels("sent").inc()
            return delivered

        return counted

    def scanned(self, outcome: ErrorKind | Literal["ok"]) -> None:
        self.fetches.labels(outcome).inc()

    def passed(self, summary: ScanSummary) -> None:
        """Count what a scheduler pass's summary says that no table keeps for good."""
        self.feed_misses.inc(summary.feed_misses)
        self.coverage_misses.inc(summary.coverage_misses)

    async def refresh(
        self,
        db: Database,
        *,
        now: float,
        interval: float,
        feeds: FeedCadence | None = None,
        following: Following | None = None,
    ) -> None:
        """Read the gauges and the deliveries since the last refresh from the database; the
        per-feed gauges with `feeds` (HABICHT_FEED_INTERVAL not 0) only, the following ones
        with `following`."""
        for status, count in (await by_status(db)).items():
            self.notifications.labels(status).set(count)
        fresh = await freshness(db, now=now, interval=interval)
        self.searches.set(fresh.searches)
        self.staleness.labels("max").set(fresh.stalest or 0.0)
        self.staleness.labels("0.95").set(fresh.p95 or 0.0)
        await self._refresh_feeds(db, now=now, on=feeds is not None)
        if following is not None:
            figures = await follow_figures(db, now=now, following=following)
            for figure, value in figures.as_dict().items():
                self.following.labels(figure).set(value)
        for delivery in await deliveries(db, after=self._observed):
            self.delivery.observe(max(0.0, delivery.took))
            self._observed = delivery.place
        for sample in await samples(db, after=self._sampled):
            self.alert_freshness.labels("first_seen").observe(sample.seen)
            if sample.published is not None:
                self.alert_freshness.labels("published").observe(sample.published)
            self._sampled = sample.place

    async def _refresh_feeds(self, db: Database, *, now: float, on: bool) -> None:
        """Set the per-feed gauges, feeds of one name added up, and drop the series of the
        names no feed has any more (all of them with feeds off)."""
        totals: dict[str, tuple[int, int, int]] = {}
        for feed in await feed_loads(db, now=now) if on else []:
            searches, uncovered, off = totals.get(feed.name.words, (0, 0, 0))
            totals[feed.name.words] = (
                searches + feed.served,
                uncovered + feed.coverage_misses,
                off + (feed.off_for is not None),
            )
        for name, (searches, uncovered, off) in totals.items():
            self.feed_searches.labels(name).set(searches)
            self.feed_coverage_misses.labels(name).set(uncovered)
            self.feed_off.labels(name).set(off)
        for gone in self._feeds - totals.keys():
            for gauge in (self.feed_searches, self.feed_coverage_misses, self.feed_off):
                gauge.remove(gone)
        self._feeds = set(totals)

    def serve(self, *, host: str, port: int) -> int:
        """Start the endpoint on `host`:`port` (0: any free port); the port it listens on.

        A port in use or an address that is not this machine's is bad configuration: it
        stops the startup with one line (`ConfigError`)."""
        try:
            server, thread = start_http_server(port, addr=host, registry=self.registry)
        except OSError as exc:
            raise ConfigError(
                f"HABICHT_METRICS_HOST/HABICHT_METRICS_PORT {host}:{port} cannot be served: {exc}"
            ) from exc
        self._server = (server, thread)
        log.info("metrics at http://%s:%d/metrics", host, server.server_port)
        return int(server.server_port)

    def close(self) -> None:
        """Stop the endpoint, if it runs."""
        if self._server is not None:
            server, thread = self._server
            server.shutdown()
            server.server_close()
            thread.join()
            self._server = None
