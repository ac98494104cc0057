"""What a scrape pass's page checks did, for the story (issue 34): which alerted advert's own
page was looked up, and what its answer proved — counted in the database, like the feeds.

A page check comes only once no read has shown an alerted advert for an interval, and only
when nothing else waits; one missing answer (404, 410) only starts the proof that the advert
is gone, a second one at least an interval later completes it. The fetch lines show the
answers; these lines say what habicht made of them, so a reader sees why the first 404
edits nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from habicht.db import Database

__all__ = ["PageCheck", "checks_made"]


@dataclass(frozen=True)
class PageCheck:
    """One page check at `at` of the advert `title`: what it `found` (`watches.checks`:
    active, reserved, missing, gone or failed), and for a proven gone one, since when (`since`,
    the first missing answer)."""

    at: float
    title: str
    found: str
    since: float | None

    def story(self) -> str:
        if self.found == "gone" and self.since is not None:
            later = self.at - self.since
            return f"{self.title}: its page is missing again, {later:.0f} s after the first — gone"
        unseen = f"{self.title}, in no read for an interval:"
        if self.found == "missing":
            return (
                f"{unseen} its page is missing — once; gone takes a second answer an interval later"
            )
        return f"{unseen} its page check found it {self.found}"


_CHECKS = """
SELECT c.checked_at, coalesce(l.title, c.ad_id) AS title, c.found, s.since
FROM page_checks c
LEFT JOIN listings l ON l.ad_id = c.ad_id
LEFT JOIN advert_states s ON s.ad_id = c.ad_id AND s.state = 'gone'
WHERE c.checked_at >= ?
ORDER BY c.checked_at
"""


async def checks_made(db: Database, *, since: float) -> list[PageCheck]:
    """The page checks made since `since`, in order (none: no alerted advert was missed)."""
    rows = await db.fetchall(_CHECKS, (since,))
    return [PageCheck(row["checked_at"], row["title"], row["found"], row["since"]) for row in rows]
