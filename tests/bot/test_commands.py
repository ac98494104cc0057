"""Conversations through the real Application, a real Bot, and a fake Bot API and willhaben
(the owner's /queue: test_admin.py; what the owners are told: test_alerts.py; a chat back
from a block: test_reactivation.py; answering a button in place: test_handling.py)."""

from __future__ import annotations

import logging
from decimal import Decimal
from pathlib import Path

import pytest
from kit.bot import ALICE, BOB, MARKET, OWNER, SEARCH, Bot, errors, running
from kit.buttons import button_data

from habicht.bot import (
    deliver,
    redacted_logs,
)
from habicht.bot.handlers.commands import OFFERS_KEPT
from habicht.bot.texts import MAX_MESSAGE, utf16_len
from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import Fault
from habicht.willhaben.urls import normalise_search_url


async def test_start_watch_baseline_then_a_new_listing(bot: Bot) -> None:
    """/start greets, /watch answers with the number, the baseline says how many, a new
    listing arrives as a message with its escaped title and link."""
    assert [c["command"] for c in bot.api.commands][:2] == ["watch", "list"]  # post_init's menu
    await bot.say(ALICE, "/start")
    assert "/watch" in bot.last(ALICE)
    await bot.say(ALICE, f"/watch {SEARCH}")
    assert "Suche Nr. 1" in bot.last(ALICE)

    await bot.baseline()
    assert "ich beobachte jetzt 1 Anzeige und" in bot.last(ALICE)

    bot.site.add(MARKET, FakeAdvert("1002", "<b>Sofa & Tisch</b>", Decimal(250)))
    bot.clock.advance(300)
    await bot.scrape()
    alert = bot.api.messages(ALICE)[-1]
    assert "&lt;b&gt;Sofa &amp; Tisch&lt;/b&gt;" in alert.text
    assert "€ 250" in alert.text
    assert alert.parse_mode == "HTML"
    assert "link_preview_options" not in alert.params  # the listing's link is previewed


async def test_a_price_drop_is_announced_once(bot: Bot) -> None:
    """A drop from 100 to 80 is one message with both prices; another scrape sends nothing."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    bot.site.set_price("1001", Decimal(80))
    await bot.scrape()
    sent = len(bot.api.messages(ALICE))
    assert "<s>€ 100</s> → <b>€ 80</b> (-20 %)" in bot.last(ALICE)
    await bot.scrape()
    assert len(bot.api.messages(ALICE)) == sent


async def test_a_bad_url_gets_its_reason(bot: Bot) -> None:
    """A link to another site and a single advert are refused, each with its own reason."""
    await bot.say(ALICE, "/watch https://example.com/iad/sofa")
    assert "kein Link zu willhaben.at" in bot.last(ALICE)
    await bot.say(ALICE, "/watch https://www.willhaben.at/iad/kaufen-und-verkaufen/d/sofa-123/")
    assert "einzelne Anzeige" in bot.last(ALICE)
    await bot.say(ALICE, "/watch")
    assert "So geht's" in bot.last(ALICE)


async def test_duplicates_are_refused_and_the_list_shows_each_watch(bot: Bot) -> None:
    """The same search twice is refused with its number; /list shows number, label, state."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(ALICE, f"/watch {SEARCH}")
    assert "schon: Nr. 1" in bot.last(ALICE)
    await bot.say(ALICE, "/watch rtx 3080 max 500")
    await bot.say(ALICE, "/pause 2")
    assert "Suche Nr. 2 pausiert" in bot.last(ALICE)
    await bot.say(ALICE, "/list")
    listing = bot.last(ALICE)
    assert "1. <a href=" in listing
    assert "aktiv" in listing
    assert "2. <a href=" in listing
    assert "pausiert" in listing
    await bot.say(ALICE, "/unwatch 1")
    assert "Suche Nr. 1 gelöscht" in bot.last(ALICE)
    await bot.say(ALICE, "/unwatch 7")
    assert "Nr. 7 gibt es nicht" in bot.last(ALICE)


async def test_the_watch_limit_holds(tmp_path: Path, bot: Bot) -> None:
    """A chat at HABICHT_MAX_WATCHES gets a refusal naming the limit."""
    for n in range(20):
        await bot.say(ALICE, f"/watch sofa {n}")
    await bot.say(ALICE, "/watch one more")
    assert "schon 20 Suchen" in bot.last(ALICE)


async def test_unwatch_without_a_number_offers_buttons(bot: Bot) -> None:
    """`/unwatch` lists the watches as buttons; pressing one deletes that watch."""
    await bot.say(ALICE, "/watch sofa")
    await bot.say(ALICE, "/unwatch")
    offer = bot.api.messages(ALICE)[-1]
    assert offer.reply_markup is not None
    assert len(offer.reply_markup["inline_keyboard"]) == 1  # one row: the one watch
    await bot.press(ALICE, offer.message_id, button_data(offer))
    assert "Suche Nr. 1 gelöscht" in bot.api.edits[-1].text
    assert await bot.app.bot_data.subscriptions.watches(ALICE) == []


async def test_a_pasted_link_is_offered_for_watching(bot: Bot) -> None:
    """Plain text with a willhaben search link gets a button; pressing it adds the watch."""
    await bot.say(ALICE, f"schau mal {SEARCH}")
    offer = bot.api.messages(ALICE)[-1]
    assert "Soll ich diese Suche beobachten?" in offer.text
    await bot.press(ALICE, offer.message_id, button_data(offer))
    assert "Suche Nr. 1" in bot.api.edits[-1].text
    await bot.say(ALICE, "hallo")
    assert "willhaben-Link" in bot.last(ALICE)
    await bot.say(ALICE, "/frobnicate")
    assert "kenne ich nicht" in bot.last(ALICE)


@pytest.mark.parametrize(
    "command",
    ["/unwatch ²", "/pause ①", "/resume 99999999999999999999999", "/unwatch 1 2", "/pause x"],
)
async def test_a_watch_number_that_is_no_number_gets_the_usage_answer(
    bot: Bot, caplog: pytest.LogCaptureFixture, command: str
) -> None:
    """Only ASCII digits (at most 9) are a watch number; anything else, a superscript digit
    or a number too big for SQLite, is answered with a hint and changes nothing."""
    await bot.say(ALICE, "/watch sofa")
    await bot.say(ALICE, command)
    assert "keine Suchnummer" in bot.last(ALICE)
    (watch,) = await bot.app.bot_data.subscriptions.watches(ALICE)
    assert not watch.paused
    assert errors(caplog) == []


@pytest.mark.parametrize(
    "command",
    [
        "/queue retry ²",
        "/queue retry 99999999999999999999999",
        "/queue retry 1 x",
        "/queue dead 0",
        "/queue dead ①",
        "/queue purge -1",
        "/queue purge 1e9",
        "/queue frobnicate",
    ],
)
async def test_odd_owner_arguments_get_the_queue_usage(
    bot: Bot, caplog: pytest.LogCaptureFixture, command: str
) -> None:
    """A /queue argument that is not a plain small number (or `all`) gets the usage, and
    `/queue dead 0` is not mistaken for "no dead messages"."""
    await bot.say(OWNER, command)
    assert bot.last(OWNER).startswith("/queue — Übersicht")
    assert errors(caplog) == []


@pytest.mark.parametrize(
    "argument", ["<" * 4080, "😀" * 2040, "&" * 4000, "😀<" * 1360, "1" * 4000]
)
async def test_echoed_arguments_fit_telegram(
    bot: Bot, caplog: pytest.LogCaptureFixture, argument: str
) -> None:
    """Whatever a subscriber sends, emoji (2 UTF-16 units each) or `<` (4 characters once
    escaped), every reply stays within 4096 UTF-16 units and is accepted by Telegram."""
    for command in ("/pause", "/resume", "/unwatch", "/watch"):
        await bot.say(ALICE, f"{command} {argument}")
    await bot.say(ALICE, argument)
    for n in range(20):  # a full /list of long, emoji-heavy labels and links
        await bot.say(ALICE, f"/watch {n} {'😀' * 98}")
    await bot.say(ALICE, "/list")
    assert len(bot.api.messages(ALICE)) == 26
    assert all(utf16_len(m.text) <= MAX_MESSAGE for m in bot.api.messages(ALICE))
    assert "keine Suchnummer" in bot.api.messages(ALICE)[0].text
    assert errors(caplog) == []


def offer_data(bot: Bot, chat_id: int) -> str:
    """The callback data of the watch button under the chat's latest message."""
    return button_data(bot.api.messages(chat_id)[-1])


async def test_an_old_offer_never_adds_a_newer_link(bot: Bot) -> None:
    """Offers are forgotten on a restart and beyond the last few; a button of a forgotten
    offer says it expired, even when a newer offer exists, rather than adding that one."""
    await bot.say(ALICE, f"schau {SEARCH}")
    before_restart = offer_data(bot, ALICE)
    bot.app.drop_chat_data(ALICE)  # what a restart forgets
    await bot.say(
        ALICE, "schau https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=tisch"
    )
    await bot.press(ALICE, 1, before_restart)
    assert "abgelaufen" in bot.api.edits[-1].text
    assert await bot.app.bot_data.subscriptions.watches(ALICE) == []

    offers = []
    for n in range(OFFERS_KEPT + 1):
        await bot.say(ALICE, f"{SEARCH}+{n}")
        offers.append(offer_data(bot, ALICE))
    await bot.press(ALICE, 1, offers[0])
    assert "abgelaufen" in bot.api.edits[-1].text
    await bot.press(ALICE, 1, offers[1])
    assert "Suche Nr. 1" in bot.api.edits[-1].text


async def test_a_blocked_chat_pauses_and_start_resumes_it(bot: Bot) -> None:
    """A 403 on delivery marks the chat blocked, so its watch is skipped; /start re-activates
    it and its watch begins again with a silent baseline."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.say(BOB, f"/watch {SEARCH}")
    await bot.baseline()
    subscriptions = bot.app.bot_data.subscriptions
    bot.api.block(ALICE)
    bot.site.add(MARKET, FakeAdvert("1003", "Neues Sofa", Decimal(90)))
    await bot.scrape()
    assert await subscriptions.is_blocked(ALICE)
    assert "Neues Sofa" in bot.last(BOB)
    attempts = bot.api.attempts[ALICE]

    bot.site.add(MARKET, FakeAdvert("1004", "Noch ein Sofa", Decimal(95)))
    await bot.scrape()
    assert bot.api.attempts[ALICE] == attempts  # nothing more was even tried
    assert "Noch ein Sofa" in bot.last(BOB)

    assert "Tote Nachrichten: 1 (blocked: 1)" in bot.last(OWNER)  # told once, next drain

    bot.api.unblock(ALICE)
    await bot.say(ALICE, "/start")
    assert "Willkommen zurück" in bot.last(ALICE)
    assert not await subscriptions.is_blocked(ALICE)
    (watch,) = await subscriptions.watches(ALICE)
    assert watch.baseline_at is None
    assert not watch.paused
    await bot.baseline()  # asked for by /start, not left to the next cycle
    (watch,) = await subscriptions.watches(ALICE)
    assert watch.baseline_at is not None
    assert "ich beobachte jetzt 3 Anzeigen" in bot.last(ALICE)  # told again, no flood of old


async def test_a_migrated_group_is_followed_to_its_new_id(bot: Bot) -> None:
    """When a group becomes a supergroup, the alert goes to the new id and so do its watches."""
    group, supergroup = -4001, -1004001
    await bot.say(group, f"/watch {SEARCH}", user_id=ALICE)
    await bot.baseline()
    bot.api.fail_next(group, Fault.migrated(supergroup))
    bot.site.add(MARKET, FakeAdvert("1005", "Gruppensofa", Decimal(80)))
    await bot.scrape()
    assert "Gruppensofa" in bot.last(supergroup)
    subscriptions = bot.app.bot_data.subscriptions
    assert await subscriptions.watches(group) == []
    assert [w.url for w in await subscriptions.watches(supergroup)] == [
        normalise_search_url(SEARCH)
    ]


async def test_the_token_never_reaches_the_logs(bot: Bot, caplog: pytest.LogCaptureFixture) -> None:
    """At DEBUG, a whole conversation with deliveries logs no trace of the bot token."""
    token = bot.api.token
    with (
        caplog.at_level(logging.DEBUG),
        caplog.at_level(logging.DEBUG, logger="httpx"),  # habicht.cli may have raised it
        redacted_logs(token),
    ):
        await bot.say(ALICE, f"/watch {SEARCH}")
        await bot.baseline()
        await bot.say(OWNER, "/queue")
        await deliver(bot.app.bot_data)
    assert any(r.name == "httpx" for r in caplog.records)  # request lines were logged
    assert token not in caplog.text
    assert token.split(":")[1] not in caplog.text


async def test_each_cycle_records_its_heartbeat(bot: Bot) -> None:
    """A scrape cycle and its drain each leave a finished, successful heartbeat."""
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.scrape()
    rows = await bot.app.bot_data.db.fetchall("SELECT job, finished_at, ok FROM heartbeats")
    assert {row["job"]: (row["finished_at"], row["ok"]) for row in rows} == {
        "scrape": (bot.clock(), 1),
        "drain": (bot.clock(), 1),
    }


async def test_english_is_one_setting_away(tmp_path: Path) -> None:
    """With HABICHT_LANG=en, replies, the command menu and notifications are English."""
    async with running(tmp_path, lang="en") as bot:
        assert bot.api.commands[0]["description"].startswith("watch a willhaben search")
        await bot.say(ALICE, f"/watch {SEARCH}")
        assert "Search no. 1" in bot.last(ALICE)
        await bot.baseline()
        assert "I'm now watching 1 listing and" in bot.last(ALICE)
