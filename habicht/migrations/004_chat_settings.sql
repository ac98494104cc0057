-- habicht schema 2: per-chat settings, and the forum topic a watch belongs to.

-- A chat's language ('de', 'en'; NULL: not known yet, so HABICHT_LANG applies) and how its
-- alerts look ('photo': the listing's picture, 'compact': one line of text).
ALTER TABLE chats ADD COLUMN lang TEXT CHECK (lang IN ('de', 'en'));
ALTER TABLE chats ADD COLUMN alert_style TEXT NOT NULL DEFAULT 'photo'
    CHECK (alert_style IN ('photo', 'compact'));

-- The forum topic (`message_thread_id`) a watch was created in; NULL outside forums.
ALTER TABLE watches ADD COLUMN thread_id INTEGER;
