"""Who administers a group (`habicht.bot.permissions`, issue 13): Telegram is asked once per
group and user, and the answer kept `ADMIN_TTL` seconds."""

from __future__ import annotations

from kit.bot import ALICE, Bot

from habicht.bot.permissions import ADMIN_TTL

GROUP = -1005001


async def test_admin_answers_are_cached_briefly(bot: Bot) -> None:
    """Several commands of one member within `ADMIN_TTL` ask Telegram once; after it, again
    — so a demoted admin loses the right within that time."""
    bot.api.set_member(GROUP, ALICE, "administrator")
    for command in ("/pause", "/resume", "/pause"):
        await bot.say(GROUP, command, user_id=ALICE, group=True)
    assert bot.api.calls["getChatMember"] == 1
    bot.api.set_member(GROUP, ALICE, "member")
    bot.clock.advance(ADMIN_TTL + 1)
    await bot.say(GROUP, "/resume", user_id=ALICE, group=True)
    assert bot.api.calls["getChatMember"] == 2
    assert "nur ihre Admins" in bot.last(GROUP)
