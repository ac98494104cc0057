"""Every word habicht says on Telegram, in German (the default) and English.

All messages are Telegram HTML. Templates hold the markup; every value put into them — a
listing's title, a subscriber's keywords, an error message — is escaped by `_fill`, so a
title like `<b>&` arrives as text, never as markup or a parse error. Long values are shortened
*before* escaping, so a cut can never fall inside an entity such as `&amp;`.

A message never exceeds Telegram's limit of 4096 UTF-16 code units (an emoji outside the
Basic Multilingual Plane counts 2): values are shortened to fixed budgets and lists stop
with "…" before the limit, all measured in UTF-16 code units as Telegram measures. (Telegram
counts the text after parsing the entities, which is never longer than the HTML we measure.)
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from itertools import accumulate
from typing import Literal
from zoneinfo import ZoneInfo

from habicht.market.going import MIN_PRICES, PriceStats
from habicht.market.places import Located, Place
from habicht.queue import QuietHours
from habicht.watches.figures import WatchFigures
from habicht.watches.filters import NO_PLACE
from habicht.watches.notes import NO_NOTES, AlertNotes, Repost

__all__ = [
    "CATALOGS",
    "ENGLISH",
    "ERROR_BUDGET",
    "GERMAN",
    "LANGUAGE_NAMES",
    "MAX_CAPTION",
    "MAX_MESSAGE",
    "Catalog",
    "Html",
    "Lang",
    "Texts",
    "describe_quiet",
    "escape",
    "format_price",
    "shorten",
    "utf16_len",
    "visible_len",
]

Lang = Literal["de", "en"]

LANGUAGE_NAMES: Mapping[Lang, str] = {"de": "🇩🇪 Deutsch", "en": "🇬🇧 English"}
"""Each language in its own words, the same in every catalog (one looks for one's own)."""

MAX_MESSAGE = 4096
"""Telegram's limit on a message's text, in UTF-16 code units."""
MAX_CAPTION = 1024
"""Telegram's limit on a photo's caption, in UTF-16 code units (counted after parsing): the
budgets below keep every alert within it (a test renders the longest one)."""

TITLE_BUDGET = 200
LABEL_BUDGET = 80
LOCATION_BUDGET = 100
PRICE_BUDGET = 40
"""willhaben's own price wording (`PRICE_FOR_DISPLAY`: "VB", "auf Anfrage") of a price-less one."""
ERROR_BUDGET = 300
ECHO_BUDGET = 40
"""A subscriber's own words repeated back (a bad argument): enough to recognise them."""
VIENNA = ZoneInfo("Europe/Vienna")
"""willhaben's clock: the zone its adverts' dates are told in."""
PATH_POINTS = 6
"""Prices a drop alert's path shows at most (the latest ones, after "…")."""


_TAG = re.compile(r"<[^>]*>")


class Html(str):
    """A string that is already safe HTML; `_fill` inserts it as it is."""

    __slots__ = ()


def utf16_len(text: str) -> int:
    """The length Telegram sees: UTF-16 code units, so an emoji like 😀 counts 2."""
    return len(text.encode("utf-16-le")) // 2


def visible_len(text: Html) -> int:
    """The length Telegram counts of an HTML text: tags gone, entities decoded (UTF-16)."""
    return utf16_len(html.unescape(_TAG.sub("", text)))


def shorten(text: str, limit: int) -> str:
    """`text` with whitespace collapsed, cut to at most `limit` UTF-16 code units ending in "…".

    The cut falls between code points, never inside a surrogate pair.
    """
    text = " ".join(text.split())
    if utf16_len(text) <= limit:
        return text
    sizes = accumulate(2 if ord(char) > 0xFFFF else 1 for char in text)
    end = sum(1 for size in sizes if size <= limit - 1)  # room for the "…" (one unit)
    return text[:end].rstrip() + "…"


def escape(text: str) -> str:
    """`&`, `<`, `>` and `"` as the four named entities Telegram's HTML knows.

    (`html.escape` would also write `'` as `&#x27;`; Telegram accepts numeric entities, but
    the apostrophe needs no escaping anywhere, so it stays readable in logs and tests.)
    """
    return html.escape(text, quote=False).replace('"', "&quot;")


def _fill(template: str, **values: object) -> Html:
    """`template.format(**values)`, escaping every value that is not already `Html`."""
    safe = {
        name: value if isinstance(value, Html) else escape(str(value))
        for name, value in values.items()
    }
    return Html(template.format(**safe))


def format_price(price: Decimal, lang: Lang) -> str:
    """`€ 1.234` / `€ 1.234,50` in German, `€1,234` / `€1,234.50` in English."""
    whole = price == price.to_integral_value()
    amount = price.quantize(Decimal(1) if whole else Decimal("0.01"), rounding=ROUND_HALF_UP)
    text = f"{amount:,.0f}" if whole else f"{amount:,.2f}"
    if lang == "de":
        return "€ " + text.replace(",", "\0").replace(".", ",").replace("\0", ".")
    return "€" + text


def _percent_drop(old: Decimal, new: Decimal) -> int:
    """How much cheaper, in whole percent of the old price (rounded half up)."""
    if old <= 0:
        return 0
    return int(((old - new) * 100 / old).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _age(seconds: float, lang: Lang) -> str:
    """A short, rounded duration: `45 s`, `12 min`, `3 h`, `2 d` (`Tg` in German)."""
    seconds = max(0.0, seconds)
    day = "Tg" if lang == "de" else "d"
    for size, unit in ((86400, day), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit}"
    return f"{int(seconds)} s"


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
    """A repost: the same seller and title as an advert that left the search's pages."""
    repost_compact: str
    months: Sequence[str]
    """January to December, as `entered_listed` writes dates."""
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
    stats_alerts: str
    never: str


GERMAN = Catalog(
    lang="de",
    menu={
        "watch": "willhaben-Suche beobachten (Link oder Begriffe)",
        "list": "deine Suchen",
        "filter": "eine Suche filtern",
        "preview": "was der Filter einer Suche durchlässt",
        "history": "Preisverlauf einer Anzeige",
        "stats": "Marktpreis und Zahlen einer Suche",
        "unwatch": "eine Suche löschen",
        "pause": "pausieren",
        "resume": "fortsetzen",
        "settings": "Sprache und Alarme",
        "quiet": "Ruhezeiten",
        "help": "Hilfe",
    },
    start=(
        "👋 Hallo! Ich beobachte willhaben.at-Suchen für dich und melde neue Anzeigen und "
        "Preissenkungen.\n\nSchick mir <code>/watch</code> mit einem Link zu einer "
        "willhaben-Suche oder mit Suchbegriffen, z. B. <code>/watch rtx 3080 max 500</code>.\n"
        "/help zeigt alle Befehle."
    ),
    start_again="👋 Willkommen zurück! Deine {count} Suchen sind wieder aktiv.",
    start_again_one="👋 Willkommen zurück! Deine Suche ist wieder aktiv.",
    help=(
        "<b>Befehle</b>\n"
        "/watch <i>Link</i> — eine willhaben-Suche beobachten\n"
        "/watch <i>Begriffe</i> [max <i>Preis</i>] — nach Begriffen suchen\n"
        "/list — deine Suchen\n"
        "/filter <i>n</i> <i>Regeln</i> — Suche n filtern (/filter zeigt die Regeln)\n"
        "/preview <i>n</i> — was der Filter von Suche n mit ihrem letzten Abruf machte\n"
        "/filter <i>n</i> near <i>1070 5</i> — nur Anzeigen im Umkreis; "
        "<code>near here 5</code> misst vom Standort, den du teilst (📎 → Standort)\n"
        "/history <i>Link</i> — Preisverlauf einer Anzeige, als Bild gegen den Median\n"
        "/stats <i>n</i> — Marktpreis (Median der 30 Tage) und Zahlen von Suche n\n"
        "/unwatch <i>n</i> — Suche Nr. n löschen\n"
        "/pause [<i>n</i>] — Suche n (oder alle) pausieren\n"
        "/resume [<i>n</i>] — wieder aufnehmen\n"
        "/settings — Sprache und Art der Alarme\n"
        "/quiet <i>22-7</i> [silent] — Ruhezeiten (/quiet off beendet sie)\n"
        "/help — diese Hilfe\n\n"
        "Eine neue Suche merkt sich zuerst, was es schon gibt; danach bekommst du nur neue "
        "Anzeigen und Preissenkungen."
    ),
    watch_usage=(
        "So geht's: <code>/watch https://www.willhaben.at/iad/…</code> oder "
        "<code>/watch rtx 3080 max 500</code>"
    ),
    watch_added=(
        "✅ Suche Nr. {number}: <b>{label}</b>\n"
        "Ich schaue jetzt nach, was es schon gibt, und melde mich gleich mit der Anzahl. "
        "Danach schreibe ich dir bei jeder neuen Anzeige und jeder Preissenkung."
    ),
    watch_duplicate="Diese Suche beobachtest du schon: Nr. {number} (<b>{label}</b>).",
    watch_too_many=(
        "Du hast schon {limit} Suchen, mehr geht nicht. Lösche eine mit /unwatch <i>n</i>."
    ),
    watch_invalid="❌ Das kann ich nicht beobachten: {reason}",
    invalid_reasons={
        "empty": "Es fehlt ein Link oder Suchbegriff.",
        "too_long": "Der Link oder die Suchbegriffe sind zu lang.",
        "malformed": "Das ist kein gültiger Link.",
        "scheme": "Nur http(s)-Links gehen.",
        "host": "Das ist kein Link zu willhaben.at.",
        "ad_page": "Das ist eine einzelne Anzeige, keine Suche; schick den Link der Ergebnisse.",
        "search_agent": (
            "Das ist ein Suchagent-Link. Öffne ihn im Browser und schick mir die Adresse der "
            "Ergebnisseite, die er zeigt."
        ),
        "not_search": "Diese willhaben-Seite ist keine Suche.",
        "price": "Der Höchstpreis nach <code>max</code> ist kein sinnvoller Betrag.",
    },
    invalid_other="Der Link oder die Suchbegriffe sind ungültig.",
    list_empty="Du beobachtest noch nichts. Starte mit /watch.",
    list_header="<b>Deine Suchen</b>",
    list_line='{number}. <a href="{url}">{label}</a> — {status}, {known}, {scan}',
    status_active="aktiv",
    status_paused="⏸ pausiert",
    scan_never="noch nicht geprüft",
    scan_ok="geprüft vor {age}",
    scan_failing="⚠️ Abruf klappt gerade nicht",
    unwatch_usage="Welche Suche soll ich löschen?",
    unwatch_done="🗑 Suche Nr. {number} gelöscht: <b>{label}</b>",
    no_such_watch="Eine Suche Nr. {number} gibt es nicht. /list zeigt deine Suchen.",
    not_a_number="„{given}“ ist keine Suchnummer. /list zeigt die Nummern deiner Suchen.",
    no_watches="Du hast keine Suchen. Starte mit /watch.",
    paused_one="⏸ Suche Nr. {number} pausiert: <b>{label}</b>",
    paused_all="⏸ Alle deine Suchen sind pausiert. /resume nimmt sie wieder auf.",
    resumed_one="▶️ Suche Nr. {number} läuft wieder: <b>{label}</b>",
    resumed_all="▶️ Alle deine Suchen laufen wieder.",
    unknown_command="Diesen Befehl kenne ich nicht. /help zeigt, was geht.",
    plain_text="Schick mir einen willhaben-Link oder /watch mit Suchbegriffen. /help hilft.",
    offer_url="Soll ich diese Suche beobachten?\n<b>{label}</b>",
    button_watch="👀 Beobachten",
    offer_expired="Dieses Angebot ist abgelaufen; schick den Link bitte noch einmal.",
    not_admin="🔒 Das dürfen in dieser Gruppe nur ihre Admins.",
    settings=(
        "⚙️ <b>Einstellungen dieses Chats</b>\n"
        "Sprache: {lang}\n"
        "Alarme: {style}\n"
        "Ruhezeiten: {quiet}\n"
        "Sammelnachricht: bei mehr als {digest} Alarmen auf einmal\n\n"
        "<i>Foto</i>: jede Anzeige mit ihrem Bild — bis Fotos verschickt werden, als Text mit "
        "der Linkvorschau, die das Bild zeigt. <i>Kompakt</i>: eine Zeile, ohne Vorschau."
    ),
    style_photo="🖼 Foto",
    style_compact="📝 Kompakt",
    digest="📬 <b>{count} Alarme auf einmal</b>",
    digest_button="📬 über {count}",
    quiet_none="keine",
    quiet_hold="{window} ({zone}), Alarme warten bis zum Ende",
    quiet_silent="{window} ({zone}), Alarme kommen ohne Ton",
    quiet_button_off="🔔 keine Ruhezeiten",
    quiet_button_hold="🌙 warten",
    quiet_button_silent="🔕 ohne Ton",
    quiet_show=(
        "🌙 Ruhezeiten: {quiet}\n\n"
        "<code>/quiet 22-7</code>: Alarme warten bis 07:00 und kommen dann. "
        "<code>/quiet 22:30-6:45 silent</code>: sie kommen gleich, aber ohne Ton. "
        "<code>/quiet off</code> beendet die Ruhezeiten."
    ),
    quiet_set="🌙 Ruhezeiten: {quiet}",
    quiet_off="🔔 Keine Ruhezeiten mehr: Alarme kommen, sobald es sie gibt.",
    quiet_released="{count} zurückgehaltene Alarme kommen jetzt.",
    quiet_held_until="{count} zurückgehaltene Alarme warten jetzt bis {until}.",
    quiet_usage=(
        "So geht's: <code>/quiet 22-7</code>, <code>/quiet 22:30-6:45 silent</code> oder "
        "<code>/quiet off</code>."
    ),
    quiet_bad_time="{given}: Stunden gehen bis 23, Minuten bis 59.",
    quiet_empty="{given}: Beginn und Ende sind gleich — das ist keine Ruhezeit.",
    filter_usage=(
        "<b>Filter</b> für Suche Nr. n: <code>/filter n Regeln…</code>\n"
        "<code>+wort</code> muss vorkommen · <code>-wort</code> darf nicht vorkommen\n"
        "<code>min 100</code> · <code>max 1.200</code> · <code>priced</code> (nur mit Preis)\n"
        "<code>private</code> (nur privat) · <code>company</code> (nur Händler)\n"
        "<code>-reposts</code> keine erneut eingestellten Anzeigen (gleicher Verkäufer, "
        "gleicher Titel)\n"
        "<code>near 1070 5</code> (5 km um PLZ 1070) · <code>near here 12km</code> (um den "
        "Standort dieses Chats: 📎 → Standort)\n"
        "Preissenkungen nur: <code>drop 10%</code> · <code>drop 50€</code> · "
        "<code>below 300</code> (wenn der Preis darunter fällt) · <code>lowest</code> "
        "(neuer Tiefstpreis)\n"
        "Nur Schnäppchen: <code>deal 20%</code> (mindestens 20 % unter dem Median der Suche)\n"
        "<code>/filter n</code> zeigt den Filter, <code>/filter n clear</code> löscht ihn."
    ),
    filter_show="🔎 Filter von Suche Nr. {number} (<b>{label}</b>): {rules}",
    filter_none=(
        "Suche Nr. {number} (<b>{label}</b>) hat keinen Filter. "
        "Zum Beispiel: <code>/filter {number} -defekt max 400</code>"
    ),
    filter_set=(
        "✅ Filter von Suche Nr. {number} (<b>{label}</b>): {rules}\n"
        "Was er ausblendet, merke ich mir als gesehen: lockerst du ihn später, kommen keine "
        "alten Anzeigen nach."
    ),
    filter_cleared="🧹 Filter von Suche Nr. {number} (<b>{label}</b>) gelöscht.",
    filter_invalid="❌ {reason}\n/filter zeigt alle Regeln.",
    filter_reasons={
        "unknown_rule": "„{token}“ ist keine Regel, die ich kenne.",
        "price": "„{token}“: da fehlt ein sinnvoller Betrag, z. B. <code>max 400</code>.",
        "drop_unit": "„{token}“: sag <code>drop 10%</code> oder <code>drop 50€</code>.",
        "percent": "„{token}“: der Prozentsatz muss zwischen 1 und 99 liegen.",
        "empty_word": "„{token}“: nach + oder - fehlt das Wort.",
        "word_too_long": "„{token}“ ist zu lang (höchstens 40 Zeichen).",
        "too_many_words": "Höchstens {token} Wörter pro Suche.",
        "min_above_max": "„{token}“: min ist größer als max.",
        "deal_unit": "„{token}“: sag <code>deal 20%</code> (Prozent unter dem Median).",
        "postcode": (
            "„{token}“: nach <code>near</code> kommt eine Postleitzahl mit vier Ziffern "
            "(<code>near 1070 5</code>) oder <code>here</code> für den geteilten Standort."
        ),
        "radius": (
            "„{token}“: der Umkreis muss über 0 und höchstens 300 km sein, z. B. "
            "<code>near 1070 5</code> oder <code>near here 12km</code>."
        ),
    },
    list_filter="    🔎 {rules}",
    list_hidden="    🙈 ausgeblendet in den letzten 24 h: {hits}",
    list_hit="{count} durch „{rule}“",
    history_usage=(
        "So geht's: <code>/history</code> und der Link einer Anzeige (oder ihr willhaben-Code)."
    ),
    history_unknown="Diese Anzeige ist in keiner deiner Suchen vorgekommen.",
    history='📈 <b><a href="{url}">{title}</a></b>\n{lines}',
    history_line="{price} — vor {age}",
    history_none="Noch kein Preis bekannt.",
    drop_path="📈 {path} in {age}",
    new_listing='🆕 <b><a href="{url}">{title}</a></b>\n💶 {price}\n📍 {location}',
    bumped_listing=(
        '🔝 <b><a href="{url}">{title}</a></b>\n💶 {price}\n📍 {location}\n'
        "<i>Nach oben geschoben; diese Suche kannte die Anzeige noch nicht: neu oder älter.</i>"
    ),
    price_drop=(
        '📉 <b><a href="{url}">{title}</a></b>\n💶 <s>{old}</s> → <b>{new}</b> (-{percent} %)'
    ),
    new_listing_compact='🆕 <a href="{url}">{title}</a> · {price} · {location}',
    bumped_listing_compact=(
        '🔝 <a href="{url}">{title}</a> · {price} · {location} · <i>nach oben geschoben</i>'
    ),
    price_drop_compact=(
        '📉 <a href="{url}">{title}</a> · <s>{old}</s> → <b>{new}</b> (-{percent} %)'
    ),
    entered_listed="Neu in deiner Suche · eingestellt am {date}",
    entered_search="Neu in deiner Suche",
    entered_drop="Jetzt in deiner Suche",
    place_km="{place} · {km} km",
    going_under="📊 ≈ {percent} % unter dem Median von {count} ({median}, 30 Tage)",
    going_over="📊 ≈ {percent} % über dem Median von {count} ({median}, 30 Tage)",
    going_at="📊 ≈ am Median von {count} ({median}, 30 Tage)",
    going_compact="📊 {signed} % zum Median",
    repost="🔁 Erneut eingestellt · zuerst gesehen am {date} zu {price}",
    repost_no_price="🔁 Erneut eingestellt · zuerst gesehen am {date}",
    repost_compact="🔁 erneut eingestellt",
    # /preview
    preview_usage=(
        "So geht's: <code>/preview n</code> zeigt, was der Filter von Suche Nr. n mit den "
        "Anzeigen ihres letzten Abrufs machte: was durchkommt und was welche Regel ausblendet."
    ),
    preview_never=(
        "Suche Nr. {number} (<b>{label}</b>) wurde noch nie abgerufen, es gibt noch nichts "
        "zu zeigen. Meist klappt der erste Abruf binnen Minuten; /list zeigt, wie es steht."
    ),
    preview_header=(
        "🔎 <b>Vorschau von Suche Nr. {number}</b> (<b>{label}</b>)\n"
        "Letzter Abruf vor {age}: {adverts}"
    ),
    preview_empty="Er zeigte keine Anzeigen.",
    preview_all="✅ Kein Filter: alle {count} kommen durch",
    preview_passed="✅ {count} kommen durch",
    preview_hidden="🙈 {count} blendet <code>{rule}</code> aus",
    preview_unplaced="🙈 {count} ohne Ort: <code>near</code> kann sie nicht verorten",
    preview_example='  • <a href="{url}">{title}</a> · {price}',
    preview_km=" · {km} km",
    preview_price_rules=(
        "<i>{rules}: Preisregeln gelten nur für Preissenkungen, die Vorschau wendet sie "
        "nicht an.</i>"
    ),
    preview_paused="⏸ Pausiert: diese Suche meldet nichts, bis /resume {number}.",
    preview_muted="🔕 Stumm, noch {age}: bis dahin meldet diese Suche nichts.",
    preview_footer=(
        "<i>Aus dem letzten Abruf, ohne neue Anfrage. Gemeldet wird von dem, was durchkommt, "
        "nur was neu ist.</i>"
    ),
    stats_usage=(
        "So geht's: <code>/stats n</code> zeigt den Marktpreis und die Zahlen deiner Suche "
        "Nr. n. /list zeigt die Nummern."
    ),
    stats_watch='📊 <b>Suche Nr. {number}: <a href="{url}">{label}</a></b>\n{lines}',
    stats_going=(
        "💶 Median {median} aus {count} Preisen (30 Tage)\n↔️ mittlere Hälfte: {low} bis {high}"
    ),
    stats_going_few=(
        "💶 erst {count} Preise in 30 Tagen (Median {median}): den Vergleich in den Alarmen "
        "und <code>deal</code> gibt es ab {min}"
    ),
    stats_going_none=(
        "💶 noch keine Preise in 30 Tagen: den Vergleich in den Alarmen und <code>deal</code> "
        "gibt es ab {min}"
    ),
    stats_shown="🔎 gezeigt in 30 Tagen: {shown}, {priced} mit Preis{left_out}",
    stats_left_out=" ({count} als Platzhalter oder Ausreißer nicht gezählt)",
    stats_alerts_watch="🔔 Alarme in 30 Tagen: neue Anzeigen {new}, Preissenkungen {drops}",
    stats_deal="🏷 <code>{rule}</code>: nur Anzeigen bis {threshold}",
    stats_deal_waiting="🏷 <code>{rule}</code>: blendet alles aus, bis die Suche {min} Preise hat",
    deal_waiting=(
        "💡 Suche Nr. {number} hat erst {count} Preise aus 30 Tagen. Bis es {min} sind, gibt "
        "es keinen Median, und <code>deal</code> blendet jede Anzeige aus. /stats {number} "
        "zeigt den Stand."
    ),
    # distance: `near` and the chat's shared location (issue 21)
    near_postcode="📍 Umkreis von {km} km um {place}",
    near_here="📍 Umkreis von {km} km um den Standort dieses Chats, bei {place}",
    near_no_location=(
        "📍 Für <code>near here</code> brauche ich zuerst den Standort dieses Chats: "
        "📎 → Standort, am besten als Antwort auf diese Nachricht. Oder nimm eine "
        "Postleitzahl, z. B. <code>/filter {number} near 1070 {km}</code>."
    ),
    near_unknown_postcode=(
        "📍 Die Postleitzahl {postcode} kenne ich noch nicht: ich lerne Postleitzahlen aus "
        "den Anzeigen, die ich lese. Teile den Standort (📎 → Standort) und nimm "
        "<code>/filter {number} near here {km}</code>."
    ),
    location_saved=(
        "📍 Standort gespeichert: bei {place}, {km} km entfernt.\n"
        "<code>near here</code> misst jetzt von hier, z. B. <code>/filter 1 near here 10</code>."
    ),
    location_saved_bare=(
        "📍 Standort gespeichert: {point}. Eine Postleitzahl in der Nähe kenne ich noch nicht.\n"
        "<code>near here</code> misst jetzt von hier, z. B. <code>/filter 1 near here 10</code>."
    ),
    location_abroad=(
        "🌍 Dieser Ort liegt außerhalb Österreichs. Ich messe trotzdem von hier, aber "
        "willhaben-Anzeigen sind fast alle in Österreich."
    ),
    list_unplaced="{count} ohne Ort",
    chart_price="Preis der Anzeige",
    chart_median="Median der Suche (30 Tage)",
    chart_band="mittlere Hälfte der Preise",
    chart_count="Anzeigen mit Preis (30 Tage)",
    months=(
        "Jän.",
        "Feb.",
        "März",
        "Apr.",
        "Mai",
        "Juni",
        "Juli",
        "Aug.",
        "Sep.",
        "Okt.",
        "Nov.",
        "Dez.",
    ),
    button_open="🔗 Öffnen",
    button_pause="⏸ Pausieren",
    button_mute="🔕 24 h stumm",
    button_remove="🗑 Entfernen",
    pressed_paused="⏸ „{label}“ ist pausiert. /resume {number} setzt fort.",
    pressed_muted="🔕 „{label}“ ist 24 h stumm; was sie bis dahin findet, gilt als gesehen.",
    pressed_removed="🗑 „{label}“ ist entfernt.",
    pressed_already_paused="⏸ „{label}“ ist schon pausiert. /resume {number} setzt fort.",
    pressed_gone="Diese Suche gibt es nicht mehr.",
    pressed_invalid="Dieser Knopf ist nicht (mehr) gültig.",
    no_price="Preis auf Anfrage",
    listings_one="{count} Anzeige",
    listings_many="{count} Anzeigen",
    baseline=(
        "👀 <b>{label}</b>: ich beobachte jetzt {count} und melde dir ab sofort "
        "neue Anzeigen und Preissenkungen."
    ),
    queue_usage=(
        "/queue — Übersicht\n/queue dead [<i>n</i>]\n/queue retry <i>id</i>|all\n"
        "/queue purge [<i>Tage</i>]"
    ),
    queue_stats=(
        "<b>Warteschlange</b>\n"
        "wartend: {pending} (älteste: {oldest}){held}\n"
        "davon Wiederholung: {retrying}{next_retry}\n"
        "wird gesendet: {sending}\n"
        "gesendet (24 h): {sent_24h}\n"
        "tot: {dead}{reasons}"
    ),
    queue_none="—",
    queue_next_retry=" (nächste fällig: {due})",
    queue_reason="  • {reason}: {count}",
    queue_held="zurückgehalten bis {until}: {count}",
    due_now="jetzt",
    due_in="in {age}",
    queue_dead_header="<b>Letzte tote Nachrichten</b>",
    queue_dead_line="#{id} Chat {chat_id} · {kind} · {reason} · vor {age}",
    queue_dead_none="Keine toten Nachrichten. 🎉",
    queue_retried="{count} Nachrichten wieder eingereiht.",
    queue_purged="{count} alte Nachrichten gelöscht (älter als {days} Tage).",
    stats=(
        "<b>Statistik</b>\n"
        "Chats: {chats} (aktiv: {active_chats})\n"
        "Suchen: {watches} (aktiv: {active_watches}), eindeutige URLs: {searches}\n"
        "Anzeigen bekannt: {listings}\n"
        "letzter Durchlauf: {last_cycle}\n"
        "Aktualität: älteste Suche vor {stalest}, 95 % vor {p95} (Ziel: alle {interval})\n"
        "{load}\n"
        "{alerts}\n"
        "fehlerhafte Suchen: {failing}"
    ),
    stats_feeds="Feed-Fehltreffer: {misses} · Abdeckungslücken: {uncovered}",
    stats_alerts=(
        "neue Anzeigen (1 h): {count}; erstmals gelesen → eingereiht: {seen_p50} (p50),"
        " {seen_p95} (p95); veröffentlicht → eingereiht: {published_p50} (p50),"
        " {published_p95} (p95)"
    ),
    cycle="vor {age}, Dauer {took}",
    failing_line="#{search_id} ({kind}, {count} Mal, {watchers} Abos): {url}",
    alert_dead="⚠️ Tote Nachrichten: {count} ({reasons}). Details: /queue dead",
    alert_failing="⚠️ Suche #{search_id} schlägt seit {count} Durchläufen fehl ({kind}): {error}",
    alert_recovered="✅ Suche läuft wieder: {url}",
    alert_blocked="⛔ willhaben blockiert uns; Pause für {wait}.",
    alert_unblocked="✅ willhaben antwortet wieder.",
    alert_feed_off=(
        "📡 Der Marktplatz-Feed listet nicht, was {searches} Suchen finden; sie werden wieder"
        " einzeln abgefragt."
    ),
    alert_stopped="🛑 Zustellung gestoppt: {reason}",
    alert_error="🐞 Fehler: <code>{error}</code>",
    alert_database="🗄 Datenbankfehler, der Durchlauf hält an: <code>{error}</code>",
    alert_database_ok="✅ Die Datenbank arbeitet wieder.",
    storage_full=(
        "🗄 Die Platte der Datenbank ist voll (<code>{path}</code>): Meldungen werden"
        " zurückgehalten, nichts geht verloren; Platz freigeben, dann geht es weiter."
    ),
    storage_locked=(
        "🗄 Die Datenbank ist von einem anderen Programm gesperrt (<code>{path}</code>):"
        " Meldungen werden zurückgehalten, nichts geht verloren; dessen Transaktion beenden"
        " (ein Backup, eine sqlite3-Shell), dann geht es weiter."
    ),
    storage_io=(
        "🗄 Die Datenbank lässt sich nicht schreiben (<code>{path}</code>: {error}): Meldungen"
        " werden zurückgehalten, nichts geht verloren; die Platte prüfen, dann geht es weiter."
    ),
    storage_ok=(
        "✅ Die Datenbank nimmt wieder Daten an (<code>{path}</code>, nach {duration}): die"
        " zurückgehaltenen Meldungen gehen jetzt hinaus."
    ),
    alert_behind=(
        "🐢 Die Suchen hinken nach: die älteste von {searches} wurde vor {stalest} gelesen,"
        " Ziel ist alle {interval}. {load}. Bei {per_search} s pro Abruf passen {fits} Abrufe"
        " in ein Intervall, {requests} stehen an; {advice}."
    ),
    alert_fresh_again="✅ Die Suchen sind wieder aktuell (älteste vor {stalest}).",
    alert_new_database=(
        "🗄 Gestartet mit einer neuen, leeren Datenbank unter <code>{path}</code> — gab es"
        " beobachtete Suchen, ist das Daten-Volume nicht eingebunden."
    ),
    advice_gap="HABICHT_FETCH_GAP={gap} oder HABICHT_SCRAPE_INTERVAL ≥ {interval} würde reichen",
    advice_interval="HABICHT_SCRAPE_INTERVAL ≥ {interval} würde reichen",
    advice_gap_only="HABICHT_FETCH_GAP={gap} würde reichen",
    advice_cadence=(
        "Feeds und Sicherheitsnetz allein füllen das Budget: ein längeres"
        " HABICHT_SAFETY_INTERVAL oder HABICHT_FEED_INTERVAL würde helfen"
    ),
    load_polled="{polled} Suchen einzeln abgefragt (älteste vor {age})",
    load_feeds=(
        "; {feeds} Feed(s) bedienen {fed} Suchen (gelesen vor {age}{failing}), deren eigene"
        " Abfrage alle {safety} (älteste vor {safety_age})"
    ),
    load_feed_failing=", {count} Mal in Folge fehlgeschlagen",
    never="nie",
)

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
        "Digest: when more than {digest} alerts arrive at once\n\n"
        "<i>Photo</i>: every listing with its picture — until photos are sent, as text with "
        "the link preview that shows the picture. <i>Compact</i>: one line, no preview."
    ),
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
        "failing searches: {failing}"
    ),
    stats_feeds="feed misses: {misses} · coverage misses: {uncovered}",
    stats_alerts=(
        "new-listing alerts (1 h): {count}; first read → queued: {seen_p50} (p50),"
        " {seen_p95} (p95); published → queued: {published_p50} (p50), {published_p95} (p95)"
    ),
    cycle="{age} ago, took {took}",
    failing_line="#{search_id} ({kind}, {count} times, {watchers} watchers): {url}",
    alert_dead="⚠️ Dead messages: {count} ({reasons}). Details: /queue dead",
    alert_failing="⚠️ Search #{search_id} has failed {count} cycles in a row ({kind}): {error}",
    alert_recovered="✅ Search works again: {url}",
    alert_blocked="⛔ willhaben blocks us; pausing for {wait}.",
    alert_unblocked="✅ willhaben answers again.",
    alert_feed_off=(
        "📡 The marketplace feed does not list what {searches} searches find; they are polled"
        " on their own again."
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
)

CATALOGS: dict[Lang, Catalog] = {"de": GERMAN, "en": ENGLISH}


class Texts:
    """Renders every message of one language as Telegram HTML, all values escaped."""

    def __init__(self, lang: Lang) -> None:
        self.catalog = CATALOGS[lang]
        self.lang: Lang = lang

    def fill(self, key: str, **values: object) -> Html:
        """The template `key` with `values` escaped into it (fixed texts take no values)."""
        template: str = getattr(self.catalog, key)
        return _fill(template, **values)

    def price(self, price: Decimal | None, display: str | None = None) -> str:
        """A listing's price as text: formatted, else willhaben's own wording (shortened to
        `PRICE_BUDGET`), else a note."""
        if price is not None:
            return format_price(price, self.lang)
        return shorten(display, PRICE_BUDGET) if display else self.catalog.no_price

    def age(self, seconds: float) -> str:
        return _age(seconds, self.lang)

    def age_or_none(self, seconds: float | None) -> str:
        """`age`, or the dash where there is nothing to measure."""
        return self.catalog.queue_none if seconds is None else self.age(seconds)

    def until(self, seconds: float) -> Html:
        """`in 5 min` style; a due time in the past reads as `now`."""
        return self.fill("due_now") if seconds <= 0 else self.fill("due_in", age=self.age(seconds))

    # ---- notifications (the scraper's Renderer) -------------------------------------

    def new_listing(
        self,
        *,
        title: str,
        url: str,
        price: Decimal | None,
        price_display: str | None,
        location: str | None,
        bumped: bool = False,
        entered: bool = False,
        listed_at: float | None = None,
        compact: bool = False,
        notes: AlertNotes = NO_NOTES,
        postcode: str | None = None,
    ) -> Html:
        """A new listing: title as the link (its preview shows the listing), price, place;
        `compact` puts them on one line.

        `bumped`: the watch cannot tell whether it is new (see the scraper's `BumpedListing`),
        and the text says so. `entered`: an older advert that came into the search since the
        watch started, listed at `listed_at` (epoch seconds; None: the date is not known).
        `notes`: the distance (after the place), the going price and a repost, each said
        when known.
        """
        key = "bumped_listing" if bumped else "new_listing"
        text = self.fill(
            f"{key}_compact" if compact else key,
            url=url,
            title=shorten(title, TITLE_BUDGET),
            price=self.price(price, price_display),
            location=self.place(location, notes.km, postcode=postcode),
        )
        text = self._with_notes(text, notes, price, compact=compact)
        if not entered:
            return text
        if listed_at is None:
            return self._note(text, self.fill("entered_search"), compact=compact)
        return self._note(
            text, self.fill("entered_listed", date=self.date(listed_at)), compact=compact
        )

    def price_drop(
        self,
        *,
        title: str,
        url: str,
        old: Decimal,
        new: Decimal,
        path: Sequence[Decimal] = (),
        path_span: float = 0.0,
        entered: bool = False,
        compact: bool = False,
        location: str | None = None,
        notes: AlertNotes = NO_NOTES,
        postcode: str | None = None,
    ) -> Html:
        """A price drop: title as the link, old price struck through, new price, percent;
        `compact` puts them on one line.

        `entered`: the advert came into the search by this drop, and the text says so.
        `path` is every price the advert was known at, oldest first, ending with `new`, over
        `path_span` seconds; shown (not in compact alerts) when it says more than old → new
        (three prices or more). `notes` as for `new_listing`; the place (`location`) is said
        only with its distance.
        """
        text = self.fill(
            "price_drop_compact" if compact else "price_drop",
            url=url,
            title=shorten(title, TITLE_BUDGET),
            old=format_price(old, self.lang),
            new=format_price(new, self.lang),
            percent=_percent_drop(old, new),
        )
        if notes.km is not None:
            place = Html(f"📍 {escape(self.place(location, notes.km, postcode=postcode))}")
            text = Html(f"{text} · {place}" if compact else f"{text}\n{place}")
        text = self._with_notes(text, notes, new, compact=compact)
        if entered:
            text = self._note(text, self.fill("entered_drop"), compact=compact)
        if compact or len(path) < 3:
            return text
        return Html(f"{text}\n{self.price_path(path, path_span)}")

    def place(
        self, location: str | None, km: float | None = None, *, postcode: str | None = None
    ) -> str:
        """Where an advert is (shortened); with its distance, when one is known, as the town
        and postcode say it: `Wien 1070 · 3,2 km` (of "Wien, 07. Bezirk, Neubau", 1070)."""
        if km is None:
            return shorten(location or "—", LOCATION_BUDGET)
        town = (location or "").split(",", 1)[0].strip()
        if postcode and postcode not in town:
            town = f"{town} {postcode}".strip()
        place = shorten(town or "—", LOCATION_BUDGET)
        return self.catalog.place_km.format(place=place, km=self.km(km))

    def where(self, place: Place) -> str:
        """A postcode's place as people know it: `Wien, 07. Bezirk, Neubau (1070)`."""
        if place.name is None:
            return place.postcode
        return f"{shorten(place.name, LOCATION_BUDGET)} ({place.postcode})"

    def located(self, located: Located) -> Html:
        """The confirmation of a shared location: the nearest postcode habicht knows (or the
        coordinates while it knows none), and whether the place is outside Austria."""
        if located.nearest is None or located.km is None:
            lat, lon = located.point
            text = self.fill("location_saved_bare", point=f"{lat:.5f}, {lon:.5f}")
        else:
            text = self.fill(
                "location_saved", place=self.where(located.nearest), km=self.km(located.km)
            )
        if located.in_austria:
            return text
        return Html(f"{text}\n{self.fill('location_abroad')}")

    def hit(self, rule: str, count: int) -> Html:
        """How many adverts a filter rule hid (`NO_PLACE`: those `near` could not place)."""
        if rule == NO_PLACE:
            return self.fill("list_unplaced", count=count)
        return self.fill("list_hit", count=count, rule=self.echo(rule))

    def km(self, km: float) -> str:
        """A distance as people say it: `3,2` (`3.2`) under 10 km, whole kilometres above."""
        text = f"{km:.1f}" if km < 10 else f"{km:.0f}"
        return text.replace(".", ",") if self.lang == "de" else text

    def _with_notes(
        self, text: Html, notes: AlertNotes, price: Decimal | None, *, compact: bool
    ) -> Html:
        """`text` with the going price (for an advert with a `price` the going price would
        count: no placeholder, no outlier) and the repost said: on lines of their own, or after
        `·` when compact."""
        lines = []
        going = notes.going
        if going is not None and price is not None and going.comparable(price):
            lines.append(self.going(going, price, compact=compact))
        if notes.repost is not None:
            lines.append(self.repost(notes.repost, compact=compact))
        return Html(" · ".join([text, *lines]) if compact else "\n".join([text, *lines]))

    def going(self, going: PriceStats, price: Decimal, *, compact: bool = False) -> Html:
        """`price` against the going price: `≈ 18 % under the median of 46 (€ 450, 30 days)`."""
        percent = going.percent_under(price)
        if compact:
            return self.fill("going_compact", signed=f"{-percent:+d}" if percent else "±0")
        key = "going_at" if percent == 0 else "going_under" if percent > 0 else "going_over"
        median = format_price(going.median, self.lang)
        return self.fill(key, percent=abs(percent), count=going.count, median=median)

    def watch_stats(
        self, *, number: int, label: str, url: str, figures: WatchFigures, deal: Decimal | None
    ) -> Html:
        """`/stats <n>`: the going price of the watch's search (median and quartiles, or why
        there is none yet), what the search showed and the chat was told in 30 days, and what
        its `deal` rule (if any) lets through. Within a caption's 1,024 units: the label is
        shortened, everything else is bounded."""
        going = figures.going
        if going is None:
            lines = [self.fill("stats_going_none", min=MIN_PRICES)]
        elif not going.enough:
            median = format_price(going.median, self.lang)
            lines = [self.fill("stats_going_few", count=going.count, median=median, min=MIN_PRICES)]
        else:
            lines = [
                self.fill(
                    "stats_going",
                    median=format_price(going.median, self.lang),
                    count=going.count,
                    low=format_price(going.low, self.lang),
                    high=format_price(going.high, self.lang),
                )
            ]
        left_out = figures.left_out
        lines.append(
            self.fill(
                "stats_shown",
                shown=self.listings(figures.shown),
                priced=figures.priced,
                left_out=self.fill("stats_left_out", count=left_out) if left_out else Html(""),
            )
        )
        lines.append(self.fill("stats_alerts_watch", new=figures.new, drops=figures.drops))
        if deal is not None:
            rule = f"deal {deal.normalize():f}%"
            if going is not None and going.enough:
                threshold = format_price(going.threshold(deal), self.lang)
                lines.append(self.fill("stats_deal", rule=rule, threshold=threshold))
            else:
                lines.append(self.fill("stats_deal_waiting", rule=rule, min=MIN_PRICES))
        return self.fill(
            "stats_watch",
            number=number,
            label=shorten(label, LABEL_BUDGET),
            url=url,
            lines=Html("\n".join(lines)),
        )

    def repost(self, repost: Repost, *, compact: bool = False) -> Html:
        """`🔁 reposted · first seen 12 Nov 2026 at € 400`."""
        if compact:
            return self.fill("repost_compact")
        date = self.date(repost.first_seen_at)
        if repost.price is None:
            return self.fill("repost_no_price", date=date)
        return self.fill("repost", date=date, price=format_price(repost.price, self.lang))

    @staticmethod
    def _note(text: Html, note: Html, *, compact: bool) -> Html:
        """`text` with `note` in italics: on a line of its own, or after a `·` when compact."""
        return Html(f"{text} · <i>{note}</i>" if compact else f"{text}\n<i>{note}</i>")

    def date(self, epoch: float) -> str:
        """A day in Vienna as people write it: `12. Nov. 2026`, `12 Nov 2026`."""
        day = datetime.fromtimestamp(epoch, VIENNA)
        month = self.catalog.months[day.month - 1]
        if self.lang == "de":
            return f"{day.day}. {month} {day.year}"
        return f"{day.day} {month} {day.year}"

    def price_path(self, path: Sequence[Decimal], span: float) -> Html:
        """`€ 500 → € 450 → € 399 in 12 Tg`: the latest `PATH_POINTS` prices."""
        shown = [format_price(price, self.lang) for price in path[-PATH_POINTS:]]
        if len(path) > PATH_POINTS:
            shown.insert(0, "…")
        return self.fill("drop_path", path=" → ".join(shown), age=self.age(span))

    def baseline(self, label: str, count: int) -> Html:
        return self.fill("baseline", label=shorten(label, LABEL_BUDGET), count=self.listings(count))

    def listings(self, count: int) -> str:
        """`1 listing`, `2 listings` (`1 Anzeige`, `2 Anzeigen`)."""
        return self.fill("listings_one" if count == 1 else "listings_many", count=count)

    # ---- subscriber replies with a value ----------------------------------------------

    def label(self, label: str) -> str:
        """A watch's label as subscribers see it in one line."""
        return shorten(label, LABEL_BUDGET)

    def echo(self, given: str) -> str:
        """A subscriber's own words repeated back, shortened (escaping is `fill`'s job)."""
        return shorten(given, ECHO_BUDGET)

    def invalid(self, reason: str) -> Html:
        """Why a /watch argument was refused, from the scraper's reason code."""
        text = self.catalog.invalid_reasons.get(reason, self.catalog.invalid_other)
        return self.fill("watch_invalid", reason=Html(text))

    def filter_invalid(self, reason: str, token: str) -> Html:
        """Why a /filter rule was refused, from the filter's reason code and the words at fault."""
        template = self.catalog.filter_reasons.get(reason, self.catalog.filter_usage)
        return self.fill("filter_invalid", reason=_fill(template, token=self.echo(token)))

    def rules(self, rules: Iterable[str]) -> Html:
        """A filter's rules as `/filter` takes them, each in code style."""
        return Html(" ".join(f"<code>{escape(self.echo(rule))}</code>" for rule in rules))

    def lines(self, header: str, lines: Iterable[str], *, more: str = "…") -> Html:
        """`header` and `lines` joined by newlines, stopping with `more` before Telegram's
        limit (counted in UTF-16 code units, as Telegram counts)."""
        out = [header]
        size = utf16_len(header)
        for line in lines:
            line_size = utf16_len(line)
            if size + 1 + line_size + 1 + utf16_len(more) > MAX_MESSAGE:
                out.append(more)
                break
            out.append(line)
            size += 1 + line_size
        return Html("\n".join(out))

    def reasons(self, counts: Mapping[str, int] | Sequence[tuple[str, int]]) -> str:
        """`reason: n, …` for dead-letter summaries."""
        items = counts.items() if isinstance(counts, Mapping) else counts
        return ", ".join(f"{shorten(reason, 60)}: {n}" for reason, n in items) or "—"


def describe_quiet(texts: Texts, quiet: QuietHours | None) -> Html:
    """`22:00-07:00 (Europe/Vienna), alerts wait until the end`, or "none"."""
    if quiet is None:
        return texts.fill("quiet_none")
    window = f"{quiet.start:%H:%M}-{quiet.end:%H:%M}"
    return texts.fill(f"quiet_{quiet.mode}", window=window, zone=quiet.zone)
