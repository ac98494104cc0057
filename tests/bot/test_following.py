"""Alerts that stay true (issue 34), through the real Application: a sent alert is edited in
place when its advert is reserved, cheaper or gone — against the fake willhaben and the fake
Bot API, on a real SQLite file, with the scheduler's passes run one interval apart."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from kit.bot import ALICE, MARKET, SEARCH, Bot, alert_of, running, settings_message
from kit.fakes import FakeClock

from habicht.fakes import FakeAdvert
from habicht.fakes.telegram import FakeBotAPI, SentMessage
from habicht.fakes.willhaben_site import SiteFault

SOFA = FakeAdvert("2002", "Neues Sofa", Decimal(300))
CHAIR = FakeAdvert("2003", "Alter Sessel", Decimal(40))


def edits(bot: Bot, alert: SentMessage) -> list[SentMessage]:
    return bot.api.edits_of(alert.chat_id, alert.message_id)


def buttons(message: SentMessage) -> list[str]:
    markup = message.reply_markup or {}
    return [button["text"] for row in markup.get("inline_keyboard", []) for button in row]


async def dead_reasons(bot: Bot) -> list[tuple[str, str | None]]:
    rows = await bot.app.bot_data.db.fetchall(
        "SELECT kind, dead_reason FROM notifications WHERE status = 'dead' ORDER BY id"
    )
    return [(row[0], row[1]) for row in rows]


async def test_a_reserved_advert_edits_its_alert_at_the_next_read(tmp_path: Path) -> None:
    """The seller marks the sofa reserved: the next scan shows it so, and the photo alert's
    caption gets "reserviert" on top, the alert itself kept whole, silently."""
    async with running(tmp_path) as bot:
        alert = await alert_of(bot, ALICE, SOFA)
        assert alert.photo is not None
        bot.site.set_reserved(SOFA.id, True)
        await bot.scrape()
        [edit] = edits(bot, alert)
        assert edit.text.startswith("🔒 <b>reserviert</b> (seit ")
        assert edit.text.endswith(alert.text)
        assert edit.params["caption"] == edit.text, "a photo's caption is edited"
        assert buttons(edit) == buttons(alert)
        await bot.scrape()
        assert len(edits(bot, alert)) == 1, "nothing new: no second edit"
        bot.site.set_reserved(SOFA.id, False)
        await bot.scrape()
        assert edits(bot, alert)[-1].text == f"✅ <b>wieder verfügbar</b>\n{alert.text}"


async def test_a_price_cut_sends_its_drop_alert_and_edits_the_first(tmp_path: Path) -> None:
    """€ 300 → € 250: the drop alert as before, and the first alert says the price now."""
    async with running(tmp_path) as bot:
        alert = await alert_of(bot, ALICE, SOFA)
        bot.site.set_price(SOFA.id, Decimal(250))
        await bot.scrape()
        drop = bot.api.messages(ALICE)[-1]
        assert drop.message_id != alert.message_id
        assert "📉" in drop.text
        [edit] = edits(bot, alert)
        assert edit.text == f"💶 <b>jetzt € 250</b> (war € 300)\n{alert.text}"
        assert edits(bot, drop) == [], "the drop alert tells the price now already"


async def test_an_advert_whose_page_is_gone_twice_is_marked_gone(tmp_path: Path) -> None:
    """The sofa leaves the search and its page answers 404: the first page check only starts
    the proof; the one an interval later marks the alert gone — title struck, no "open"."""
    async with running(tmp_path) as bot:
        alert = await alert_of(bot, ALICE, SOFA)
        bot.site.take_down(SOFA.id, status=404)
        await bot.scrape()
        assert edits(bot, alert) == [], "one 404 proves nothing"
        await bot.scrape()
        [edit] = edits(bot, alert)
        assert edit.text.startswith("❌ <b>nicht mehr online</b> (seit ")
        assert "<s><a href=" in edit.text
        assert buttons(edit) == [b for b in buttons(alert) if b != buttons(alert)[0]]
        checks = await bot.app.bot_data.db.fetchall(
            "SELECT found FROM page_checks ORDER BY checked_at"
        )
        assert [row[0] for row in checks] == ["missing", "gone"]


async def test_a_single_404_that_turns_back_into_the_page_marks_nothing(tmp_path: Path) -> None:
    """The sofa leaves the search; its page answers 404 once, then shows it on offer: no
    edit, however long it is followed — and the page checks go on, further apart."""
    async with running(tmp_path) as bot:
        alert = await alert_of(bot, ALICE, SOFA)
        bot.site.remove(MARKET, SOFA.id)
        bot.site.fail_next(SiteFault.not_found(), url=SOFA.url)
        for _ in range(6):
            await bot.scrape()
        assert edits(bot, alert) == []
        checks = await bot.app.bot_data.db.fetchall(
            "SELECT found FROM page_checks ORDER BY checked_at"
        )
        assert [row[0] for row in checks][:2] == ["missing", "active"]


async def test_an_edit_of_a_deleted_alert_is_tried_once(tmp_path: Path) -> None:
    """Alice deleted the alert: the edit answers "message to edit not found" once, and ends
    dead as `message_gone`, without a retry or a word to the owner."""
    async with running(tmp_path) as bot:
        alert = await alert_of(bot, ALICE, SOFA)
        bot.api.delete_message(ALICE, alert.message_id)
        bot.site.set_reserved(SOFA.id, True)
        await bot.scrape()
        await bot.scrape()
        assert ("edit", "message_gone") in await dead_reasons(bot)
        bot.site.set_reserved(SOFA.id, False)
        await bot.scrape()
        rows = await bot.app.bot_data.db.fetchall(
            "SELECT count(*) FROM notifications WHERE kind = 'edit'"
        )
        assert rows[0][0] == 1, "a deleted message is followed no more"


async def test_following_survives_a_restart(tmp_path: Path) -> None:
    """The bot restarts between the alert and the reservation: the alert is still edited."""
    clock = FakeClock()
    with FakeBotAPI(clock=clock) as api:
        async with running(tmp_path, clock=clock, api=api) as bot:
            alert = await alert_of(bot, ALICE, SOFA)
            site = bot.site
        async with running(tmp_path, clock=clock, site=site, api=api) as bot:
            site.set_reserved(SOFA.id, True)
            await bot.scrape()
            assert edits(bot, alert)[0].text.startswith("🔒")


async def test_update_sent_alerts_is_a_setting_of_the_chat(tmp_path: Path) -> None:
    """/settings says it is on, and its button turns it off: the reserved sofa's alert then
    stays as it was."""
    async with running(tmp_path) as bot:
        alert = await alert_of(bot, ALICE, SOFA)
        shown = await settings_message(bot, ALICE)
        assert "Gesendete Alarme aktualisieren: ja" in shown.text
        await bot.press(ALICE, shown.message_id, "set:follow:off")
        assert "aktualisieren: nein" in bot.api.as_shown(ALICE, shown.message_id)["text"]  # type: ignore[index]
        bot.site.set_reserved(SOFA.id, True)
        await bot.scrape()
        assert edits(bot, alert) == []


async def test_a_paused_watch_and_a_chat_that_turned_it_off_are_not_followed(
    tmp_path: Path,
) -> None:
    """/pause stops following the watch's alerts; so does HABICHT_FOLLOW_DAYS=0."""
    async with running(tmp_path) as bot:
        alert = await alert_of(bot, ALICE, SOFA)
        await bot.say(ALICE, "/pause 1")
        bot.site.set_reserved(SOFA.id, True)
        await bot.scrape()
        assert edits(bot, alert) == []
    async with running(tmp_path / "off", follow_days=0) as bot:
        alert = await alert_of(bot, ALICE, SOFA)
        bot.site.set_reserved(SOFA.id, True)
        await bot.scrape()
        assert edits(bot, alert) == []


GROUP = -1005001


async def test_alerts_in_a_group_and_a_forum_topic_are_kept_true(tmp_path: Path) -> None:
    """A group's alert and a forum topic's alert are edited like a private chat's."""
    async with running(tmp_path) as bot:
        bot.api.set_member(GROUP, ALICE, "administrator")
        bot.api.set_member(GROUP - 1, ALICE, "administrator")
        group = await alert_of(bot, GROUP, SOFA, user_id=ALICE, group=True)
        await bot.say(GROUP - 1, f"/watch {SEARCH}", user_id=ALICE, topic=77)
        await bot.baseline()
        bot.site.add(MARKET, CHAIR)
        await bot.scrape()
        [topic_alert] = [m for m in bot.api.messages(GROUP - 1) if CHAIR.title in m.text]
        assert topic_alert.thread_id == 77
        bot.site.set_reserved(SOFA.id, True)
        bot.site.set_reserved(CHAIR.id, True)
        await bot.scrape()
        assert edits(bot, group)[0].text.startswith("🔒")
        assert edits(bot, topic_alert)[0].text.startswith("🔒")


async def test_a_digest_gets_the_line_of_a_reserved_advert_marked(tmp_path: Path) -> None:
    """Six new adverts at once make a digest; one is reserved later: the digest is edited,
    that advert's line marked, the others as they were."""
    async with running(tmp_path) as bot:
        await bot.say(ALICE, f"/watch {SEARCH}")
        await bot.baseline()
        many = [FakeAdvert(str(3000 + n), f"Sessel {n}", Decimal(50 + n)) for n in range(6)]
        bot.site.add(MARKET, *many)
        await bot.scrape()
        digest = bot.api.messages(ALICE)[-1]
        assert digest.text.startswith("📬")
        bot.site.set_reserved(many[2].id, True)
        await bot.scrape()
        [edit] = edits(bot, digest)
        before, after = digest.text.split("\n"), edit.text.split("\n")
        changed = [(old, new) for old, new in zip(before, after, strict=True) if old != new]
        [(line, marked)] = changed
        assert "Sessel 2" in line
        assert marked.startswith("🔒 <b>reserviert</b> (seit ")
        assert marked.endswith(f") · {line}")


async def test_fifty_reservations_do_not_hold_up_a_new_advert(tmp_path: Path) -> None:
    """Fifty alerted adverts are reserved in the same read that finds a new one: the new
    advert's alert goes out before any of the fifty edits."""
    async with running(tmp_path, digest_after=1000) as bot:
        await bot.say(ALICE, f"/watch {SEARCH}")
        await bot.baseline()
        fifty = [FakeAdvert(str(4000 + n), f"Stuhl {n}", Decimal(20 + n)) for n in range(50)]
        bot.site.add(MARKET, *fifty)
        await bot.scrape()
        alerts = bot.api.messages(ALICE)[-50:]
        for advert in fifty:
            bot.site.set_reserved(advert.id, True)
        bot.site.add(MARKET, SOFA)
        await bot.scrape()
        new = bot.api.messages(ALICE)[-1]
        assert SOFA.title in new.text
        edited = [edit for alert in alerts for edit in edits(bot, alert)]
        assert len(edited) == 50
        assert new.at <= min(edit.at for edit in edited)
