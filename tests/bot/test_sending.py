"""Alerts as subscribers get them (issue 13, `habicht.bot.sending`): the advert's photo with a
caption, text when Telegram refuses the photo, buttons under every alert, alerts in the forum
topic of their watch — through the real Application and the fake Bot API (the presses of the
buttons: tests/bot/test_buttons.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from kit.bot import ALICE, MARKET, SEARCH, Bot, alert_of
from kit.buttons import buttons

from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import PHOTO_REFUSALS
from habicht.message import Message

FORUM = -1007007


def _image(advert: FakeAdvert) -> str:
    return f"https://cache.willhaben.at/mmo/{advert.image_path}"


async def test_a_new_listing_arrives_as_its_photo_with_caption_and_buttons(bot: Bot) -> None:
    """The advert's main image by URL, the alert text as its HTML caption, and the buttons
    open, pause, mute 24 h and remove (German, the default)."""
    sofa = FakeAdvert("1002", "Neues Sofa <&>", Decimal(90))
    alert = await alert_of(bot, ALICE, sofa)
    assert alert.photo == _image(sofa)
    assert alert.params["parse_mode"] == "HTML"
    assert alert.text.startswith("🆕 <b><a href=")
    assert "Neues Sofa &lt;&amp;&gt;" in alert.text
    shown = buttons(alert)
    assert list(shown) == ["🔗 Öffnen", "⏸ Pausieren", "🔕 24 h stumm", "🗑 Entfernen"]
    assert shown["🔗 Öffnen"].endswith("-1002/")
    assert all(data.startswith("w:") for label, data in shown.items() if "Öffnen" not in label)


async def test_a_compact_chat_gets_text_with_the_same_buttons(bot: Bot) -> None:
    """Alert style compact (/settings): one line of text, no photo, still the buttons."""
    await bot.app.bot_data.preferences.set_alert_style(ALICE, "compact")
    alert = await alert_of(bot, ALICE, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    assert alert.photo is None
    assert "\n" not in alert.text
    assert len(buttons(alert)) == 4


@pytest.mark.parametrize("refusal", PHOTO_REFUSALS)
async def test_a_refused_photo_is_sent_as_text_in_the_same_attempt(bot: Bot, refusal: str) -> None:
    """Each of Telegram's three refusals of a photo URL: the same alert goes out as text
    with its buttons at once, the row is sent (one attempt), nothing is dead."""
    sofa = FakeAdvert("1002", "Neues Sofa", Decimal(90))
    bot.api.refuse_photo(_image(sofa), refusal)
    alert = await alert_of(bot, ALICE, sofa)
    assert alert.photo is None
    assert "Neues Sofa" in alert.text
    assert len(buttons(alert)) == 4
    assert bot.api.calls["sendPhoto"] == 1
    rows = await bot.app.bot_data.db.fetchall(
        "SELECT status, attempts, photo_url FROM notifications WHERE kind = 'new'"
    )
    assert [tuple(row) for row in rows] == [("sent", 1, _image(sofa))]


async def test_a_forum_topic_gets_its_watchs_alerts(bot: Bot) -> None:
    """A watch created in topic 42 of a forum: its alerts go to topic 42."""
    bot.api.set_member(FORUM, ALICE, "administrator")
    alert = await alert_of(
        bot, FORUM, FakeAdvert("1002", "Neues Sofa", Decimal(90)), user_id=ALICE, topic=42
    )
    assert "Neues Sofa" in alert.text
    assert alert.thread_id == 42


async def test_a_deleted_topic_pauses_only_its_watch(bot: Bot) -> None:
    """Topic 42 is deleted: its alert is dead ("topic_deleted") and its watch paused; the
    forum is not blocked, and its watch in topic 43 gets the next advert.

    (An advert both watches see is one alert per chat, to the first watch's topic.)"""
    bot.api.set_member(FORUM, ALICE, "administrator")
    other = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=tisch"
    await bot.say(FORUM, f"/watch {SEARCH}", user_id=ALICE, topic=42)
    await bot.say(FORUM, f"/watch {other}", user_id=ALICE, topic=43)
    await bot.baseline()
    bot.api.delete_topic(FORUM, 42)
    bot.site.add(MARKET, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    await bot.scrape()
    subscriptions = bot.app.bot_data.subscriptions
    in_42, in_43 = await subscriptions.watches(FORUM)
    assert (in_42.paused, in_43.paused) == (True, False)
    assert not await subscriptions.is_blocked(FORUM)
    bot.site.add(MARKET, FakeAdvert("1003", "Neuer Tisch", Decimal(50)))
    await bot.scrape()
    rows = await bot.app.bot_data.db.fetchall(
        "SELECT ad_id, thread_id, status, dead_reason FROM notifications WHERE kind = 'new'"
    )
    assert sorted(tuple(row) for row in rows) == [
        ("1002", 42, "dead", "topic_deleted"),
        ("1003", 43, "sent", None),
    ]
    assert [m.thread_id for m in bot.api.messages(FORUM) if "Neu" in m.text] == [43]


async def test_send_options_reach_telegram_as_queued(bot: Bot) -> None:
    """The queue's `send` passes `disable_notification` and the topic on, photo or text."""
    await bot.say(ALICE, "/start")
    for photo in ("https://img.test/sofa.jpg", None):
        message = Message(
            FORUM, "<b>Sofa</b>", photo_url=photo, thread_id=7, disable_notification=True
        )
        await bot.app.bot_data.send(message)
        sent = bot.api.messages(FORUM)[-1]
        assert (sent.photo, sent.thread_id, sent.text) == (photo, 7, "<b>Sofa</b>")
        assert sent.params["disable_notification"] in (True, "true", "True")
