"""Groups, supergroups and forum topics (issue 13): a forged button touches no other chat's
watch, topics get their answers, a group that became a supergroup keeps its settings (who may
change a group's watches: tests/bot/test_guards.py; the admin cache: test_permissions.py)."""

from __future__ import annotations

from datetime import time
from decimal import Decimal
from pathlib import Path

from kit.bot import ALICE, BOB, MARKET, SEARCH, Bot, running

from habicht.bot.preferences import ChatPrefs, Preferences
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import Fault
from habicht.quiet import QuietHours

GROUP = -1005001


async def test_a_forged_unwatch_button_cannot_touch_another_chats_watch(bot: Bot) -> None:
    """`unwatch:<id>` of a watch the chat does not own deletes nothing."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    (alices,) = await bot.app.bot_data.subscriptions.watches(ALICE)
    await bot.press(BOB, 1, f"unwatch:{alices.id}")
    assert len(await bot.app.bot_data.subscriptions.watches(ALICE)) == 1


async def test_a_forum_topic_gets_its_answers_and_the_watch_records_it(bot: Bot) -> None:
    """/watch in a forum topic is answered in that topic, and the watch remembers it."""
    bot.api.set_member(GROUP, ALICE, "administrator")
    await bot.say(GROUP, f"/watch {SEARCH}", user_id=ALICE, topic=77)
    answer = bot.api.messages(GROUP)[-1]
    assert "Suche Nr. 1" in answer.text
    assert answer.thread_id == 77
    (watch,) = await bot.app.bot_data.subscriptions.watches(GROUP)
    assert watch.thread_id == 77
    await bot.say(GROUP, "/list", user_id=BOB, topic=78)
    assert bot.api.messages(GROUP)[-1].thread_id == 78
    await bot.say(ALICE, f"/watch {SEARCH}")
    (private,) = await bot.app.bot_data.subscriptions.watches(ALICE)
    assert private.thread_id is None


async def test_a_group_that_became_a_supergroup_keeps_its_settings(bot: Bot) -> None:
    """A group's language moves with it to its supergroup id: the first alert there, rendered
    right after the move, is in the group's language."""
    group, supergroup = -4001, -1004001
    bot.api.set_member(group, ALICE, "administrator")
    await bot.say(group, f"/watch {SEARCH}", user_id=ALICE, group=True, lang="en")
    assert "Search no. 1" in bot.last(group)
    await bot.baseline()
    bot.api.fail_next(group, Fault.migrated(supergroup))
    bot.site.add(MARKET, FakeAdvert("1005", "Gruppensofa", Decimal(80)))
    await bot.scrape()  # the alert is rewritten to the new id, rendered before the move
    assert bot.app.bot_data.preferences.lang(supergroup) == "en"
    bot.site.add(MARKET, FakeAdvert("1006", "Zweites Sofa", Decimal(70)))
    await bot.scrape()
    assert "Zweites Sofa" in bot.last(supergroup)
    assert "💶 €70" in bot.last(supergroup)


async def test_a_supergroup_keeps_every_setting_of_its_group_after_a_restart(
    tmp_path: Path,
) -> None:
    """Issue 19 (5): every column of the group's chat row moves to the supergroup id —
    quiet hours with their mode and zone, digest threshold, style, language; the mirror
    matches the database, and after a restart `/settings` shows them and the scan applies
    the quiet hours to the new id."""
    group, supergroup = -4001, -1004001
    quiet = QuietHours(start=time(22), end=time(7), mode="silent", zone="Europe/London")
    async with running(tmp_path) as bot:
        bot.api.set_member(group, ALICE, "administrator")
        await bot.say(group, f"/watch {SEARCH}", user_id=ALICE, group=True, lang="en")
        await bot.baseline()
        prefs = bot.app.bot_data.preferences
        await prefs.set_quiet(group, quiet)
        await prefs.set_digest_after(group, 10)
        await prefs.set_alert_style(group, "compact")
        db = bot.app.bot_data.db
        row = "SELECT * FROM chats WHERE chat_id = ?"
        before = dict(await db.fetchone(row, (group,)) or {})
        bot.api.fail_next(group, Fault.migrated(supergroup))
        bot.site.add(MARKET, FakeAdvert("1005", "Gruppensofa", Decimal(80)))
        await bot.scrape()
        assert "Gruppensofa" in bot.last(supergroup)
        after = dict(await db.fetchone(row, (supergroup,)) or {})
        moved = ("chat_id", "updated_at")
        assert {k: v for k, v in after.items() if k not in moved} == {
            k: v for k, v in before.items() if k not in moved
        }
        assert await db.fetchone("SELECT 1 FROM chats WHERE chat_id = ?", (group,)) is None
        mirror = prefs.of(supergroup)
        assert mirror == (await Preferences(db, clock=bot.clock, default_lang="de").load()).of(
            supergroup
        )
        assert not prefs.known(group)

    async with running(tmp_path, clock=bot.clock) as bot:  # a restart: the same SQLite file
        assert bot.app.bot_data.preferences.of(supergroup) == mirror
        assert mirror == ChatPrefs("en", "compact", quiet, 10)
        bot.api.set_member(supergroup, ALICE, "administrator")
        await bot.say(supergroup, "/settings", user_id=ALICE, group=True)
        shown = bot.last(supergroup)
        assert "22:00-07:00 (Europe/London)" in shown
        assert "more than 10 alerts" in shown
        assert "Compact" in shown
        bot.site.add(MARKET, FakeAdvert("1006", "Zweites Sofa", Decimal(70)))
        await bot.scrape()  # 22:13 in London: inside the supergroup's silent window
        [alert] = [m for m in bot.api.messages(supergroup) if "Zweites Sofa" in m.text]
        assert alert.params["disable_notification"] == "true"
        assert alert.photo is None
