"""Answers with a picture (`habicht.bot.chart_replies`, issue 21): the text alone when no chart
can be drawn or Telegram refuses the photo, the caption's newest lines that fit, /stats <n>'s
chart drawn once a day, and matplotlib imported only at the first chart."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
from kit.bot import ALICE, Bot
from kit.charts import DAY, history, page, png_size, reprice, shown, watching

from habicht.bot.chart_replies import fit_caption, stats_chart
from habicht.bot.charts import HEIGHT, WIDTH
from habicht.bot.texts import MAX_CAPTION, Html, Texts, visible_len
from habicht.fakes.telegram import Fault


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
