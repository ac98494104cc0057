"""Removed, paused and muted watches fall silent (issue 19, case 1): what their watch queued
and did not send yet — held for the morning here — is cancelled in the same transaction, by
command or by button; the rows end dead as `cancelled`, counted in `/queue`, never sent, with
no owner alert; resuming does not bring them back. A row another watch of the chat owes too
stays. Through the real Application and the fake Bot API; the clock starts at 23:13 in
Vienna, inside `22-7`."""

from __future__ import annotations

from decimal import Decimal

import pytest
from kit.bot import ALICE, MARKET, OWNER, Bot, alert_of
from kit.buttons import buttons

from habicht.bot import deliver
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import SentMessage

OTHER = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=tisch"
HELD = 8


async def _held_overnight(bot: Bot) -> SentMessage:
    """Alice's watch alerted once (before her quiet hours); then `/quiet 22-7` holds the
    next 8 alerts. The first alert, whose buttons act on the watch."""
    alert = await alert_of(bot, ALICE, FakeAdvert("1002", "Neues Sofa", Decimal(90)))
    await bot.say(ALICE, "/quiet 22-7")
    for i in range(HELD):
        bot.site.add(MARKET, FakeAdvert(f"40{i:02}", f"Tisch {i}", Decimal(50)))
    await bot.scrape()
    await bot.say(OWNER, "/queue")
    assert f"zurückgehalten bis 07:00: {HELD}" in bot.last(OWNER)
    return alert


async def _morning(bot: Bot) -> list[str]:
    """`/quiet off`: what is held is released and delivered; the texts Alice got since."""
    before = len(bot.api.messages(ALICE))
    await bot.say(ALICE, "/quiet off")
    await deliver(bot.app.bot_data)
    return [m.text for m in bot.api.messages(ALICE)[before:]]


async def _cancelled(bot: Bot) -> int:
    return int(
        await bot.app.bot_data.db.single_value(
            "SELECT count(*) FROM notifications WHERE status = 'dead' AND dead_reason = 'cancelled'"
        )
    )


@pytest.mark.parametrize(
    "how",
    [
        "/unwatch 1",
        "/unwatch, then its button",
        "/pause 1",
        "/pause",
        "🗑 Entfernen",
        "⏸ Pausieren",
        "🔕 24 h stumm",
    ],
)
async def test_held_alerts_of_a_removed_paused_or_muted_watch_never_arrive(
    bot: Bot, how: str
) -> None:
    """Issue 19: at 23:15 the watch is removed, paused or muted (by command or by its alert's
    button); in the morning none of its 8 held alerts arrives. They are dead as
    `cancelled` in `/queue`, and the owner is not alerted."""
    alert = await _held_overnight(bot)
    if how == "/unwatch, then its button":
        await bot.say(ALICE, "/unwatch")
        [watch] = await bot.app.bot_data.subscriptions.watches(ALICE)
        offer = bot.api.messages(ALICE)[-1]
        await bot.press(ALICE, offer.message_id, f"unwatch:{watch.id}")
    elif how.startswith("/"):
        await bot.say(ALICE, how)
    else:
        await bot.press(ALICE, alert.message_id, buttons(alert)[how])
    assert await _cancelled(bot) == HELD
    owner_messages = len(bot.api.messages(OWNER))
    assert not any("Tisch" in text for text in await _morning(bot))
    if "ause" in how:
        await bot.say(ALICE, "/resume")
        await bot.baseline()
        await deliver(bot.app.bot_data)
        assert not any("Tisch" in m.text for m in bot.api.messages(ALICE))
    assert await _cancelled(bot) == HELD
    assert len(bot.api.messages(OWNER)) == owner_messages  # no "dead messages" alert
    await bot.say(OWNER, "/queue")
    assert f"cancelled: {HELD}" in bot.last(OWNER)


async def test_an_alert_another_watch_of_the_chat_owes_too_still_arrives(bot: Bot) -> None:
    """Both of Alice's watches match the 8 adverts (one row each: the key is per chat);
    removing one of them cancels nothing; removing the other too cancels all 8."""
    await bot.say(ALICE, f"/watch {OTHER}")
    await _held_overnight(bot)
    await bot.say(ALICE, "/unwatch 1")
    assert await _cancelled(bot) == 0
    [digest] = [text for text in await _morning(bot) if "Tisch" in text]
    assert digest.startswith(f"📬 <b>{HELD} Alarme auf einmal</b>")

    await bot.say(ALICE, "/quiet 22-7")
    bot.site.add(MARKET, FakeAdvert("5001", "Stuhl", Decimal(20)))
    await bot.scrape()
    await bot.say(ALICE, "/unwatch 1")
    assert await _cancelled(bot) == 1
    assert not any("Stuhl" in text for text in await _morning(bot))
