"""Page checks in the scheduler (`scraper.page_checks`, issue 34): only in the budget's spare
room — never while a search waits — and an answer that is no page proves nothing."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from kit.bot import ALICE, BOB, MARKET, Bot, alert_of, running

from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import SiteFault

SOFA = FakeAdvert("2002", "Neues Sofa", Decimal(300))
OTHERS = [f"kommode {n}" for n in range(12)]


async def page_checks(bot: Bot) -> list[str]:
    rows = await bot.app.bot_data.db.fetchall("SELECT found FROM page_checks ORDER BY rowid")
    return [row[0] for row in rows]


async def test_a_full_budget_leaves_no_room_for_page_checks(tmp_path: Path) -> None:
    """Thirteen searches at 30 s a request do not fit a 300 s interval: every pass ends with
    searches due again, and the sofa, gone from its search, waits for its page check until
    the load drops."""
    async with running(tmp_path, fetch_gap=30.0) as bot:
        await alert_of(bot, ALICE, SOFA)
        for keyword in OTHERS:
            await bot.say(BOB, f"/watch {keyword}")
        await bot.baseline()
        bot.site.take_down(SOFA.id)
        for _ in range(4):
            await bot.scrape()
        assert await page_checks(bot) == []
        await bot.say(BOB, "/pause")
        await bot.scrape()
        await bot.scrape()
        assert (await page_checks(bot))[:1] == ["missing"]


async def test_an_error_or_a_block_on_the_page_proves_nothing(tmp_path: Path) -> None:
    """A 500 and then a 403 on the sofa's page (the client's retry of the 500 meets the 403):
    a check that found nothing to go by, and willhaben paused as by any block; the next check
    finds the page, and the alert stays as it was."""
    async with running(tmp_path) as bot:
        alert = await alert_of(bot, ALICE, SOFA)
        bot.site.remove(MARKET, SOFA.id)
        bot.site.fail_next(SiteFault.server_error(), SiteFault.forbidden(), url=SOFA.url)
        await bot.scrape()
        assert await page_checks(bot) == ["failed"]
        assert bot.app.bot_data.client.paused_until is not None
        bot.clock.advance(3600)
        await bot.scrape()
        assert (await page_checks(bot))[:2] == ["failed", "active"]
        assert bot.api.edits_of(ALICE, alert.message_id) == []


async def test_a_pass_spends_at_most_a_tick_on_page_checks(tmp_path: Path) -> None:
    """Twenty alerted adverts gone from the search, a check due for each: one pass makes the
    checks of one tick (10 s at a 2 s gap) and ends — delivery is kicked at a pass's end, so
    a long run of checks would hold back what its reads queued; the next pass checks on."""
    chairs = [FakeAdvert(str(3000 + n), f"Sessel {n}", Decimal(40 + n)) for n in range(20)]
    async with running(tmp_path, fetch_gap=2.0, digest_after=100) as bot:
        await alert_of(bot, ALICE, SOFA)
        bot.site.add(MARKET, *chairs)
        await bot.scrape()
        for chair in chairs:
            bot.site.take_down(chair.id)
        await bot.scrape()
        first = len(await page_checks(bot))
        assert 1 <= first <= 7
        await bot.scrape()
        assert len(await page_checks(bot)) > first
