"""Answering (`habicht.bot.handling`): a button under a message too old to edit still acts, and
its answer comes as a new message instead of an edit — through the real Application."""

from __future__ import annotations

import pytest
from kit.bot import ALICE, Bot, errors
from kit.buttons import button_data


async def test_a_button_under_a_message_too_old_to_edit_answers_anew(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    """Pressing a button under a message the bot can no longer see (Telegram sends it with
    date 0) still acts, and the answer comes as a new message instead of an edit."""
    await bot.say(ALICE, "/watch sofa")
    await bot.say(ALICE, "/unwatch")
    offer = bot.api.messages(ALICE)[-1]
    await bot.press(ALICE, offer.message_id, button_data(offer), inaccessible=True)
    assert "Suche Nr. 1 gelöscht" in bot.last(ALICE)
    assert bot.api.edits == []
    assert await bot.app.bot_data.subscriptions.watches(ALICE) == []
    assert errors(caplog) == []
