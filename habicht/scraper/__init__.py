"""willhaben and when to read it: search URLs, polite fetching, parsing, local matching,
one search's scan, the shared feeds and the scheduler that decides what is read next.

Knows nothing of Telegram: it writes rendered texts into the outbox through a `Renderer` it
is given. Import from the module that defines a name; this package has no front door.
"""
