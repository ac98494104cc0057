-- The searches someone watches: an active watch of an active chat (issue 37). The watches own
-- `watches` and `chats`; this view is their published answer to the scraper's first question,
-- "is this search watched?", which every scheduling query asks inside its ORDER BY … LIMIT.
-- A view, not a function: the answer must join those queries (one per pass, not one per
-- search), and SQLite flattens it into them, so they still walk `watches_by_search`. What
-- "watched" means may change with the watches' columns; the scraper's SQL names only the view.
CREATE VIEW watched_searches AS
SELECT w.search_id FROM watches w JOIN chats c ON c.chat_id = w.chat_id
WHERE w.status = 'active' AND c.status = 'active';
