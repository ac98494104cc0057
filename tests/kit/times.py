"""Wall-clock times in Vienna, where habicht's subscribers live (quiet hours, the demo)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

VIENNA = ZoneInfo("Europe/Vienna")


def at(text: str, zone: ZoneInfo = VIENNA) -> float:
    """Epoch seconds of a wall-clock time `YYYY-MM-DD HH:MM` in `zone`."""
    return datetime.fromisoformat(text).replace(tzinfo=zone).timestamp()
