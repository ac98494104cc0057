"""The delivery tests' fixtures (`kit.delivery`): a scripted Bot API behind a real `Bot`,
the `send` over it, counting hooks, and a drain on the fake clock."""

from kit.delivery import api, hooks, run, send

__all__ = ["api", "hooks", "run", "send"]
