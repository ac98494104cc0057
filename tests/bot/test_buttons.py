"""Presses of the buttons under every alert (`habicht.bot.handlers.buttons`, issue 13): pause,
mute 24 h and remove, each once however often pressed, and refused for another chat's alert,
a forged one or a group member who is no admin — through the real Application and the fake
Bot API."""

from __future__ import annotations

import logging
from decimal import Decimal

import pytest
from kit.bot import ALICE, BOB, MARKET, OWNER, Bot, alert_of
from kit.buttons import buttons

from habicht.bot import deliver
from habicht.bot.handlers.buttons import MUTE_SECONDS
from habicht.fakes import FakeAdvert
from habicht.watches.watch import WatchInfo

GROUP = -1005001


async def _watch(bot: Bot, chat_id: int) -> WatchInfo | None:
    watches = await bot.app.bot_data.subscriptions.watches(chat_id)
    return watches[0] if watches else None


async def test_pause_pressed_twice_pauses_once_and_says_so(bot: Bot) -> None:
    """Pause: the watch is paused, the presser told how to resume, the action buttons go
    (open stays); the second press changes nothing and says it is paused already."""
    alert = await alert_of(bot, ALICE, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    pause = buttons(alert)["⏸ Pausieren"]
    await bot.press(ALICE, alert.message_id, pause)
    watch = await _watch(bot, ALICE)
    assert watch is not None
    assert watch.paused
    assert "pausiert. /resume 1" in bot.api.callback_answers[-1]["text"]
    assert buttons(bot.api.edits[-1]) == {"🔗 Öffnen": buttons(alert)["🔗 Öffnen"]}
    edits = len(bot.api.edits)
    await bot.press(ALICE, alert.message_id, pause)
    assert "schon pausiert" in bot.api.callback_answers[-1]["text"]
    assert len(bot.api.edits) == edits


async def test_mute_holds_alerts_back_24_h_and_what_it_saw_stays_seen(bot: Bot) -> None:
    """Mute 24 h: the watch is still scanned, its new adverts recorded as seen but not sent;
    pressed again, it mutes 24 h from then. After the mute, only newer adverts are sent."""
    alert = await alert_of(bot, ALICE, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    mute = buttons(alert)["🔕 24 h stumm"]
    await bot.press(ALICE, alert.message_id, mute)
    await bot.press(ALICE, alert.message_id, mute)
    assert all("24 h stumm" in answer["text"] for answer in bot.api.callback_answers[-2:])
    sent = len(bot.api.messages(ALICE))
    bot.site.add(MARKET, FakeAdvert("1003", "Sofa im Stummen", Decimal(70)))
    await bot.scrape()
    assert len(bot.api.messages(ALICE)) == sent
    bot.clock.advance(MUTE_SECONDS)
    bot.site.add(MARKET, FakeAdvert("1004", "Sofa danach", Decimal(60)))
    await bot.scrape()
    assert [m.text for m in bot.api.messages(ALICE)[sent:] if "Sofa" in m.text] == [
        bot.api.messages(ALICE)[-1].text
    ]
    assert "Sofa danach" in bot.api.messages(ALICE)[-1].text


async def test_remove_pressed_twice_removes_once(bot: Bot) -> None:
    """Remove: the watch is gone; pressing again (or any of its buttons) says so."""
    alert = await alert_of(bot, ALICE, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    shown = buttons(alert)
    await bot.press(ALICE, alert.message_id, shown["🗑 Entfernen"])
    assert await _watch(bot, ALICE) is None
    assert "entfernt" in bot.api.callback_answers[-1]["text"]
    for label in ("🗑 Entfernen", "⏸ Pausieren", "🔕 24 h stumm"):
        await bot.press(ALICE, alert.message_id, shown[label])
        assert bot.api.callback_answers[-1]["text"] == "Diese Suche gibt es nicht mehr."


async def test_buttons_of_another_chats_alert_or_forged_do_nothing(bot: Bot) -> None:
    """Bob pressing data of Alice's alert in his own chat: nothing changes, the answer is
    "no longer exists"; made-up data is "not valid"."""
    alert = await alert_of(bot, ALICE, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    await bot.say(BOB, "/start")
    for data in [d for d in buttons(alert).values() if d.startswith("w:")]:
        await bot.press(BOB, 1, data)
        assert bot.api.callback_answers[-1]["text"] == "Diese Suche gibt es nicht mehr."
    await bot.press(BOB, 1, "w:r:1:forged")
    assert bot.api.callback_answers[-1]["text"] == "Dieser Knopf ist nicht (mehr) gültig."
    watch = await _watch(bot, ALICE)
    assert watch is not None
    assert not watch.paused


async def test_in_a_group_a_member_cannot_press_an_alerts_buttons(bot: Bot) -> None:
    """A member's press is refused in its answer and changes nothing; the admin's works."""
    bot.api.set_member(GROUP, ALICE, "administrator")
    alert = await alert_of(
        bot, GROUP, FakeAdvert("1002", "Neues Sofa", Decimal(90)), user_id=ALICE, group=True
    )
    shown = buttons(alert)
    for label in ("⏸ Pausieren", "🔕 24 h stumm", "🗑 Entfernen"):
        await bot.press(GROUP, alert.message_id, shown[label], user_id=BOB, group=True)
        assert "nur ihre Admins" in bot.api.callback_answers[-1]["text"]
    watch = await _watch(bot, GROUP)
    assert watch is not None
    assert not watch.paused
    assert bot.api.edits == []
    await bot.press(GROUP, alert.message_id, shown["🗑 Entfernen"], user_id=ALICE, group=True)
    assert await _watch(bot, GROUP) is None


@pytest.mark.parametrize("number", ["\u00b2", "\u2460", "\u0663", "9" * 30, "-1", " 1"])
async def test_a_forged_button_with_a_number_that_is_no_ascii_number_is_answered(
    bot: Bot, caplog: pytest.LogCaptureFixture, number: str
) -> None:
    """Issue 19 (9): callback data whose watch id passes `str.isdigit()` ("²") or `int()`
    ("٣") but is no ASCII number gets the polite "not valid" answer: no exception, no
    owner alert, nothing changed."""
    await alert_of(bot, ALICE, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    for action in "pmr":
        await bot.press(ALICE, 1, f"w:{action}:{number}:AAAAAAAAAAAA")
        assert bot.api.callback_answers[-1]["text"] == "Dieser Knopf ist nicht (mehr) gültig."
    await bot.press(ALICE, 1, f"unwatch:{number}")
    assert "Eine Suche Nr. ? gibt es nicht." in (bot.api.as_shown(ALICE, 1) or {})["text"]
    await deliver(bot.app.bot_data)
    assert bot.api.messages(OWNER) == []
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    watch = await _watch(bot, ALICE)
    assert watch is not None
    assert not watch.paused
