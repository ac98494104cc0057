"""The metrics (`habicht.metrics`): the endpoint over real HTTP, its port, how sends are
counted, and each feed's gauges."""

from __future__ import annotations

import socket
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from kit.bot import ALICE, MARKET, SEARCH, running
from kit.flat_feeds import CAROL, DAVE, watched_feeds
from telegram.error import Forbidden, RetryAfter

from habicht.bot import SCRAPE, run_jobs_now
from habicht.config import ConfigError
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.message import Message
from habicht.metrics import Metrics


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_the_metrics_endpoint_answers_over_http(tmp_path: Path) -> None:
    """With HABICHT_METRICS_PORT set, GET /metrics on 127.0.0.1 shows fetches, sends,
    queue depth, staleness and the detection-to-delivery histogram."""
    port = free_port()
    async with running(tmp_path, metrics_port=port) as bot:
        await bot.say(ALICE, f"/watch {SEARCH}")
        await bot.baseline()
        bot.site.add(MARKET, FakeAdvert("1002", "Neues Sofa", Decimal(70)))
        await bot.scrape()
        await run_jobs_now(bot.app, SCRAPE)  # refreshes the gauges after that drain
        async with httpx.AsyncClient() as http:
            response = await http.get(f"http://127.0.0.1:{port}/metrics")
        assert response.status_code == 200
        text = response.text
        assert 'habicht_fetches_total{outcome="ok"} 2.0' in text
        assert 'habicht_sends_total{outcome="sent"} 2.0' in text  # baseline note, alert
        assert 'habicht_notifications{status="sent"} 2.0' in text
        assert 'habicht_scan_staleness_seconds{quantile="max"}' in text
        assert "habicht_searches_active 1.0" in text
        assert "habicht_delivery_seconds_count 2.0" in text
        # Issue 20: the new advert's alert is one freshness sample (no PUBLISHED on its page).
        assert 'habicht_alert_freshness_seconds_count{since="first_seen"} 1.0' in text
        assert 'habicht_alert_freshness_seconds_count{since="published"}' not in text
        assert "habicht_feed_misses_total 0.0" in text
    async with httpx.AsyncClient() as http:  # the endpoint closed with the bot
        with pytest.raises(httpx.ConnectError):
            await http.get(f"http://127.0.0.1:{port}/metrics")


async def test_a_metrics_port_in_use_stops_the_startup_with_one_line(tmp_path: Path) -> None:
    """A port another program holds is a configuration error naming both settings."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(ConfigError, match="HABICHT_METRICS_PORT"):
            async with running(tmp_path, metrics_port=port):
                pass


async def test_sends_are_counted_by_what_their_error_meant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The send wrapper counts a success as `sent` and a failure by its classified outcome,
    and passes the error on to the drain unchanged."""
    monkeypatch.setenv("PTB_TIMEDELTA", "true")  # RetryAfter with a timedelta, no warning
    metrics = Metrics(since=0.0)
    failures = iter(
        [None, RetryAfter(timedelta(seconds=5)), Forbidden("bot was blocked by the user"), None]
    )

    async def send(message: Message) -> None:
        failure = next(failures)
        if failure is not None:
            raise failure

    counted = metrics.sending(send)
    raised: list[type[Exception]] = []
    for _ in range(4):
        try:
            await counted(Message(ALICE, "x"))
        except (RetryAfter, Forbidden) as exc:
            raised.append(type(exc))
    assert raised == [RetryAfter, Forbidden]
    samples = {
        s.labels["outcome"]: s.value
        for family in metrics.registry.collect()
        if family.name == "habicht_sends"
        for s in family.samples
        if s.name == "habicht_sends_total"
    }
    assert samples == {"sent": 2.0, "retry_after": 1.0, "dead": 1.0}


async def test_each_feed_has_its_searches_coverage_misses_and_day_off_as_labels(
    tmp_path: Path,
) -> None:
    """Issue 29: per feed, named in words, the searches it serves, its coverage misses and
    whether it is switched off — refreshed after each pass; a feed that is gone (its last
    searches unwatched) loses its series."""
    port = free_port()
    site = FakeWillhabenSite(world=True)
    async with running(
        tmp_path, site=site, metrics_port=port, feed_interval=60.0, safety_interval=1800.0
    ) as bot:
        await watched_feeds(bot)
        metrics = bot.app.bot_data.metrics
        assert metrics is not None

        def per_feed(name: str) -> dict[str, float | None]:
            return {
                feed: metrics.registry.get_sample_value(name, {"feed": feed})
                for feed in ("marketplace", "flats to rent", "flats to buy")
            }

        assert per_feed("habicht_feed_searches") == {
            "marketplace": 2.0,
            "flats to rent": 2.0,
            "flats to buy": 0.0,
        }
        assert per_feed("habicht_feed_coverage_misses") == {
            "marketplace": 0.0,
            "flats to rent": 0.0,
            "flats to buy": 2.0,
        }
        assert per_feed("habicht_feed_off") == {
            "marketplace": 0.0,
            "flats to rent": 0.0,
            "flats to buy": 1.0,
        }
        async with httpx.AsyncClient() as http:
            text = (await http.get(f"http://127.0.0.1:{port}/metrics")).text
        assert 'habicht_feed_searches{feed="flats to rent"} 2.0' in text
        assert 'habicht_feed_off{feed="flats to buy"} 1.0' in text

        for chat in (CAROL, DAVE):  # their first watch: a flat to buy
            await bot.say(chat, "/unwatch 1")
        await bot.scrape()
        assert per_feed("habicht_feed_searches") == {
            "marketplace": 2.0,
            "flats to rent": 2.0,
            "flats to buy": None,
        }
        assert per_feed("habicht_feed_off")["flats to buy"] is None
