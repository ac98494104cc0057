"""`habicht demo`: the whole pipeline on one machine, with no token and no network (issue 6).

The real Application, scraper, outbox and delivery run against the simulated willhaben and
the fake Telegram of `habicht.fakes`, on a virtual clock; the demo prints what happens and
ends with an account counted in the database.
"""

from habicht.demo.run import DEFAULT_SEED, DEFAULT_SPEED, demo_settings, run_demo
from habicht.demo.summary import Summary

__all__ = ["DEFAULT_SEED", "DEFAULT_SPEED", "Summary", "demo_settings", "run_demo"]
