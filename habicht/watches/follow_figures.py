"""What keeping sent alerts true does, for the owner: `/stats`, `habicht health` and the metrics
read these figures, counted from the tables that hold them, so a restart loses none (the
edits from the outbox's, through `queue.figures.edit_counts`: the queue owns them).

- `followed`: adverts alerted within HABICHT_FOLLOW_DAYS and not gone — what reads and page
  checks keep an eye on (whether a chat still wants a given alert kept true is asked when
  there is news of its advert);
- `page_checks_hour`: page checks of the last hour (`watches.checks`);
- `edits_sent` / `edits_impossible` / `gone_found`: of the last day, edits Telegram took (or
  found already true), edits of messages that were deleted or too old to edit, and adverts a
  page check proved gone.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from habicht.db import Database
from habicht.queue.figures import edit_counts
from habicht.watches.follow import DAY, Following

__all__ = ["FollowFigures", "follow_figures"]

_HOUR = 3600.0

_COUNTS = """
SELECT
    (SELECT count(*) FROM advert_states WHERE alerted_at >= :since AND state != 'gone'),
    (SELECT count(*) FROM page_checks WHERE checked_at > :hour_ago),
    (SELECT count(*) FROM page_checks WHERE checked_at > :day_ago AND found = 'gone')
"""


@dataclass(frozen=True, slots=True)
class FollowFigures:
    """The module docstring's figures."""

    followed: int
    page_checks_hour: int
    edits_sent: int
    edits_impossible: int
    gone_found: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


async def follow_figures(db: Database, *, now: float, following: Following) -> FollowFigures:
    """The figures now."""
    since = following.since(now) if following.on else now
    params = {"since": since, "hour_ago": now - _HOUR, "day_ago": now - DAY}
    row = await db.fetchone(_COUNTS, params)
    assert row is not None  # one row of counts
    edits = await edit_counts(db, since=now - DAY)
    return FollowFigures(
        followed=row[0],
        page_checks_hour=row[1],
        edits_sent=edits.sent,
        edits_impossible=edits.impossible,
        gone_found=row[2],
    )
