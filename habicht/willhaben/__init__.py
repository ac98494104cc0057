"""willhaben: what the site says and what it means.

- `urls` — what may be watched: search URLs and keyword searches, normalised.
- `fetch` — polite fetching (one client, a gap between requests, retries, block backoff).
- `parse` — a result page → its `Listing`s.
- `advert` — an advert's own page → what it says of the advert now.
- `words`, `local` — whether a search lists an advert, decided here (for the feeds).
- `estate`, `estate_terms` — flat searches decided here, and what willhaben calls things.
- `describe` — a real-estate search in words, from its URL (for `/list`).
- `errors` — what goes wrong on willhaben's side.

Knows nothing of Telegram, nor of habicht's database or of when a read happens: that is the
scraper's (`habicht.scraper`), which uses this package. It imports only the shared
`habicht.model` and the foundations (clock, digits), never another part of habicht (the
import contracts in pyproject.toml). Import from the module that defines a name; this package
has no front door.
"""
