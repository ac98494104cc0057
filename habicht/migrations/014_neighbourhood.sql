-- Watches that know the neighbourhood and the going price (issue 21).

-- Where an advert is (`COORDINATES`) and who sells it (`ORGID`, private sellers have one too):
-- what places postcodes, measures distances and recognises a repost.
ALTER TABLE listings ADD COLUMN lat REAL;
ALTER TABLE listings ADD COLUMN lon REAL;
ALTER TABLE listings ADD COLUMN seller_id TEXT;
-- The rest of what a filter judges (`BODY_DYN`, `ISPRIVATE`: 1, 0 or NULL), so an advert can be
-- judged again from the database alone (/preview).
ALTER TABLE listings ADD COLUMN body TEXT;
ALTER TABLE listings ADD COLUMN is_private INTEGER CHECK (is_private IN (0, 1));

-- The adverts each search showed (its own scan, or its feed's local match), first and last
-- when: a search's going price (the prices of its adverts of the last 30 days), /preview (the
-- adverts of its latest read) and reposts (an advert of the search that left its pages).
-- Goes with its search, and with its listing when retention forgets that.
CREATE TABLE search_listings (
    search_id      INTEGER NOT NULL REFERENCES searches (id) ON DELETE CASCADE,
    ad_id          TEXT NOT NULL REFERENCES listings (ad_id) ON DELETE CASCADE,
    first_seen_at  REAL NOT NULL,
    last_seen_at   REAL NOT NULL,
    PRIMARY KEY (search_id, ad_id)
) WITHOUT ROWID;
CREATE INDEX search_listings_ad ON search_listings (ad_id);
CREATE INDEX search_listings_recent ON search_listings (search_id, last_seen_at);

-- What is known so far: the adverts a watch of each search has seen, last seen when their
-- listing was.
INSERT OR IGNORE INTO search_listings (search_id, ad_id, first_seen_at, last_seen_at)
SELECT w.search_id, wl.ad_id, MIN(wl.first_seen_at), MAX(l.updated_at)
FROM watch_listings wl
JOIN watches w ON w.id = wl.watch_id
JOIN listings l ON l.ad_id = wl.ad_id
GROUP BY w.search_id, wl.ad_id;
