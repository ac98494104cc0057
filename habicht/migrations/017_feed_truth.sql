-- Feeds that never cost an alert (issue 26): the search's own reads stay the truth, and a feed
-- proves that it lists what its searches find.

-- Whether the search's own scan showed the advert to the watch (1), or only a feed did (0).
-- Only its own sightings are a scan's anchors: what a feed recorded never stops the search's
-- own read above adverts it has not read. Rows written before were the scan's own or a feed's;
-- they count as the scan's own, as they did.
ALTER TABLE watch_listings ADD COLUMN own INTEGER NOT NULL DEFAULT 1 CHECK (own IN (0, 1));

-- `fed_since`: when its feed's reads began to serve the search (NULL while none does);
-- `polled_until`: a coverage miss sent it back to plain polling until then;
-- `coverage_misses`: adverts its own scan found, published while its feed served it, that the
-- feed never showed.
ALTER TABLE searches ADD COLUMN fed_since REAL;
ALTER TABLE searches ADD COLUMN polled_until REAL;
ALTER TABLE searches ADD COLUMN coverage_misses INTEGER NOT NULL DEFAULT 0;

-- `covered_since`: the feed's reads since then showed every advert it listed (a read that did
-- not reach an advert it showed before starts the span anew); `off_until`: switched off,
-- because its searches kept finding what it does not list, until then; `coverage_misses`:
-- the coverage misses of its searches.
ALTER TABLE feeds ADD COLUMN covered_since REAL;
ALTER TABLE feeds ADD COLUMN off_until REAL;
ALTER TABLE feeds ADD COLUMN coverage_misses INTEGER NOT NULL DEFAULT 0;

-- Whether the feed last showed the advert reserved: a read judges only the adverts it has not
-- shown before as they are now (new, at another price, or active again).
ALTER TABLE feed_listings ADD COLUMN reserved INTEGER NOT NULL DEFAULT 0 CHECK (reserved IN (0, 1));
