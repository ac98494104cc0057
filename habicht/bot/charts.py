"""Charts as PNG bytes: an advert's price path against its search's going price (/history),
and a search's going price and count day by day (/stats <n>).

Pure functions from data to a picture, drawn with matplotlib's object-oriented API on its Agg
canvas (`Figure` + `FigureCanvasAgg`): never `pyplot`, whose global figure registry is not
thread-safe — these run in a worker thread (`habicht.bot.chart_replies`). Small pictures for
a phone screen (`WIDTH` by `HEIGHT` pixels), the chat's language for every label, prices as
its texts write them and dates on Vienna's calendar. No user-typed text goes into a picture
(a label's emoji has no glyph in the bundled font): the caption names the watch or advert.

Why matplotlib: it is the well-kept standard, installs from wheels with everything it needs
(Agg, the DejaVu fonts) and draws dated axes, steps and bands out of the box; the lighter
plotting libraries either write SVG and need a second package (and system libraries) to
make a PNG, or leave axes and date ticks to us. Its import costs about half a second and
≈ 45 MB, once, at the first chart (`chart_replies` imports this module only then); a chart
about 0.1 s of one core (benchmarks/charts.py).
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator

from habicht.bot.texts import VIENNA, Texts, format_price
from habicht.market.going import MIN_PRICES
from habicht.market.history import PricePoint
from habicht.market.trend import GoingDay

__all__ = ["DPI", "HEIGHT", "WIDTH", "history_png", "search_png"]

WIDTH, HEIGHT, DPI = 800, 450, 100
"""The picture's size in pixels (16:9, sharp on a phone, ≈ 20 to 50 KB) and its dots per inch."""
DATE_TICKS = 6
"""Dates the time axis names at most (every day, every second, … whichever fits)."""

_DAY = 86400.0
_PRICE = "#1f5fbf"
_MEDIAN = "#d9480f"
_BAND = "#ffd8a8"
_COUNT = "#868e96"


def history_png(
    path: Sequence[PricePoint], days: Sequence[GoingDay], *, now: float, texts: Texts
) -> bytes | None:
    """The advert's prices (`path`, oldest first) as steps up to `now`, over the band of its
    searches' going price (`days`: the quartiles as a band, the median as a line, on the days
    with at least `MIN_PRICES` prices); None when that says nothing: no price, or one price
    with no band to set it against."""
    band = [day for day in days if day.going is not None and day.going.count >= MIN_PRICES]
    if not path or (len(path) < 2 and not band):
        return None
    start = min(days[0].start, path[0].seen_at) if days else path[0].seen_at
    figure, ax = _figure()
    if band:
        _draw_band(ax, days, texts)
    times = [point.seen_at for point in path] + [now]
    prices = [float(point.price) for point in path] + [float(path[-1].price)]
    ax.step(
        [_when(t) for t in times],
        prices,
        where="post",
        color=_PRICE,
        linewidth=2.4,
        label=texts.catalog.chart_price,
    )
    ax.plot([_when(t) for t in times[:-1]], prices[:-1], "o", color=_PRICE, markersize=5, zorder=3)
    ax.set_xlim(_when(start), _when(now))
    _price_axis(ax, texts)
    _date_axis(ax, texts)
    figure.legend(loc="outside upper center", ncols=3, fontsize=9, frameon=False)
    return _png(figure)


def search_png(days: Sequence[GoingDay], *, texts: Texts) -> bytes | None:
    """A search's going price day by day (median and quartile band, on the days with at least
    `MIN_PRICES` prices) above the count of adverts it rests on; None when fewer than two days
    had a priced advert."""
    if sum(day.going is not None for day in days) < 2:
        return None
    figure = _new_figure()
    top, bottom = figure.subplots(2, 1, sharex=True, height_ratios=(3, 1))
    _draw_band(top, days, texts)
    _price_axis(top, texts)
    figure.legend(loc="outside upper center", ncols=3, fontsize=9, frameon=False)
    bottom.bar(
        [_when(day.start + (day.end - day.start) / 2) for day in days],
        [0 if day.going is None else day.going.count for day in days],
        width=0.7,  # days, as the time axis counts
        color=_COUNT,
    )
    bottom.set_title(texts.catalog.chart_count, loc="left", fontsize=9)
    bottom.yaxis.set_major_locator(MaxNLocator(nbins=3, integer=True))
    bottom.grid(axis="y", color="#e9ecef")
    bottom.set_xlim(_when(days[0].start), _when(days[-1].end))
    _date_axis(bottom, texts)
    return _png(figure)


def _new_figure() -> Figure:
    figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _figure() -> tuple[Figure, Axes]:
    figure = _new_figure()
    return figure, figure.add_subplot()


def _when(epoch: float) -> float:
    """Epoch seconds as the time axis counts: days since 1970 (matplotlib's date numbers, so
    its date handling would read them too)."""
    return epoch / _DAY


def _draw_band(ax: Axes, days: Sequence[GoingDay], texts: Texts) -> None:
    """The quartiles as a band and the median as a line, flat over each day (every day is
    two points, its start and its end); days with fewer than `MIN_PRICES` prices are gaps."""
    edges = [_when(t) for day in days for t in (day.start, day.end)]
    known = [day.going is not None and day.going.count >= MIN_PRICES for day in days]

    def values(pick: str) -> list[float]:
        return [
            float(getattr(day.going, pick)) if shown else math.nan
            for day, shown in zip(days, known, strict=True)
            for _ in (day.start, day.end)
        ]

    ax.fill_between(
        edges,
        values("low"),
        values("high"),
        where=[shown for shown in known for _ in (0, 1)],
        color=_BAND,
        linewidth=0,
        label=texts.catalog.chart_band,
    )
    ax.plot(edges, values("median"), color=_MEDIAN, linewidth=1.6, label=texts.catalog.chart_median)


def _price_axis(ax: Axes, texts: Texts) -> None:
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
    ax.yaxis.set_major_formatter(
        FuncFormatter(lambda y, _: format_price(Decimal(round(y)), texts.lang))
    )
    ax.grid(color="#e9ecef")
    ax.spines[["top", "right"]].set_visible(False)


def _date_axis(ax: Axes, texts: Texts) -> None:
    """Ticks at Vienna's midnights, every day or every few (`DATE_TICKS` at most), named as
    the chat writes dates (`12.11.`, `12 Nov`)."""
    first, last = (x * _DAY for x in ax.get_xlim())
    day, end = datetime.fromtimestamp(first, VIENNA).date(), datetime.fromtimestamp(last, VIENNA)
    midnights = []
    while day <= end.date():
        midnight = datetime(day.year, day.month, day.day, tzinfo=VIENNA).timestamp()
        if first <= midnight <= last:
            midnights.append(midnight)
        day += timedelta(days=1)
    every = max(1, math.ceil(len(midnights) / DATE_TICKS))
    ax.xaxis.set_major_locator(FixedLocator([_when(t) for t in midnights[::every]]))
    months = texts.catalog.months

    def name(x: float, _: object) -> str:
        when = datetime.fromtimestamp(x * _DAY, VIENNA)
        if texts.lang == "de":
            return f"{when.day}.{when.month}."
        return f"{when.day} {months[when.month - 1]}"

    ax.xaxis.set_major_formatter(FuncFormatter(name))


def _png(figure: Figure) -> bytes:
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=DPI, metadata={"Software": None})
    return out.getvalue()
