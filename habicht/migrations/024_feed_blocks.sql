-- A block of a feed's own request pauses that feed, not the bot (issue 36): willhaben may
-- refuse the heavy page of a category's newest adverts read every minute while it serves
-- ordinary searches. Until `blocked_until` the feed is not live, so its searches are scanned
-- on their own at HABICHT_SCRAPE_INTERVAL within the budget (`scraper.schedule`).
ALTER TABLE feeds ADD COLUMN blocked_until REAL;
