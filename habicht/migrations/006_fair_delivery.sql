-- Fair delivery (issues 10 and 15): an attempt is counted when its send starts, not when its
-- row is claimed; indexes for every query the owner and the health check run.

-- How often a row was claimed: the latest claim's token (a settle must present it).
ALTER TABLE notifications ADD COLUMN claims INTEGER NOT NULL DEFAULT 0;
-- When the send of the current claim started (and its attempt was counted); NULL while a
-- claimed row waits for its turn, so a restart knows which rows never reached Telegram.
ALTER TABLE notifications ADD COLUMN started_at REAL;
-- Rows leased by an older habicht had their attempt counted by the claim and may have been
-- mid-send: they count as started (the attempt stays spent, the message is sent again).
UPDATE notifications SET started_at = updated_at WHERE status = 'sending';

-- A chat's latest fresh row: where `enqueue` queues the chat's next one (fair turns).
CREATE INDEX notifications_turn ON notifications (chat_id, next_attempt_at)
    WHERE status = 'pending' AND attempts = 0;
-- (Sent in the last 24 h and the purge of old sent rows use `notifications_sent`, which the
-- scheduler migration made for the delivery-time metric.)
-- `dead()` newest first, the purge of old dead rows, and dead rows counted by reason.
CREATE INDEX notifications_dead ON notifications (updated_at) WHERE status = 'dead';
CREATE INDEX notifications_dead_reason ON notifications (dead_reason) WHERE status = 'dead';
