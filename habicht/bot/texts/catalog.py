"""The typed catalogue: one field per text habicht says, which every language must fill.

`Catalog` is a frozen dataclass with keyword-only fields and no defaults, so a language
module (`de.py`, `en.py`) that leaves out a text, or names one the catalogue does not know,
fails with a `TypeError` naming it when it is imported — that is, when the bot starts, never
in front of a subscriber. A new text is a new field here and a new entry in each language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["LANGUAGE_NAMES", "Catalog", "Lang"]

Lang = Literal["de", "en"]

LANGUAGE_NAMES: Mapping[Lang, str] = {"de": "🇩🇪 Deutsch", "en": "🇬🇧 English"}
"""Each language in its own words, the same in every catalog (one looks for one's own)."""


@dataclass(frozen=True, kw_only=True)
class Catalog:
    """The templates of one language. `{name}` placeholders are filled by `Texts`."""

    lang: Lang
    menu: Mapping[str, str]
    """The command menu (`set_my_commands`): command → description."""
    # subscribers
    start: str
    start_again: str
    start_again_one: str
    help: str
    watch_usage: str
    watch_added: str
    watch_duplicate: str
    watch_too_many: str
    watch_invalid: str
    invalid_reasons: Mapping[str, str]
    invalid_other: str
    list_empty: str
    list_header: str
    list_line: str
    status_active: str
    status_paused: str
    scan_never: str
    scan_ok: str
    scan_failing: str
    unwatch_usage: str
    unwatch_done: str
    no_such_watch: str
    not_a_number: str
    no_watches: str
    paused_one: str
    paused_all: str
    resumed_one: str
    resumed_all: str
    unknown_command: str
    plain_text: str
    offer_url: str
    button_watch: str
    offer_expired: str
    not_admin: str
    """Refuses a group member who is not its admin (also a button's answer: ≤ 200 chars)."""
    settings: str
    style_photo: str
    style_compact: str
    digest: str
    digest_button: str
    follow_on: str
    follow_off: str
    follow_button_on: str
    follow_button_off: str
    quiet_none: str
    quiet_hold: str
    quiet_silent: str
    quiet_button_off: str
    quiet_button_hold: str
    quiet_button_silent: str
    quiet_show: str
    quiet_set: str
    quiet_off: str
    quiet_released: str
    quiet_held_until: str
    quiet_usage: str
    quiet_bad_time: str
    quiet_empty: str
    search_kinds: Mapping[str, str]
    """A real-estate search's category in /list (`habicht.willhaben.describe.Category`)."""
    search_from: str
    search_to: str
    search_between: str
    """An open or closed range of a search: `bis € 1.200`, `ab 50 m²`, `2-3`."""
    search_private: str
    search_company: str
    search_keyword: str
    search_more: str
    """Said when a search has filters its words in /list do not name."""
    estate_types: Mapping[str, str]
    estate_features: Mapping[str, str]
    """`PROPERTY_TYPE` and `ESTATE_PREFERENCE` ids in words (`habicht.willhaben.describe`)."""
    # filters and price history
    filter_usage: str
    filter_show: str
    filter_none: str
    filter_set: str
    filter_cleared: str
    filter_invalid: str
    filter_reasons: Mapping[str, str]
    list_filter: str
    list_hidden: str
    list_hit: str
    history_usage: str
    history_unknown: str
    history: str
    history_line: str
    history_none: str
    drop_path: str
    # notifications
    new_listing: str
    bumped_listing: str
    """An advert the watch cannot tell new from old: bumped to the top, never seen before."""
    price_drop: str
    new_listing_compact: str
    bumped_listing_compact: str
    price_drop_compact: str
    entered_listed: str
    """An advert older than the watch that came into its search since: new to it, listed then."""
    entered_search: str
    """The same without a date (a bumped advert's date is its bump)."""
    entered_drop: str
    """An advert that came into the search by a drop of its price."""
    place_km: str
    """A place with its distance from the centre of the watch's `near` rule."""
    going_under: str
    going_over: str
    going_at: str
    """The advert's price against its search's going price (the median of the last 30 days)."""
    going_compact: str
    repost: str
    repost_no_price: str
    # a sent alert kept true (issue 34): what it says on top once its advert changed
    follow_reserved: str
    follow_back: str
    follow_price: str
    follow_gone: str
    """A repost: the same seller and title as an advert that left the search's pages."""
    repost_compact: str
    months: Sequence[str]
    """January to December, as `entered_listed` writes dates."""
    estate_rent: str
    estate_buy: str
    """Whether a real-estate advert's price is a rent or a purchase price."""
    estate_area: str
    estate_rooms_one: str
    estate_rooms: str
    estate_per_m2: str
    """An amount per m² of living area: an advert's, or the going price of real estate."""
    estate_facts: str
    """A flat's line: rent or price, m², rooms, € per m², free areas."""
    free_areas: Mapping[str, str]
    """`FREE_AREA_TYPE` ids in words (Balkon, Terrasse, …)."""
    going_compact_m2: str
    # the buttons under an alert, and their answers (shown to the presser)
    button_open: str
    button_pause: str
    button_mute: str
    button_remove: str
    pressed_paused: str
    pressed_muted: str
    pressed_removed: str
    pressed_already_paused: str
    pressed_gone: str
    pressed_invalid: str
    pressed_outdated: str
    """A button signed before issue 35 (`Signer.outdated`): it acts on no watch."""
    no_price: str
    listings_one: str
    listings_many: str
    baseline: str
    # /preview: what a watch's filter did with its search's latest read (issue 21)
    preview_usage: str
    preview_never: str
    preview_header: str
    """The watch, when its search was read last and how many adverts that read showed."""
    preview_empty: str
    preview_all: str
    """No listing rule: every advert passes."""
    preview_passed: str
    preview_hidden: str
    """How many adverts the rule `{rule}` hid (the first rule that hid each)."""
    preview_unplaced: str
    """How many adverts `near` hid because habicht cannot place them."""
    preview_example: str
    preview_km: str
    preview_price_rules: str
    """The price rules, which judge drops only and are not previewed."""
    preview_paused: str
    preview_muted: str
    preview_footer: str
    # the going price, `deal` and `/stats <n>`
    stats_usage: str
    stats_watch: str
    """`/stats <n>`: a watch's figures on one screen (also a chart's caption: ≤ 1,024 units)."""
    stats_going: str
    stats_going_few: str
    """Fewer than `MIN_PRICES` prices: figures, but no alert line and no `deal` yet."""
    stats_going_none: str
    stats_shown: str
    stats_left_out: str
    stats_alerts_watch: str
    stats_deal: str
    stats_deal_waiting: str
    deal_waiting: str
    """Said when `deal` is set on a search without a going price yet."""
    # distance: `near` and the chat's shared location (issue 21)
    near_postcode: str
    near_here: str
    """The centre a watch's new `near` rule measures from, said after its filter."""
    near_no_location: str
    """`near here` before the chat shared a location: how to share one."""
    near_unknown_postcode: str
    """A postcode habicht has not placed yet (it learns them from the adverts it reads)."""
    location_saved: str
    location_saved_bare: str
    """A shared location, confirmed with the place understood (bare: no postcode known yet)."""
    location_abroad: str
    list_unplaced: str
    """In /list: adverts `near` hid because habicht could not place them."""
    # charts (the /history and /stats <n> pictures: plain text drawn into a PNG, no markup)
    chart_price: str
    """The advert's prices in its /history chart."""
    chart_median: str
    chart_band: str
    """Its searches' going price: the median, and the middle half of the prices (quartiles)."""
    chart_count: str
    """How many priced adverts each day's going price rests on (the /stats <n> chart)."""
    # the owner
    queue_usage: str
    queue_stats: str
    queue_none: str
    queue_next_retry: str
    queue_reason: str
    queue_held: str
    due_now: str
    due_in: str
    queue_dead_header: str
    queue_dead_line: str
    queue_dead_none: str
    queue_retried: str
    queue_purged: str
    stats: str
    cycle: str
    failing_line: str
    alert_dead: str
    alert_failing: str
    alert_recovered: str
    alert_replica: str
    alert_restored: str
    alert_blocked: str
    alert_unblocked: str
    alert_feed_off: str
    alert_stopped: str
    alert_error: str
    alert_database: str
    alert_database_ok: str
    storage_full: str
    storage_locked: str
    storage_io: str
    """A storage fault starts (`habicht.storage`): told straight through the Bot, since the
    outbox is what cannot be written."""
    storage_ok: str
    alert_behind: str
    alert_fresh_again: str
    alert_new_database: str
    advice_gap: str
    advice_interval: str
    advice_gap_only: str
    advice_cadence: str
    load_polled: str
    load_feeds: str
    load_feed_failing: str
    stats_feeds: str
    stats_following: str
    stats_alerts: str
    never: str
    feed_names: Mapping[str, str]
    """Each kind of feed (`scraper.figures.FeedKind`) in words; a feed of another path is
    named by its path."""
    stats_feed: str
    """`/stats`: one feed, the searches it serves of its own, its feed and coverage misses."""
    stats_feed_off: str
    stats_plain: str
    """`/stats`: the searches no feed can serve, the real-estate ones apart, and their round."""
