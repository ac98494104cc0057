"""The fake Telegram's books (`habicht.fakes.telegram_books`): Telegram's limits are counted,
never enforced."""

from __future__ import annotations

from kit.fakes import FakeClock

from habicht.fakes.telegram import DEFAULT_TOKEN, FakeBotAPI


def test_limits_are_counted_not_enforced() -> None:
    """More than 30 sends in a second, or two to one chat within a second, are violations."""
    clock = FakeClock()
    with FakeBotAPI(clock=clock) as fake:
        for chat in range(31):
            assert (
                fake.respond(DEFAULT_TOKEN, "sendMessage", {"chat_id": chat, "text": "x"})[0] == 200
            )
            clock.advance(0.01)
        assert [v.kind for v in fake.violations] == ["global"]
        clock.advance(0.75)
        fake.respond(DEFAULT_TOKEN, "sendMessage", {"chat_id": 30, "text": "x"})
        assert [v.kind for v in fake.violations] == ["global", "chat"]
        clock.advance(2)
        fake.respond(DEFAULT_TOKEN, "sendMessage", {"chat_id": 30, "text": "x"})
        assert len(fake.violations) == 2


def test_more_than_20_messages_to_a_group_in_a_minute_are_violations() -> None:
    """Issue 10: a group (negative id) takes 20 messages in any rolling minute; the 21st
    within 60 s of the first is a violation, one a second after that is not."""
    clock = FakeClock()
    with FakeBotAPI(clock=clock) as fake:
        for _ in range(21):
            fake.respond(DEFAULT_TOKEN, "sendMessage", {"chat_id": -100, "text": "x"})
            clock.advance(2.95)
        assert [(v.kind, v.chat_id) for v in fake.violations] == [("group", -100)]
        clock.advance(3.1)
        fake.respond(DEFAULT_TOKEN, "sendMessage", {"chat_id": -100, "text": "x"})
        assert len(fake.violations) == 1
