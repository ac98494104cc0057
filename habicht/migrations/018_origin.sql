-- When habicht created this file (issue 27). A database created where one was expected is how
-- a data volume that is not mounted shows: `habicht run` tells the owners when it creates one,
-- and `habicht health` reports the date. One row, written by the `open` that creates the file;
-- a file created before this migration has none (its date is unknown).
CREATE TABLE origin (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    created_at  REAL NOT NULL
);
