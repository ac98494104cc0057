"""Groups, supergroups and forum topics (issue 13): only a group's admins change its watches
and settings, everyone may read, owner commands stay silent, topics get their answers."""

from __future__ import annotations

from datetime import time
from decimal import Decimal
from pathlib import Path

import pytest
from kit.bot import ALICE, BOB, MARKET, OWNER, SEARCH, Bot, running
from kit.buttons import button_data

from habicht.bot.preferences import ChatPrefs, Preferences
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import Fault
from habicht.queue import QuietHours

GROUP = -1005001


async def test_a_member_cannot_change_the_groups_watches_and_an_admin_can(bot: Bot) -> None:
    """In a group, a member's /watch, /pause, /unwatch and /settings are refused politely
    and change nothing; the admin's work; /list and /help answer everyone."""
    bot.api.set_member(GROUP, ALICE, "administrator")
    await bot.say(GROUP, f"/watch {SEARCH}", user_id=BOB, group=True)
    assert "nur ihre Admins" in bot.last(GROUP)
    subscriptions = bot.app.bot_data.subscriptions
    assert await subscriptions.watches(GROUP) == []

    await bot.say(GROUP, f"/watch {SEARCH}", user_id=ALICE, group=True)
    assert "Suche Nr. 1" in bot.last(GROUP)
    for command in ("/pause 1", "/unwatch 1", "/resume", "/settings", "/filter 1 -defekt"):
        await bot.say(GROUP, command, user_id=BOB, group=True)
        assert "nur ihre Admins" in bot.last(GROUP), command
    (watch,) = await subscriptions.watches(GROUP)
    assert not watch.paused
    assert watch.filter.empty
    await bot.say(GROUP, "/list", user_id=BOB, group=True)
    assert "Suchen</b>" in bot.last(GROUP)
    await bot.say(GROUP, "/help", user_id=BOB, group=True)
    assert "/watch" in bot.last(GROUP)

    await bot.say(GROUP, "/pause 1", user_id=ALICE, group=True)
    assert (await subscriptions.watches(GROUP))[0].paused


async def test_a_members_button_press_is_refused_in_its_answer(bot: Bot) -> None:
    """A member pressing an unwatch or settings button gets a short refusal as the button's
    answer, nothing is posted or edited and nothing changes; the admin's press works."""
    bot.api.set_member(GROUP, ALICE, "creator")
    await bot.say(GROUP, f"/watch {SEARCH}", user_id=ALICE, group=True)
    await bot.say(GROUP, "/unwatch", user_id=ALICE, group=True)
    offer = bot.api.messages(GROUP)[-1]
    unwatch = button_data(offer)
    await bot.say(GROUP, "/settings", user_id=ALICE, group=True)
    settings = bot.api.messages(GROUP)[-1]
    english = button_data(settings, column=1)
    sent = len(bot.api.messages(GROUP))

    for message, data in ((offer, unwatch), (settings, english)):
        await bot.press(GROUP, message.message_id, data, user_id=BOB, group=True)
        assert "nur ihre Admins" in bot.api.callback_answers[-1]["text"]
    assert len(bot.api.messages(GROUP)) == sent
    assert bot.api.edits == []
    assert len(await bot.app.bot_data.subscriptions.watches(GROUP)) == 1
    assert bot.app.bot_data.preferences.of(GROUP).lang is None

    await bot.press(GROUP, settings.message_id, english, user_id=ALICE, group=True)
    assert "Settings of this chat" in bot.api.edits[-1].text
    await bot.press(GROUP, offer.message_id, unwatch, user_id=ALICE, group=True)
    assert await bot.app.bot_data.subscriptions.watches(GROUP) == []


async def test_a_forged_unwatch_button_cannot_touch_another_chats_watch(bot: Bot) -> None:
    """`unwatch:<id>` of a watch the chat does not own deletes nothing."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    (alices,) = await bot.app.bot_data.subscriptions.watches(ALICE)
    await bot.press(BOB, 1, f"unwatch:{alices.id}")
    assert len(await bot.app.bot_data.subscriptions.watches(ALICE)) == 1


async def test_an_anonymous_admin_writes_as_the_group(bot: Bot) -> None:
    """A message sent on behalf of the group itself (an anonymous admin) may change it."""
    await bot.say(GROUP, f"/watch {SEARCH}", user_id=ALICE, group=True, as_group=True)
    assert "Suche Nr. 1" in bot.last(GROUP)
    assert bot.api.calls["getChatMember"] == 0


@pytest.mark.parametrize("command", ["/queue", "/queue dead", "/queue retry all"])
async def test_owner_commands_are_silent_in_a_group(bot: Bot, command: str) -> None:
    """Even the owner's /queue gets no answer in a group: nothing there may show other chats'
    ids or errors to its members. In private, it answers. (/stats without a number is the
    usage of the subscribers' `/stats <n>` there: tests/bot/test_figures.py.)"""
    bot.api.set_member(GROUP, OWNER, "administrator")
    await bot.say(GROUP, command, user_id=OWNER, group=True)
    assert bot.api.messages(GROUP) == []
    await bot.say(OWNER, command)
    assert bot.api.messages(OWNER) != []


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
