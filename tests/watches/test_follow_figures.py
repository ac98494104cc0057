"""The owner's figures of keeping sent alerts true (`watches.follow_figures`), as `/stats`,
`habicht health` and the metrics show them — counted from the tables, through the real bot."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from kit.bot import ALICE, MARKET, OWNER, alert_of, running

from habicht.fakes import FakeAdvert
from habicht.health import check_health, following
from habicht.watches.follow_figures import FollowFigures, follow_figures

SOFA = FakeAdvert("2002", "Neues Sofa", Decimal(300))
CHAIR = FakeAdvert("2003", "Alter Sessel", Decimal(40))


async def test_followed_adverts_checks_edits_and_gone_are_counted(tmp_path: Path) -> None:
    """Two alerted adverts; the sofa's message deleted and the sofa reserved (its edit not
    possible), the chair taken off and proven gone by two page checks (its edit sent)."""
    async with running(tmp_path) as bot:
        services = bot.app.bot_data
        sofa = await alert_of(bot, ALICE, SOFA)
        bot.site.add(MARKET, CHAIR)
        await bot.scrape()
        bot.api.delete_message(ALICE, sofa.message_id)
        bot.site.set_reserved(SOFA.id, True)
        bot.site.take_down(CHAIR.id)
        await bot.scrape()
        await bot.scrape()
        figures = await follow_figures(
            services.db, now=bot.clock(), following=following(services.settings)
        )
        assert figures == FollowFigures(
            followed=1, page_checks_hour=2, edits_sent=1, edits_impossible=1, gone_found=1
        )
        report = await check_health(services.db, services.settings, now=bot.clock())
        assert report.as_dict()["following"] == figures.as_dict()
        await bot.say(OWNER, "/stats")
        assert (
            "gesendete Alarme aktuell gehalten: 1 Anzeigen; Seitenprüfungen (1 h): 2;"
            " Änderungen (24 h): 1 gesendet, 1 nicht möglich, 1 Anzeigen weg"
        ) in bot.last(OWNER)
