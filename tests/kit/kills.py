"""Other processes on habicht's database, ended by `kill -9` (issue 35): a bot's first start
killed in the middle of creating its file, and a writer that keeps committing while a test
does something beside it. What such a kill leaves on disk is what the next start must live
with, so these are real processes and real SIGKILLs, not closes."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from types import TracebackType
from typing import IO, Self

WAIT = 60.0
"""Seconds a helper process may take to get where it is going: it takes well under one."""

_CREATING = """
import asyncio, os, re, signal, sys
from pathlib import Path
from habicht.storage import StorageWatch, WatchedDatabase

path, after = Path(sys.argv[1]), int(sys.argv[2])
bumped = re.compile(rf"PRAGMA user_version = {after};?\\s*$")
ran: list[str] = []

def trace(statement: str) -> None:
    # Called as each statement starts: the one after migration `after`'s bump dies unrun.
    if ran:
        os.kill(os.getpid(), signal.SIGKILL)
    if bumped.search(statement):
        ran.append(statement)

async def start() -> None:
    clock = lambda: 1_600_000_000.0
    watch = StorageWatch(path, clock=clock, settled=30)
    db = await WatchedDatabase(path, watch=watch, clock=clock).open(migrate=False)
    async with db.transaction() as conn:  # the writer, before it migrates anything
        await conn.set_trace_callback(trace)
    await db.migrate()

asyncio.run(start())
"""


def killed_while_creating(path: Path, *, after: int) -> None:
    """The bot's first start on a new file at `path` (its `WatchedDatabase`), killed with
    SIGKILL as soon as migration `after` has run: the statement after its `user_version`
    bump never starts."""
    done = subprocess.run(
        [sys.executable, "-c", _CREATING, str(path), str(after)],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr


_WRITING = """
import asyncio, sys
from habicht.db import Database

async def write() -> None:
    async with Database(sys.argv[1]) as db:
        chat = 0
        while True:
            chat += 1
            async with db.transaction() as conn:
                await conn.execute(
                    "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (?, 0, 0)",
                    (chat,),
                )
            print(chat, flush=True)

asyncio.run(write())
"""


class LiveWriter:
    """Another process writing habicht's database at `path` — creating it, then committing
    one chat per transaction (ids 1, 2, …) and printing each id once it is committed — until
    `kill()`, a `kill -9`. `committed` is every id it printed: each must be in the file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.committed: list[int] = []
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> Self:
        self._process = subprocess.Popen(
            [sys.executable, "-c", _WRITING, str(self.path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._process is not None and self._process.poll() is None:
            self.kill()

    def _out(self) -> IO[str]:
        assert self._process is not None, "not started"
        assert self._process.stdout is not None
        return self._process.stdout

    def wait_for(self, count: int) -> None:
        """Read what it reports until `count` more commits went through (a write that
        fails ends the process, and the test, with its error)."""
        wanted = len(self.committed) + count
        while len(self.committed) < wanted:
            line = self._out().readline()
            if not line:
                assert self._process is not None
                assert self._process.stderr is not None
                self._process.wait(WAIT)
                raise AssertionError(
                    f"the writer stopped after {len(self.committed)} commits:"
                    f" {self._process.stderr.read()}"
                )
            self.committed.append(int(line))

    def kill(self) -> None:
        """SIGKILL: no rollback, no checkpoint, no close; then collect what it reported."""
        assert self._process is not None, "not started"
        self._process.send_signal(signal.SIGKILL)
        self._process.wait(WAIT)
        self.committed.extend(int(line) for line in self._out().read().split())
        for stream in (self._process.stdout, self._process.stderr):
            if stream is not None:
                stream.close()
