-- Alerts that stay true (issue 34): a sent alert follows its advert, edited in place when the
-- advert is reserved, cheaper or gone.
--
-- The outbox keeps what an edit needs of a message it delivered: Telegram's `message_id` and
-- how it went (`sent_as`: a photo with a caption, a text, or a digest's text carrying several
-- rows; the digest's text as sent is kept on the first row it carried, `sent_text`, since an
-- edit marks its lines one by one). An edit is an outbox row of its own kind, 'edit', whose `message_id` and `sent_as`
-- name the message it edits. SQLite cannot change a CHECK constraint in place, so the table
-- is built anew with the new kind; `notification_watches`, which refers to it, is moved aside
-- first so that dropping the old table deletes none of its rows. Rows sent before this
-- migration have no `message_id` and are simply not followed.
CREATE TABLE notification_watches_moved AS SELECT * FROM notification_watches;
DROP TABLE notification_watches;

CREATE TABLE notifications_rebuilt (
    id               INTEGER PRIMARY KEY,
    chat_id          INTEGER NOT NULL,
    kind             TEXT NOT NULL CHECK (kind IN ('new', 'drop', 'info', 'admin', 'edit')),
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
    sent_at          REAL,
    claims           INTEGER NOT NULL DEFAULT 0,
    started_at       REAL,
    photo_url        TEXT,
    buttons          TEXT,
    thread_id        INTEGER,
    disable_notification INTEGER NOT NULL DEFAULT 0 CHECK (disable_notification IN (0, 1)),
    digest_line      TEXT,
    source           TEXT CHECK (source IN ('feed', 'search')),
    first_seen_at    REAL,
    published_at     REAL,
    message_id       INTEGER,
    sent_as          TEXT CHECK (sent_as IN ('photo', 'text', 'digest')),
    sent_text        TEXT
);
INSERT INTO notifications_rebuilt
    (id, chat_id, kind, ad_id, text, dedupe_key, status, attempts, max_attempts,
     next_attempt_at, lease_until, last_error, dead_reason, created_at, queued_at, updated_at,
     sent_at, claims, started_at, photo_url, buttons, thread_id, disable_notification,
     digest_line, source, first_seen_at, published_at)
SELECT id, chat_id, kind, ad_id, text, dedupe_key, status, attempts, max_attempts,
       next_attempt_at, lease_until, last_error, dead_reason, created_at, queued_at, updated_at,
       sent_at, claims, started_at, photo_url, buttons, thread_id, disable_notification,
       digest_line, source, first_seen_at, published_at
FROM notifications;
DROP TABLE notifications;
ALTER TABLE notifications_rebuilt RENAME TO notifications;

-- The indexes of migrations 001–013, as they were.
CREATE INDEX notifications_lease ON notifications (lease_until) WHERE status = 'sending';
CREATE INDEX notifications_age ON notifications (queued_at) WHERE status = 'pending';
CREATE INDEX notifications_chat ON notifications (chat_id, status);
CREATE INDEX notifications_sent ON notifications (sent_at) WHERE status = 'sent';
CREATE INDEX notifications_dead ON notifications (updated_at) WHERE status = 'dead';
CREATE INDEX notifications_dead_reason ON notifications (dead_reason) WHERE status = 'dead';
CREATE INDEX notifications_fresh ON notifications (created_at, id) WHERE first_seen_at IS NOT NULL;
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'pending';
-- The claim walks alerts and edits apart, so a thousand edits waiting never hide an alert
-- from it (edits go below alerts); a chat's fair turn is counted over its alerts only.
CREATE INDEX notifications_due_alerts ON notifications (next_attempt_at)
    WHERE status = 'pending' AND kind != 'edit';
CREATE INDEX notifications_due_edits ON notifications (next_attempt_at)
    WHERE status = 'pending' AND kind = 'edit';
CREATE INDEX notifications_turn ON notifications (chat_id, next_attempt_at)
    WHERE status = 'pending' AND attempts = 0 AND kind != 'edit';
-- The sent alerts of an advert (what a read that shows it may have to correct), and each
-- message's edits (at most one pending: a newer state replaces it).
CREATE INDEX notifications_followed ON notifications (ad_id, sent_at)
    WHERE message_id IS NOT NULL AND kind IN ('new', 'drop');
CREATE INDEX notifications_message ON notifications (chat_id, message_id)
    WHERE message_id IS NOT NULL;

CREATE TABLE notification_watches (
    notification_id INTEGER NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    watch_id        INTEGER NOT NULL,
    PRIMARY KEY (notification_id, watch_id)
) WITHOUT ROWID;
INSERT INTO notification_watches SELECT notification_id, watch_id FROM notification_watches_moved;
DROP TABLE notification_watches_moved;
CREATE INDEX notification_watches_watch ON notification_watches (watch_id);

-- What habicht last knew of each advert it has alerted about, learnt from every read that
-- showed it (a search's scan, a feed, its own page) and from page checks of adverts no read
-- shows any more; a row is made when an alert of the advert is queued. `state` is 'active',
-- 'reserved' or 'gone'; `since` when it came into that state; `left_at` when it last left
-- offer (reserved or gone: an alert sent before it that sees it active again says "available
-- again"); `seen_at` the last read that showed it on offer or reserved; `alerted_at` when its
-- newest alert was queued (a young alert's advert is checked sooner); `flat` a real-estate
-- advert (checked before the marketplace's); `checked_at` its last page check, `checks` how
-- many in a row found it still there (the next waits longer); `missing_at` the first of the
-- page checks that found it missing (404/410 or a status neither active nor reserved) since it
-- was last seen: gone needs a second one, later; `check_due_at` when its next page check is
-- due (NULL: none, it is gone or followed no more), kept with every change so the scheduler
-- finds the next one on an index however many adverts are followed.
CREATE TABLE advert_states (
    ad_id         TEXT PRIMARY KEY,
    state         TEXT NOT NULL CHECK (state IN ('active', 'reserved', 'gone')),
    since         REAL NOT NULL,
    left_at       REAL,
    price         TEXT,
    seen_at       REAL NOT NULL,
    alerted_at    REAL NOT NULL,
    flat          INTEGER NOT NULL DEFAULT 0 CHECK (flat IN (0, 1)),
    checked_at    REAL,
    checks        INTEGER NOT NULL DEFAULT 0,
    missing_at    REAL,
    check_due_at  REAL
) WITHOUT ROWID;
CREATE INDEX advert_states_due ON advert_states (flat, check_due_at)
    WHERE check_due_at IS NOT NULL;
CREATE INDEX advert_states_young ON advert_states (flat, alerted_at)
    WHERE check_due_at IS NOT NULL;
CREATE INDEX advert_states_proofs ON advert_states (check_due_at) WHERE missing_at IS NOT NULL;
CREATE INDEX advert_states_alerted ON advert_states (alerted_at);

-- Each page check and what it found, for the owner's figures (page checks an hour, gone
-- found); retention keeps a few days.
CREATE TABLE page_checks (
    checked_at  REAL NOT NULL,
    ad_id       TEXT NOT NULL,
    found       TEXT NOT NULL CHECK (found IN ('active', 'reserved', 'missing', 'gone', 'failed'))
);
CREATE INDEX page_checks_at ON page_checks (checked_at);

-- A chat decides whether its sent alerts are kept true (`/settings`): on unless turned off.
ALTER TABLE chats ADD COLUMN follow_alerts INTEGER NOT NULL DEFAULT 1
    CHECK (follow_alerts IN (0, 1));
