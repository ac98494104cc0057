"""Charts (issue 21): /history answers with a PNG of the advert's price path against its
searches' going price and the text as its caption, drawn off the event loop, cached per advert
and day, and with the text alone when no chart can be drawn; /stats <n>'s chart of a search's
going price and count day by day. Through the real Application, a real Bot and a fake Bot API."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from kit import answered
from kit.bot import ALICE, BOB, Bot, running
from kit.charts import DAY, held, history, page, png_size, reprice, shown, watching

from habicht.bot.chart_replies import fit_caption, stats_chart
from habicht.bot.chart_worker import ChartWorker
from habicht.bot.charts import HEIGHT, WIDTH, history_png, search_png
from habicht.bot.texts import MAX_CAPTION, Html, Texts, visible_len
from habicht.fakes.telegram import Fault
from habicht.market.going import PriceStats
from habicht.market.history import PricePoint
from habicht.market.trend import GoingDay, day_bounds

GROUP = -1005001


async def test_history_answers_with_a_chart_and_the_text_as_its_caption(bot: Bot) -> None:
    """An advert whose price fell twice: a PNG of the phone's size, captioned with the text
    /history always gave (newest price first), within Telegram's caption limit."""
    await watching(bot, page())
    sofa = shown(bot)[0]
    await reprice(bot, 0, 280)
    await reprice(bot, 0, 250)

    answer = await history(bot, sofa.id)

    assert answer.photo is not None
    assert png_size(answer.upload) == (WIDTH, HEIGHT)
    assert answer.text.startswith('📈 <b><a href="https://www.willhaben.at/iad/')
    assert (
        answer.text.index("€ 250")
        < answer.text.index("€ 280")
        < answer.text.index(f"€ {sofa.price}")
    )
    assert visible_len(Html(answer.text)) <= MAX_CAPTION


async def test_one_price_is_drawn_against_the_going_price_of_a_full_search(bot: Bot) -> None:
    """An advert with a single price still gets a chart when its search's going price rests on
    enough prices (the page's 27 priced adverts): the price against the band says the most."""
    await watching(bot, page())
    answer = await history(bot, shown(bot)[5].id)
    assert png_size(answer.upload) == (WIDTH, HEIGHT)


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


async def test_a_search_with_too_few_prices_gets_the_text_alone(bot: Bot) -> None:
    """One price and a search of five adverts (no going price worth drawing): no chart, the
    text as before."""
    await watching(bot, page()[:5])
    answer = await history(bot, shown(bot)[0].id)
    assert answer.photo is None
    assert f"€ {shown(bot)[0].price}" in answer.text
    assert bot.app.bot_data.charts.drawn == 0


async def test_an_advert_without_a_price_gets_the_text_alone(bot: Bot) -> None:
    """An advert given away has no price to draw: the text says so."""
    await watching(bot, page())
    answer = await history(bot, shown(bot)[11].id)
    assert answer.photo is None
    assert "Noch kein Preis bekannt." in answer.text


async def test_a_chart_that_fails_is_logged_and_the_text_answers(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    """A drawing that fails (here: its worker thread is gone) is logged with its traceback,
    and the subscriber still gets the text — never a failed command."""
    await watching(bot, page())
    bot.app.bot_data.charts.executor.shutdown()
    with caplog.at_level(logging.ERROR, logger="habicht.bot.chart_worker"):
        answer = await history(bot, shown(bot)[0].id)
    assert answer.photo is None
    assert answer.text.startswith("📈")
    assert "a chart could not be drawn" in caplog.text
    assert "RuntimeError" in caplog.text


async def test_a_photo_telegram_refuses_leaves_the_text(bot: Bot) -> None:
    """Telegram refusing the upload (a 400 on sendPhoto) is answered with the text."""
    await watching(bot, page())
    bot.api.fail_next(ALICE, Fault(400, "Bad Request: IMAGE_PROCESS_FAILED"))
    answer = await history(bot, shown(bot)[0].id)
    assert answer.photo is None
    assert answer.text.startswith("📈")


async def test_a_group_member_gets_the_chart_of_the_groups_watch(bot: Bot) -> None:
    """In a group, reading is for everyone: a member who is no admin gets the chart of an
    advert the group's watch saw."""
    bot.api.set_member(GROUP, ALICE, "administrator")
    await watching(bot, page(), GROUP, user_id=ALICE, group=True)
    answer = await history(bot, shown(bot)[0].id, GROUP, user_id=BOB, group=True)
    assert png_size(answer.upload) == (WIDTH, HEIGHT)
    alone = await history(bot, shown(bot)[0].id, BOB)
    assert "in keiner deiner Suchen" in alone.text  # Bob's own chat watches nothing


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


async def test_the_stats_chart_draws_a_searchs_days_once_a_day(bot: Bot) -> None:
    """`stats_chart` (for /stats <n>): none while the search has a single day of prices, then
    a PNG of the phone's size, from the cache for the rest of the day."""
    await watching(bot, page())
    services = bot.app.bot_data
    (watch,) = await services.subscriptions.watches(ALICE)
    texts = Texts("de")
    assert await stats_chart(services, watch.search_id, texts) is None

    bot.clock.advance(DAY)
    await reprice(bot, 0, 100)
    png = await stats_chart(services, watch.search_id, texts)
    assert png_size(png) == (WIDTH, HEIGHT)
    assert await stats_chart(services, watch.search_id, texts) == png
    assert (services.charts.drawn, services.charts.hits) == (1, 1)


async def test_charts_are_labelled_in_the_chats_language(tmp_path: Path) -> None:
    """An English chat's chart is drawn with English labels: another picture than German's."""
    async with running(tmp_path, lang="en") as english:
        await watching(english, page())
        answer = await history(english, shown(english)[0].id)
        assert "ago" in answer.text
    now = 1_800_000_000.0
    days = [
        GoingDay(start, end, PriceStats(20, Decimal(400), Decimal(350), Decimal(480)))
        for start, end in day_bounds(now, 10)
    ]
    path = [PricePoint(now - 5 * DAY, Decimal(500)), PricePoint(now - DAY, Decimal(420))]
    german = history_png(path, days, now=now, texts=Texts("de"))
    assert german != history_png(path, days, now=now, texts=Texts("en"))
    assert answer.upload is not None
    assert png_size(search_png(days, texts=Texts("en"))) == (WIDTH, HEIGHT)


def test_nothing_to_draw_is_said_as_none() -> None:
    """No price, or one price with no going price to set it against, or a search with fewer
    than two days of prices: no chart."""
    now = 1_800_000_000.0
    texts = Texts("de")
    thin = [
        GoingDay(start, end, PriceStats(4, Decimal(400), Decimal(350), Decimal(480)))
        for start, end in day_bounds(now, 5)
    ]
    one = [PricePoint(now - DAY, Decimal(420))]
    assert history_png([], thin, now=now, texts=texts) is None
    assert history_png(one, thin, now=now, texts=texts) is None
    assert history_png(one, [], now=now, texts=texts) is None
    assert search_png([GoingDay(0, DAY, None), thin[-1]], texts=texts) is None
    assert search_png(thin[-2:], texts=texts) is not None


@pytest.mark.parametrize("lang", ["de", "en"])
def test_a_caption_keeps_the_newest_lines_that_fit(lang: str) -> None:
    """A caption keeps as many lines as fit in Telegram's 1,024 (after parsing, in UTF-16
    units: an emoji counts two), says "…" for the rest, and is left whole when all fit."""
    texts = Texts(lang)

    def fill(lines: Html) -> Html:
        return texts.fill("history", url="https://www.willhaben.at/x", title="Sofa 😀", lines=lines)

    lines = [
        texts.fill("history_line", price=f"€ {n} 😀 <&>", age=texts.age(n * 3600))
        for n in range(1, 200)
    ]
    caption = fit_caption(fill, lines)
    assert visible_len(caption) <= MAX_CAPTION
    assert caption.endswith("\n…")
    kept = caption.count("\n") - 1
    assert visible_len(fill(Html("\n".join([*lines[: kept + 1], "…"])))) > MAX_CAPTION
    assert fit_caption(fill, lines[:5]) == fill(Html("\n".join(lines[:5])))


STARTUP = "import sys, habicht.cli, habicht.bot; print('matplotlib' in sys.modules)"


def test_matplotlib_waits_for_the_first_chart() -> None:
    """The bot starts without matplotlib (≈ 45 MB, half a second): it is imported when the
    first chart is drawn, so a bot whose users never ask for one never pays for it."""
    started = subprocess.run(
        [sys.executable, "-c", STARTUP],
        capture_output=True,
        text=True,
        check=True,
    )
    assert started.stdout.strip() == "False"
