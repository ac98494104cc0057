-- A followed advert keeps its own URL (issue 37): a page check asked the market's `listings`
-- for it, joined before the LIMIT of the query that walks the due index, and an advert whose
-- listing retention had dropped was walked and skipped for ever. The URL is the one of the
-- newest alert queued for it. A state whose listing is gone had no URL to check and is
-- dropped (no read has shown its advert for `retention.LISTING_DAYS`, no check could run).
CREATE TABLE advert_states_rebuilt (
    ad_id         TEXT PRIMARY KEY,
    url           TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('active', 'reserved', 'gone')),
    since         REAL NOT NULL,
    left_at       REAL,
    price         TEXT,
    seen_at       REAL NOT NULL,
    alerted_at    REAL NOT NULL,
    flat          INTEGER NOT NULL DEFAULT 0 CHECK (flat IN (0, 1)),
    checked_at    REAL,
    checks        INTEGER NOT NULL DEFAULT 0,
    missing_at    REAL,
    check_due_at  REAL
) WITHOUT ROWID;
INSERT INTO advert_states_rebuilt
    (ad_id, url, state, since, left_at, price, seen_at, alerted_at, flat, checked_at, checks,
     missing_at, check_due_at)
SELECT s.ad_id, l.url, s.state, s.since, s.left_at, s.price, s.seen_at, s.alerted_at, s.flat,
       s.checked_at, s.checks, s.missing_at, s.check_due_at
FROM advert_states s JOIN listings l ON l.ad_id = s.ad_id;
DROP TABLE advert_states;
ALTER TABLE advert_states_rebuilt RENAME TO advert_states;

-- The indexes of migration 020, as they were.
CREATE INDEX advert_states_due ON advert_states (flat, check_due_at)
    WHERE check_due_at IS NOT NULL;
CREATE INDEX advert_states_young ON advert_states (flat, alerted_at)
    WHERE check_due_at IS NOT NULL;
CREATE INDEX advert_states_proofs ON advert_states (check_due_at) WHERE missing_at IS NOT NULL;
CREATE INDEX advert_states_alerted ON advert_states (alerted_at);
