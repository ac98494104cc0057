"""Quiet hours through the bot (issue 14): `/quiet`, its buttons in `/settings`, held alerts
that wait until the morning or `/quiet off`, silent ones, and the upgrade of an old file.

The fake clock starts at 23:13 in Vienna (14 November 2023), inside `22-7`.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, time
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from kit.bot import ALICE, BOB, MARKET, OWNER, SEARCH, Bot, settings_message
from kit.buttons import buttons
from kit.migrations import before_migration

from habicht.bot import deliver
from habicht.bot.handlers.quiet import quiet_reply
from habicht.bot.texts import Texts, describe_quiet
from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import Fault
from habicht.quiet import QuietHours


async def watching(bot: Bot) -> None:
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(BOB, f"/watch {SEARCH}")
    await bot.baseline()


async def test_alerts_in_quiet_hours_wait_and_quiet_off_releases_them(bot: Bot) -> None:
    """`/quiet 22-7`: a new listing at 23:13 reaches the other chat only; `/queue` shows it
    held until 07:00; `/quiet off` says it is on its way, and it arrives."""
    await watching(bot)
    await bot.say(ALICE, "/quiet 22-7")
    assert "22:00-07:00 (Europe/Vienna), Alarme warten bis zum Ende" in bot.last(ALICE)
    sent = len(bot.api.messages(ALICE))
    bot.site.add(MARKET, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    await bot.scrape()
    assert "Neues Sofa" in bot.last(BOB)
    assert len(bot.api.messages(ALICE)) == sent
    await bot.say(OWNER, "/queue")
    assert "zurückgehalten bis 07:00: 1" in bot.last(OWNER)

    await bot.say(ALICE, "/quiet off")
    assert "1 zurückgehaltene Alarme kommen jetzt." in bot.last(ALICE)
    await deliver(bot.app.bot_data)
    assert "Neues Sofa" in bot.last(ALICE)


async def test_silent_quiet_hours_send_at_once_without_a_sound(bot: Bot) -> None:
    await watching(bot)
    await bot.say(ALICE, "/quiet 22:30-6:45 silent")
    assert "22:30-06:45 (Europe/Vienna), Alarme kommen ohne Ton" in bot.last(ALICE)
    bot.site.add(MARKET, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    await bot.scrape()
    [alice] = [m for m in bot.api.messages(ALICE) if "Neues Sofa" in m.text]
    [bob] = [m for m in bot.api.messages(BOB) if "Neues Sofa" in m.text]
    assert alice.params["disable_notification"] == "true"
    assert bob.params.get("disable_notification", "false") == "false"


async def test_quiet_shows_the_setting_and_refuses_what_is_no_window(bot: Bot) -> None:
    await bot.say(ALICE, "/quiet")
    assert "Ruhezeiten: keine" in bot.last(ALICE)
    for typed, answer in (
        ("/quiet 25-7", "25-7: Stunden gehen bis 23"),
        ("/quiet 7-7", "7-7: Beginn und Ende sind gleich"),
        ("/quiet heute nicht", "So geht's: <code>/quiet 22-7</code>"),
        ("/quiet 22-7 laut", "So geht's"),
        ("/quiet \u0662\u0662-\u0667", "So geht's"),  # Arabic-Indic digits (issue 19)
    ):
        await bot.say(ALICE, typed)
        assert answer in bot.last(ALICE), typed
    assert bot.app.bot_data.preferences.of(ALICE).quiet is None


async def test_settings_show_quiet_hours_and_switch_their_mode(bot: Bot) -> None:
    """A chat without a window gets 22:00-07:00 from the "hold" button; "silent" keeps the
    window; "no quiet hours" ends it."""
    message = await settings_message(bot, ALICE)
    assert "Ruhezeiten: keine" in message.text
    await bot.press(ALICE, message.message_id, buttons(message)["🌙 warten"])
    assert "Ruhezeiten: 22:00-07:00 (Europe/Vienna), Alarme warten" in bot.api.edits[-1].text
    await bot.say(ALICE, "/quiet 23-6")
    message = await settings_message(bot, ALICE)
    await bot.press(ALICE, message.message_id, buttons(message)["🔕 ohne Ton"])
    assert "23:00-06:00 (Europe/Vienna), Alarme kommen ohne Ton" in bot.api.edits[-1].text
    await bot.press(ALICE, message.message_id, buttons(bot.api.edits[-1])["🔔 keine Ruhezeiten"])
    assert bot.app.bot_data.preferences.of(ALICE).quiet is None


async def test_an_old_file_gains_quiet_hours_off_and_keeps_its_settings(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "quiet")
    async with old.transaction() as conn:
        await conn.execute(
            "INSERT INTO chats (chat_id, created_at, updated_at, lang, alert_style)"
            " VALUES (7, 0, 0, 'en', 'compact')"
        )
        await conn.execute(
            "INSERT INTO notifications (chat_id, kind, text, dedupe_key, max_attempts,"
            " next_attempt_at, created_at, queued_at, updated_at)"
            " VALUES (7, 'new', 'x', 'k', 5, 1, 1, 1, 1)"
        )
    await old.close()
    async with Database(path) as db:
        chat = await db.fetchone("SELECT * FROM chats WHERE chat_id = 7")
        assert chat is not None
        assert (chat["lang"], chat["alert_style"], chat["quiet_mode"]) == ("en", "compact", None)
        assert await db.single_value("SELECT disable_notification FROM notifications") == 0


async def test_a_burst_of_12_new_listings_is_one_digest(bot: Bot) -> None:
    """Each entry: the title as the link, the price, the place; the other chat, with a
    threshold above 12, gets them one by one."""
    await watching(bot)
    message = await settings_message(bot, BOB)
    await bot.press(BOB, message.message_id, buttons(message)["📬 über 20"])
    before = len(bot.api.messages(ALICE))
    for i in range(12):
        bot.site.add(MARKET, FakeAdvert(f"20{i:02}", f"Sofa <{i}>", Decimal(100 + i)))
    await bot.scrape()
    [digest] = bot.api.messages(ALICE)[before:]
    lines = digest.text.splitlines()
    assert lines[0] == "📬 <b>12 Alarme auf einmal</b>"
    assert len(lines) == 13
    assert any(">Sofa &lt;3&gt;</a> · € 103 · " in line for line in lines)
    assert (
        await bot.app.bot_data.db.single_value(
            "SELECT count(*) FROM notifications WHERE chat_id = ? AND kind = 'new'"
            " AND status = 'sent'",
            (ALICE,),
        )
        == 12
    )
    assert sum("Sofa &lt;" in m.text for m in bot.api.messages(BOB)) == 12


async def test_alerts_held_overnight_arrive_as_one_digest(bot: Bot) -> None:
    await watching(bot)
    await bot.say(ALICE, "/quiet 22-7")
    for i in range(8):
        bot.site.add(MARKET, FakeAdvert(f"30{i:02}", f"Tisch {i}", Decimal(50)))
    await bot.scrape()
    before = len(bot.api.messages(ALICE))
    await bot.say(ALICE, "/quiet off")
    await deliver(bot.app.bot_data)
    [said, digest] = bot.api.messages(ALICE)[before:]
    assert "8 zurückgehaltene Alarme kommen jetzt." in said.text
    assert digest.text.startswith("📬 <b>8 Alarme auf einmal</b>")


async def test_the_queue_view_shows_a_next_retry_only_when_a_retry_waits(bot: Bot) -> None:
    """Issue 19 (12): held rows are no retry — /queue shows them as held, "0" retrying and
    no "next due" (which was the held rows' release in 8 h); once a send failed, the retry
    and when it is due are shown. The oldest waiting row is not a held one either."""
    await watching(bot)
    await bot.say(ALICE, "/quiet 22-7")
    bot.api.fail_next(BOB, Fault.server_error(502))
    bot.site.add(MARKET, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    await bot.scrape()  # held for Alice; Bob's send fails once
    await bot.say(OWNER, "/queue")
    view = bot.last(OWNER)
    assert "zurückgehalten bis 07:00: 1" in view
    assert "davon Wiederholung: 1 (nächste fällig: in " in view
    await deliver(bot.app.bot_data)  # not due yet: nothing changes
    bot.clock.advance(3600)
    await deliver(bot.app.bot_data)
    assert "Neues Sofa" in bot.last(BOB)
    await bot.say(OWNER, "/queue")
    view = bot.last(OWNER)
    assert "zurückgehalten bis 07:00: 1" in view
    assert "davon Wiederholung: 0\n" in view
    assert "nächste fällig" not in view
    assert "wartend: 0 (älteste: —)" in view


# Without a bot: what `/quiet` says, from `describe_quiet` and the change's outcome.

WINDOW = QuietHours(start=time(22), end=time(7))
NIGHT = datetime(2023, 11, 14, 23, 13, tzinfo=ZoneInfo("Europe/Vienna")).timestamp()
NOON = datetime(2023, 11, 14, 12, tzinfo=ZoneInfo("Europe/Vienna")).timestamp()


@pytest.mark.parametrize(
    ("quiet", "de", "en"),
    [
        (None, "keine", "none"),
        (
            WINDOW,
            "22:00-07:00 (Europe/Vienna), Alarme warten bis zum Ende",
            "22:00-07:00 (Europe/Vienna), alerts wait until the end",
        ),
        (
            QuietHours(time(22, 30), time(6, 45), "silent", "Europe/London"),
            "22:30-06:45 (Europe/London), Alarme kommen ohne Ton",
            "22:30-06:45 (Europe/London), alerts arrive without a sound",
        ),
    ],
    ids=["none", "hold", "silent-elsewhere"],
)
def test_a_setting_is_described_with_its_window_zone_and_mode(
    quiet: QuietHours | None, de: str, en: str
) -> None:
    assert (describe_quiet(Texts("de"), quiet), describe_quiet(Texts("en"), quiet)) == (de, en)


@pytest.mark.parametrize(
    ("quiet", "retimed", "now", "note"),
    [
        (None, 0, NIGHT, None),
        (None, 3, NIGHT, "3 held alerts are on their way now."),
        (WINDOW, 0, NIGHT, None),
        (WINDOW, 2, NIGHT, "2 held alerts now wait until 07:00."),
        (WINDOW, 2, NOON, "2 held alerts are on their way now."),  # outside the window
        (replace(WINDOW, mode="silent"), 2, NIGHT, "2 held alerts are on their way now."),
        # The release time reads in the window's zone: 07:00 in London is 08:00 in Vienna.
        (replace(WINDOW, zone="Europe/London"), 1, NIGHT, "1 held alerts now wait until 07:00."),
    ],
    ids=["off", "off-releases", "set", "set-holds", "set-by-day", "silent", "other-zone"],
)
def test_a_change_says_the_setting_and_where_the_held_alerts_went(
    quiet: QuietHours | None, retimed: int, now: float, note: str | None
) -> None:
    said = quiet_reply(Texts("en"), quiet, retimed, now=now)
    first, *rest = said.split("\n")
    if quiet is None:
        assert first == "🔔 No more quiet hours: alerts arrive as they come."
    else:
        assert first == f"🌙 Quiet hours: {describe_quiet(Texts('en'), quiet)}"
    assert rest == ([] if note is None else [note])
