"""The restore drill (issue 35), end to end: the real `habicht run` replicating to a folder
under steady traffic, the bot and its Litestream killed with `kill -9` at a random moment (the
disk "dies"), `habicht restore` into a new place, and a start on the restored file."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import threading
import time
from contextlib import closing
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from kit.e2e import ADMIN, DEADLINE, HABICHT, SEARCH, Alert, World, gpu

ANNA, BERT = 101, 102
LOSS = 1.0
"""Seconds of commits the drill may lose: Litestream syncs every second."""
VIENNA = ZoneInfo("Europe/Vienna")
SLACK = 1.0
"""Room for a busy machine on top of it: Litestream's tick and the copy to the folder."""


def committed(path: Path, *, before: float) -> dict[Alert, float | None]:
    """The alerts the dead disk's file held that were committed before `before`, each with
    when it was sent (None: not yet)."""
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute(
            "SELECT chat_id, kind, ad_id, sent_at FROM notifications"
            " WHERE kind IN ('new', 'drop') AND created_at < ?",
            (before,),
        ).fetchall()
    return {Alert(chat, kind, ad): sent for chat, kind, ad, sent in rows}


def litestream_of(pid: int) -> int:
    """The Litestream child of habicht's process."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    [child] = [int(c) for c in children if "litestream" in Path(f"/proc/{c}/cmdline").read_text()]
    return child


def test_a_restore_after_kill_9_loses_at_most_a_second(world: World) -> None:
    """Every alert committed more than a second before the kill is delivered after the
    restore (sent before, or pending and sent now); what repeats was sent in that last
    second; the watches and a chat's settings are there; the owner is told, once."""
    world.overrides["HABICHT_REPLICA"] = str(world.workdir / "replica")
    world.site.set_listings(SEARCH, [gpu(1, 300)])
    world.start()
    world.telegram.push_message(ADMIN, ADMIN, "/start")
    world.subscribe(ANNA, BERT)
    start = (datetime.now(VIENNA).hour + 3) % 24  # a window that holds none of the drill's alerts
    world.telegram.push_message(BERT, BERT, f"/quiet {start}-{(start + 1) % 24}")
    world.wait_for(
        lambda: any(text.startswith("🌙 Ruhezeiten") for text in world.messages(BERT)),
        "/quiet's answer",
    )

    stop = threading.Event()

    def traffic() -> None:  # a new advert every 0.2 s until the kill
        number = 2
        while not stop.wait(0.2):
            world.site.add(SEARCH, gpu(number, 100 + number))
            number += 1

    feeder = threading.Thread(target=traffic, daemon=True)
    feeder.start()
    world.wait_for(lambda: len(world.alerts(ANNA)) >= 5, "steady alerts")
    # The random moment of the disk's death, late enough that the first alerts are older than
    # the second the drill may lose.
    time.sleep(random.uniform(LOSS + SLACK + 0.5, 5.0))
    assert world.process is not None
    os.kill(litestream_of(world.process.pid), signal.SIGKILL)
    world.kill()
    killed = time.time()
    stop.set()
    feeder.join()

    truth = committed(world.db_path, before=killed - LOSS - SLACK)
    assert truth, "the drill had traffic before the kill"
    restored = world.workdir / "restored" / "habicht.sqlite3"
    restored.parent.mkdir()
    result = subprocess.run(
        [str(HABICHT), "restore"],
        cwd=world.workdir,
        env={**world.env(), "HABICHT_DB": str(restored)},
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"restored {restored} from file://")

    before = world.alerts().copy()
    world.overrides["HABICHT_DB"] = str(restored)
    world.start()
    world.wait_for(
        lambda: all(world.alerts()[alert] >= 1 for alert in truth), "every alert delivered"
    )
    world.wait_for(
        lambda: any(text.startswith("♻️") for text in world.messages(ADMIN)), "the owner told"
    )
    repeated = {alert for alert, count in world.alerts().items() if count > before[alert] > 0}
    late = {alert for alert in repeated if (truth.get(alert) or killed) >= killed - LOSS - SLACK}
    assert repeated == late, "only what was sent in the last second repeats"
    with closing(sqlite3.connect(restored)) as conn:
        watches = conn.execute("SELECT chat_id FROM watches ORDER BY chat_id").fetchall()
        quiet = conn.execute("SELECT quiet_from FROM chats WHERE chat_id = ?", (BERT,)).fetchall()
    assert watches == [(ANNA,), (BERT,)]
    assert quiet == [(f"{start:02d}:00",)]
    assert sum(text.startswith("♻️") for text in world.messages(ADMIN)) == 1
