"""The fake Telegram's tests' fixtures (`kit.bot_api`): the fake, each adapter, a real `Bot`."""

from kit.bot_api import adapter, bot, fake

__all__ = ["adapter", "bot", "fake"]
