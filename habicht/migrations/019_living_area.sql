-- A going price that compares like with like (issue 29): a flat's rent or price says little
-- beside flats of another size, so the going price of a real-estate search is € per m². Each
-- advert keeps the living area it says of itself (`ESTATE_SIZE/LIVING_AREA`, whole m²); NULL
-- for every other advert and for a flat that does not say, which the going price then leaves
-- out. Old rows get theirs from the next read that sees them.
ALTER TABLE listings ADD COLUMN living_area INTEGER;
