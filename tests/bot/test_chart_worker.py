"""Where charts are drawn (`habicht.bot.chart_worker`, issue 21): one thread beside the event
loop, so twenty charts at once leave the bot answering others; a full queue refuses more; a
chart asked for twice at once is drawn once, and kept per advert and day."""

from __future__ import annotations

import asyncio

import pytest
from kit import answered
from kit.bot import ALICE, BOB, Bot
from kit.charts import DAY, held, history, page, reprice, shown, watching

from habicht.bot.chart_worker import ChartWorker


async def test_a_chart_is_drawn_once_a_day_per_advert_and_again_for_a_new_price(bot: Bot) -> None:
    """The same /history the same day comes from the cache (the same PNG, nothing drawn); the
    next day, or after the advert's price changed, it is drawn anew."""
    await watching(bot, page())
    charts = bot.app.bot_data.charts
    sofa = shown(bot)[0]
    first = await history(bot, sofa.id)
    again = await history(bot, sofa.id)
    assert (charts.drawn, charts.hits) == (1, 1)
    assert again.upload == first.upload

    await reprice(bot, 0, 199)
    await history(bot, sofa.id)
    assert charts.drawn == 2

    bot.clock.advance(DAY)
    await history(bot, sofa.id)
    assert (charts.drawn, charts.hits) == (3, 1)


async def test_twenty_charts_at_once_leave_the_bot_answering_others(bot: Bot) -> None:
    """Twenty /history at once while the chart thread is busy: another chat's /list is
    answered before any chart is drawn (the charts wait off the event loop); then all twenty
    charts come."""
    await watching(bot, page())
    charts = bot.app.bot_data.charts
    before = len(bot.api.messages(ALICE))
    with held(charts):
        priced = [ad.id for ad in shown(bot) if ad.price and not ad.reserved]
        for ad_id in priced[:20]:
            await bot.say(ALICE, f"/history {ad_id}")
        await bot.say(BOB, "/list")
        assert "Du beobachtest noch nichts" in bot.last(BOB)
        assert charts.drawn == 0
        assert bot.api.messages(ALICE)[before:] == []
    await answered(bot.api, ALICE, before + 20)
    photos = [m for m in bot.api.messages(ALICE)[before:] if m.photo is not None]
    assert len(photos) == charts.drawn == 20


async def test_a_full_chart_queue_refuses_more_and_the_cache_keeps_the_newest() -> None:
    """At `max_waiting` charts waiting, one more is not drawn (None at once: its caller sends
    the text); the cache keeps `max_cached` charts, the least recently used going first."""
    worker = ChartWorker(max_cached=2, max_waiting=2)
    with held(worker):
        waiting = [asyncio.ensure_future(worker.draw(key, bytes, 3)) for key in "ab"]
        await asyncio.sleep(0)  # both start, and wait for the thread
        assert await worker.draw("c", bytes, 3) is None
        assert (worker.refused, worker.waiting) == (1, 2)
    assert await asyncio.gather(*waiting) == [b"\0\0\0"] * 2
    assert await worker.draw("c", bytes, 1) == b"\0"
    assert worker.cached("a") is None  # the least recently used
    assert (worker.cached("b"), worker.cached("c")) == (b"\0\0\0", b"\0")
    worker.close()
    with pytest.raises(ValueError, match="needs room for a chart"):
        ChartWorker(max_waiting=0)


async def test_the_same_chart_asked_for_at_once_is_drawn_once(bot: Bot) -> None:
    """Three /history of one advert while the chart thread is busy wait for one drawing."""
    await watching(bot, page())
    charts = bot.app.bot_data.charts
    before = len(bot.api.messages(ALICE))
    with held(charts):
        for _ in range(3):
            await bot.say(ALICE, f"/history {shown(bot)[0].id}")
    await answered(bot.api, ALICE, before + 3)
    sent = bot.api.messages(ALICE)[before:]
    assert all(m.upload == sent[0].upload is not None for m in sent)
    assert charts.drawn == 1
