-- habicht schema 1. Times are Unix epoch seconds (REAL); money is TEXT holding a Decimal.

-- Subscribers. A chat that blocked the bot is 'blocked' until it sends /start again;
-- nothing is enqueued for a blocked chat.
CREATE TABLE chats (
    chat_id     INTEGER PRIMARY KEY,
    status      TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'blocked')),
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);

-- One row per normalised willhaben search URL: identical searches are fetched once.
CREATE TABLE searches (
    id                    INTEGER PRIMARY KEY,
    url                   TEXT NOT NULL UNIQUE,
    created_at            REAL NOT NULL,
    last_attempt_at       REAL,
    last_success_at       REAL,
    consecutive_failures  INTEGER NOT NULL DEFAULT 0,
    last_error_kind       TEXT,   -- 'fetch', 'blocked', 'layout'
    last_error            TEXT,
    last_count            INTEGER  -- listings on the last successful page
);

CREATE TABLE watches (
    id            INTEGER PRIMARY KEY,
    chat_id       INTEGER NOT NULL REFERENCES chats (chat_id) ON DELETE CASCADE,
    search_id     INTEGER NOT NULL REFERENCES searches (id),
    label         TEXT NOT NULL,
    status        TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
    baseline_at   REAL,   -- NULL until the first successful scan recorded the baseline
    created_at    REAL NOT NULL,
    UNIQUE (chat_id, search_id)
);
CREATE INDEX watches_by_search ON watches (search_id);

-- The latest known state of every advert any search has returned.
CREATE TABLE listings (
    ad_id          TEXT PRIMARY KEY,
    title          TEXT NOT NULL,
    price          TEXT,
    price_display  TEXT,
    location       TEXT,
    postcode       TEXT,
    url            TEXT NOT NULL,
    image_url      TEXT,
    published_at   REAL,
    first_seen_at  REAL NOT NULL,
    updated_at     REAL NOT NULL
);

-- What each watch has seen, with the price it last saw: the basis of "new" and "drop".
CREATE TABLE watch_listings (
    watch_id       INTEGER NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
    ad_id          TEXT NOT NULL,
    last_price     TEXT,
    first_seen_at  REAL NOT NULL,
    PRIMARY KEY (watch_id, ad_id)
) WITHOUT ROWID;

-- The transactional outbox. Rows are written in the same transaction that detected the
-- event, before any send; dedupe_key is unique over all states. `attempts` counts claims
-- (a give-back decrements it); `lease_until` is set while `sending`; the TTL counts from
-- `queued_at` (enqueue, or the last requeue), so a requeued item gets a fresh TTL.
CREATE TABLE notifications (
    id               INTEGER PRIMARY KEY,
    chat_id          INTEGER NOT NULL,
    kind             TEXT NOT NULL CHECK (kind IN ('new', 'drop', 'info', 'admin')),
    ad_id            TEXT,
    text             TEXT NOT NULL,
    dedupe_key       TEXT NOT NULL UNIQUE,
    status           TEXT NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'sending', 'sent', 'dead')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    max_attempts     INTEGER NOT NULL,
    next_attempt_at  REAL NOT NULL,
    lease_until      REAL,
    last_error       TEXT,
    dead_reason      TEXT,
    created_at       REAL NOT NULL,
    queued_at        REAL NOT NULL,
    updated_at       REAL NOT NULL,
    sent_at          REAL
);
-- "Due items" for the claim: partial, so the ever-growing sent rows cost these nothing.
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'pending';
CREATE INDEX notifications_lease ON notifications (lease_until) WHERE status = 'sending';
-- Serves the reap of pending rows past their TTL, whenever they are due.
CREATE INDEX notifications_age ON notifications (queued_at) WHERE status = 'pending';
-- Serves "pause every send to this chat" after a 429, and a chat's migration.
CREATE INDEX notifications_chat ON notifications (chat_id, status);

-- Dedupe keys of purged rows: a purge must never let an old alert be enqueued again.
CREATE TABLE notification_tombstones (
    dedupe_key  TEXT PRIMARY KEY,
    purged_at   REAL NOT NULL
) WITHOUT ROWID;

-- Liveness of the cycles, read by `habicht health` and the watchdog.
CREATE TABLE heartbeats (
    job          TEXT PRIMARY KEY,
    started_at   REAL,
    finished_at  REAL,
    ok           INTEGER,
    progress_at  REAL     -- latest sign of progress of the run that started at started_at
);
