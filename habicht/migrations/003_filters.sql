-- habicht schema: a watch's own filters, what they hid, and every price an advert had.

-- The watch's /filter rules as JSON (habicht.scraper.filters.WatchFilter); NULL: none.
-- They are applied at detection time, so watches that differ only in them share a search.
ALTER TABLE watches ADD COLUMN filters TEXT;

-- Adverts a watch's filter kept from its chat, and by which rule: what /list counts
-- ("3 hidden by ‚defekt' in the last 24 h"). Rows older than a day are pruned as it scans.
CREATE TABLE filter_hits (
    watch_id  INTEGER NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
    ad_id     TEXT NOT NULL,
    rule      TEXT NOT NULL,
    hit_at    REAL NOT NULL,
    PRIMARY KEY (watch_id, ad_id)
) WITHOUT ROWID;

-- Every price an advert was seen at, one row per change (a price-less spell writes none):
-- the path a drop alert shows ("€ 500 → 450 → 399 in 12 days") and what /history lists.
-- Goes with its listing when the listing is forgotten.
CREATE TABLE price_history (
    ad_id    TEXT NOT NULL REFERENCES listings (ad_id) ON DELETE CASCADE,
    seen_at  REAL NOT NULL,
    price    TEXT NOT NULL,
    PRIMARY KEY (ad_id, seen_at)
) WITHOUT ROWID;

-- What is known so far: each listing's current price, as of its latest scan.
INSERT INTO price_history (ad_id, seen_at, price)
SELECT ad_id, updated_at, price FROM listings WHERE price IS NOT NULL;
