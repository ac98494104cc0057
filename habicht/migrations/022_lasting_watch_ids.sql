-- A watch's id names that one watch for ever (issue 35). With a plain INTEGER PRIMARY KEY,
-- SQLite gives the next watch the largest id there is plus one: remove the newest watch, add
-- another, and the new one has the removed one's id — and an old alert's 🗑, an `/unwatch`
-- button or an owed outbox row (`notification_watches`) that named the removed watch then
-- reaches the new one. AUTOINCREMENT never hands an id out again (`sqlite_sequence` keeps the
-- largest ever given); it starts here at the largest id there is. Alert buttons made before
-- this migration cannot prove which watch they were made for and act on none
-- (`habicht.bot.signing`), so no id removed before it needs to be known for them. The one gap:
-- an `/unwatch` list shown before the upgrade names ids unsigned, so its button of a watch
-- removed before the upgrade while it was the newest may reach the first watch added after.
--
-- SQLite cannot add AUTOINCREMENT in place, so `watches` is built anew, every row and column
-- as it was. Dropping the old table would delete the rows that refer to it with ON DELETE
-- CASCADE — `watch_listings` and `filter_hits` (foreign keys are on, and cannot be turned off
-- inside the migration's transaction) — so they are moved aside first and back after, as 020
-- did with `notification_watches`. Rows are copied with `SELECT *`: a column another migration
-- added to one of these tables makes this one fail loudly instead of losing it.
CREATE TABLE watch_listings_moved AS SELECT * FROM watch_listings;
CREATE TABLE filter_hits_moved AS SELECT * FROM filter_hits;
DROP TABLE watch_listings;
DROP TABLE filter_hits;

CREATE TABLE watches_rebuilt (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id            INTEGER NOT NULL REFERENCES chats (chat_id) ON DELETE CASCADE,
    search_id          INTEGER NOT NULL REFERENCES searches (id),
    label              TEXT NOT NULL,
    status             TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
    baseline_at        REAL,   -- NULL until the first successful scan recorded the baseline
    created_at         REAL NOT NULL,
    baseline_complete  INTEGER NOT NULL DEFAULT 0 CHECK (baseline_complete IN (0, 1)),
    filters            TEXT,
    thread_id          INTEGER,
    muted_until        REAL,
    baseline_failures  INTEGER NOT NULL DEFAULT 0 CHECK (baseline_failures >= 0),
    UNIQUE (chat_id, search_id)
);
INSERT INTO watches_rebuilt SELECT * FROM watches;
DROP TABLE watches;
ALTER TABLE watches_rebuilt RENAME TO watches;
CREATE INDEX watches_by_search ON watches (search_id);

CREATE TABLE watch_listings (
    watch_id       INTEGER NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
    ad_id          TEXT NOT NULL,
    last_price     TEXT,
    first_seen_at  REAL NOT NULL,
    told_price     TEXT,
    own            INTEGER NOT NULL DEFAULT 1 CHECK (own IN (0, 1)),
    PRIMARY KEY (watch_id, ad_id)
) WITHOUT ROWID;
INSERT INTO watch_listings SELECT * FROM watch_listings_moved;
DROP TABLE watch_listings_moved;

CREATE TABLE filter_hits (
    watch_id  INTEGER NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
    ad_id     TEXT NOT NULL,
    rule      TEXT NOT NULL,
    hit_at    REAL NOT NULL,
    PRIMARY KEY (watch_id, ad_id)
) WITHOUT ROWID;
INSERT INTO filter_hits SELECT * FROM filter_hits_moved;
DROP TABLE filter_hits_moved;
