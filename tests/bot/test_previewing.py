"""/preview <n> (issue 21) through the real Application, a real Bot and a fake Bot API: what a
watch's filter did with its search's latest read, in one message in the chat's language."""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from kit.bot import ALICE, BOB, MARKET, SEARCH, Bot, running

from habicht.bot.texts import ENGLISH, GERMAN, MAX_MESSAGE, visible_len
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import SiteFault

GROUP = -1005021
HTML_TITLE = 'Sofa <b>"Luxus"</b> & Sessel ' + "sehr bequem " * 20  # over 200 characters


def adverts(rand: random.Random, now: float) -> list[FakeAdvert]:
    """A real-shaped page: 30 adverts with random ids, newest first (the bumped one on top
    with the date of its bump), one reserved; a long title with HTML characters among the
    ones that pass, three defective, two too dear."""
    ids = iter(str(rand.randrange(10**9, 10**10)) for _ in range(30))
    minutes = iter(range(30))

    def sofa(title: str, price: int, **details: Any) -> FakeAdvert:
        published = int((now - 60 * next(minutes)) * 1000)
        return FakeAdvert(next(ids), title, Decimal(price), published_ms=published, **details)

    return [
        sofa(HTML_TITLE, 300, bumped=True),
        *(sofa(f"Sofa {n}", 100 + n) for n in range(22)),
        sofa("Sofa reserviert", 150, reserved=True),
        sofa("Sofa defekt", 40),
        sofa("Defektes Sofa", 45),
        sofa("Sofa, Feder defekt", 50),
        sofa("Designersofa", 1500),
        sofa("Ledersofa", 900),
        sofa("Sofa mit Macken", 90),
    ]


async def watching(bot: Bot, chat: int = ALICE, **say: Any) -> None:
    """`chat` watches SEARCH, scanned once (the baseline) with the page of `adverts`."""
    bot.site.set_listings(MARKET, adverts(random.Random(21), bot.clock()))
    await bot.say(chat, f"/watch {SEARCH}", **say)
    await bot.baseline()


async def test_a_preview_counts_what_passes_and_what_each_rule_hid_with_linked_examples(
    bot: Bot,
) -> None:
    await watching(bot)
    await bot.say(ALICE, "/filter 1 -defekt max 500 drop 10%")
    sent = len(bot.api.messages(ALICE))
    bot.clock.advance(240)

    await bot.say(ALICE, "/preview 1")

    assert len(bot.api.messages(ALICE)) == sent + 1
    text = bot.last(ALICE)
    assert text.startswith("🔎 <b>Vorschau von Suche Nr. 1</b> (<b>sofa</b>)")
    assert "Letzter Abruf vor 4 min: 29 Anzeigen" in text  # the reserved one is not on the page
    assert "✅ 24 kommen durch" in text
    assert "🙈 3 blendet <code>-defekt</code> aus" in text
    assert "🙈 2 blendet <code>max 500</code> aus" in text
    assert text.index("-defekt</code>") < text.index("max 500</code>")  # the filter's order
    assert text.count("  • <a href=") == 3 + 3 + 2
    assert "Sofa defekt</a> · € 40" in text
    assert "Sofa &lt;b&gt;&quot;Luxus&quot;&lt;/b&gt; &amp; Sessel sehr bequem" in text
    assert HTML_TITLE.strip() not in text  # shortened
    assert "<code>drop 10%</code>: Preisregeln gelten nur für Preissenkungen" in text
    assert visible_len(text) <= MAX_MESSAGE


async def test_a_watch_without_a_filter_lets_all_through(bot: Bot) -> None:
    await watching(bot)
    await bot.say(ALICE, "/preview 1")
    text = bot.last(ALICE)
    assert "✅ Kein Filter: alle 29 kommen durch" in text
    assert "🙈" not in text
    assert "Preisregeln" not in text


async def test_the_preview_is_in_english_for_an_english_chat(tmp_path: Path) -> None:
    async with running(tmp_path, lang="en") as bot:
        await watching(bot)
        await bot.say(ALICE, "/filter 1 -defekt lowest")
        await bot.say(ALICE, "/preview 1")
        text = bot.last(ALICE)
    assert text.startswith("🔎 <b>Preview of search no. 1</b> (<b>sofa</b>)")
    assert "Latest read 0 s ago: 29 listings" in text
    assert "✅ 26 pass" in text
    assert "🙈 3 hidden by <code>-defekt</code>" in text
    assert "<code>lowest</code>: price rules judge price drops only" in text


async def test_the_preview_speaks_the_language_of_the_chat_not_the_bots(bot: Bot) -> None:
    """A German bot answers a chat whose user's Telegram is English in English."""
    await watching(bot, lang="en")
    await bot.say(ALICE, "/preview 1", lang="en")
    assert "Preview of search no. 1" in bot.last(ALICE)


async def test_many_rules_and_long_titles_still_make_one_message_with_every_count(
    bot: Bot,
) -> None:
    """20 words of 40 letters, each hiding three adverts whose titles are long and full of
    HTML characters: the examples thin out, every count stays, and Telegram takes it."""
    rand = random.Random(99)
    words = [f"{chr(ord('a') + n)}" * 40 for n in range(20)]
    bot.site.set_listings(
        MARKET,
        [
            FakeAdvert(
                str(rand.randrange(10**9, 10**10)),
                f"{word} <&> " + "🛋️ Sofa & <i>Couch</i> " * 12,
                Decimal(100 + n),
            )
            for word in ["passt", *words]
            for n in range(3)
        ],
    )
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    await bot.say(ALICE, "/filter 1 " + " ".join(f"-{word}" for word in words))

    await bot.say(ALICE, "/preview 1")

    text = bot.last(ALICE)
    assert text.startswith("🔎 <b>Vorschau")
    assert visible_len(text) <= MAX_MESSAGE
    assert "✅ 3 kommen durch" in text
    assert text.count("🙈 3 blendet <code>-") == 20
    for word in words:  # shortened as /filter shows them
        assert f"🙈 3 blendet <code>-{word[:38]}…</code> aus" in text
    assert "&lt;i&gt;Couch&lt;/i&gt;" in text  # some examples stay, escaped
    assert text.count("  • <a href=") == 21  # one example each, where three did not fit


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        ("/preview", "So geht's: <code>/preview n</code>"),
        ("/preview 1 2", "So geht's: <code>/preview n</code>"),
        ("/preview eins", "„eins“ ist keine Suchnummer"),
        ("/preview <b>", "„&lt;b&gt;“ ist keine Suchnummer"),
        ("/preview 7", "Eine Suche Nr. 7 gibt es nicht"),
        ("/preview 0", "Eine Suche Nr. 0 gibt es nicht"),
    ],
)
async def test_bad_input_gets_a_clear_answer(bot: Bot, command: str, answer: str) -> None:
    await watching(bot)
    await bot.say(ALICE, command)
    assert answer in bot.last(ALICE)


async def test_a_watch_that_never_scanned_says_so(bot: Bot) -> None:
    """The watch's search has never been read (its first scan failed): nothing to preview,
    and the preview asks willhaben for nothing."""
    bot.site.intercept(SiteFault.server_error())
    await bot.say(ALICE, f"/watch {SEARCH}")
    await bot.baseline()
    requests = len(bot.site.log)
    await bot.say(ALICE, "/preview 1")
    assert bot.last(ALICE).startswith(
        "Suche Nr. 1 (<b>sofa</b>) wurde noch nie abgerufen, es gibt noch nichts zu zeigen."
    )
    assert len(bot.site.log) == requests


async def test_a_paused_or_muted_watch_previews_and_says_so(bot: Bot) -> None:
    await watching(bot)
    (watch,) = await bot.app.bot_data.subscriptions.watches(ALICE)
    await bot.app.bot_data.subscriptions.mute(watch.id, until=bot.clock() + 7200)
    await bot.say(ALICE, "/preview 1")
    assert "🔕 Stumm, noch 2 h: bis dahin meldet diese Suche nichts." in bot.last(ALICE)
    assert "✅ Kein Filter: alle 29 kommen durch" in bot.last(ALICE)

    await bot.say(ALICE, "/pause 1")
    await bot.say(ALICE, "/preview 1")
    assert "⏸ Pausiert: diese Suche meldet nichts, bis /resume 1." in bot.last(ALICE)
    assert "✅ Kein Filter: alle 29 kommen durch" in bot.last(ALICE)


async def test_any_group_member_may_preview_and_it_changes_nothing(bot: Bot) -> None:
    """In a group a member who is no admin gets the preview (it reads only)."""
    bot.api.set_member(GROUP, ALICE, "administrator")
    await watching(bot, GROUP, user_id=ALICE, group=True)
    await bot.say(GROUP, "/filter 1 max 500", user_id=ALICE, group=True)

    await bot.say(GROUP, "/preview 1", user_id=BOB, group=True)

    text = bot.last(GROUP)
    assert "Vorschau von Suche Nr. 1" in text
    assert "🙈 2 blendet <code>max 500</code> aus" in text
    (watch,) = await bot.app.bot_data.subscriptions.watches(GROUP)
    assert watch.filter.rules() == ["max 500"]
    assert not watch.paused


async def test_help_and_the_menu_offer_preview_in_both_languages(bot: Bot) -> None:
    for catalog in (GERMAN, ENGLISH):
        assert "/preview <i>n</i>" in catalog.help
    assert "preview" in {command["command"] for command in bot.api.commands_by_lang["de"]}
    assert "preview" in {command["command"] for command in bot.api.commands_by_lang["en"]}
    await bot.say(ALICE, "/help")
    assert "/preview" in bot.last(ALICE)


async def test_adverts_near_cannot_place_are_said_as_such(bot: Bot) -> None:
    """Issue 21: `near` hides an advert habicht cannot place (no coordinates, a postcode it
    has not placed); the preview says "without a place", not the rule's inner name."""
    await watching(bot)
    now = int(bot.clock() * 1000)
    bot.site.set_listings(
        MARKET,
        [
            FakeAdvert(
                "801",
                "Sofa am Land",
                Decimal(80),
                published_ms=now,
                coordinates=None,
                postcode="9991",
            ),
            FakeAdvert(
                "802",
                "Sofa in Graz",
                Decimal(90),
                published_ms=now,
                coordinates=(47.07, 15.44),
                postcode="8010",
            ),
            *bot.site.listings(MARKET),
        ],
    )
    await bot.scrape()
    await bot.say(ALICE, "/filter 1 near 1070 5")
    await bot.say(ALICE, "/preview 1")

    text = bot.last(ALICE)
    assert "🙈 1 ohne Ort: <code>near</code> kann sie nicht verorten" in text
    assert "Sofa am Land</a>" in text
    assert "🙈 1 blendet <code>near 1070 5</code> aus" in text
    assert "without a place" not in text
