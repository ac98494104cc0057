"""One habicht per database: `habicht run` holds `<db>.lock` while it serves, and `habicht
restore` takes the same lock to refuse to replace a database a bot is using."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from habicht.db import DatabaseError

__all__ = ["single_instance"]


@contextmanager
def single_instance(db: Path) -> Iterator[None]:
    """Hold `<db>.lock` exclusively (`flock`, released by the kernel however the process
    ends), or raise `DatabaseError` saying another habicht run is using `db`."""
    lock = db.with_name(f"{db.name}.lock")
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        handle = lock.open("a")
    except OSError as exc:
        raise DatabaseError(f"cannot create the lock file {lock}: {exc}") from exc
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DatabaseError(
                f"another habicht run is using the database {db} (it holds {lock});"
                " only one may run per database"
            ) from None
        yield
