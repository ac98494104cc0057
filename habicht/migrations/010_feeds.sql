-- Shared category feeds (issue 20): one request for the newest adverts of a category serves
-- every local search of it; each search is still scanned on its own, less often (the safety
-- net).

-- A feed is the newest-first page of a category path (or of the whole marketplace), due every
-- HABICHT_FEED_INTERVAL while two or more searches with active watches share it.
CREATE TABLE feeds (
    id                    INTEGER PRIMARY KEY,
    url                   TEXT NOT NULL UNIQUE,
    created_at            REAL NOT NULL,
    last_attempt_at       REAL,
    last_success_at       REAL,
    consecutive_failures  INTEGER NOT NULL DEFAULT 0,
    last_error            TEXT
);

-- Whether a search is local (`scraper.local`): NULL until classified (searches of older files,
-- and new ones, are classified by the scheduler before its next choice), 0 plain, 1 local —
-- then `feed_id` is its category's feed. `feed_misses` counts the alerts its own scan sent
-- for adverts the feed had shown but not matched.
ALTER TABLE searches ADD COLUMN local INTEGER CHECK (local IN (0, 1));
ALTER TABLE searches ADD COLUMN feed_id INTEGER REFERENCES feeds (id) ON DELETE SET NULL;
ALTER TABLE searches ADD COLUMN feed_misses INTEGER NOT NULL DEFAULT 0;
CREATE INDEX searches_by_feed ON searches (feed_id) WHERE feed_id IS NOT NULL;
CREATE INDEX searches_unclassified ON searches (id) WHERE local IS NULL;

-- The adverts a feed has shown, and at what price: its anchors (the next read stops at a page
-- holding one) and what tells a feed miss from an advert the feed never saw (or saw at another
-- price, when it may rightly not have matched). Kept a day from when it was first shown.
CREATE TABLE feed_listings (
    feed_id   INTEGER NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    ad_id     TEXT NOT NULL,
    price     TEXT,
    seen_at   REAL NOT NULL,
    PRIMARY KEY (feed_id, ad_id)
) WITHOUT ROWID;

-- Where an alert came from: 'feed' (a local match) or 'search' (the search's own scan);
-- NULL for rows written before, and for messages that are no alert.
ALTER TABLE notifications ADD COLUMN source TEXT CHECK (source IN ('feed', 'search'));
