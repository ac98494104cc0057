-- Restores that tell the truth (issue 35): `habicht restore` records in the restored file
-- what it did — when, from what (`source`: the replica's URL or the backup's path), to which
-- moment the file's own last write dates it (`moment`), and how many alerts were waiting in
-- it (`pending`: they go out now; those sent after the moment may go out once more) — and
-- the first start after it tells the owners once, `announced_at` set when their message is
-- queued.
CREATE TABLE restores (
    id            INTEGER PRIMARY KEY,
    restored_at   REAL NOT NULL,
    source        TEXT NOT NULL,
    moment        REAL,
    pending       INTEGER NOT NULL,
    announced_at  REAL
);
