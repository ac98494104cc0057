"""Old database files for the migration tests: a file as it was before a migration ran."""

from __future__ import annotations

from pathlib import Path

from habicht.db import Database, migrations


def migration_version(name: str) -> int:
    """The version of the bundled migration whose file name contains `name` (by name, as
    the lead renumbers migrations on merge)."""
    (version,) = [version for version, file, _ in migrations() if name in file]
    return version


async def before_migration(path: Path, name: str) -> Database:
    """`path` opened and migrated up to just before the migration `name`: the old file a
    migration test fills with old rows (close it, then open it as today's habicht would)."""
    return await Database(path).open(target=migration_version(name) - 1)
