"""Liveness of the scheduler and the drain, recorded in the database, and the verdict of
`habicht health`.

The bot's jobs record each run of `scrape` (a scheduler pass, at least every tick) and
`drain` in `heartbeats` (`heartbeat()` does both ends). `habicht health` — the container's
HEALTHCHECK — runs in a separate process, so the database is the only place it can read
liveness from.

Verdict (keep in sync with docs/operating.md): healthy when the database opens at the
current schema and each job's latest heartbeat — its last finish, or while it is running its
start or latest recorded progress — is at most 3 * its interval old
(`HABICHT_SCRAPE_INTERVAL`, `HABICHT_QUEUE_INTERVAL`). A running job records progress (a
scrape after each search, a drain as it sends) at most every `PROGRESS_EVERY` seconds, so a
long run that is getting somewhere is not taken for a stalled one. A cycle that ended with an
error still counts as alive (`ok` is reported); failing searches, the queue and the
pipeline's figures (`scraper.figures`) — freshness (how long the active searches have waited
since their last scan: the stalest and the 95th percentile), the feeds together and each on
its own, with the plain searches, and the last hour's alert freshness — are reported but
never make the verdict, because a blocked willhaben or a backlog is not something a restart
cures. A scheduler that stalls — a pass that neither scans a search nor ends, or no pass at
all — is: its heartbeat grows old.

Reads only: it opens the database read-only (it never creates, converts or migrates a file,
nor rewrites a byte of it: another application's file is reported, not touched) and needs
nothing from Telegram. It reports when habicht created the file (`database.created_at`): a
date after the last deployment where watches were expected means the data volume is not
mounted.

Nor does a restart cure a storage fault (the database refusing writes: its disk full, its lock
held; `habicht.storage`). The running bot publishes the one it waits out beside the database,
and the report names it (`storage_fault`, and first in the reason); no heartbeat can be
written meanwhile, so one that lasts ages them past the limit.

The live replica (HABICHT_REPLICA, `habicht.replica`) is part of the verdict: when Litestream
last wrote to it is read from the replica itself, and a replica that holds nothing or was last
written more than HABICHT_REPLICA_LAG seconds ago is unhealthy — the bot writes its heartbeat
every pass, so a replica that keeps up is seconds old, and one that does not is a dead disk
away from losing what the owner was promised.

Wiring (in the bot): wrap every run of the scrape cycle and of a drain in
``async with heartbeat(db, "scrape" | "drain", clock=clock, watchdog=watchdog) as beat:``,
call ``beat.progress()`` whenever the run gets somewhere, and let
`habicht run` keep a `habicht.watchdog.Watchdog(stall_thresholds(settings))` started while
it serves (stopped before a graceful shutdown).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from habicht.clock import Clock
from habicht.config import Settings
from habicht.db import Database, DatabaseError, latest_version
from habicht.queue.figures import waiting
from habicht.replica import ReplicaError, last_written, shown
from habicht.scraper.figures import (
    Freshness,
    Latency,
    Workload,
    failing_searches,
    freshness,
    latency,
    workload,
)
from habicht.scraper.schedule import FeedCadence
from habicht.storage import StorageFault, read_fault
from habicht.watchdog import Watchdog
from habicht.watches.follow import Following
from habicht.watches.follow_figures import FollowFigures, follow_figures

__all__ = [
    "PROGRESS_EVERY",
    "STALE_AFTER_INTERVALS",
    "Beat",
    "DatabaseFile",
    "HealthReport",
    "Job",
    "JobBeat",
    "ReplicaState",
    "check_health",
    "feed_cadence",
    "following",
    "heartbeat",
    "probe",
    "record_finish",
    "record_progress",
    "record_start",
    "replica_state",
    "stale_after",
]

log = logging.getLogger(__name__)

Job = Literal["scrape", "drain"]
JOBS: tuple[Job, ...] = ("scrape", "drain")
STALE_AFTER_INTERVALS = 3
PROGRESS_EVERY = 5.0
"""Least seconds between two progress records of one run: a drain sends ~30 messages/s and
must not write a heartbeat for each."""


def following(settings: Settings) -> Following:
    """How sent alerts follow their adverts (HABICHT_FOLLOW_DAYS; 0: they do not)."""
    return Following(
        days=settings.follow_days,
        interval=settings.scrape_interval,
        max_attempts=settings.max_attempts,
    )


def feed_cadence(settings: Settings) -> FeedCadence | None:
    """The feeds' cadence, or None when HABICHT_FEED_INTERVAL is 0 (every search polled)."""
    if not settings.feed_interval:
        return None
    return FeedCadence(interval=settings.feed_interval, safety=settings.safety_interval)


def stale_after(settings: Settings) -> dict[Job, float]:
    """Seconds after which each job's heartbeat is too old: 3 * its interval."""
    return {
        "scrape": STALE_AFTER_INTERVALS * settings.scrape_interval,
        "drain": STALE_AFTER_INTERVALS * settings.queue_interval,
    }


async def record_start(db: Database, job: Job, *, now: float) -> None:
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO heartbeats (job, started_at) VALUES (?, ?) ON CONFLICT (job)"
            " DO UPDATE SET started_at = excluded.started_at, progress_at = NULL",
            (job, now),
        )


async def record_progress(db: Database, job: Job, *, now: float) -> None:
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO heartbeats (job, progress_at) VALUES (?, ?) "
            "ON CONFLICT (job) DO UPDATE SET progress_at = excluded.progress_at",
            (job, now),
        )


async def record_finish(db: Database, job: Job, *, now: float, ok: bool) -> None:
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO heartbeats (job, finished_at, ok) VALUES (?, ?, ?) "
            "ON CONFLICT (job) DO UPDATE SET finished_at = excluded.finished_at, ok = excluded.ok",
            (job, now, int(ok)),
        )


class Beat:
    """One run of a job, as `heartbeat` yields it: `progress()` says it got somewhere.

    `progress()` is a plain call, safe anywhere (inside a send, say): it beats the watchdog at
    once and records the progress in the database in a task of its own, at most every
    `PROGRESS_EVERY` seconds and one write at a time, so nothing waits for the write and a
    cancel of the caller never lands in it.
    """

    def __init__(self, db: Database, job: Job, *, clock: Clock, watchdog: Watchdog | None) -> None:
        self._db, self._job, self._clock, self._watchdog = db, job, clock, watchdog
        self._recorded = clock()  # the start was just recorded
        self._writing: asyncio.Task[None] | None = None

    def progress(self) -> None:
        if self._watchdog is not None:
            self._watchdog.beat(self._job)
        now = self._clock()
        if now - self._recorded < PROGRESS_EVERY or self._busy():
            return
        self._recorded = now
        self._writing = asyncio.get_running_loop().create_task(
            self._record(now), name=f"{self._job} progress"
        )

    def _busy(self) -> bool:
        return self._writing is not None and not self._writing.done()

    async def _record(self, now: float) -> None:
        try:
            await record_progress(self._db, self._job, now=now)
        except (DatabaseError, sqlite3.Error):
            log.warning("could not record the progress of the %s cycle", self._job, exc_info=True)

    async def settle(self) -> None:
        """Wait for a progress write still under way (it must not land after the finish)."""
        if self._writing is not None:
            await asyncio.shield(self._writing)


@asynccontextmanager
async def heartbeat(
    db: Database, job: Job, *, clock: Clock, watchdog: Watchdog | None = None
) -> AsyncIterator[Beat]:
    """Record a run of `job`: its start, its progress (through the `Beat` it yields), then
    its finish (`ok` unless the body raised).

    The watchdog is told at each progress and at the finish, so a run that neither gets
    anywhere nor ends counts as a stall. A failure to record the finish is logged, never
    raised over the body's own outcome.
    """
    await record_start(db, job, now=clock())
    beat = Beat(db, job, clock=clock, watchdog=watchdog)
    ok = False
    try:
        yield beat
        ok = True
    finally:
        try:
            await beat.settle()
            await record_finish(db, job, now=clock(), ok=ok)
        except (DatabaseError, sqlite3.Error):
            log.warning("could not record the end of the %s cycle", job, exc_info=True)
        if watchdog is not None:
            watchdog.beat(job)


@dataclass(frozen=True)
class JobBeat:
    """A job's latest heartbeat as read back; times are epoch seconds."""

    job: Job
    started_at: float | None
    finished_at: float | None
    ok: bool | None
    stale_after: float
    progress_at: float | None = None

    @property
    def running(self) -> bool:
        return self.started_at is not None and (
            self.finished_at is None or self.started_at >= self.finished_at
        )

    @property
    def latest(self) -> float | None:
        """The finish, or the start or latest progress of a run still going: what the
        verdict measures."""
        if not self.running:
            return self.finished_at
        return max(self.started_at or 0.0, self.progress_at or 0.0)

    def problem(self, now: float) -> str | None:
        """Why this job looks stalled, or None."""
        if self.latest is None:
            return f"no {self.job} cycle has run yet"
        age = now - self.latest
        if age <= self.stale_after:
            return None
        doing = "running without finishing" if self.running else "without a finished cycle"
        return f"{self.job}: {age:.0f} s {doing} (more than {self.stale_after:g} s)"

    def as_dict(self, now: float) -> dict[str, Any]:
        return {
            "started_at": _iso(self.started_at),
            "finished_at": _iso(self.finished_at),
            "progress_at": _iso(self.progress_at),
            "running": self.running,
            "ok": self.ok,
            "age_seconds": None if self.latest is None else round(now - self.latest, 1),
            "stale_after_seconds": self.stale_after,
        }


@dataclass(frozen=True)
class DatabaseFile:
    """The file `habicht health` read, and when habicht created it (None: before it kept
    that record, in an older version)."""

    path: Path
    created_at: float | None = None

    def as_dict(self, now: float) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "created_at": _iso(self.created_at),
            "age_seconds": None if self.created_at is None else round(now - self.created_at, 1),
        }


@dataclass(frozen=True)
class HealthReport:
    """The verdict with what an operator needs to see next to it."""

    healthy: bool
    reason: str
    checked_at: float
    jobs: dict[Job, JobBeat] = field(default_factory=dict)
    queue: dict[str, int] = field(default_factory=dict)
    failing_searches: list[dict[str, Any]] = field(default_factory=list)
    freshness: Freshness | None = None
    workload: Workload | None = None
    alerts: Latency | None = None
    database: DatabaseFile | None = None
    storage: StorageFault | None = None
    follow: FollowFigures | None = None
    replica: ReplicaState | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON `habicht health` prints."""
        return {
            "status": "healthy" if self.healthy else "unhealthy",
            "reason": self.reason,
            "checked_at": _iso(self.checked_at),
            "database": None if self.database is None else self.database.as_dict(self.checked_at),
            "jobs": {job: beat.as_dict(self.checked_at) for job, beat in self.jobs.items()},
            "queue": self.queue,
            "failing_searches": self.failing_searches,
            "freshness": None if self.freshness is None else self.freshness.as_dict(),
            "feeds": None if self.workload is None else self.workload.as_dict(),
            "alert_freshness": None if self.alerts is None else self.alerts.as_dict(),
            "storage_fault": None if self.storage is None else _fault(self.storage),
            "following": None if self.follow is None else self.follow.as_dict(),
            "replica": None if self.replica is None else self.replica.as_dict(self.checked_at),
        }


@dataclass(frozen=True, slots=True)
class ReplicaState:
    """The live replica (HABICHT_REPLICA): where, when Litestream last wrote to it (None:
    nothing yet), how far behind it may fall, and why it could not be read, if it could not."""

    url: str
    written_at: float | None
    max_lag: float
    error: str | None = None

    def lag(self, now: float) -> float | None:
        return None if self.written_at is None else max(0.0, now - self.written_at)

    def problem(self, now: float) -> str | None:
        """Why the replica is behind, or None while it keeps up."""
        lag = self.lag(now)
        if self.error is not None:
            return self.error
        if lag is None:
            return f"the replica {self.url} holds nothing yet"
        if lag > self.max_lag:
            return f"the replica {self.url} was last written {lag:.0f} s ago"
        return None

    def as_dict(self, now: float) -> dict[str, Any]:
        lag = self.lag(now)
        return {
            "url": self.url,
            "last_written_at": _iso(self.written_at),
            "lag_seconds": None if lag is None else round(lag, 1),
            "max_lag_seconds": self.max_lag,
            "error": self.error,
        }


async def replica_state(settings: Settings) -> ReplicaState | None:
    """The replica's state as its own files say (None: HABICHT_REPLICA is not set)."""
    url = settings.replica_url
    if url is None:
        return None
    try:
        written = await last_written(url)
    except (ReplicaError, OSError, ValueError) as exc:
        return ReplicaState(shown(url), None, settings.replica_lag, error=str(exc))
    return ReplicaState(shown(url), written, settings.replica_lag)


def _fault(fault: StorageFault) -> dict[str, Any]:
    return {
        "kind": fault.kind,
        "path": fault.path,
        "error": fault.error,
        "since": _iso(fault.since),
        "message": fault.summary(),
    }


def _iso(when: float | None) -> str | None:
    return None if when is None else datetime.fromtimestamp(when, UTC).isoformat(timespec="seconds")


async def check_health(db: Database, settings: Settings, *, now: float) -> HealthReport:
    """The verdict for an open database (see the module docstring)."""
    limits = stale_after(settings)
    rows = {row["job"]: row for row in await db.fetchall("SELECT * FROM heartbeats")}
    jobs: dict[Job, JobBeat] = {}
    for job in JOBS:
        row = rows.get(job)
        jobs[job] = JobBeat(
            job=job,
            started_at=row["started_at"] if row else None,
            finished_at=row["finished_at"] if row else None,
            ok=None if row is None or row["ok"] is None else bool(row["ok"]),
            stale_after=limits[job],
            progress_at=row["progress_at"] if row else None,
        )
    unsent = await waiting(db)
    failing = [
        {
            "url": search.url,
            "consecutive_failures": search.failures,
            "error_kind": search.error_kind,
            "error": search.error,
            "last_success_at": _iso(search.last_success_at),
        }
        for search in await failing_searches(db)
    ]
    problems = [p for p in (beat.problem(now) for beat in jobs.values()) if p]
    replica = await replica_state(settings)
    if replica is not None and (behind := replica.problem(now)) is not None:
        problems.append(behind)
    fresh = await freshness(db, now=now, interval=settings.scrape_interval)
    made_at = await db.made_at()
    fault = read_fault(db.path)
    told = [] if fault is None else [fault.summary()]
    return HealthReport(
        healthy=not problems,
        reason="; ".join([*told, *problems]) or "scrape and drain cycles are running",
        checked_at=now,
        jobs=jobs,
        queue={
            "pending": unsent.pending,
            "retrying": unsent.retrying,
            "sending": unsent.sending,
            "dead": unsent.dead,
        },
        failing_searches=failing,
        freshness=fresh,
        workload=await workload(db, now=now, cadence=feed_cadence(settings)),
        alerts=await latency(db, now=now),
        database=DatabaseFile(db.path, made_at),
        storage=fault,
        follow=await follow_figures(db, now=now, following=following(settings)),
        replica=replica,
    )


async def probe(settings: Settings, *, now: float) -> HealthReport:
    """`check_health` on HABICHT_DB opened read-only, or an unhealthy report saying why it
    cannot be: no file, an empty one, another application's, not SQLite, another schema."""
    path = settings.db
    file = DatabaseFile(path)
    if not path.is_file():
        reason = f"no database at {path}; has habicht run started?"
        return HealthReport(False, reason, now, database=file)
    db = Database(path)
    try:
        await db.open(mode="ro")
        version, expected = await db.user_version(), latest_version()
        if version != expected:
            reason = f"database {path} is at schema version {version}, expected {expected}"
            return HealthReport(False, reason, now, database=file)
        return await check_health(db, settings, now=now)
    except DatabaseError as exc:  # its sentence names the file
        return HealthReport(False, str(exc), now, database=file)
    except (sqlite3.Error, OSError) as exc:
        reason = f"cannot read database {path}: {exc}"
        return HealthReport(False, reason, now, database=file)
    finally:
        await db.close()
