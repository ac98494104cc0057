-- habicht schema 2: a watch remembers whether its baseline read the whole search.
-- 1 when the baseline's pages held every advert the search had (rowsFound); 0 when the
-- search was larger than the page cap — then an unseen bumped advert may be an old one from
-- beyond the baseline, and is announced as "bumped, not seen before", never as new.
-- Watches baselined before this migration read one page only: 0, the cautious answer.
-- Drop alerts now use dedupe keys drop:<ad_id>:<chat_id>:<old>:<new>; rows and tombstones
-- written before keep drop:<ad_id>:<chat_id>:<new> unchanged (still unique, never reset).
ALTER TABLE watches ADD COLUMN baseline_complete INTEGER NOT NULL DEFAULT 0
    CHECK (baseline_complete IN (0, 1));
