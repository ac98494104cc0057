"""The end-to-end harness: the real `habicht run` process, the fake Bot API and the fake
willhaben site on 127.0.0.1, and subscribers who talk to it.

Every wait is a condition with a deadline: it wakes on each change the fake Bot API sees and
re-checks at least every quarter second (for conditions on the database), and fails early,
with the process log, when the process died.

A test may give the process a disk of its own to fill (`on_own_tmpfs`): a small tmpfs in a
mount namespace of the process's own. The test reaches its files through `/proc/<pid>/root`
(`inside`), and reads the database from a copy of them (`readable`): SQLite resolves the
symbolic link `/proc/<pid>/root` to the test's own root, where the database is not.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import IO, Any

import pytest

from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import DEFAULT_TOKEN, FakeBotAPI, SentMessage
from habicht.fakes.willhaben_site import FakeWillhabenSite

HABICHT = Path(sys.executable).parent / "habicht"
DEADLINE = 45.0
"""Seconds one expected change may take: generous, for a busy 2-core CI machine."""

ADMIN = 9000
SEARCH = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=grafikkarte"

_AD_ID = re.compile(r'href="[^"]*-(\d+)/"')

_MOUNT_TMPFS = 'mount -t tmpfs -o size="$1" tmpfs "$2" && shift 2 && exec "$@"'
"""Mounts a tmpfs of size $1 at $2, then becomes the command after them."""


@dataclass(frozen=True, order=True)
class Alert:
    """One alert as a subscriber saw it: `new` or `drop`, for an advert, in a chat."""

    chat_id: int
    kind: str
    ad_id: str


def alerts_of(message: SentMessage) -> list[Alert]:
    """The alerts a message carries, by their marker (🆕 new, 📉 drop) and link: the message
    itself, or each entry of a digest (📬, then one line per alert)."""
    entries = message.text.splitlines()[1:] if message.text.startswith("📬") else [message.text]
    found = []
    for entry in entries:
        kind = {"🆕": "new", "📉": "drop"}.get(entry[:1])
        link = _AD_ID.search(entry)
        if kind is not None and link is not None:
            found.append(Alert(message.chat_id, kind, link.group(1)))
    return found


def is_digest(message: SentMessage) -> bool:
    return message.text.startswith("📬")


def gpu(number: int, price: int) -> FakeAdvert:
    """A distinct advert for the test search: ids 770001, 770002, …"""
    return FakeAdvert(str(770_000 + number), f"Grafikkarte Nr. {number}", price=Decimal(price))


@dataclass
class World:
    """One test's fakes, database and (re)startable `habicht run` process."""

    telegram: FakeBotAPI
    site: FakeWillhabenSite
    telegram_url: str
    site_url: str
    workdir: Path
    overrides: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None
    prefix: list[str] = field(default_factory=list)
    """What the process is started under (`on_own_tmpfs`)."""
    _log: IO[bytes] | None = None

    @property
    def db_path(self) -> Path:
        """The database, as the process names it (HABICHT_DB)."""
        return Path(self.overrides.get("HABICHT_DB", self.workdir / "habicht.sqlite3"))

    def on_own_tmpfs(self, size: str) -> None:
        """From the next start, the process runs in a mount namespace of its own with a tmpfs
        of `size` at `workdir/data`, which holds the database: a disk the test can fill
        (`inside`). Skips the test where this machine allows no such namespace (neither
        root nor unprivileged user namespaces)."""
        data = self.workdir / "data"
        data.mkdir()
        refusals = []
        for unshare in (["--mount"], ["--user", "--map-root-user", "--mount"]):
            prefix = ["unshare", *unshare, "sh", "-c", _MOUNT_TMPFS, "sh", size, str(data)]
            try:
                tried = subprocess.run([*prefix, "true"], capture_output=True, check=False)
            except OSError as exc:  # no unshare(1) at all
                pytest.skip(f"no private mount namespace for a tmpfs here: {exc}")
            if tried.returncode == 0:
                self.prefix = prefix
                self.overrides["HABICHT_DB"] = str(data / "habicht.sqlite3")
                return
            refusals.append(tried.stderr.decode(errors="replace").strip())
        pytest.skip(f"no private mount namespace for a tmpfs here: {refusals}")

    def inside(self, path: Path) -> Path:
        """Where the test finds the process's `path`: the same place, unless the process has a
        tmpfs of its own — then through its root in /proc."""
        if not self.prefix:
            return path
        assert self.process is not None, "the tmpfs lives only while the process runs"
        return Path(f"/proc/{self.process.pid}/root") / path.relative_to("/")

    def readable(self) -> Path:
        """The database for the test to read: the process's own file, or, on its own tmpfs, a
        copy of the file, its WAL and the status beside it as they are now (SQLite rebuilds
        the WAL's index from the copy, committed frames only)."""
        if not self.prefix:
            return self.db_path
        copy = self.workdir / "copy" / self.db_path.name
        copy.parent.mkdir(exist_ok=True)
        Path(f"{copy}-shm").unlink(missing_ok=True)  # the index of the copy before
        for suffix in ("", "-wal", ".fault"):
            source = self.inside(Path(f"{self.db_path}{suffix}"))
            if source.exists():
                shutil.copyfile(source, f"{copy}{suffix}")
        return copy

    @property
    def log_path(self) -> Path:
        return self.workdir / "habicht.log"

    def env(self) -> dict[str, str]:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("HABICHT_")}
        return {
            **clean,
            "PYTHONUNBUFFERED": "1",
            "HABICHT_BOT_TOKEN": DEFAULT_TOKEN,
            "HABICHT_ADMIN_IDS": str(ADMIN),
            "HABICHT_DB": str(self.db_path),
            "HABICHT_TELEGRAM_API": self.telegram_url,
            "HABICHT_WILLHABEN_URL": self.site_url,
            "HABICHT_SCRAPE_INTERVAL": "1",
            "HABICHT_QUEUE_INTERVAL": "0.5",
            "HABICHT_FETCH_GAP": "0",
            "HABICHT_BACKOFF_BASE": "0.2",
            "HABICHT_BACKOFF_CAP": "1",
            **self.overrides,
        }

    # ----------------------------------------------------------------- the process

    def start(self) -> None:
        """Start `habicht run` (the image's CMD) and wait until it polls for updates."""
        assert self.process is None, "habicht is already running"
        if self._log is not None:
            self._log.close()
        self._log = self.log_path.open("ab")
        polls = self.telegram.calls["getUpdates"]
        self.process = subprocess.Popen(
            [*self.prefix, str(HABICHT), "run"],
            cwd=self.workdir,
            env=self.env(),
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        self.wait_for(lambda: self.telegram.calls["getUpdates"] > polls, "the first long poll")

    def kill(self) -> None:
        """`kill -9`: no shutdown of any kind."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=DEADLINE)
        self.process = None

    def terminate(self, *, within: float = 10.0) -> int:
        """SIGTERM, as `docker stop` sends; the exit code, which must come within `within` s."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=within)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"no exit {within:g} s after SIGTERM\n{self.log_tail()}") from None
        self.process = None
        return code

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=DEADLINE)
        if self._log is not None:
            self._log.close()

    def health(self) -> tuple[int, dict[str, Any]]:
        """Run the image's HEALTHCHECK command against this database."""
        result = subprocess.run(
            [str(HABICHT), "health"],
            cwd=self.workdir,
            env={**self.env(), "HABICHT_DB": str(self.readable())},
            capture_output=True,
            timeout=DEADLINE,
            check=False,
        )
        return result.returncode, json.loads(result.stdout)

    def log_tail(self, lines: int = 60) -> str:
        if not self.log_path.exists():
            return "(no log)"
        text = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        return "--- habicht log (tail) ---\n" + "\n".join(text[-lines:])

    def wait_for(
        self, condition: Callable[[], bool], what: str, *, timeout: float = DEADLINE
    ) -> None:
        """Until `condition()` holds; fails naming `what` at the deadline or if habicht died."""
        deadline = time.monotonic() + timeout
        while not condition():
            if self.process is not None and self.process.poll() is not None:
                raise AssertionError(
                    f"habicht exited ({self.process.returncode}) while waiting for {what}\n"
                    + self.log_tail()
                )
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"waited {timeout:g} s for {what}\n{self.log_tail()}")
            try:
                self.telegram.wait_until(condition, timeout=min(0.25, remaining), what=what)
            except TimeoutError:
                continue

    # ----------------------------------------------------------------- what users see

    def alerts(self, chat_id: int | None = None) -> Counter[Alert]:
        """How often each alert was delivered (to one chat or all)."""
        return Counter(alert for m in self.telegram.messages(chat_id) for alert in alerts_of(m))

    def messages(self, chat_id: int) -> list[str]:
        return [m.text for m in self.telegram.messages(chat_id)]

    def subscribe(self, *chats: int, url: str = SEARCH) -> None:
        """Each chat sends /start, then /watch `url`; wait for every silent baseline's message."""
        for chat in chats:
            self.telegram.push_message(chat, chat, "/start")
        for chat in chats:
            self.telegram.push_message(chat, chat, f"/watch {url}")
        for chat in chats:
            self.wait_for(
                lambda chat=chat: any(text.startswith("👀") for text in self.messages(chat)),
                f"the baseline message to {chat}",
            )

    # ----------------------------------------------------------------- the database

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Read the database the process writes (committed data only, WAL)."""
        with closing(sqlite3.connect(self.readable(), timeout=10)) as conn:
            return conn.execute(sql, params).fetchall()

    def outbox(self, kinds: tuple[str, ...] = ("new", "drop")) -> dict[Alert, str]:
        """Every alert row detected so far, with its status."""
        marks = ",".join("?" * len(kinds))
        rows = self.query(
            f"SELECT chat_id, kind, ad_id, status FROM notifications WHERE kind IN ({marks})",
            kinds,
        )
        return {Alert(chat, kind, ad): status for chat, kind, ad, status in rows}

    def scrape_finished_at(self) -> float:
        """When the last full scrape cycle finished (its heartbeat); 0 before the first."""
        rows = self.query("SELECT finished_at FROM heartbeats WHERE job = 'scrape'")
        return float(rows[0][0] or 0) if rows else 0.0
