"""Presses of the buttons under every alert (`habicht.bot.handlers.buttons`, issue 13): pause,
mute 24 h and remove, each once however often pressed, and refused for another chat's alert,
a forged one or a group member who is no admin — through the real Application and the fake
Bot API."""

from __future__ import annotations

import logging
from decimal import Decimal

import pytest
from kit.bot import ALICE, BOB, MARKET, OWNER, SEARCH, Bot, alert_of
from kit.buttons import button_data, buttons, legacy_button

from habicht.bot import deliver
from habicht.bot.handlers.buttons import MUTE_SECONDS
from habicht.fakes import FakeAdvert
from habicht.watches.watch import WatchInfo
from habicht.willhaben.urls import parse_watch_argument

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


FAHRRAD = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=fahrrad"
GONE = {"de": "Diese Suche gibt es nicht mehr.", "en": "This watch no longer exists."}
LABELS = {
    "de": {"p": "⏸ Pausieren", "m": "🔕 24 h stumm", "r": "🗑 Entfernen"},
    "en": {"p": "⏸ Pause", "m": "🔕 Mute 24 h", "r": "🗑 Remove"},
}


async def _fahrrad_after_sofa(bot: Bot, chat_id: int, **say: object) -> dict[str, str]:
    """Issue 35's sequence up to the press: `chat_id` gets an alert of its watch 1 ("sofa"),
    removes that watch (`/unwatch 1`) and adds "fahrrad" — the watch SQLite's plain row ids
    gave the removed one's id. The buttons of the sofa alert."""
    alert = await alert_of(bot, chat_id, FakeAdvert("1002", "Neues Sofa", Decimal(90)), **say)
    await bot.say(chat_id, "/unwatch 1", **say)  # type: ignore[arg-type]
    await bot.say(chat_id, f"/watch {FAHRRAD}", **say)  # type: ignore[arg-type]
    fahrrad = await _watch(bot, chat_id)
    assert fahrrad is not None
    assert fahrrad.url == parse_watch_argument(FAHRRAD).url
    return buttons(alert)


async def _untouched(bot: Bot, chat_id: int) -> None:
    """The chat's one watch is "fahrrad", active and not muted."""
    watch = await _watch(bot, chat_id)
    assert watch is not None
    assert (watch.url, watch.paused) == (parse_watch_argument(FAHRRAD).url, False)
    muted = await bot.app.bot_data.db.single_value(
        "SELECT muted_until FROM watches WHERE id = ?", (watch.id,)
    )
    assert muted is None


@pytest.mark.parametrize("action", ["r", "p", "m"])
async def test_an_old_alerts_button_never_acts_on_the_watch_added_after_its_own(
    bot: Bot, action: str
) -> None:
    """Issue 35: Alice removes watch 1 (sofa), adds "fahrrad", presses 🗑 (or ⏸, or 🔕) on
    the old sofa alert: "fahrrad" stays as it was, and the answer says the watch is gone."""
    shown = await _fahrrad_after_sofa(bot, ALICE)
    await bot.press(ALICE, 1, shown[LABELS["de"][action]])
    assert bot.api.callback_answers[-1]["text"] == GONE["de"]
    await _untouched(bot, ALICE)


@pytest.mark.parametrize("lang", ["de", "en"])
async def test_in_a_group_an_old_alerts_button_spares_the_newer_watch(bot: Bot, lang: str) -> None:
    """The same in a group, pressed by its admin: the group's newer watch stays, and the
    admin is told the old one is gone in the group's language."""
    bot.api.set_member(GROUP, ALICE, "administrator")
    shown = await _fahrrad_after_sofa(bot, GROUP, user_id=ALICE, group=True, lang=lang)
    for action in "rpm":
        await bot.press(GROUP, 1, shown[LABELS[lang][action]], user_id=ALICE, group=True)
        assert bot.api.callback_answers[-1]["text"] == GONE[lang]
    await _untouched(bot, GROUP)


async def test_a_button_pressed_in_another_chat_never_reaches_that_chats_watch(bot: Bot) -> None:
    """Callback data is whatever a client sends: the remove button of Alice's removed watch,
    sent from Bob's chat once Bob has a watch of his own (the next one made), removes
    nothing of Bob's — "gone", as for any watch that is not the chat's."""
    alert = await alert_of(bot, ALICE, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    remove = buttons(alert)["🗑 Entfernen"]
    await bot.press(ALICE, alert.message_id, remove)
    await bot.say(BOB, f"/watch {FAHRRAD}")
    for label in ("🗑 Entfernen", "⏸ Pausieren", "🔕 24 h stumm"):
        await bot.press(BOB, 1, buttons(alert)[label])
        assert bot.api.callback_answers[-1]["text"] == GONE["de"]
    await _untouched(bot, BOB)


async def test_a_forged_button_naming_the_newer_watch_does_nothing(bot: Bot) -> None:
    """The old alert's tag under the newer watch's id, or its id under a made-up tag, is
    "not valid": a tag binds its one watch."""
    shown = await _fahrrad_after_sofa(bot, ALICE)
    fahrrad = await _watch(bot, ALICE)
    assert fahrrad is not None
    _, action, _, tag = shown["🗑 Entfernen"].split(":")
    for forged in (f"w:{action}:{fahrrad.id}:{tag}", f"w:{action}:{fahrrad.id}:AAAAAAAAAAAA"):
        await bot.press(ALICE, 1, forged)
        assert bot.api.callback_answers[-1]["text"] == "Dieser Knopf ist nicht (mehr) gültig."
    await _untouched(bot, ALICE)


@pytest.mark.parametrize("action", ["r", "p", "m"])
async def test_a_button_signed_before_ids_lasted_does_nothing_and_says_why(
    bot: Bot, action: str
) -> None:
    """Buttons of alerts sent before issue 35 were signed over (action, id) alone, when ids
    came back after a removal: they cannot tell which watch they were made for, so they act
    on none — not even on a watch that is still the one they name — and the answer says
    what to use instead."""
    await alert_of(bot, ALICE, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    sofa = await _watch(bot, ALICE)
    assert sofa is not None
    await bot.press(ALICE, 1, legacy_button(bot.api.token, action, sofa.id))
    answer = bot.api.callback_answers[-1]["text"]
    assert "älteren Version" in answer
    assert "/list" in answer
    assert await _watch(bot, ALICE) == sofa
    assert bot.api.edits == []


async def test_an_unwatch_button_never_removes_the_watch_added_after_its_own(bot: Bot) -> None:
    """`/unwatch`'s buttons carry a watch id too (`unwatch:<id>`): one shown before its
    watch was removed, pressed after "fahrrad" was added, removes nothing."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(ALICE, "/unwatch")
    offer = bot.api.messages(ALICE)[-1]
    await bot.say(ALICE, "/unwatch 1")
    await bot.say(ALICE, f"/watch {FAHRRAD}")
    await bot.press(ALICE, offer.message_id, button_data(offer))
    assert "Nr. ?" in (bot.api.as_shown(ALICE, offer.message_id) or {})["text"]
    await _untouched(bot, ALICE)
