"""Crash safety, end to end: `kill -9` mid-batch and SIGTERM, each followed by a restart."""

from __future__ import annotations

from decimal import Decimal

from kit.e2e import SEARCH, Alert, World, alerts_of, gpu, is_digest

from habicht.fakes import FakeAdvert

CHATS = tuple(range(201, 207))
NEW_ADS = tuple(range(2, 8))  # 6 alerts per chat: ≥ 5 s at one message per second


def _requests_answered(world: World) -> None:
    """Wait until Telegram has answered every send (alerts with a picture go by sendPhoto)."""
    sending = world.telegram.in_progress
    world.telegram.wait_until(
        lambda: not (sending["sendMessage"] or sending["sendPhoto"]), timeout=30
    )


def _deliveries_under_way(world: World) -> set[Alert]:
    """Subscribe every chat, make Telegram slow, list new adverts; the alerts to expect."""
    world.site.set_listings(SEARCH, [gpu(1, 300)])
    world.start()
    world.subscribe(*CHATS)
    world.telegram.delay = 0.3  # every answer takes a while: batches stay in flight longer
    world.site.add(SEARCH, *(gpu(n, 100 + n) for n in NEW_ADS))
    expected = {Alert(chat, "new", str(770_000 + n)) for chat in CHATS for n in NEW_ADS}
    world.wait_for(lambda: len(world.alerts()) >= 3, "the first alerts of the batch")
    return expected


def test_kill_9_mid_batch_loses_nothing_and_repeats_only_in_flight(world: World) -> None:
    """After kill -9 mid-delivery and a restart every detected alert arrives; only the sends
    in flight at the kill (delivered, but their answer cut off) arrive twice."""
    expected = _deliveries_under_way(world)
    world.kill()
    at_kill = world.outbox()
    in_flight = {alert for alert, status in at_kill.items() if status == "sending"}
    sent = {alert for alert, status in at_kill.items() if status == "sent"}
    assert set(at_kill) == expected, "every alert was detected before the kill"
    assert in_flight, "the kill landed while a batch was being delivered"
    assert len(world.alerts()) < len(expected), "the kill landed before the end"

    # Requests that reached Telegram before the kill are delivered, answered or not.
    _requests_answered(world)
    unconfirmed = set(world.alerts()) - sent
    assert unconfirmed <= in_flight

    world.start()
    world.wait_for(lambda: set(world.alerts()) == expected, "every alert after the restart")
    world.wait_for(lambda: set(world.outbox().values()) == {"sent"}, "the outbox settled")

    repeated = {alert for alert, count in world.alerts().items() if count > 1}
    assert repeated == unconfirmed, "exactly the sends whose answer the kill cut off repeat"
    assert max(world.alerts().values()) == 2
    assert sum(world.alerts().values()) == len(expected) + len(unconfirmed)


def test_sigterm_exits_0_within_10_s_and_loses_nothing(world: World) -> None:
    """SIGTERM mid-delivery exits 0 within 10 s, leaves nothing leased, and after a restart
    every alert arrives exactly once."""
    expected = _deliveries_under_way(world)
    assert world.terminate(within=10) == 0
    at_stop = world.outbox()
    assert set(at_stop) == expected
    assert "sending" not in at_stop.values(), "unused leases were given back"

    world.start()
    world.wait_for(lambda: set(world.alerts()) == expected, "every alert after the restart")
    world.wait_for(lambda: set(world.outbox().values()) == {"sent"}, "the outbox settled")
    assert world.alerts() == dict.fromkeys(expected, 1)


def test_a_crash_loop_never_kills_an_unsent_alert(world: World) -> None:
    """Issue 15: a backlog of 20 alerts for one chat, 7 `kill -9` in a row while it drains
    (more than HABICHT_MAX_ATTEMPTS), each followed by a restart, then a clean run: every
    alert arrives, none is dead, and no more arrive twice than were in flight at the kills."""
    chat = 301
    world.overrides["HABICHT_DIGEST_AFTER"] = "1000"  # a backlog of single messages
    world.site.set_listings(SEARCH, [gpu(1, 300)])
    world.start()
    world.subscribe(chat)
    world.telegram.delay = 0.3  # answers take a while: a kill often cuts one off
    world.site.add(SEARCH, *(gpu(n, 100 + n) for n in range(2, 22)))
    expected = {Alert(chat, "new", str(770_000 + n)) for n in range(2, 22)}
    in_flight_at_kills = 0
    for kill in range(1, 8):
        seen = len(world.alerts())
        world.wait_for(
            lambda seen=seen: len(world.alerts()) > seen, f"a new alert before kill {kill}"
        )
        world.kill()
        # Requests that reached Telegram before the kill are delivered, answered or not.
        _requests_answered(world)
        sent = {alert for alert, status in world.outbox().items() if status == "sent"}
        in_flight_at_kills += len(set(world.alerts()) - sent)
        assert "dead" not in world.outbox().values(), f"an alert died at kill {kill}"
        world.start()
    assert len(world.alerts()) < len(expected), "the kills landed while the backlog drained"

    world.wait_for(lambda: set(world.alerts()) == expected, "every alert after the crash loop")
    world.wait_for(lambda: set(world.outbox().values()) == {"sent"}, "the outbox settled")
    duplicates = sum(world.alerts().values()) - len(expected)
    assert duplicates <= in_flight_at_kills
    assert max(world.alerts().values()) <= 2


def test_a_kill_during_a_digest_repeats_only_that_digest(world: World) -> None:
    """Issue 14: 28 alerts at once for one chat go out as digests of about 13 (long titles);
    `kill -9` while the second digest is in flight, then a restart: every alert arrives, the
    alerts of the first digest once, those of the digest cut off at most twice, the others
    once — the only repeat is that digest's message."""
    chat = 401
    world.site.set_listings(SEARCH, [gpu(1, 300)])
    world.start()
    world.subscribe(chat)
    world.telegram.delay = 0.5  # a digest's send takes a while: the kill lands inside one
    long = "Grafikkarte mit sehr langer Beschreibung " * 3
    world.site.add(
        SEARCH,
        *(FakeAdvert(str(770_000 + n), f"{long}{n}", price=Decimal(100 + n)) for n in range(2, 30)),
    )
    expected = {Alert(chat, "new", str(770_000 + n)) for n in range(2, 30)}

    def digests() -> list[list[Alert]]:
        return [alerts_of(m) for m in world.telegram.messages(chat) if is_digest(m)]

    world.wait_for(
        lambda: len(digests()) == 1 and world.telegram.in_progress["sendMessage"] > 0,
        "the second digest in flight",
    )
    world.kill()
    world.telegram.wait_until(lambda: not world.telegram.in_progress["sendMessage"], timeout=30)
    first, cut_off = digests()[0], digests()[1:]
    assert len(first) > 5
    # Started: the rows of the digest cut off (the later digest's rows were only claimed).
    started = "SELECT ad_id FROM notifications WHERE status = 'sending' AND started_at IS NOT NULL"
    in_flight = {Alert(chat, "new", ad_id) for (ad_id,) in world.query(started)}
    assert in_flight, "the kill landed while a digest was being sent"
    assert not in_flight & set(first)
    assert len(world.alerts()) < len(expected), "the kill landed before the end"

    world.start()
    world.wait_for(lambda: set(world.alerts()) == expected, "every alert after the restart")
    world.wait_for(lambda: set(world.outbox().values()) == {"sent"}, "the outbox settled")
    counts = world.alerts()
    assert all(counts[a] == 1 for a in first)
    assert {a for a, n in counts.items() if n > 1} <= in_flight
    assert max(counts.values()) <= 2
    assert [set(d) for d in cut_off] in ([], [in_flight]), "at most the digest cut off arrived"
