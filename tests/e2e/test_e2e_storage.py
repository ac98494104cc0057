"""Storage faults, end to end (issue 27): the database's disk full, and its write lock held by
another program, while alerts go out. Every alert arrives once, the owner is told once when
the fault starts and once when it ends, in words, and `habicht health` names it."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from kit.e2e import ADMIN, SEARCH, Alert, World, gpu

CHAT = 501
FIRST = range(2, 8)  # six alerts at 1.1 s apart: a fault lands while they go out
LATER = range(8, 10)  # listed while the fault lasts: found once it is over


def _under_way(world: World) -> set[Alert]:
    """One subscriber, slow answers, six new adverts: wait until an alert is in flight.
    The alerts to expect in the end, those listed during the fault included."""
    world.overrides["HABICHT_DIGEST_AFTER"] = "1000"  # one message per alert
    world.site.set_listings(SEARCH, [gpu(1, 300)])
    world.start()
    world.subscribe(CHAT)
    world.telegram.delay = 0.4  # each send is in flight a while
    world.site.add(SEARCH, *(gpu(n, 100 + n) for n in FIRST))
    world.wait_for(
        lambda: len(world.alerts()) >= 1 and _sending(world), "the second alert in flight"
    )
    return {Alert(CHAT, "new", str(770_000 + n)) for n in (*FIRST, *LATER)}


def _sending(world: World) -> bool:
    return bool(world.telegram.in_progress["sendMessage"] + world.telegram.in_progress["sendPhoto"])


def _fill_up(filler: Path) -> None:
    """Write `filler` until its disk has no block left: raises "No space left on device"."""
    with filler.open("wb", buffering=0) as out:
        while out.write(bytes(1 << 16)):
            pass


def _told(world: World, *words: str) -> Callable[[], list[str]]:
    """The owner's messages about the database that hold all of `words`."""
    path = str(world.db_path)
    return lambda: [
        text for text in world.messages(ADMIN) if path in text and all(w in text for w in words)
    ]


def _while_it_lasts(world: World, kind: str, told: Callable[[], list[str]]) -> None:
    """The owner is told; health names the fault; adverts listed now wait for its end; the
    send that was in flight when it began is answered (its outcome held in memory)."""
    world.wait_for(lambda: bool(told()), f"the owner told of the {kind} database")
    _, report = world.health()
    fault = report["storage_fault"]
    assert (fault["kind"], fault["path"]) == (kind, str(world.db_path)), report
    assert report["reason"].startswith(fault["message"])
    world.site.add(SEARCH, *(gpu(n, 100 + n) for n in LATER))
    world.wait_for(lambda: not _sending(world), "the send in flight answered")


def _all_once_and_told_twice(world: World, expected: set[Alert], told: list[str]) -> None:
    world.wait_for(lambda: set(world.alerts()) == expected, "every alert after the fault")
    back = _told(world, "wieder Daten an")
    world.wait_for(lambda: bool(back()), "the owner told the fault is over")
    world.wait_for(lambda: set(world.outbox().values()) == {"sent"}, "the outbox settled")
    assert world.alerts() == dict.fromkeys(expected, 1)
    assert len(told) == 1
    assert len(back()) == 1
    _, report = world.health()
    assert report["storage_fault"] is None
    log = world.log_path.read_text(encoding="utf-8")
    assert log.count("accepts writes again") == 1


def test_a_full_disk_holds_the_alerts_and_repeats_none(world: World) -> None:
    """The disk of the database fills up to its last block while alerts go out: one log
    line, the owner told in words, health names it, nothing more is sent; when space is
    freed, every alert arrives exactly once — the one whose send was in flight too, whose
    record the full disk had refused — and the owner is told once more."""
    world.on_own_tmpfs("8m")
    expected = _under_way(world)
    # A full disk refuses only the writes that need a new block: here every commit, since a
    # run this short never checkpoints its WAL (1000 pages), which only grows.
    data = world.inside(world.db_path.parent)
    with pytest.raises(OSError, match="No space left on device"):
        _fill_up(data / "filler")
    told = _told(world, "voll")
    _while_it_lasts(world, "full", told)

    (data / "filler").unlink()
    _all_once_and_told_twice(world, expected, told())
    log = world.log_path.read_text(encoding="utf-8")
    assert log.count("the database disk is full") == 1


def test_a_held_lock_holds_the_alerts_and_repeats_none(world: World) -> None:
    """Another program (an `sqlite3` shell, a backup tool) holds the write lock while alerts
    go out: the owner is told in words, not with a bare error, health names it; when the
    lock is released, every alert arrives exactly once and the owner is told once more."""
    expected = _under_way(world)
    holder = sqlite3.connect(world.db_path, timeout=10, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        told = _told(world, "gesperrt")
        _while_it_lasts(world, "locked", told)
    finally:
        holder.rollback()
        holder.close()
    _all_once_and_told_twice(world, expected, told())
    log = world.log_path.read_text(encoding="utf-8")
    assert log.count("the database is locked by another program") == 1
