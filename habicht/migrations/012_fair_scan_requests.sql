-- habicht schema: a fair share for requested scans.
-- The chat whose command asked for a search's scan (`scan_requested_at`): the scheduler
-- serves one request per chat at a time, chat by chat, so one chat's burst of requests
-- (`/resume` of twenty watches, a pause-resume loop) waits behind every other chat's. A
-- second chat asking for the same search joins the pending request (one scan serves both).
-- NULL for requests made before this migration: each then counts as a chat of its own.
ALTER TABLE searches ADD COLUMN scan_requested_by INTEGER;
