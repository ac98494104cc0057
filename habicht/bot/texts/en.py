"""Every text in English.

One `Catalog`: leaving out a text fails at import (`habicht.bot.texts.catalog`). Templates
are Telegram HTML; `{name}` placeholders are filled, escaped, by `Texts`; each takes the same
placeholders as its German twin (`tests/bot/test_catalog.py`).
"""

from __future__ import annotations

from habicht.bot.texts.catalog import Catalog

__all__ = ["ENGLISH"]

ENGLISH = Catalog(
    lang="en",
    menu={
        "watch": "watch a willhaben search (link or keywords)",
        "list": "your searches",
        "filter": "filter a search",
        "preview": "what a search's filter lets through",
        "history": "price history of a listing",
        "stats": "going price and figures of a search",
        "unwatch": "delete a search",
        "pause": "pause",
        "resume": "resume",
        "settings": "language and alerts",
        "quiet": "quiet hours",
        "help": "help",
    },
    start=(
        "👋 Hi! I watch willhaben.at searches for you and tell you about new listings and "
        "price drops.\n\nSend me <code>/watch</code> with a link to a willhaben search or "
        "with keywords, e.g. <code>/watch rtx 3080 max 500</code>.\n/help lists all commands."
    ),
    start_again="👋 Welcome back! Your {count} searches are active again.",
    start_again_one="👋 Welcome back! Your search is active again.",
    help=(
        "<b>Commands</b>\n"
        "/watch <i>link</i> — watch a willhaben search\n"
        "/watch <i>keywords</i> [max <i>price</i>] — search by keywords\n"
        "/list — your searches\n"
        "/filter <i>n</i> <i>rules</i> — filter search n (/filter lists the rules)\n"
        "/preview <i>n</i> — what search n's filter did with its latest read\n"
        "/filter <i>n</i> near <i>1070 5</i> — only listings nearby; "
        "<code>near here 5</code> measures from the location you share (📎 → Location)\n"
        "/history <i>link</i> — price history of a listing, charted against the median\n"
        "/stats <i>n</i> — going price (the median of 30 days) and figures of search n\n"
        "/unwatch <i>n</i> — delete search no. n\n"
        "/pause [<i>n</i>] — pause search n (or all)\n"
        "/resume [<i>n</i>] — resume it\n"
        "/settings — language and kind of alerts\n"
        "/quiet <i>22-7</i> [silent] — quiet hours (/quiet off ends them)\n"
        "/help — this help\n\n"
        "A new search first notes what is already there; after that you only get new "
        "listings and price drops."
    ),
    watch_usage=(
        "Like this: <code>/watch https://www.willhaben.at/iad/…</code> or "
        "<code>/watch rtx 3080 max 500</code>"
    ),
    watch_added=(
        "✅ Search no. {number}: <b>{label}</b>\n"
        "I'm looking at what is already there and will tell you how many listings in a "
        "moment. After that you get a message for every new listing and every price drop."
    ),
    watch_duplicate="You already watch this search: no. {number} (<b>{label}</b>).",
    watch_too_many="You already have {limit} searches, the most allowed. Delete one: /unwatch n.",
    watch_invalid="❌ I can't watch that: {reason}",
    invalid_reasons={
        "empty": "A link or keywords are missing.",
        "too_long": "The link or the keywords are too long.",
        "malformed": "That is not a valid link.",
        "scheme": "Only http(s) links work.",
        "host": "That is not a willhaben.at link.",
        "ad_page": "That is a single listing, not a search. Send the link of the search results.",
        "search_agent": (
            "That is a Suchagent (saved search alert) link. Open it in your browser and send me "
            "the address of the results page it shows."
        ),
        "not_search": "That willhaben page is not a search.",
        "price": "The price after <code>max</code> is not a sensible amount.",
    },
    invalid_other="The link or the keywords are not valid.",
    list_empty="You are not watching anything yet. Start with /watch.",
    list_header="<b>Your searches</b>",
    list_line='{number}. <a href="{url}">{label}</a> — {status}, {known}, {scan}',
    status_active="active",
    status_paused="⏸ paused",
    scan_never="not checked yet",
    scan_ok="checked {age} ago",
    scan_failing="⚠️ fetching fails at the moment",
    unwatch_usage="Which search shall I delete?",
    unwatch_done="🗑 Deleted search no. {number}: <b>{label}</b>",
    no_such_watch="There is no search no. {number}. /list shows your searches.",
    not_a_number="“{given}” is not a search number. /list shows the numbers of your searches.",
    no_watches="You have no searches. Start with /watch.",
    paused_one="⏸ Paused search no. {number}: <b>{label}</b>",
    paused_all="⏸ All your searches are paused. /resume resumes them.",
    resumed_one="▶️ Search no. {number} is running again: <b>{label}</b>",
    resumed_all="▶️ All your searches are running again.",
    unknown_command="I don't know that command. /help shows what I can do.",
    plain_text="Send me a willhaben link or /watch with keywords. /help helps.",
    offer_url="Shall I watch this search?\n<b>{label}</b>",
    button_watch="👀 Watch",
    offer_expired="This offer has expired; please send the link again.",
    not_admin="🔒 In this group, only its admins may do that.",
    settings=(
        "⚙️ <b>Settings of this chat</b>\n"
        "Language: {lang}\n"
        "Alerts: {style}\n"
        "Quiet hours: {quiet}\n"
        "Digest: when more than {digest} alerts arrive at once\n"
        "Update sent alerts: {follow}\n\n"
        "<i>Photo</i>: every listing with its picture — until photos are sent, as text with "
        "the link preview that shows the picture. <i>Compact</i>: one line, no preview.\n"
        "<i>Update</i>: an alert later says on top when its advert is reserved, cheaper or "
        "gone (silently)."
    ),
    follow_on="yes",
    follow_off="no",
    follow_button_on="🔄 update",
    follow_button_off="⏹ don't update",
    style_photo="🖼 Photo",
    style_compact="📝 Compact",
    digest="📬 <b>{count} alerts at once</b>",
    digest_button="📬 over {count}",
    quiet_none="none",
    quiet_hold="{window} ({zone}), alerts wait until the end",
    quiet_silent="{window} ({zone}), alerts arrive without a sound",
    quiet_button_off="🔔 no quiet hours",
    quiet_button_hold="🌙 hold",
    quiet_button_silent="🔕 silent",
    quiet_show=(
        "🌙 Quiet hours: {quiet}\n\n"
        "<code>/quiet 22-7</code>: alerts wait until 07:00, then arrive. "
        "<code>/quiet 22:30-6:45 silent</code>: they arrive at once, without a sound. "
        "<code>/quiet off</code> ends the quiet hours."
    ),
    quiet_set="🌙 Quiet hours: {quiet}",
    quiet_off="🔔 No more quiet hours: alerts arrive as they come.",
    quiet_released="{count} held alerts are on their way now.",
    quiet_held_until="{count} held alerts now wait until {until}.",
    quiet_usage=(
        "Like this: <code>/quiet 22-7</code>, <code>/quiet 22:30-6:45 silent</code> or "
        "<code>/quiet off</code>."
    ),
    quiet_bad_time="{given}: hours go up to 23, minutes up to 59.",
    quiet_empty="{given}: start and end are the same time — that is no quiet window.",
    search_kinds={
        "flat_rent": "Flat to rent",
        "flat_buy": "Flat to buy",
        "house_rent": "House to rent",
        "house_buy": "House to buy",
    },
    search_from="from {value}",
    search_to="up to {value}",
    search_between="{low}\u2013{high}",  # an en dash
    search_private="private sellers",
    search_company="companies",
    search_keyword="“{keyword}”",
    search_more="+ more filters",
    estate_types={
        "3": "flat",
        "100": "loft/studio",
        "101": "maisonette",
        "102": "penthouse",
        "105": "ground floor",
        "110": "top floor",
        "111": "studio flat",
        "112": "unconverted attic",
        "113": "housing cooperative",
        "16": "room/flat share",
        "27": "other",
    },
    estate_features={
        "4": "lift",
        "15": "parking space",
        "23": "garage",
        "24": "storeroom",
        "25": "step-free",
        "26": "carport",
        "27": "fitted kitchen",
        "28": "(part) furnished",
        "250": "cellar",
    },
    filter_usage=(
        "<b>Filter</b> for search no. n: <code>/filter n rules…</code>\n"
        "<code>+word</code> must appear · <code>-word</code> must not appear\n"
        "<code>min 100</code> · <code>max 1.200</code> · <code>priced</code> (with a price only)\n"
        "<code>private</code> (private sellers only) · <code>company</code> (companies only)\n"
        "<code>-reposts</code> no reposts (same seller, same title as an advert gone before)\n"
        "<code>near 1070 5</code> (5 km around postcode 1070) · <code>near here 12km</code> "
        "(around this chat's location: 📎 → Location)\n"
        "Price drops only: <code>drop 10%</code> · <code>drop 50€</code> · "
        "<code>below 300</code> (when the price falls under it) · <code>lowest</code> "
        "(a new lowest price)\n"
        "Bargains only: <code>deal 20%</code> (at least 20% under the search's median)\n"
        "<code>/filter n</code> shows the filter, <code>/filter n clear</code> removes it."
    ),
    filter_show="🔎 Filter of search no. {number} (<b>{label}</b>): {rules}",
    filter_none=(
        "Search no. {number} (<b>{label}</b>) has no filter. "
        "For example: <code>/filter {number} -defekt max 400</code>"
    ),
    filter_set=(
        "✅ Filter of search no. {number} (<b>{label}</b>): {rules}\n"
        "What it hides still counts as seen: loosen it later and no old listings flood in."
    ),
    filter_cleared="🧹 Removed the filter of search no. {number} (<b>{label}</b>).",
    filter_invalid="❌ {reason}\n/filter lists all rules.",
    filter_reasons={
        "unknown_rule": "“{token}” is not a rule I know.",
        "price": "“{token}”: a sensible amount is missing, e.g. <code>max 400</code>.",
        "drop_unit": "“{token}”: say <code>drop 10%</code> or <code>drop 50€</code>.",
        "percent": "“{token}”: the percentage must be between 1 and 99.",
        "empty_word": "“{token}”: the word after + or - is missing.",
        "word_too_long": "“{token}” is too long (40 characters at most).",
        "too_many_words": "At most {token} words per search.",
        "min_above_max": "“{token}”: min is above max.",
        "deal_unit": "“{token}”: say <code>deal 20%</code> (percent under the median).",
        "postcode": (
            "“{token}”: <code>near</code> takes a four-digit postcode "
            "(<code>near 1070 5</code>) or <code>here</code> for the shared location."
        ),
        "radius": (
            "“{token}”: the radius must be above 0 and at most 300 km, e.g. "
            "<code>near 1070 5</code> or <code>near here 12km</code>."
        ),
    },
    list_filter="    🔎 {rules}",
    list_hidden="    🙈 hidden in the last 24 h: {hits}",
    list_hit="{count} by “{rule}”",
    history_usage=(
        "Like this: <code>/history</code> and the link of a listing (or its willhaben code)."
    ),
    history_unknown="That listing has not been in any of your searches.",
    history='📈 <b><a href="{url}">{title}</a></b>\n{lines}',
    history_line="{price} — {age} ago",
    history_none="No price known yet.",
    drop_path="📈 {path} in {age}",
    new_listing='🆕 <b><a href="{url}">{title}</a></b>\n💶 {price}\n📍 {location}',
    bumped_listing=(
        '🔝 <b><a href="{url}">{title}</a></b>\n💶 {price}\n📍 {location}\n'
        "<i>Bumped to the top, not seen by this watch before: new, or an older listing.</i>"
    ),
    price_drop=(
        '📉 <b><a href="{url}">{title}</a></b>\n💶 <s>{old}</s> → <b>{new}</b> (-{percent}%)'
    ),
    new_listing_compact='🆕 <a href="{url}">{title}</a> · {price} · {location}',
    bumped_listing_compact='🔝 <a href="{url}">{title}</a> · {price} · {location} · <i>bumped</i>',
    price_drop_compact='📉 <a href="{url}">{title}</a> · <s>{old}</s> → <b>{new}</b> (-{percent}%)',
    entered_listed="New in your search · listed {date}",
    entered_search="New in your search",
    entered_drop="Now within your search",
    place_km="{place} · {km} km",
    going_under="📊 ≈ {percent}% under the median of {count} ({median}, 30 days)",
    going_over="📊 ≈ {percent}% over the median of {count} ({median}, 30 days)",
    going_at="📊 ≈ at the median of {count} ({median}, 30 days)",
    going_compact="📊 {signed}% vs median",
    repost="🔁 Reposted · first seen {date} at {price}",
    repost_no_price="🔁 Reposted · first seen {date}",
    follow_reserved="🔒 <b>reserved</b> (since {when})",
    follow_back="✅ <b>available again</b>",
    follow_price="💶 <b>now {price}</b> (was {was})",
    follow_gone="❌ <b>no longer online</b> (since {when})",
    repost_compact="🔁 reposted",
    # /preview
    preview_usage=(
        "Like this: <code>/preview n</code> shows what search no. n's filter did with the "
        "listings of its latest read: what passes, and what each rule hides."
    ),
    preview_never=(
        "Search no. {number} (<b>{label}</b>) has never been read yet, so there is nothing to "
        "show. The first read usually comes within minutes; /list shows how it stands."
    ),
    preview_header=(
        "🔎 <b>Preview of search no. {number}</b> (<b>{label}</b>)\n"
        "Latest read {age} ago: {adverts}"
    ),
    preview_empty="It showed no listings.",
    preview_all="✅ No filter: all {count} pass",
    preview_passed="✅ {count} pass",
    preview_hidden="🙈 {count} hidden by <code>{rule}</code>",
    preview_unplaced="🙈 {count} without a place: <code>near</code> cannot place them",
    preview_example='  • <a href="{url}">{title}</a> · {price}',
    preview_km=" · {km} km",
    preview_price_rules=(
        "<i>{rules}: price rules judge price drops only, so the preview does not apply them.</i>"
    ),
    preview_paused="⏸ Paused: this search tells you nothing until /resume {number}.",
    preview_muted="🔕 Muted for {age} more: until then this search tells you nothing.",
    preview_footer=(
        "<i>From the latest read, without a new request. Of what passes, you are told only "
        "what is new.</i>"
    ),
    stats_usage=(
        "Like this: <code>/stats n</code> shows the going price and the figures of your "
        "search no. n. /list shows the numbers."
    ),
    stats_watch='📊 <b>Search no. {number}: <a href="{url}">{label}</a></b>\n{lines}',
    stats_going="💶 median {median} of {count} prices (30 days)\n↔️ middle half: {low} to {high}",
    stats_going_few=(
        "💶 only {count} prices in 30 days (median {median}): alerts compare with the median, "
        "and <code>deal</code> works, from {min}"
    ),
    stats_going_none=(
        "💶 no prices in 30 days yet: alerts compare with the median, and <code>deal</code> "
        "works, from {min}"
    ),
    stats_shown="🔎 shown in 30 days: {shown}, {priced} with a price{left_out}",
    stats_left_out=" ({count} placeholders or outliers not counted)",
    stats_alerts_watch="🔔 alerts in 30 days: new listings {new}, price drops {drops}",
    stats_deal="🏷 <code>{rule}</code>: only listings at {threshold} or less",
    stats_deal_waiting="🏷 <code>{rule}</code>: hides everything until the search has {min} prices",
    deal_waiting=(
        "💡 Search no. {number} has only {count} prices from 30 days. Until it has {min}, there "
        "is no median, and <code>deal</code> hides every listing. /stats {number} shows how far "
        "it is."
    ),
    # distance: `near` and the chat's shared location (issue 21)
    near_postcode="📍 Within {km} km of {place}",
    near_here="📍 Within {km} km of this chat's location, near {place}",
    near_no_location=(
        "📍 For <code>near here</code> I first need this chat's location: 📎 → Location, "
        "best as a reply to this message. Or take a postcode, e.g. "
        "<code>/filter {number} near 1070 {km}</code>."
    ),
    near_unknown_postcode=(
        "📍 I don't know the postcode {postcode} yet: I learn postcodes from the listings I "
        "read. Share a location (📎 → Location) and use "
        "<code>/filter {number} near here {km}</code>."
    ),
    location_saved=(
        "📍 Location saved: near {place}, {km} km away.\n"
        "<code>near here</code> now measures from here, e.g. <code>/filter 1 near here 10</code>."
    ),
    location_saved_bare=(
        "📍 Location saved: {point}. I don't know a postcode near it yet.\n"
        "<code>near here</code> now measures from here, e.g. <code>/filter 1 near here 10</code>."
    ),
    location_abroad=(
        "🌍 This place is outside Austria. I'll measure from it all the same, but nearly all "
        "willhaben listings are in Austria."
    ),
    list_unplaced="{count} without a place",
    chart_price="listing's price",
    chart_median="search median (30 days)",
    chart_band="middle half of prices",
    chart_count="listings with a price (30 days)",
    months=("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
    estate_rent="rent",
    estate_buy="for sale",
    estate_area="{area} m²",
    estate_rooms_one="1 room",
    estate_rooms="{rooms} rooms",
    estate_per_m2="{price}/m²",
    estate_facts="🏠 {facts}",
    free_areas={
        "10": "terrace",
        "20": "balcony",
        "30": "loggia",
        "40": "roof terrace",
        "50": "conservatory",
        "60": "garden",
    },
    going_compact_m2="📊 {signed}% vs median/m²",
    button_open="🔗 Open",
    button_pause="⏸ Pause",
    button_mute="🔕 Mute 24 h",
    button_remove="🗑 Remove",
    pressed_paused="⏸ “{label}” is paused. /resume {number} resumes it.",
    pressed_muted="🔕 “{label}” is muted for 24 h; what it finds meanwhile counts as seen.",
    pressed_removed="🗑 “{label}” is removed.",
    pressed_already_paused="⏸ “{label}” is paused already. /resume {number} resumes it.",
    pressed_gone="This watch no longer exists.",
    pressed_invalid="This button is not valid (any more).",
    pressed_outdated=(
        "This button is from an older version of habicht and no longer works. /list shows"
        " your watches; use /pause or /unwatch with a watch's number."
    ),
    no_price="price on request",
    listings_one="{count} listing",
    listings_many="{count} listings",
    baseline=(
        "👀 <b>{label}</b>: I'm now watching {count} and will tell you about new "
        "listings and price drops from now on."
    ),
    queue_usage=(
        "/queue — overview\n/queue dead [<i>n</i>]\n/queue retry <i>id</i>|all\n"
        "/queue purge [<i>days</i>]"
    ),
    queue_stats=(
        "<b>Queue</b>\n"
        "pending: {pending} (oldest: {oldest}){held}\n"
        "of which retrying: {retrying}{next_retry}\n"
        "sending: {sending}\n"
        "sent (24 h): {sent_24h}\n"
        "dead: {dead}{reasons}"
    ),
    queue_none="—",
    queue_next_retry=" (next due: {due})",
    queue_reason="  • {reason}: {count}",
    queue_held="held until {until}: {count}",
    due_now="now",
    due_in="in {age}",
    queue_dead_header="<b>Latest dead messages</b>",
    queue_dead_line="#{id} chat {chat_id} · {kind} · {reason} · {age} ago",
    queue_dead_none="No dead messages. 🎉",
    queue_retried="Requeued {count} messages.",
    queue_purged="Deleted {count} old messages (older than {days} days).",
    stats=(
        "<b>Statistics</b>\n"
        "chats: {chats} (active: {active_chats})\n"
        "watches: {watches} (active: {active_watches}), unique searches: {searches}\n"
        "listings known: {listings}\n"
        "last cycle: {last_cycle}\n"
        "freshness: stalest {stalest} ago, 95 % {p95} ago (target: every {interval})\n"
        "{load}\n"
        "{alerts}\n"
        "{following}\n"
        "failing searches: {failing}"
    ),
    stats_following=(
        "sent alerts kept true: {followed} adverts; page checks (1 h): {checks};"
        " edits (24 h): {sent} sent, {impossible} not possible, {gone} adverts gone"
    ),
    stats_feeds="feed misses: {misses} · coverage misses: {uncovered}",
    stats_alerts=(
        "new-listing alerts (1 h): {count}; first read → queued: {seen_p50} (p50),"
        " {seen_p95} (p95); published → queued: {published_p50} (p50), {published_p95} (p95)"
    ),
    cycle="{age} ago, took {took}",
    failing_line='<a href="{url}">{label}</a> ({kind}, {count} times, {watchers} watchers)',
    alert_dead="⚠️ Dead messages: {count} ({reasons}). Details: /queue dead",
    alert_failing=(
        '⚠️ Search <a href="{url}">{label}</a> has failed {count} cycles in a row ({kind}): {error}'
    ),
    alert_replica=(
        "⚠️ Litestream exited (code {code}): the replica is not written until it runs again"
        " (habicht restarts it). See habicht health."
    ),
    alert_restored=(
        "♻️ The database was restored ({source}): as of {moment}. {pending} alerts were"
        " waiting in it and go out now. Alerts already sent after that moment may arrive a"
        " second time; what changed after it (new watches, settings) is gone."
    ),
    alert_recovered='✅ Search works again: <a href="{url}">{label}</a>',
    alert_blocked="⛔ willhaben blocks us; pausing for {wait}.",
    alert_unblocked="✅ willhaben answers again.",
    alert_feed_off=(
        "📡 The feed of {feed} does not list what {searches} searches find; they are polled on"
        " their own again."
    ),
    alert_stopped="🛑 Delivery stopped: {reason}",
    alert_error="🐞 Error: <code>{error}</code>",
    alert_database="🗄 Database error, the pass stops: <code>{error}</code>",
    alert_database_ok="✅ The database works again.",
    storage_full=(
        "🗄 The database disk is full (<code>{path}</code>): alerts are held, nothing is lost;"
        " free space to resume."
    ),
    storage_locked=(
        "🗄 The database is locked by another program (<code>{path}</code>): alerts are held,"
        " nothing is lost; end its transaction (a backup, an sqlite3 shell) to resume."
    ),
    storage_io=(
        "🗄 The database cannot be written (<code>{path}</code>: {error}): alerts are held,"
        " nothing is lost; check the disk to resume."
    ),
    storage_ok=(
        "✅ The database takes writes again (<code>{path}</code>, after {duration}): the held"
        " alerts go out now."
    ),
    alert_behind=(
        "🐢 Searches fall behind: the stalest of {searches} was read {stalest} ago, the"
        " target is every {interval}. {load}. At {per_search} s per request, {fits} requests"
        " fit in an interval and {requests} compete; {advice}."
    ),
    alert_fresh_again="✅ Searches are fresh again (stalest read {stalest} ago).",
    alert_new_database=(
        "🗄 Started with a new, empty database at <code>{path}</code> — if you had watches,"
        " the data volume is not mounted."
    ),
    advice_gap="HABICHT_FETCH_GAP={gap} or HABICHT_SCRAPE_INTERVAL ≥ {interval} would fit",
    advice_interval="HABICHT_SCRAPE_INTERVAL ≥ {interval} would fit",
    advice_gap_only="HABICHT_FETCH_GAP={gap} would fit",
    advice_cadence=(
        "the feeds and the safety net alone fill the budget: a longer HABICHT_SAFETY_INTERVAL"
        " or HABICHT_FEED_INTERVAL would help"
    ),
    load_polled="{polled} searches polled on their own (stalest {age} ago)",
    load_feeds=(
        "; {feeds} feed(s) serve {fed} searches (read {age} ago{failing}), their own scans"
        " every {safety} (stalest {safety_age} ago)"
    ),
    load_feed_failing=", failing {count} times in a row",
    never="never",
    feed_names={
        "marketplace": "the marketplace",
        "rent": "flats to rent",
        "buy": "flats to buy",
    },
    stats_feed=(
        "📡 {name}: serves {served} of {searches} searches · feed misses: {misses}"
        " · coverage misses: {uncovered}{off}"
    ),
    stats_feed_off=" · switched off for another {age}",
    stats_plain=(
        "plain: {plain} searches no feed can serve, {estate} of them real estate, whose new"
        " flats wait a whole polling round (≈ {round})"
    ),
)
