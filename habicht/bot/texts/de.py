"""Every text in German, habicht's default language (`HABICHT_LANG=de`).

One `Catalog`: leaving out a text fails at import (`habicht.bot.texts.catalog`). Templates
are Telegram HTML; `{name}` placeholders are filled, escaped, by `Texts`.
"""

from __future__ import annotations

from habicht.bot.texts.catalog import Catalog

__all__ = ["GERMAN"]

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
        "Sammelnachricht: bei mehr als {digest} Alarmen auf einmal\n"
        "Gesendete Alarme aktualisieren: {follow}\n\n"
        "<i>Foto</i>: jede Anzeige mit ihrem Bild — bis Fotos verschickt werden, als Text mit "
        "der Linkvorschau, die das Bild zeigt. <i>Kompakt</i>: eine Zeile, ohne Vorschau.\n"
        "<i>Aktualisieren</i>: ein Alarm zeigt später oben, wenn die Anzeige reserviert, "
        "billiger oder weg ist (ohne Ton)."
    ),
    follow_on="ja",
    follow_off="nein",
    follow_button_on="🔄 aktualisieren",
    follow_button_off="⏹ nicht aktualisieren",
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
    search_kinds={
        "flat_rent": "Mietwohnung",
        "flat_buy": "Eigentumswohnung",
        "house_rent": "Haus zur Miete",
        "house_buy": "Haus zum Kauf",
    },
    search_from="ab {value}",
    search_to="bis {value}",
    search_between="{low}\u2013{high}",  # an en dash
    search_private="privat",
    search_company="gewerblich",
    search_keyword="„{keyword}“",
    search_more="+ weitere Filter",
    estate_types={
        "3": "Wohnung",
        "100": "Loft/Studio",
        "101": "Maisonette",
        "102": "Penthouse",
        "105": "Erdgeschoß",
        "110": "Dachgeschoß",
        "111": "Garconniere",
        "112": "Rohdachboden",
        "113": "Genossenschaft",
        "16": "Zimmer/WG",
        "27": "Sonstige",
    },
    estate_features={
        "4": "Fahrstuhl",
        "15": "Parkplatz",
        "23": "Garage",
        "24": "Abstellraum",
        "25": "barrierefrei",
        "26": "Carport",
        "27": "Einbauküche",
        "28": "(teil)möbliert",
        "250": "Keller",
    },
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
    follow_reserved="🔒 <b>reserviert</b> (seit {when})",
    follow_back="✅ <b>wieder verfügbar</b>",
    follow_price="💶 <b>jetzt {price}</b> (war {was})",
    follow_gone="❌ <b>nicht mehr online</b> (seit {when})",
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
    estate_rent="Miete",
    estate_buy="Kauf",
    estate_area="{area} m²",
    estate_rooms_one="1 Zimmer",
    estate_rooms="{rooms} Zimmer",
    estate_per_m2="{price}/m²",
    estate_facts="🏠 {facts}",
    free_areas={
        "10": "Terrasse",
        "20": "Balkon",
        "30": "Loggia",
        "40": "Dachterrasse",
        "50": "Wintergarten",
        "60": "Garten",
    },
    going_compact_m2="📊 {signed} % zum Median/m²",
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
    pressed_outdated=(
        "Dieser Knopf stammt aus einer älteren Version von habicht und wirkt nicht mehr."
        " /list zeigt deine Suchen; /pause oder /unwatch mit ihrer Nummer."
    ),
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
        "{following}\n"
        "fehlerhafte Suchen: {failing}"
    ),
    stats_following=(
        "gesendete Alarme aktuell gehalten: {followed} Anzeigen; Seitenprüfungen (1 h): {checks};"
        " Änderungen (24 h): {sent} gesendet, {impossible} nicht möglich, {gone} Anzeigen weg"
    ),
    stats_feeds="Feed-Fehltreffer: {misses} · Abdeckungslücken: {uncovered}",
    stats_alerts=(
        "neue Anzeigen (1 h): {count}; erstmals gelesen → eingereiht: {seen_p50} (p50),"
        " {seen_p95} (p95); veröffentlicht → eingereiht: {published_p50} (p50),"
        " {published_p95} (p95)"
    ),
    cycle="vor {age}, Dauer {took}",
    failing_line='<a href="{url}">{label}</a> ({kind}, {count} Mal, {watchers} Abos)',
    alert_dead="⚠️ Tote Nachrichten: {count} ({reasons}). Details: /queue dead",
    alert_failing=(
        '⚠️ Suche <a href="{url}">{label}</a> schlägt seit {count} Durchläufen fehl ({kind}):'
        " {error}"
    ),
    alert_replica=(
        "⚠️ Litestream ist beendet (Code {code}): das Replikat wird nicht geschrieben, bis es"
        " wieder läuft (habicht startet es neu). Siehe habicht health."
    ),
    alert_restored=(
        "♻️ Die Datenbank wurde wiederhergestellt ({source}): Stand {moment}. {pending} Alarme"
        " warteten darin und gehen jetzt hinaus. Alarme, die nach diesem Zeitpunkt schon"
        " gesendet worden waren, können ein zweites Mal kommen; was danach geändert wurde"
        " (neue Suchen, Einstellungen), fehlt."
    ),
    alert_recovered='✅ Suche läuft wieder: <a href="{url}">{label}</a>',
    alert_blocked="⛔ willhaben blockiert uns; Pause für {wait}.",
    alert_unblocked="✅ willhaben antwortet wieder.",
    alert_feed_off=(
        "📡 Der Feed „{feed}“ listet nicht, was {searches} Suchen finden; sie werden wieder"
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
    feed_names={
        "marketplace": "Marktplatz",
        "rent": "Mietwohnungen",
        "buy": "Eigentumswohnungen",
    },
    stats_feed=(
        "📡 {name}: bedient {served} von {searches} Suchen · Feed-Fehltreffer: {misses}"
        " · Abdeckungslücken: {uncovered}{off}"
    ),
    stats_feed_off=" · abgeschaltet, noch {age}",
    stats_plain=(
        "einfach: {plain} Suchen, die kein Feed bedienen kann, davon {estate} Immobilien,"
        " deren neue Wohnungen eine ganze Abfragerunde warten (≈ {round})"
    ),
)
