"""The signed callback data of the buttons under every alert, and those buttons.

Callback data is `w:<action>:<watch id>:<tag>` — at most 36 bytes of Telegram's 64. The tag
is an HMAC of the action and the watch id under a key derived from the bot token, cut to 12
base64url characters (72 bits): a client can send any callback data it likes, and one it
made up (another watch's id, another action, a number that is no ASCII number) fails
`Signer.check`. A new bot token makes the buttons of older alerts inert (their tag no longer
matches).

A leaf: the renderer puts these buttons under each alert it renders and the services hold a
`Signer`, so this module imports neither (the presses are `habicht.bot.handlers.buttons`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Literal

from habicht.bot.texts import Texts
from habicht.digits import row_id
from habicht.queue import Button, Buttons

__all__ = ["PREFIX", "Action", "Signer", "alert_buttons"]

PREFIX = "w:"
"""What the callback data of every alert button begins with (the handler's pattern)."""

Action = Literal["p", "m", "r"]
"""Pause, mute, remove."""
_ACTIONS: tuple[Action, ...] = ("p", "m", "r")
_TAG_BYTES = 9


class Signer:
    """Tags and checks the callback data of alert buttons under one secret key."""

    def __init__(self, secret: str) -> None:
        self._key = hashlib.sha256(b"habicht alert buttons\0" + secret.encode()).digest()

    def data(self, action: Action, watch_id: int) -> str:
        return f"{PREFIX}{action}:{watch_id}:{self._tag(action, watch_id)}"

    def check(self, data: str) -> tuple[Action, int] | None:
        """The action and watch id of genuine callback data; None for anything else."""
        action, _, rest = data.removeprefix(PREFIX).partition(":")
        number, _, tag = rest.partition(":")
        watch_id = row_id(number)
        if watch_id is None:
            return None
        for known in _ACTIONS:
            if known == action and hmac.compare_digest(tag, self._tag(known, watch_id)):
                return known, watch_id
        return None

    def _tag(self, action: str, watch_id: int) -> str:
        mac = hmac.new(self._key, f"{action}:{watch_id}".encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(mac.digest()[:_TAG_BYTES]).decode()


def alert_buttons(texts: Texts, signer: Signer, *, url: str, watch_id: int) -> Buttons:
    """Open the listing on its own row; pause, mute and remove the watch below it."""
    return (
        (Button(text=texts.catalog.button_open, url=url),),
        (
            Button(text=texts.catalog.button_pause, data=signer.data("p", watch_id)),
            Button(text=texts.catalog.button_mute, data=signer.data("m", watch_id)),
            Button(text=texts.catalog.button_remove, data=signer.data("r", watch_id)),
        ),
    )
