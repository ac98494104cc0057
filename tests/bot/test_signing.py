"""The alert buttons' callback data, without a bot: what `Signer` accepts and refuses, and
the keyboard `alert_buttons` builds (the presses themselves: tests/bot/test_buttons.py)."""

from __future__ import annotations

import pytest
from kit.buttons import legacy_button

from habicht.bot.signing import PREFIX, Signer, alert_buttons
from habicht.bot.texts import Texts
from habicht.digits import ROW_ID_MAX

SIGNER = Signer("123456:ABC-secret_token")


@pytest.mark.parametrize("action", ["p", "m", "r"])
@pytest.mark.parametrize("watch_id", [1, 4711, ROW_ID_MAX])
def test_signed_data_checks_back_to_its_action_and_watch(action: str, watch_id: int) -> None:
    """Every action of any watch id round-trips, within Telegram's 64 bytes (36 at most)."""
    data = SIGNER.data(action, watch_id)  # type: ignore[arg-type]  # any of the three
    assert data.startswith(PREFIX)
    assert len(data.encode()) <= 36
    assert SIGNER.check(data) == (action, watch_id)


def _other(data: str, part: int, value: str) -> str:
    """`data` with its `part`-th colon-separated field (0: the prefix) replaced."""
    parts = data.split(":")
    parts[part] = value
    return ":".join(parts)


GENUINE = SIGNER.data("p", 42)
TAG = GENUINE.rsplit(":", 1)[1]


@pytest.mark.parametrize(
    "made_up",
    [
        _other(GENUINE, 1, "r"),  # another action under the pause tag
        _other(GENUINE, 1, "x"),  # no action at all
        _other(GENUINE, 2, "43"),  # another watch under 42's tag
        _other(GENUINE, 2, "\u0664\u0662"),  # Arabic-Indic 42
        _other(GENUINE, 2, str(ROW_ID_MAX + 1)),  # beyond what SQLite holds
        _other(GENUINE, 3, TAG[:-1] + ("A" if TAG[-1] != "A" else "B")),  # one character off
        _other(GENUINE, 3, ""),
        GENUINE.removesuffix(TAG).rstrip(":"),
        f"{GENUINE}:extra",
        "",
        PREFIX,
    ],
    ids=["other-action", "no-action", "other-watch", "arabic-digits",
         "too-big", "tag-changed", "no-tag", "tag-cut", "extra-field", "empty", "prefix"],
)  # fmt: skip
def test_made_up_data_is_refused(made_up: str) -> None:
    """Callback data a client made up changes nothing: `check` gives None."""
    assert SIGNER.check(made_up) is None


def test_a_new_bot_token_makes_old_buttons_inert() -> None:
    """The key comes from the token: another token's signer refuses the old data."""
    assert Signer("654321:another-token").check(GENUINE) is None
    assert Signer("123456:ABC-secret_token").check(GENUINE) == ("p", 42)


@pytest.mark.parametrize("action", ["p", "m", "r"])
def test_a_button_signed_before_issue_35_is_outdated_not_genuine(action: str) -> None:
    """Issue 35: data tagged as habicht tagged it while watch ids came back is refused by
    `check` (it cannot tell which watch it was made for) and recognised by `outdated`, so
    its press can say why; today's data for the same watch carries another tag."""
    legacy = legacy_button("123456:ABC-secret_token", action, 42)
    assert SIGNER.check(legacy) is None
    assert SIGNER.outdated(legacy)
    assert SIGNER.data(action, 42) != legacy  # type: ignore[arg-type]  # any of the three
    assert not SIGNER.outdated(SIGNER.data(action, 42))  # type: ignore[arg-type]


def test_only_genuine_old_data_is_outdated() -> None:
    """Made-up data, and old data of another bot token, are neither genuine nor outdated:
    their press is "not valid"."""
    for made_up in ("w:r:42:AAAAAAAAAAAA", legacy_button("654321:another-token", "r", 42), ""):
        assert SIGNER.check(made_up) is None
        assert not SIGNER.outdated(made_up)


@pytest.mark.parametrize(
    ("lang", "labels"),
    [
        ("de", ["🔗 Öffnen", "⏸ Pausieren", "🔕 24 h stumm", "🗑 Entfernen"]),
        ("en", ["🔗 Open", "⏸ Pause", "🔕 Mute 24 h", "🗑 Remove"]),
    ],
)
def test_the_keyboard_opens_on_top_and_acts_below(lang: str, labels: list[str]) -> None:
    """Open (the listing's URL) alone on the first row; pause, mute, remove of this watch
    below, each signed for its own action."""
    url = "https://www.willhaben.at/iad/object?adId=9"
    [open_row, action_row] = alert_buttons(Texts(lang), SIGNER, url=url, watch_id=7)  # type: ignore[arg-type]
    assert [b.text for b in (*open_row, *action_row)] == labels
    assert (open_row[0].url, open_row[0].data) == (url, None)
    assert [SIGNER.check(b.data or "") for b in action_row] == [("p", 7), ("m", 7), ("r", 7)]
    assert all(b.url is None for b in action_row)
