"""Quiet hours in the outbox (issue 14): held alerts are ordinary pending rows, due (and
counted as queued) when their chat's quiet hours end — on a real SQLite file, a virtual clock."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from kit.fakes import FakeClock
from kit.times import at

from habicht.db import Database
from habicht.message import Outgoing
from habicht.queue import NotificationStore
from habicht.queue.enqueue import retime_within
from habicht.queue.report import describe_stats
from habicht.quiet import QuietHours, parse_quiet_hours

CHAT, OTHER = 7, 8


def alert(key: str, *, chat_id: int = CHAT, kind: str = "new") -> Outgoing:
    return Outgoing(chat_id=chat_id, kind=kind, text=f"<b>{key}</b>", dedupe_key=key)  # type: ignore[arg-type]


class Chats:
    """The chats' quiet hours as their owner keeps them and hands them to the outbox (the
    outbox reads no chat's settings: `watches.judge` reads them in the scan's transaction)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.quiet: dict[int, QuietHours] = {}

    async def set_quiet(
        self, chat_id: int, window: str | None, *, now: float, zone: str | None = None
    ) -> int:
        """Set a chat's quiet hours as `Preferences.set_quiet` does (in `zone`, if given;
        none reads as Europe/Vienna); returns rows re-timed."""
        quiet = None if window is None else parse_quiet_hours(window, zone=zone or "Europe/Vienna")
        if quiet is None:
            self.quiet.pop(chat_id, None)
        else:
            self.quiet[chat_id] = quiet
        async with self.db.transaction() as conn:
            return await retime_within(conn, chat_id, quiet, now=now)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(at("2026-01-14 23:10"))


@pytest.fixture
def chats(db: Database) -> Chats:
    return Chats(db)


@pytest.fixture
def store(db: Database, clock: FakeClock) -> NotificationStore:
    return NotificationStore(db, clock=clock, max_attempts=5, ttl=4 * 3600)


async def claimed_keys(store: NotificationStore) -> list[str]:
    return [row.dedupe_key for row in await store.claim(50)]


async def test_an_alert_at_night_is_held_until_the_morning_across_midnight(
    chats: Chats, store: NotificationStore, clock: FakeClock
) -> None:
    """22-7: alerts at 23:10 and 02:40 wait; at 07:00 both are due, in the order queued; a
    chat without quiet hours gets its alert at once."""
    await chats.set_quiet(CHAT, "22-7", now=clock())
    await store.enqueue_many([alert("a"), alert("x", chat_id=OTHER)], quiet=chats.quiet)
    assert await claimed_keys(store) == ["x"]
    clock.now = at("2026-01-15 02:40")
    await store.enqueue(alert("b"), quiet=chats.quiet)
    clock.now = at("2026-01-15 06:59")
    assert await claimed_keys(store) == []
    [a, b] = await store.db.fetchall(
        "SELECT next_attempt_at, queued_at FROM notifications WHERE chat_id = ? ORDER BY id",
        (CHAT,),
    )
    assert a["queued_at"] == b["queued_at"] == at("2026-01-15 07:00")
    assert a["next_attempt_at"] == at("2026-01-15 07:00") < b["next_attempt_at"]
    clock.now = b["next_attempt_at"]
    assert await claimed_keys(store) == ["a", "b"]


async def test_the_night_of_the_dst_change_ends_at_seven_on_the_wall(
    chats: Chats, store: NotificationStore, clock: FakeClock
) -> None:
    """On 29 March 2026 the clocks jump from 02:00 to 03:00: quiet until 07:00 is 07:00
    summer time (05:00 UTC), neither an hour early nor late."""
    clock.now = at("2026-03-28 23:10")
    await chats.set_quiet(CHAT, "22-7", now=clock())
    await store.enqueue(alert("a"), quiet=chats.quiet)
    clock.now = at("2026-03-29 06:59")
    assert await claimed_keys(store) == []
    clock.now = datetime.fromisoformat("2026-03-29 05:00+00:00").timestamp()
    assert await claimed_keys(store) == ["a"]


async def test_a_held_alert_does_not_expire_because_the_night_was_long(
    chats: Chats, store: NotificationStore, clock: FakeClock
) -> None:
    """The TTL (4 h here) counts from the release: held 8 h, the row is still sent at 07:30,
    and expires only 4 h after 07:00."""
    await chats.set_quiet(CHAT, "22-7", now=clock())
    await store.enqueue(alert("a"), quiet=chats.quiet)
    clock.now = at("2026-01-15 07:30")
    assert await store.reap() == []
    assert await store.mark_sent(await store.start(await store.claim(1))) == 1

    await store.enqueue(alert("late"), quiet=chats.quiet)  # 07:30: outside the window, not held
    clock.now = at("2026-01-15 12:00")
    assert [row.dedupe_key for row in await store.reap()] == ["late"]


async def test_a_restart_during_the_night_releases_nothing_early(
    tmp_path: Path, clock: FakeClock
) -> None:
    """The hold is the row's due time, in the file: a process started at 03:00 claims
    nothing, and the same row at 07:00."""
    path = tmp_path / "habicht.sqlite3"
    async with Database(path) as db:
        chats = Chats(db)
        await chats.set_quiet(CHAT, "22-7", now=clock())
        store = NotificationStore(db, clock=clock, max_attempts=5, ttl=3600)
        await store.enqueue(alert("a"), quiet=chats.quiet)
    clock.now = at("2026-01-15 03:00")
    async with Database(path) as db:
        store = NotificationStore(db, clock=clock, max_attempts=5, ttl=3600)
        await store.take_over_leases()
        assert await claimed_keys(store) == []
        clock.now = at("2026-01-15 07:00")
        assert await claimed_keys(store) == ["a"]


async def test_the_same_alert_detected_again_while_held_is_not_queued_twice(
    chats: Chats, store: NotificationStore, clock: FakeClock
) -> None:
    await chats.set_quiet(CHAT, "22-7", now=clock())
    assert await store.enqueue(alert("a"), quiet=chats.quiet)
    clock.now = at("2026-01-15 02:40")
    assert not await store.enqueue(alert("a"), quiet=chats.quiet)
    assert await store.db.single_value("SELECT count(*) FROM notifications") == 1


async def test_answers_and_owner_messages_are_never_held(
    chats: Chats, store: NotificationStore, clock: FakeClock
) -> None:
    await chats.set_quiet(CHAT, "22-7", now=clock())
    await store.enqueue_many([alert("i", kind="info"), alert("o", kind="admin")], quiet=chats.quiet)
    rows = await store.db.fetchall("SELECT queued_at FROM notifications")
    assert [row["queued_at"] for row in rows] == [clock(), clock()]


async def test_silent_quiet_hours_queue_at_once_marked_silent(
    chats: Chats, store: NotificationStore, clock: FakeClock
) -> None:
    """`silent`: due now, with `silent` set; outside the window the flag is off."""
    await chats.set_quiet(CHAT, "22-7 silent", now=clock())
    await store.enqueue(alert("night"), quiet=chats.quiet)
    [night] = await store.claim(1)
    assert (night.dedupe_key, bool(night.disable_notification)) == ("night", True)
    clock.now = at("2026-01-15 09:00")
    await store.enqueue(alert("day"), quiet=chats.quiet)
    [day] = await store.claim(1)
    assert (day.dedupe_key, bool(day.disable_notification)) == ("day", False)


async def test_quiet_off_releases_what_is_held_and_a_new_window_re_times_it(
    chats: Chats, store: NotificationStore, clock: FakeClock
) -> None:
    """A later window holds the alerts until its end, keeping their order; off releases
    them now; rows of other chats and rows not held are left alone."""
    await chats.set_quiet(CHAT, "22-7", now=clock())
    await store.enqueue_many([alert("a"), alert("b")], quiet=chats.quiet)
    assert await chats.set_quiet(CHAT, "22-9", now=clock()) == 2
    clock.now = at("2026-01-15 08:00")
    assert await claimed_keys(store) == []
    assert await chats.set_quiet(CHAT, None, now=clock()) == 2
    assert await claimed_keys(store) == ["a"]
    clock.advance(5)
    assert await claimed_keys(store) == ["b"]
    assert await chats.set_quiet(CHAT, "22-7", now=clock()) == 0


async def test_held_rows_are_shown_apart_from_pending_ones(
    chats: Chats, store: NotificationStore, clock: FakeClock
) -> None:
    await chats.set_quiet(CHAT, "22-7", now=clock())
    await store.enqueue_many(
        [alert(f"h{i}") for i in range(12)] + [alert("p", chat_id=OTHER)], quiet=chats.quiet
    )
    stats = await store.stats()
    assert stats.pending == 13
    assert stats.held == {at("2026-01-15 07:00"): 12}
    text = describe_stats(stats, now=clock())
    assert "pending       1" in text
    assert "held until 07:00: 12" in text


async def test_a_stored_zone_other_than_vienna_sets_the_window(
    chats: Chats, store: NotificationStore, clock: FakeClock
) -> None:
    """A chat whose `quiet_zone` is America/New_York: 22-7 there is 04:00-13:00 in Vienna
    (January). At 23:10 in Vienna (17:10 in New York) its alert goes at once; one queued at
    05:00 in Vienna (23:00 there) waits until 13:00 in Vienna, 07:00 in New York."""
    await chats.set_quiet(CHAT, "22-7", now=clock(), zone="America/New_York")
    await store.enqueue(alert("a"), quiet=chats.quiet)
    assert await claimed_keys(store) == ["a"]
    clock.now = at("2026-01-15 05:00")
    await store.enqueue(alert("b"), quiet=chats.quiet)
    row = await store.db.fetchone(
        "SELECT next_attempt_at FROM notifications WHERE dedupe_key = 'b'"
    )
    assert row is not None
    assert row["next_attempt_at"] == at("2026-01-15 13:00")
