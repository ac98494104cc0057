"""What the live replica (issue 35) loses, lags and costs: the real Litestream binary
(`habicht.replica.Replicator`) replicating a real habicht database to a folder.

1. **Writes lost in a drill**: a writer commits a dated row every `--every` seconds; at a
   random moment Litestream is killed with `kill -9` (the disk "dies" with it) and the writer
   stops; `habicht.restore` brings the replica back; lost = the kill's time less the newest
   commit the restored file holds. Goal: at most one second (Litestream syncs every second).
   Baseline in the same run: the gap between two commits, what even a perfect replica of
   this writer could lose.
2. **Lag under load**: the write load of `benchmarks/scale.py` at 2,000 searches — a scan's
   transaction every fetch gap (2 s), each rewriting about 85 pages (≈ 350 KB of WAL) — for
   `--seconds`; the replica's age (`habicht.replica.last_written`, whole seconds) sampled
   after every commit: its median and worst.
3. **Cost**: Litestream's CPU seconds (from /proc) against the writer's own in the same
   run, and the replica folder's bytes, both scaled to a day.

    python benchmarks/replica.py [--quick] [--drills N] [--seconds S]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import statistics
import tempfile
import time
from pathlib import Path

from habicht.config import Settings
from habicht.db import Database
from habicht.replica import Replicator, last_written
from habicht.restore import restore

PAGE = 4096
SCAN_PAGES = 85
"""Pages one scan's transaction rewrites at 2,000 searches (benchmarks/scale.py)."""


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process `pid` so far (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


async def commit_row(db: Database, chat_id: int, blob: bytes = b"") -> None:
    """One commit: a chat dated now (its `created_at` is when it was committed)."""
    async with db.transaction() as conn:
        now = time.time()
        await conn.execute(
            "INSERT INTO chats (chat_id, created_at, updated_at, quiet_zone) VALUES (?, ?, ?, ?)",
            (chat_id, now, now, blob.hex() or None),
        )


def dead_disk(db_path: Path) -> None:
    """The disk died: the database and its WAL are gone."""
    for side in ("", "-wal", "-shm"):
        Path(f"{db_path}{side}").unlink(missing_ok=True)


async def drill(folder: Path, *, every: float, rand: random.Random) -> tuple[float, float]:
    """One drill: (seconds of commits lost, the writer's own gap between commits)."""
    db_path, replica = folder / "habicht.sqlite3", f"file://{folder / 'replica'}"
    async with Database(db_path) as db:
        replicator = await Replicator(db_path, replica).__aenter__()
        deadline = time.monotonic() + rand.uniform(3.0, 6.0)
        chat = 0
        while time.monotonic() < deadline:
            chat += 1
            await commit_row(db, chat)
            await asyncio.sleep(every)
        pid = replicator.pid
        assert pid is not None, "Litestream died on its own"
        os.kill(pid, signal.SIGKILL)
        killed = time.time()
        await replicator.__aexit__(None, None, None)
    await asyncio.to_thread(dead_disk, db_path)
    await restore(Settings(db=db_path, replica=replica))
    async with Database(db_path) as restored:
        newest = await restored.single_value("SELECT max(created_at) FROM chats")
    return killed - float(newest), every


async def lag_and_cost(folder: Path, *, seconds: float, gap: float) -> dict[str, float]:
    """Scan-sized commits every `gap` seconds for `seconds`: the replica's age after each,
    Litestream's CPU and the writer's, and the replica's bytes."""
    db_path, replica = folder / "load.sqlite3", f"file://{folder / 'load-replica'}"
    blob = os.urandom(SCAN_PAGES * PAGE // 2)  # hex doubles it: ≈ 85 pages a commit
    ages: list[float] = []
    async with Database(db_path) as db, Replicator(db_path, replica) as replicator:
        pid = replicator.pid
        assert pid is not None
        cpu_before, own_before = cpu_seconds(pid), time.process_time()
        started = time.monotonic()
        chat = 0
        while time.monotonic() - started < seconds:
            chat += 1
            await commit_row(db, chat, blob)
            await asyncio.sleep(gap)
            written = await last_written(replica)
            if written is not None:
                ages.append(max(0.0, time.time() - written))
        elapsed = time.monotonic() - started
        cpu = cpu_seconds(pid) - cpu_before
        own = time.process_time() - own_before
    day = 86400.0 / elapsed
    return {
        "lag_p50": statistics.median(ages) if ages else float("nan"),
        "lag_max": max(ages, default=float("nan")),
        "cpu_day": cpu * day,
        "own_day": own * day,
        "bytes_day": folder_bytes(folder / "load-replica") * day,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one drill, ten seconds of load")
    parser.add_argument("--drills", type=int, default=5, help="drills (default 5)")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of load (60)")
    parser.add_argument("--every", type=float, default=0.05, help="the drill's commit gap")
    parser.add_argument("--seed", type=int, default=35)
    args = parser.parse_args()
    drills, seconds = (1, 10.0) if args.quick else (args.drills, args.seconds)
    rand = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        lost = []
        for n in range(drills):
            folder = Path(tmp) / f"drill-{n}"
            folder.mkdir()
            lost.append(await drill(folder, every=args.every, rand=rand))
        load = await lag_and_cost(Path(tmp), seconds=seconds, gap=2.0)
    worst = max(seconds_lost for seconds_lost, _ in lost)
    print(f"drills: {drills}; commits lost at a kill -9 of the replicator (goal ≤ 1 s):")
    print(f"  worst {worst:.2f} s, median {statistics.median(s for s, _ in lost):.2f} s")
    print(
        f"  baseline (the writer's own gap between commits): {args.every:.2f} s;"
        f" ratio {worst / args.every:.1f}"
    )
    print(f"lag under scale.py's write load ({seconds:g} s, a scan's commit every 2 s):")
    print(
        f"  median {load['lag_p50']:.1f} s, worst {load['lag_max']:.1f} s"
        " (whole seconds: the replica's timestamps)"
    )
    print("cost a day at that load:")
    print(
        f"  Litestream CPU {load['cpu_day'] / 60:.1f} min"
        f" (the writer's own: {load['own_day'] / 60:.1f} min;"
        f" ratio {load['cpu_day'] / max(load['own_day'], 1e-9):.2f})"
    )
    print(
        f"  replica folder {load['bytes_day'] / 1e6:.0f} MB written"
        " (before Litestream's compaction and retention thin it)"
    )


if __name__ == "__main__":
    asyncio.run(main())
