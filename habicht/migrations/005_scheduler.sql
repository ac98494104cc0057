-- habicht schema: the due-time scheduler.
-- A search is due `HABICHT_SCRAPE_INTERVAL` after its last scan (`last_attempt_at`); the
-- scheduler walks this index from the least recently scanned search.
CREATE INDEX searches_by_last_attempt ON searches (last_attempt_at);

-- Set when a command asked for a scan of this search (a new watch, a resume, a chat back
-- from a block): such searches go before every other, once; the scan clears it. Asking
-- again while it is set changes nothing, so no command can queue a search twice.
ALTER TABLE searches ADD COLUMN scan_requested_at REAL;
CREATE INDEX searches_requested ON searches (scan_requested_at)
    WHERE scan_requested_at IS NOT NULL;

-- Retention forgets the adverts no search returned for 90 days, and what watches saw of them.
CREATE INDEX listings_by_update ON listings (updated_at);

-- The delivery-time metric reads the rows sent since its last look.
CREATE INDEX notifications_sent ON notifications (sent_at) WHERE status = 'sent';
