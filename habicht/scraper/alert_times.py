"""Freshness where users feel it: how long a new advert took from habicht's first read of it,
and from its `PUBLISHED` time, to its alert's enqueue.

The samples are the new-listing alerts of adverts new on willhaben — not bumped (their
`PUBLISHED` is the bump), not published before their watch started (they came into the
search, they are not new) — which keep both times as they were when queued (migration 013:
a later bump rewrites the listing's). The outbox owns those rows, so
`habicht.queue.figures.alert_times` reads them for this module (issue 37). One alert per
chat: an advert three chats watch is three samples, as three subscribers waited. The
owner's `/stats` and `habicht health` show the nearest-rank p50 and p95 over the last
`WINDOW` seconds; the metrics observe every sample once (`habicht.metrics`). A negative span
(willhaben's clock ahead of ours) counts as 0.

Knows nothing of Telegram, like the rest of the scraper.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from habicht.db import Database
from habicht.queue.figures import alert_times

__all__ = ["WINDOW", "Latency", "Sample", "latency", "nearest_rank", "samples"]

WINDOW = 3600.0
"""Seconds of alerts the owner's figures cover."""


@dataclass(frozen=True, slots=True)
class Sample:
    """One new-listing alert: seconds from first read and from `PUBLISHED` (None when the
    page gave none) to its enqueue, and its place (`created_at`, `id`) for the next look."""

    seen: float
    published: float | None
    place: tuple[float, int]


async def samples(db: Database, *, after: tuple[float, int]) -> list[Sample]:
    """The samples queued after the place `after`, oldest first (negative spans as 0)."""
    return [
        Sample(
            max(0.0, times.seen),
            None if times.published is None else max(0.0, times.published),
            times.place,
        )
        for times in await alert_times(db, after=after)
    ]


def nearest_rank(ordered: Sequence[float], quantile: float) -> float | None:
    """The nearest-rank `quantile` of ascending `ordered`; None when it is empty."""
    if not ordered:
        return None
    return ordered[max(1, math.ceil(quantile * len(ordered))) - 1]


@dataclass(frozen=True, slots=True)
class Latency:
    """Seconds to enqueue of the last `WINDOW`'s new-listing alerts (module docstring):
    `alerts` samples, from first read (`seen_*`) and, of the `published` ones whose page gave
    a `PUBLISHED`, from it (`published_*`); None where there are none."""

    alerts: int
    seen_p50: float | None
    seen_p95: float | None
    published: int
    published_p50: float | None
    published_p95: float | None

    def as_dict(self) -> dict[str, float | int | None]:
        """The JSON `habicht health` prints (seconds rounded to 0.1)."""

        def rounded(seconds: float | None) -> float | None:
            return None if seconds is None else round(seconds, 1)

        return {
            "window_seconds": WINDOW,
            "alerts": self.alerts,
            "seen_p50_seconds": rounded(self.seen_p50),
            "seen_p95_seconds": rounded(self.seen_p95),
            "published_alerts": self.published,
            "published_p50_seconds": rounded(self.published_p50),
            "published_p95_seconds": rounded(self.published_p95),
        }


async def latency(db: Database, *, now: float) -> Latency:
    """The freshness of the new-listing alerts queued in the last `WINDOW` seconds."""
    window = await samples(db, after=(now - WINDOW, 0))
    seen = sorted(sample.seen for sample in window)
    published = sorted(sample.published for sample in window if sample.published is not None)
    return Latency(
        alerts=len(seen),
        seen_p50=nearest_rank(seen, 0.5),
        seen_p95=nearest_rank(seen, 0.95),
        published=len(published),
        published_p50=nearest_rank(published, 0.5),
        published_p95=nearest_rank(published, 0.95),
    )
