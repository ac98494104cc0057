"""Subscribers and faults, end to end: the real `habicht run` against the fakes."""

from __future__ import annotations

from decimal import Decimal

from kit.e2e import SEARCH, Alert, World, gpu

from habicht.fakes.telegram import Fault

ANNA, BERT, CARL = 101, 102, 103


def _cycles_pass(world: World, cycles: int = 2) -> None:
    """Wait until habicht fetched the search `cycles` more times (and so had every chance)."""
    seen = world.site.hits[SEARCH]
    world.wait_for(lambda: world.site.hits[SEARCH] >= seen + cycles, f"{cycles} more scrapes")


def test_baseline_is_silent_and_each_alert_arrives_exactly_once(world: World) -> None:
    """After /start and /watch, old listings stay silent; a new one and a drop arrive once."""
    world.site.set_listings(SEARCH, [gpu(1, 300), gpu(2, 250), gpu(3, 400)])
    world.start()
    world.subscribe(ANNA, BERT)
    _cycles_pass(world)
    assert world.alerts() == {}

    world.site.add(SEARCH, gpu(4, 199))
    world.site.set_price("770002", Decimal(180))
    expected = {
        Alert(chat, kind, ad)
        for chat in (ANNA, BERT)
        for kind, ad in (("new", "770004"), ("drop", "770002"))
    }
    world.wait_for(lambda: set(world.alerts()) == expected, "the new listing and the drop")
    _cycles_pass(world)
    world.wait_for(lambda: world.outbox() and set(world.outbox().values()) == {"sent"}, "settled")
    assert world.alerts() == dict.fromkeys(expected, 1)
    assert set(world.outbox()) == expected


def test_5xx_and_429_are_survived_and_a_blocked_chat_dies_once(world: World) -> None:
    """Alerts get through 5xx and 429; a chat that blocked the bot gets one try, then none."""
    world.site.set_listings(SEARCH, [gpu(1, 300)])
    world.start()
    world.subscribe(ANNA, BERT, CARL)
    world.telegram.fail_next(ANNA, Fault.server_error(), Fault.server_error(502))
    world.telegram.fail_next(BERT, Fault.flood(1))
    world.telegram.block(CARL)
    attempts_before = world.telegram.attempts.copy()

    world.site.add(SEARCH, gpu(2, 150))
    new = {chat: Alert(chat, "new", "770002") for chat in (ANNA, BERT, CARL)}
    world.wait_for(
        lambda: world.alerts()[new[ANNA]] and world.alerts()[new[BERT]], "the alerts via faults"
    )
    world.wait_for(lambda: world.outbox().get(new[CARL]) == "dead", "the blocked chat's alert dead")
    assert world.telegram.attempts[ANNA] - attempts_before[ANNA] == 3
    assert world.telegram.attempts[BERT] - attempts_before[BERT] == 2
    assert world.telegram.attempts[CARL] - attempts_before[CARL] == 1
    [(reason,)] = world.query(
        "SELECT dead_reason FROM notifications WHERE chat_id = ? AND kind = 'new'", (CARL,)
    )
    assert reason

    world.site.add(SEARCH, gpu(3, 120))
    world.wait_for(lambda: world.alerts()[Alert(ANNA, "new", "770003")] == 1, "the next alert")
    _cycles_pass(world)
    assert world.telegram.attempts[CARL] - attempts_before[CARL] == 1
    assert Alert(CARL, "new", "770003") not in world.outbox()
    assert world.alerts() == {
        Alert(chat, "new", ad): 1 for chat in (ANNA, BERT) for ad in ("770002", "770003")
    }


def test_a_lost_answer_is_retried_so_the_alert_may_arrive_twice(world: World) -> None:
    """A send whose answer outlasts the bot's read timeout was delivered anyway: it is retried
    and arrives a second time — at-least-once, as documented — and then the row is sent."""
    world.site.set_listings(SEARCH, [gpu(1, 300)])
    world.start()
    world.subscribe(ANNA)
    world.telegram.fail_next(ANNA, Fault.slow(7))  # the bot gives up after 5 s
    world.site.add(SEARCH, gpu(2, 150))
    alert = Alert(ANNA, "new", "770002")
    world.wait_for(lambda: world.outbox().get(alert) == "sent", "the retried alert settled")
    assert world.alerts() == {alert: 2}
    [(attempts,)] = world.query(
        "SELECT attempts FROM notifications WHERE chat_id = ? AND kind = 'new'", (ANNA,)
    )
    assert attempts == 2
