"""willhaben and when to read it.

- `urls` — what may be watched: search URLs and keyword searches, normalised.
- `fetch` — polite fetching (one client, a gap between requests, retries, block backoff).
- `parse` — a result page → its `Listing`s.
- `words`, `local` — whether a search lists an advert, decided here (for the feeds).
- `pages` — how deep one scan of a search reads.
- `scan` — one search's scan, start to commit; `health` — its failures and streaks.
- `feeds`, `coverage` — shared category feeds, and whether they keep up with the searches.
- `schedule`, `budget`, `alert_times` — what is read next, the request budget, freshness.
- `errors` — what goes wrong on willhaben's side.

Knows nothing of Telegram: it writes rendered texts into the outbox through a `Renderer` it
is given (`habicht.watches.judge`). It imports the watches, the market and the shared
`habicht.model`, never the bot (the import contracts in pyproject.toml). Import from the
module that defines a name; this package has no front door.
"""
