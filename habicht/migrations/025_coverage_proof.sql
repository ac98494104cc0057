-- A coverage miss is proven, not inferred from a date (issue 36). A search's own read notes
-- the adverts it shows that its feed has not shown (a *candidate*); the feed's next read,
-- started after that, settles them: shown, or not shown though it reached below the advert's
-- date — a proven miss — or not deep enough to tell (`scraper.coverage`).

-- The candidates: `ad_id` shown by the own read of `search_id` at `seen_at` (it was visible
-- then), dated `published_at`, not yet shown by `feed_id`. A feed read takes its feed's
-- candidates seen before it started, by `coverage_candidates_by_feed`; one it reached and did
-- not show is suspected from `missed_at` (that read's start) until the search's next own read
-- shows it again (a proven miss) or does not (dropped).
CREATE TABLE coverage_candidates (
    search_id     INTEGER NOT NULL REFERENCES searches (id) ON DELETE CASCADE,
    ad_id         TEXT NOT NULL,
    feed_id       INTEGER NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
    published_at  REAL NOT NULL,
    seen_at       REAL NOT NULL,
    missed_at     REAL,
    PRIMARY KEY (search_id, ad_id)
) WITHOUT ROWID;
CREATE INDEX coverage_candidates_by_feed ON coverage_candidates (feed_id, seen_at);

-- `shown_since`: the date above which the feed's last read showed every advert the feed lists
-- (the oldest unbumped advert at the bottom of the deepest page it read; NULL when it read the
-- whole feed, or never read it). An own read notes no advert dated below it: the feed's next
-- read, which stops at an advert it showed before, would not reach it. The covered span it
-- replaces proved nothing a read itself does not.
ALTER TABLE feeds DROP COLUMN covered_since;
ALTER TABLE feeds ADD COLUMN shown_since REAL;
