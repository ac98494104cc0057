"""When to read willhaben, and what a read does.

- `schedule` — what is read next; `budget`, `alert_times` — the request budget, freshness.
- `scan` — one search's scan, start to commit; `health` — its failures and streaks.
- `pages` — how deep one scan of a search reads.
- `feeds`, `coverage` — shared category feeds, and whether they keep up with the searches.
- `places` — the places a flat search learns from its own reads.
- `page_checks` — an alerted advert no read shows any more, looked up on its own page.

What willhaben says and means — its URLs, fetching, parsing, local matching — is
`habicht.willhaben`. Knows nothing of Telegram: it writes rendered texts into the outbox
through a `Renderer` it is given (`habicht.watches.judge`). It imports the site, the watches,
the market and the shared `habicht.model`, never the bot (the import contracts in
pyproject.toml). Import from the module that defines a name; this package has no front door.
"""
