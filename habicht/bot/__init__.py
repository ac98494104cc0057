"""The Telegram side: subscriber and owner commands, message texts, and the app wiring.

Depends on `habicht.scraper` and `habicht.queue`; neither depends on it. Other code imports
only the names listed here.
"""

from habicht.bot.app import BotApplication, build_application, serve
from habicht.bot.chart_replies import history_png, search_png
from habicht.bot.jobs import BASELINE, DRAIN, RETENTION, SCRAPE, deliver, run_jobs_now
from habicht.bot.redact import redacted_logs, scrub
from habicht.bot.render import MessageRenderer
from habicht.bot.services import BotServices
from habicht.bot.texts import Texts

__all__ = [
    "BASELINE",
    "DRAIN",
    "RETENTION",
    "SCRAPE",
    "BotApplication",
    "BotServices",
    "MessageRenderer",
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
