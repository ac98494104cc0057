-- Freshness where users feel it (issue 20): each new-listing alert for an advert new on
-- willhaben keeps, as it was when the alert was queued, when habicht first read the advert
-- on any page (`listings.first_seen_at`) and its `PUBLISHED` time. The listing itself cannot
-- tell it later: a bump rewrites `published_at`, and the page's bumped flag is not kept.
-- Both NULL for every other row: a bumped advert (its PUBLISHED is the bump), one that came
-- into the search although published before the watch started (not new on willhaben), drops,
-- answers, owner messages, and rows queued before this migration. `published_at` is also
-- NULL when the page gave no PUBLISHED.
ALTER TABLE notifications ADD COLUMN first_seen_at REAL;
ALTER TABLE notifications ADD COLUMN published_at REAL;
-- The last hour's alerts for /stats and the health check, and the metrics' histogram since
-- its last look: the rows that carry a sample, by enqueue time.
CREATE INDEX notifications_fresh ON notifications (created_at, id) WHERE first_seen_at IS NOT NULL;
