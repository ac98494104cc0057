-- Reposts (issue 21): a new advert's older adverts by the same seller, found by its seller
-- (`reposts._CANDIDATES`) without reading every listing. Adverts without a seller are never
-- looked up, so they are left out of the index.
CREATE INDEX listings_seller ON listings (seller_id) WHERE seller_id IS NOT NULL;
