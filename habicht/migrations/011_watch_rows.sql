-- Outbox rows know their watches, and tombstones their advert (issue 19).

-- The watches that owe an alert row. The dedupe key is per chat (`new:<ad>:<chat>`), so two
-- watches of one chat that both match an advert share one row: each is listed here. Removing,
-- pausing or muting a watch takes it off its unsent rows, and a pending row that no watch
-- owes any more is cancelled (dead, `cancelled`). Answers, owner messages and rows queued
-- before this migration have no watch and are never cancelled this way.
CREATE TABLE notification_watches (
    notification_id INTEGER NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    watch_id        INTEGER NOT NULL,
    PRIMARY KEY (notification_id, watch_id)
) WITHOUT ROWID;
CREATE INDEX notification_watches_watch ON notification_watches (watch_id);

-- The advert of a tombstone's key (`new:<ad>:…`, `drop:<ad>:…`; NULL for any other key), so
-- retention can let the tombstone go once its advert has been off every page long enough.
ALTER TABLE notification_tombstones ADD COLUMN ad_id TEXT;
UPDATE notification_tombstones
SET ad_id = substr(rest, 1, instr(rest, ':') - 1)
FROM (
    SELECT dedupe_key AS key, substr(dedupe_key, instr(dedupe_key, ':') + 1) AS rest
    FROM notification_tombstones
    WHERE dedupe_key LIKE 'new:%:%' OR dedupe_key LIKE 'drop:%:%'
)
WHERE dedupe_key = key;
CREATE INDEX notification_tombstones_ad ON notification_tombstones (ad_id)
    WHERE ad_id IS NOT NULL;
CREATE INDEX notification_tombstones_purged ON notification_tombstones (purged_at)
    WHERE ad_id IS NULL;
