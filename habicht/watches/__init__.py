"""What a watch wants and what its chat is told.

- `subscriptions` — chats, their watches, and the searches those share; `watch` — one watch
  as its chat sees it; `errors` — the changes to watches that cannot be made; `chats` — a
  chat's settings as stored (the bot mirrors them).
- `rules` — the grammar of `/filter`; `filters` — the filter those rules make, applied.
- `diff` — what changed for a watch between two reads (new, bumped, dropped).
- `notes` — what an alert says beside the advert (distance, going price, repost).
- `judge` — a watch's events through its filter into outbox rows.
- `preview`, `figures` — what a filter would do, and a watch's numbers.

It imports the market and `habicht.model`, never the site (`habicht.willhaben`), the scraper or
the bot.
"""
