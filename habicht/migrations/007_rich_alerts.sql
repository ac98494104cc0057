-- Photo alerts, buttons and forum topics (issue 13): an outbox row holds everything its
-- message needs to be sent again unchanged. Rows queued before have none of it and are
-- sent as they always were: text, no buttons, no topic.

-- The picture to send with the text as its caption (NULL: a text message).
ALTER TABLE notifications ADD COLUMN photo_url TEXT;
-- Inline buttons under the message, as JSON rows of {"text", "url" | "data"}.
ALTER TABLE notifications ADD COLUMN buttons TEXT;
-- The forum topic (`message_thread_id`) to post in; NULL outside forums.
ALTER TABLE notifications ADD COLUMN thread_id INTEGER;
-- Sent without a notification sound (Telegram's `disable_notification`).
ALTER TABLE notifications ADD COLUMN disable_notification INTEGER NOT NULL DEFAULT 0
    CHECK (disable_notification IN (0, 1));

-- Until when a watch's alerts are held back (the "mute 24 h" button): it is still scanned,
-- and what it sees is recorded as seen, so nothing floods in when the mute ends.
ALTER TABLE watches ADD COLUMN muted_until REAL;
