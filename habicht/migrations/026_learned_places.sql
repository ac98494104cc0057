-- Places a flat search learns from its own reads (issue 36, `scraper.places`): a search for a
-- town, a Bezirk outside Vienna or a mix of areas names them by an `areaId` no advert carries;
-- each `LOCATION_ID` a flat its own read listed belongs to it for good, and a feed read matches
-- a new flat to it only in a place learned so.
CREATE TABLE search_places (
    search_id    INTEGER NOT NULL REFERENCES searches (id) ON DELETE CASCADE,
    location_id  TEXT NOT NULL,
    learned_at   REAL NOT NULL,
    PRIMARY KEY (search_id, location_id)
) WITHOUT ROWID;

-- Such searches, and flat searches with search words, were classified plain: classify every
-- plain real-estate search again (`scraper.feeds.assign_feeds`), so that they get their feed.
UPDATE searches SET local = NULL WHERE local = 0 AND url LIKE 'https://%/iad/immobilien/%';
