"""What habicht has learnt about adverts, whoever watches them.

- `listings` — each advert's latest state, and what each search showed when.
- `history` — every price an advert was seen at, and what a filter held back.
- `going`, `trend` — a search's going price, and how it moved.
- `places` — where postcodes and chats are.
- `reposts` — a new advert that is an older one put up again.

Of habicht's parts it imports only `habicht.model`: never the site, the watches, the scraper or
the bot.
"""
