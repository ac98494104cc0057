-- Detection at the edges (issue 18).

-- The price a watch's chat was last told of an advert — its new-listing price or its last drop
-- alert — or, if it was never told, the price the watch first saw it at (its baseline, or a
-- listing its filter hid). `drop N%` and `drop N€` measure from it, so a slow slide that the
-- rule held back step by step alerts once it has fallen N from what the chat knows.
-- Rows from before: the last price seen, the nearest thing known.
ALTER TABLE watch_listings ADD COLUMN told_price TEXT;
UPDATE watch_listings SET told_price = last_price;

-- Scans in a row whose deeper page failed while this watch's baseline needed it. The baseline
-- waits for the next scan; after FAILING_AFTER such scans it is taken, incomplete, from the
-- pages that did arrive, so one odd page cannot keep a watch from starting.
ALTER TABLE watches ADD COLUMN baseline_failures INTEGER NOT NULL DEFAULT 0
    CHECK (baseline_failures >= 0);
