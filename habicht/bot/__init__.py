"""The Telegram side: subscriber and owner commands, message texts, and the app wiring.

Depends on `habicht.scraper` and `habicht.queue`; neither depends on it. Other code imports
only the names listed here.
"""

from habicht.bot.app import BotApplication, build_application, serve
from habicht.bot.jobs import deliver
from habicht.bot.redact import redacted_logs, scrub
from habicht.bot.render import MessageRenderer
from habicht.bot.services import BotServices
from habicht.bot.texts import Texts

__all__ = [
    "BotApplication",
    "BotServices",
    "MessageRenderer",
    "Texts",
    "build_application",
    "deliver",
    "redacted_logs",
    "scrub",
    "serve",
]
