-- Quiet hours and digests (issue 14): a chat's nightly window, alerts that arrive without a
-- sound, and the one line each alert has in a digest.

-- The window as wall-clock times 'HH:MM' in `quiet_zone` (NULL: Europe/Vienna); no window
-- when `quiet_mode` is NULL. 'hold' keeps alerts in the outbox until the window ends,
-- 'silent' sends them at once without a notification sound.
ALTER TABLE chats ADD COLUMN quiet_from TEXT;
ALTER TABLE chats ADD COLUMN quiet_to TEXT;
ALTER TABLE chats ADD COLUMN quiet_mode TEXT CHECK (quiet_mode IN ('hold', 'silent'));
ALTER TABLE chats ADD COLUMN quiet_zone TEXT;

-- A silent window's rows are queued with `disable_notification` (the rich-alerts migration's
-- column). A held row needs no column: it is a pending row whose `queued_at` (and due time)
-- is the end of its quiet hours, still in the future.

-- A chat's digest threshold: more alerts than this due at once go out as one digest
-- (NULL: HABICHT_DIGEST_AFTER).
ALTER TABLE chats ADD COLUMN digest_after INTEGER CHECK (digest_after >= 1);
-- The alert as one line of a digest (HTML, rendered when it was queued, like `text`);
-- NULL for messages that never go in a digest.
ALTER TABLE notifications ADD COLUMN digest_line TEXT;
