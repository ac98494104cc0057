"""The Telegram side: subscriber and owner commands, message texts, and the app wiring.

Depends on `habicht.scraper`, `habicht.willhaben` and `habicht.queue`; none depends on it.
Other code imports only the names listed here. Inside, wiring above and leaves below (each
layer imports only those under it; the import contracts in pyproject.toml check it):

- `app.py` builds the Application and registers every handler and job in one block.
- `handlers/`: what answers an update, one module per topic; only `app` imports them, and
  they never import each other.
- What handlers share: `guards.py` (who may), `reactivation.py` (a chat back from a block),
  `chart_replies.py` (answers with a chart); `jobs.py` (scrape, drain, retention) and
  `alerts.py` (what the owners are told).
- `services.py`: the typed context (`BotServices`) every handler and job receives.
- The services, leaves that import none of the above: `render.py` (alert texts),
  `signing.py` (alert buttons), `permissions.py` (chat admins), `preferences.py` (each
  chat's settings), `sending.py`, `chart_worker.py`, `charts.py`, `handling.py` (replying),
  `redact.py`, and `texts/` (every word, per language).
"""

from habicht.bot.app import BotApplication, build_application, serve
from habicht.bot.chart_replies import history_png, search_png
from habicht.bot.jobs import BASELINE, DRAIN, RETENTION, SCRAPE, deliver, run_jobs_now
from habicht.bot.redact import redacted_logs, scrub
from habicht.bot.services import BotServices
from habicht.bot.texts import Texts

__all__ = [
    "BASELINE",
    "DRAIN",
    "RETENTION",
    "SCRAPE",
    "BotApplication",
    "BotServices",
    "Texts",
    "build_application",
    "deliver",
    "history_png",
    "redacted_logs",
    "run_jobs_now",
    "scrub",
    "search_png",
    "serve",
]
