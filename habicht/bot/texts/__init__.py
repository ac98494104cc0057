"""Every word habicht says on Telegram, in German (the default) and English: `Texts`.

`Texts(lang)` renders each message of one language as Telegram HTML. Behind it:

- `catalog.py`: `Catalog`, one typed field per text; a language that lacks one fails at
  import.
- `de.py`, `en.py`: the two catalogs, `GERMAN` and `ENGLISH`.
- `flats.py`: real estate in words (a flat's facts and district, a search named).
- `markup.py`: escaping (every value is escaped, `Html` is not), Telegram's limits as it
  counts them (UTF-16 code units), the budgets that keep each message within them, prices.

Callers import from here only; the names of the modules behind are listed in `__all__`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal

from habicht.bot.texts.catalog import LANGUAGE_NAMES, Catalog, Lang
from habicht.bot.texts.de import GERMAN
from habicht.bot.texts.en import ENGLISH
from habicht.bot.texts.flats import district, facts, per_m2_amount, search_words
from habicht.bot.texts.markup import (
    ECHO_BUDGET,
    ERROR_BUDGET,
    LABEL_BUDGET,
    LOCATION_BUDGET,
    MAX_CAPTION,
    MAX_MESSAGE,
    PATH_POINTS,
    PRICE_BUDGET,
    SEARCH_BUDGET,
    TITLE_BUDGET,
    VIENNA,
    Html,
    escape,
    fill,
    format_price,
    percent_drop,
    short_age,
    shorten,
    utf16_len,
    visible_len,
)
from habicht.market.going import MIN_PRICES, PriceStats
from habicht.market.places import Located, Place
from habicht.model import Estate, Search
from habicht.quiet import QuietHours
from habicht.scraper.figures import FeedName
from habicht.watches.figures import WatchFigures
from habicht.watches.filters import NO_PLACE
from habicht.watches.follow import AdvertNews
from habicht.watches.notes import NO_NOTES, AlertNotes, Repost
from habicht.willhaben.describe import Description, describe_search

__all__ = [
    "CATALOGS",
    "ENGLISH",
    "ERROR_BUDGET",
    "GERMAN",
    "LANGUAGE_NAMES",
    "MAX_CAPTION",
    "MAX_MESSAGE",
    "VIENNA",
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

CATALOGS: dict[Lang, Catalog] = {"de": GERMAN, "en": ENGLISH}


class Texts:
    """Renders every message of one language as Telegram HTML, all values escaped."""

    def __init__(self, lang: Lang) -> None:
        self.catalog = CATALOGS[lang]
        self.lang: Lang = lang

    def fill(self, key: str, **values: object) -> Html:
        """The template `key` with `values` escaped into it (fixed texts take no values)."""
        template: str = getattr(self.catalog, key)
        return fill(template, **values)

    def price(self, price: Decimal | None, display: str | None = None) -> str:
        """A listing's price as text: formatted, else willhaben's own wording (shortened to
        `PRICE_BUDGET`), else a note."""
        if price is not None:
            return format_price(price, self.lang)
        return shorten(display, PRICE_BUDGET) if display else self.catalog.no_price

    def age(self, seconds: float) -> str:
        return short_age(seconds, self.lang)

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
        estate: Estate | None = None,
    ) -> Html:
        """A new listing: title as the link (its preview shows the listing), price, place;
        `compact` puts them on one line. Real estate (`estate`) says its district as the place
        and what flat hunters decide on after it (`estate_facts`).

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
            location=self.place(location, notes.km, postcode=postcode, estate=estate),
        )
        text = self._with_estate(text, estate, price, compact=compact)
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
        estate: Estate | None = None,
    ) -> Html:
        """A price drop: title as the link, old price struck through, new price, percent;
        `compact` puts them on one line. A drop of real estate (`estate`, a rent too) says its
        district and its facts at the new price, as a new flat's alert does.

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
            percent=percent_drop(old, new),
        )
        if notes.km is not None or estate is not None:
            where = self.place(location, notes.km, postcode=postcode, estate=estate)
            place = Html(f"📍 {escape(where)}")
            text = Html(f"{text} · {place}" if compact else f"{text}\n{place}")
        text = self._with_estate(text, estate, new, compact=compact)
        text = self._with_notes(text, notes, new, compact=compact)
        if entered:
            text = self._note(text, self.fill("entered_drop"), compact=compact)
        if compact or len(path) < 3:
            return text
        return Html(f"{text}\n{self.price_path(path, path_span)}")

    def place(
        self,
        location: str | None,
        km: float | None = None,
        *,
        postcode: str | None = None,
        estate: Estate | None = None,
    ) -> str:
        """Where an advert is (shortened); with its distance, when one is known, as the town
        and postcode say it: `Wien 1070 · 3,2 km` (of "Wien, 07. Bezirk, Neubau", 1070).
        Real estate is where flat hunters say it is: `1070 Neubau` (`flats.district`)."""
        if estate is not None:
            place = district(estate, location, postcode)
            if km is None:
                return place
            return self.catalog.place_km.format(place=place, km=self.km(km))
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

    def _with_estate(
        self, text: Html, estate: Estate | None, price: Decimal | None, *, compact: bool
    ) -> Html:
        """`text` with a real-estate advert's facts at `price` (`flats.facts`), if it says any:
        on a line of its own, or after `·` when compact."""
        said = "" if estate is None else facts(self.catalog, estate, price)
        if not said:
            return text
        line = self.fill("estate_facts", facts=said)
        return Html(f"{text} · {line}" if compact else f"{text}\n{line}")

    def _with_notes(
        self, text: Html, notes: AlertNotes, price: Decimal | None, *, compact: bool
    ) -> Html:
        """`text` with the going price (for an advert with a `price` the going price would
        count: no placeholder, no outlier; per m² for real estate, `AlertNotes.compared`) and
        the repost said: on lines of their own, or after `·` when compact."""
        lines = []
        going, value = notes.going, notes.compared(price)
        if going is not None and value is not None:
            lines.append(self.going(going, value, compact=compact))
        if notes.repost is not None:
            lines.append(self.repost(notes.repost, compact=compact))
        return Html(" · ".join([text, *lines]) if compact else "\n".join([text, *lines]))

    def going(self, going: PriceStats, price: Decimal, *, compact: bool = False) -> Html:
        """`price` (per m² if the going price is) against the going price: `≈ 18 % under the
        median of 46 (€ 450, 30 days)`, `≈ 48 % under the median of 25 (€ 19.20/m², 30 days)`."""
        percent = going.percent_under(price)
        if compact:
            key = "going_compact_m2" if going.per_m2 else "going_compact"
            return self.fill(key, signed=f"{-percent:+d}" if percent else "±0")
        key = "going_at" if percent == 0 else "going_under" if percent > 0 else "going_over"
        median = self.amount(going, going.median)
        return self.fill(key, percent=abs(percent), count=going.count, median=median)

    def amount(self, going: PriceStats, amount: Decimal) -> str:
        """An amount of `going`'s kind: `€ 450`, or per m² `€ 19,20/m²`."""
        if going.per_m2:
            return per_m2_amount(self.catalog, amount)
        return format_price(amount, self.lang)

    def search_words(self, search: Description) -> str:
        """A real-estate search named for /list: `Mietwohnung · Wien 1070 · bis € 1.200`."""
        return shorten(search_words(self.catalog, search), SEARCH_BUDGET)

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
            median = self.amount(going, going.median)
            lines = [self.fill("stats_going_few", count=going.count, median=median, min=MIN_PRICES)]
        else:
            lines = [
                self.fill(
                    "stats_going",
                    median=self.amount(going, going.median),
                    count=going.count,
                    low=self.amount(going, going.low),
                    high=self.amount(going, going.high),
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
                threshold = self.amount(going, going.threshold(deal))
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

    def day(self, epoch: float) -> str:
        """A day in Vienna without its year: `6. Dez.`, `6 Dec`."""
        day = datetime.fromtimestamp(epoch, VIENNA)
        month = self.catalog.months[day.month - 1]
        return f"{day.day}. {month}" if self.lang == "de" else f"{day.day} {month}"

    def when(self, epoch: float | None) -> str:
        """A day and a time in Vienna, `6. Dez. 2026, 14:05`; "?" when it is not known."""
        if epoch is None:
            return "?"
        return f"{self.date(epoch)}, {datetime.fromtimestamp(epoch, VIENNA):%H:%M}"

    def moment(self, epoch: float, *, now: float) -> str:
        """A moment in Vienna as one says it since: `14:05` today, else its day."""
        then, today = (datetime.fromtimestamp(t, VIENNA) for t in (epoch, now))
        return f"{then:%H:%M}" if then.date() == today.date() else self.day(epoch)

    def follow_notes(self, news: AdvertNews) -> list[Html]:
        """What a followed alert says on top once its advert changed: reserved since when,
        available again, the price now and then, or gone since when (issue 34)."""
        if news.state == "gone":
            return [self.fill("follow_gone", when=self.day(news.since))]
        notes = []
        if news.state == "reserved":
            notes.append(self.fill("follow_reserved", when=self.moment(news.since, now=news.now)))
        elif news.back:
            notes.append(self.fill("follow_back"))
        if news.repriced and news.price is not None and news.alerted is not None:
            notes.append(
                self.fill(
                    "follow_price", price=self.price(news.price), was=self.price(news.alerted)
                )
            )
        return notes

    def price_path(self, path: Sequence[Decimal], span: float) -> Html:
        """`€ 500 → € 450 → € 399 in 12 Tg`: the latest `PATH_POINTS` prices."""
        shown = [format_price(price, self.lang) for price in path[-PATH_POINTS:]]
        if len(path) > PATH_POINTS:
            shown.insert(0, "…")
        return self.fill("drop_path", path=" → ".join(shown), age=self.age(span))

    def baseline(self, search: Search, count: int) -> Html:
        return self.fill("baseline", label=self.search_name(search), count=self.listings(count))

    def listings(self, count: int) -> str:
        """`1 listing`, `2 listings` (`1 Anzeige`, `2 Anzeigen`)."""
        return self.fill("listings_one" if count == 1 else "listings_many", count=count)

    # ---- subscriber replies with a value ----------------------------------------------

    def label(self, label: str) -> str:
        """A watch's label as subscribers see it in one line."""
        return shorten(label, LABEL_BUDGET)

    def search_name(self, search: Search) -> str:
        """A search as subscribers see it in one line: a real-estate search in words
        (`Mietwohnung · Wien 1070 · bis € 1.200`), any other by its label."""
        described = describe_search(search.url)
        return self.label(search.label) if described is None else self.search_words(described)

    def feed(self, name: FeedName) -> str:
        """A feed in words (`scraper.figures.feed_name`): the marketplace, flats to rent, flats
        to buy — one of a path this code does not know by that path."""
        return name.path if name.kind is None else self.catalog.feed_names[name.kind]

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
        return self.fill("filter_invalid", reason=fill(template, token=self.echo(token)))

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
