"""Distance through the real Application (issue 21): `/filter <n> near …`, the location a
chat shares, alerts with their distance, and what `near` hid in /list — groups included."""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from kit.bot import ALICE, BOB, MARKET, SEARCH, Bot, ids, running
from telegram import Update

from habicht.bot.texts import Lang, Texts
from habicht.fakes import FakeAdvert
from habicht.watches.notes import AlertNotes

GROUP = -1005021
NEUBAU = (48.2019, 16.3494)  # 1070
INNERE_STADT = (48.2085, 16.3721)  # 1010, 1.8 km from Neubau
STOCKERAU = (48.3850, 16.2080)  # 2000
MUENCHEN = (48.1370, 11.5750)


async def share(
    bot: Bot, chat_id: int, point: tuple[float, float], *, user_id: int | None = None
) -> None:
    """A user shares a location (📎 → Location) in their private chat or group `chat_id`."""
    chat: dict[str, Any] = (
        {"id": chat_id, "type": "private"}
        if chat_id > 0
        else {"id": chat_id, "type": "group", "title": "Gruppe"}
    )
    message = {
        "message_id": next(ids),
        "date": int(bot.clock()),
        "chat": chat,
        "from": {"id": user_id or chat_id, "is_bot": False, "first_name": "Test"},
        "location": {"latitude": point[0], "longitude": point[1]},
    }
    update = Update.de_json({"update_id": next(ids), "message": message}, bot.app.bot)
    await bot.app.process_update(update)


def _page(rand: random.Random) -> list[FakeAdvert]:
    """30 adverts of Vienna's 7th district (random ids), two bumped, one reserved."""
    return [
        FakeAdvert(
            str(rand.randrange(10**9, 10**10)),
            f"Sofa {n}",
            Decimal(100 + n),
            coordinates=(NEUBAU[0] + rand.uniform(-0.003, 0.003), NEUBAU[1]),
            bumped=n < 2,
            reserved=n == 9,
        )
        for n in range(30)
    ]


async def watching(bot: Bot, chat_id: int = ALICE, **say: Any) -> random.Random:
    """`chat_id` watches SEARCH; the baseline reads 30 adverts of 1070, placing it."""
    rand = random.Random(chat_id)
    bot.site.set_listings(MARKET, _page(rand))
    await bot.say(chat_id, f"/watch {SEARCH}", **say)
    await bot.baseline()
    return rand


async def test_near_a_postcode_is_set_with_the_place_it_measures_from(bot: Bot) -> None:
    await watching(bot)
    await bot.say(ALICE, "/filter 1 near 1070 5km")
    answer = bot.last(ALICE)
    assert "<code>near 1070 5</code>" in answer
    assert "📍 Umkreis von 5 km um Wien, 07. Bezirk, Neubau (1070)" in answer
    (watch,) = await bot.app.bot_data.subscriptions.watches(ALICE)
    assert watch.filter.rules() == ["near 1070 5"]

    await bot.say(ALICE, "/filter 1 near 1070 2,5")  # a new near replaces the old one
    (watch,) = await bot.app.bot_data.subscriptions.watches(ALICE)
    assert watch.filter.rules() == ["near 1070 2.5"]
    assert "Umkreis von 2,5 km" in bot.last(ALICE)


async def test_an_unknown_postcode_is_refused_with_the_hint_to_share_a_location(
    bot: Bot,
) -> None:
    await watching(bot)
    await bot.say(ALICE, "/filter 1 -defekt")
    await bot.say(ALICE, "/filter 1 near 6020 10")
    answer = bot.last(ALICE)
    assert "Postleitzahl 6020 kenne ich noch nicht" in answer
    assert "<code>/filter 1 near here 10</code>" in answer
    await bot.say(ALICE, "/filter 1")
    assert bot.last(ALICE).endswith("<code>-defekt</code>")


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        ("/filter 1 near 107 5", "„near 107“: nach <code>near</code> kommt eine Postleitzahl"),
        ("/filter 1 near 10700 5", "„near 10700“: nach <code>near</code>"),
        ("/filter 1 near 1070 0", "„near 1070 0“: der Umkreis muss über 0 und höchstens 300 km"),
        ("/filter 1 near 1070 10000", "„near 1070 10000“: der Umkreis muss"),
        ("/filter 1 near 1070", "„near 1070“: der Umkreis muss"),
        ("/filter 1 near here 5 meilen", "„meilen“ ist keine Regel"),
    ],
)
async def test_bad_near_input_gets_a_clear_answer_and_changes_nothing(
    bot: Bot, command: str, answer: str
) -> None:
    await watching(bot)
    await bot.say(ALICE, command)
    assert answer in bot.last(ALICE)
    (watch,) = await bot.app.bot_data.subscriptions.watches(ALICE)
    assert watch.filter.empty


async def test_near_here_needs_a_shared_location_and_then_measures_from_it(bot: Bot) -> None:
    """Without a location `near here` is refused with how to share one; the shared location
    is confirmed with the nearest postcode known, and `near here` then works."""
    await watching(bot)
    await bot.say(ALICE, "/filter 1 near here 5")
    assert "brauche ich zuerst den Standort dieses Chats: 📎 → Standort" in bot.last(ALICE)
    assert (await bot.app.bot_data.subscriptions.watches(ALICE))[0].filter.empty

    await share(bot, ALICE, INNERE_STADT)
    confirmation = bot.last(ALICE)
    assert "📍 Standort gespeichert: bei Wien, 07. Bezirk, Neubau (1070), 1,8 km entfernt" in (
        confirmation
    )
    assert "außerhalb" not in confirmation
    await bot.say(ALICE, "/filter 1 near here 5")
    assert "📍 Umkreis von 5 km um den Standort dieses Chats, bei Wien, 07. Bezirk, Neubau" in (
        bot.last(ALICE)
    )


async def test_a_location_outside_austria_is_accepted_and_said(bot: Bot) -> None:
    await watching(bot)
    await share(bot, ALICE, MUENCHEN)
    answer = bot.last(ALICE)
    assert "Standort gespeichert" in answer
    assert "🌍 Dieser Ort liegt außerhalb Österreichs" in answer
    located = await bot.app.bot_data.subscriptions.location(ALICE)
    assert located is not None
    assert located.point == MUENCHEN


async def test_a_location_before_any_postcode_is_known_is_confirmed_by_its_coordinates(
    bot: Bot,
) -> None:
    await share(bot, BOB, STOCKERAU)
    assert "📍 Standort gespeichert: 48.38500, 16.20800." in bot.last(BOB)


async def test_in_a_group_only_admins_share_its_location_or_set_near(bot: Bot) -> None:
    """A member's location is refused politely and not kept; the admin's is; a member's
    `/filter … near` is refused like any change."""
    bot.api.set_member(GROUP, ALICE, "administrator")
    await watching(bot, GROUP, user_id=ALICE, group=True)
    subscriptions = bot.app.bot_data.subscriptions

    await share(bot, GROUP, STOCKERAU, user_id=BOB)
    assert "nur ihre Admins" in bot.last(GROUP)
    assert await subscriptions.location(GROUP) is None
    await bot.say(GROUP, "/filter 1 near 1070 5", user_id=BOB, group=True)
    assert "nur ihre Admins" in bot.last(GROUP)

    await share(bot, GROUP, INNERE_STADT, user_id=ALICE)
    assert "Standort gespeichert" in bot.last(GROUP)
    await bot.say(GROUP, "/filter 1 near here 3", user_id=ALICE, group=True)
    (watch,) = await subscriptions.watches(GROUP)
    assert watch.filter.rules() == ["near here 3"]
    await bot.say(GROUP, "/list", user_id=BOB, group=True)  # reading is for everyone
    assert "<code>near here 3</code>" in bot.last(GROUP)


async def test_alerts_show_the_distance_and_list_counts_what_near_hid(bot: Bot) -> None:
    """Near 1070 by 5 km: an advert 1.8 km away is alerted as "📍 Wien 1010 · 1,8 km"; one
    far away and one habicht cannot place are hidden, and /list counts them apart."""
    rand = await watching(bot)
    await bot.say(ALICE, "/filter 1 near 1070 5")
    before = len(bot.api.messages(ALICE))
    near, far, nowhere = (str(rand.randrange(10**9, 10**10)) for _ in range(3))
    shown = bot.site.listings(MARKET)
    bot.site.set_listings(MARKET, [
        *shown[:3],
        FakeAdvert(near, "Sofa City", Decimal(90), "Wien, 01. Bezirk, Innere Stadt", "1010",
                   coordinates=INNERE_STADT),
        FakeAdvert(far, "Sofa Stockerau", Decimal(80), "Stockerau", "2000",
                   coordinates=STOCKERAU),
        FakeAdvert(nowhere, "Sofa ohne Ort", Decimal(70), "Irgendwo", "9999", coordinates=None),
        *shown[3:],
    ])  # fmt: skip
    await bot.scrape()
    [alert] = [message.text for message in bot.api.messages(ALICE)[before:]]
    assert "Sofa City" in alert
    assert "📍 Wien 1010 · 1,8 km" in alert

    await bot.say(ALICE, "/list")
    listing = bot.last(ALICE)
    assert "🙈 ausgeblendet in den letzten 24 h:" in listing
    assert "1 ohne Ort" in listing
    assert "1 durch „near 1070 5“" in listing


async def test_near_speaks_english_too(tmp_path: Path) -> None:
    async with running(tmp_path, lang="en") as bot:
        rand = await watching(bot)
        await bot.say(ALICE, "/filter 1 near here 5")
        assert "For <code>near here</code> I first need this chat's location" in bot.last(ALICE)
        await bot.say(ALICE, "/filter 1 near 1070 5")
        assert "📍 Within 5 km of Wien, 07. Bezirk, Neubau (1070)" in bot.last(ALICE)
        await share(bot, ALICE, MUENCHEN)
        assert "🌍 This place is outside Austria" in bot.last(ALICE)
        before = len(bot.api.messages(ALICE))
        near, nowhere = (str(rand.randrange(10**9, 10**10)) for _ in range(2))
        bot.site.add(
            MARKET,
            FakeAdvert(near, "Sofa", Decimal(50), coordinates=INNERE_STADT),
            FakeAdvert(nowhere, "Sofa", Decimal(50), "Nowhere", "9999", coordinates=None),
        )
        await bot.scrape()
        [alert] = [message.text for message in bot.api.messages(ALICE)[before:]]
        assert "📍 Wien 1070 · 1.8 km" in alert
        await bot.say(ALICE, "/list")
        assert "1 without a place" in bot.last(ALICE)


@pytest.mark.parametrize(
    ("lang", "compact", "shown"),
    [
        ("de", False, "\n📍 Wien 1070 · 3,2 km"),
        ("de", True, " · 📍 Wien 1070 · 3,2 km"),
        ("en", False, "\n📍 Wien 1070 · 3.2 km"),
        ("en", True, " · 📍 Wien 1070 · 3.2 km"),
    ],
)
def test_a_drop_of_a_near_watch_says_where_and_how_far(
    lang: Lang, compact: bool, shown: str
) -> None:
    """A drop alert names the place only with its distance: town and postcode, then km."""
    texts = Texts(lang)
    common: dict[str, Any] = {
        "title": "Sofa",
        "url": "https://www.willhaben.at/iad/1",
        "old": Decimal(100),
        "new": Decimal(80),
        "compact": compact,
        "location": "Wien, 07. Bezirk, Neubau",
        "postcode": "1070",
    }
    assert shown in texts.price_drop(**common, notes=AlertNotes(km=3.24))
    assert "📍" not in texts.price_drop(**common)
    far = texts.new_listing(
        title="Sofa",
        url="https://www.willhaben.at/iad/1",
        price=Decimal(80),
        price_display=None,
        location="Stockerau",
        postcode="2000",
        notes=AlertNotes(km=22.4),
    )
    assert "📍 Stockerau 2000 · 22 km" in far
