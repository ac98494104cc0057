"""When to read willhaben, and what a read does.

- `schedule` — what is read next.
- `figures` — what the pipeline reports (freshness, capacity, the budget's work, alert
  times), the one module the rest of habicht reads them from; over `budget`, `alert_times`.
- `scan` — one search's scan, start to commit; `health` — its failures and streaks.
- `pages` — how deep one scan of a search reads.
- `feeds`, `coverage` — shared category feeds, and whether they keep up with the searches.
- `places` — the places a flat search learns from its own reads.
- `page_checks` — an alerted advert no read shows any more, looked up on its own page.

What willhaben says and means — its URLs, fetching, parsing, local matching — is
`habicht.willhaben`. Knows nothing of Telegram: it writes rendered texts into the outbox
through a `Renderer` it is given (`habicht.watches.judge`). It imports the site, the watches,
the market and the shared `habicht.model`, never the bot (the import contracts in
pyproject.toml). Import from the module that defines a name — a figure from `figures`, which
an import contract holds —; this package has no front door.
"""
