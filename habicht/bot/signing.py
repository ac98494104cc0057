"""The signed callback data of the buttons under every alert, and those buttons.

Callback data is `w:<action>:<watch id>:<tag>` — at most 36 bytes of Telegram's 64. The tag
is an HMAC of the action and the watch id under a key derived from the bot token, cut to 12
base64url characters (72 bits): a client can send any callback data it likes, and one it
made up (another watch's id, another action, a number that is no ASCII number) fails
`Signer.check`. A new bot token makes the buttons of older alerts inert (their tag no longer
matches).

**A button acts only on the watch it was made for** (issue 35), because a watch id names
one watch for ever: `watches.id` is `AUTOINCREMENT` since migration 022, so SQLite never
hands out an id again once its watch is removed (before, it gave the largest id to the next
watch, and an old alert's 🗑 removed that one). The other way — binding the watch's identity
(its `created_at`, or a random nonce per watch) into the tag and looking it up on a press —
was weighed and not taken: it mends only the buttons that carry the nonce. `/unwatch`'s
buttons (`unwatch:<id>`) name watches by id too, and so do the outbox's owners
(`notification_watches`); every one of them would need the same check, and each one added
later would have to remember it. Ids that are never reused mend them all in one place, keep
the callback data and the renderer's interface as they were, and cost one table rebuild.

**Buttons signed before that** (habicht before issue 35, key `_LEGACY_KEY`) were made when ids
came back: such a button cannot tell whether the watch now under its id is the one it was
made for (the id may have been reused before the upgrade, which nothing records), so it acts
on no watch. `Signer.outdated` recognises it, and the press is answered with what to use
instead (`/list`, then `/pause` or `/unwatch` with the watch's number). The keys differ, not
the format: new buttons look like old ones, and only the key says which rule made them. An
alert queued before the upgrade and sent after carries such buttons too (its text and
buttons were final when queued).

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
from habicht.message import Button, Buttons

__all__ = ["PREFIX", "Action", "Signer", "alert_buttons"]

PREFIX = "w:"
"""What the callback data of every alert button begins with (the handler's pattern)."""

Action = Literal["p", "m", "r"]
"""Pause, mute, remove."""
_ACTIONS: tuple[Action, ...] = ("p", "m", "r")
_TAG_BYTES = 9

_KEY = b"habicht alert buttons, ids never reused\0"
"""What the key of today's tags is derived from, with the bot token (`Signer`)."""
_LEGACY_KEY = b"habicht alert buttons\0"
"""The same before issue 35, when a removed watch's id could come back (`Signer.outdated`)."""


class Signer:
    """Tags and checks the callback data of alert buttons under one secret key."""

    def __init__(self, secret: str) -> None:
        self._key = hashlib.sha256(_KEY + secret.encode()).digest()
        self._legacy = hashlib.sha256(_LEGACY_KEY + secret.encode()).digest()

    def data(self, action: Action, watch_id: int) -> str:
        return f"{PREFIX}{action}:{watch_id}:{_tag(self._key, action, watch_id)}"

    def check(self, data: str) -> tuple[Action, int] | None:
        """The action and watch id of genuine callback data; None for anything else,
        including a button signed before issue 35 (`outdated`)."""
        return _checked(self._key, data)

    def outdated(self, data: str) -> bool:
        """Whether `data` is a genuine button of habicht before issue 35: made when a removed
        watch's id could be given to the next watch, so it acts on none (module docstring)."""
        return _checked(self._legacy, data) is not None


def _checked(key: bytes, data: str) -> tuple[Action, int] | None:
    action, _, rest = data.removeprefix(PREFIX).partition(":")
    number, _, tag = rest.partition(":")
    watch_id = row_id(number)
    if watch_id is None:
        return None
    for known in _ACTIONS:
        if known == action and hmac.compare_digest(tag, _tag(key, known, watch_id)):
            return known, watch_id
    return None


def _tag(key: bytes, action: str, watch_id: int) -> str:
    mac = hmac.new(key, f"{action}:{watch_id}".encode(), hashlib.sha256)
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
