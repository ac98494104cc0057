"""Who may run a handler (`habicht.bot.guards`, issue 13): in a group only its admins change
its watches and settings — by command or button, an anonymous admin as the group — everyone
may read, and owner commands stay silent there."""

from __future__ import annotations

import pytest
from kit.bot import ALICE, BOB, OWNER, SEARCH, Bot
from kit.buttons import button_data

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
