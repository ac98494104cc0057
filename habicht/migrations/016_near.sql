-- Distance: `/filter <n> near <postcode> <km>` and `near here <km>` (issue 21).

-- Where each postcode is, learnt from the adverts habicht reads: the median latitude and
-- longitude of the latest adverts of the postcode that have coordinates (`adverts` of them,
-- at most a sample's worth), and the place name they give most often. Kept by the scan
-- (`habicht.scraper.places.refresh_places`), inside its transaction, for the postcodes a
-- read touched that are due. No data set is needed, and a postcode nobody sells in stays
-- unknown.
CREATE TABLE postcode_places (
    postcode    TEXT PRIMARY KEY,
    lat         REAL NOT NULL,
    lon         REAL NOT NULL,
    name        TEXT,
    adverts     INTEGER NOT NULL CHECK (adverts >= 1),
    updated_at  REAL NOT NULL
) WITHOUT ROWID;

-- A postcode's sample: its latest adverts with coordinates (covering: read from the index alone).
CREATE INDEX listings_placed ON listings (postcode, updated_at, lat, lon, location)
    WHERE lat IS NOT NULL;

-- The location the chat last shared (Telegram's 📎 → Location): what `near here` means.
ALTER TABLE chats ADD COLUMN lat REAL;
ALTER TABLE chats ADD COLUMN lon REAL;
ALTER TABLE chats ADD COLUMN located_at REAL;

-- What is known so far: the adverts read since migration 014 kept their coordinates. Each
-- coordinate's median is its middle value (or the mean of the two middle ones) among the
-- postcode's adverts in order of it; `updated_at` 0 makes the first read that shows a
-- postcode take its sample again, the way the scan keeps it.
INSERT INTO postcode_places (postcode, lat, lon, adverts, updated_at)
SELECT postcode,
       AVG(CASE WHEN by_lat IN ((n + 1) / 2, (n + 2) / 2) THEN lat END),
       AVG(CASE WHEN by_lon IN ((n + 1) / 2, (n + 2) / 2) THEN lon END),
       MAX(n), 0
FROM (
    SELECT postcode, lat, lon,
           ROW_NUMBER() OVER (PARTITION BY postcode ORDER BY lat) AS by_lat,
           ROW_NUMBER() OVER (PARTITION BY postcode ORDER BY lon) AS by_lon,
           COUNT(*) OVER (PARTITION BY postcode) AS n
    FROM listings WHERE postcode IS NOT NULL AND lat IS NOT NULL AND lon IS NOT NULL
)
GROUP BY postcode;
