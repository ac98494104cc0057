"""Searches named as `/list` names them, for the tests that check every other text uses the
same words (issue 36): a flat to rent and one to buy that are both "wien" by their path, and
a keyword search with HTML's characters in it."""

from __future__ import annotations

import re

from habicht.fakes.willhaben_site import SiteFault
from kit.bot import ALICE, Bot

RENT = "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien?PRICE_FROM=0&PRICE_TO=1100"
"""A flat to rent up to € 1,100 — the zero lower bound, as willhaben's form sends an empty
field, says nothing and is not named."""
BUY = "https://www.willhaben.at/iad/immobilien/eigentumswohnung/wien?PRICE_TO=550000"
KEYWORDS = "Sofa <b> & Tisch"
NAMED_SEARCHES = (RENT, BUY, KEYWORDS)
KEYWORDS_NAMED = "Sofa &lt;b&gt; &amp; Tisch"
"""How the keyword search is named in HTML: its words, escaped."""


async def listed_names(bot: Bot, chat_id: int) -> list[str]:
    """How `/list` names the chat's searches, in order: each its words as an HTML link, its
    URL behind them."""
    await bot.say(chat_id, "/list")
    return re.findall(r'<a href="[^"]*">[^<]*</a>', bot.last(chat_id))


async def failing_searches(bot: Bot) -> list[str]:
    """ALICE watches `NAMED_SEARCHES` (baselined: the site must list them, a world site), then
    willhaben fails three passes in a row; returns their names as `/list` has them."""
    for search in NAMED_SEARCHES:
        await bot.say(ALICE, f"/watch {search}")
    await bot.baseline()
    bot.site.intercept(SiteFault.server_error())
    for _ in range(3):
        await bot.scrape()
    names = await listed_names(bot, ALICE)
    rent, buy, _ = names
    assert rent != buy  # a flat to rent apart from one to buy, though both are "wien"
    return names
