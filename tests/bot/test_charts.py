"""Charts (`habicht.bot.charts`, issue 21): /history answers with a PNG of the advert's price
path against its searches' going price and the text as its caption, in a group too, labelled
in the chat's language; nothing to draw is said as none. Through the real Application, a real
Bot and a fake Bot API (where charts are drawn and kept: test_chart_worker.py; the text alone
and /stats <n>'s chart: test_chart_replies.py)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from kit.bot import ALICE, BOB, Bot, running
from kit.charts import DAY, history, page, png_size, reprice, shown, watching

from habicht.bot.charts import HEIGHT, WIDTH, history_png, search_png
from habicht.bot.texts import MAX_CAPTION, Html, Texts, visible_len
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


async def test_a_group_member_gets_the_chart_of_the_groups_watch(bot: Bot) -> None:
    """In a group, reading is for everyone: a member who is no admin gets the chart of an
    advert the group's watch saw."""
    bot.api.set_member(GROUP, ALICE, "administrator")
    await watching(bot, page(), GROUP, user_id=ALICE, group=True)
    answer = await history(bot, shown(bot)[0].id, GROUP, user_id=BOB, group=True)
    assert png_size(answer.upload) == (WIDTH, HEIGHT)
    alone = await history(bot, shown(bot)[0].id, BOB)
    assert "in keiner deiner Suchen" in alone.text  # Bob's own chat watches nothing


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
