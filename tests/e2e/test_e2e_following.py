"""Alerts that stay true (issue 34), end to end: the real `habicht run` against the fake Bot
API and the fake willhaben on 127.0.0.1 — its intervals scaled down to a second, everything
else at the defaults (feeds on, following for 7 days)."""

from __future__ import annotations

from decimal import Decimal

from kit.e2e import SEARCH, World, gpu

from habicht.fakes.telegram import SentMessage
from habicht.fakes.willhaben_site import SiteFault

ANNA = 101
NEW = gpu(2, 150)


def alert_of(world: World, chat_id: int, ad_id: str) -> SentMessage:
    """The message that alerted `chat_id` of `ad_id`, once it is there."""

    def found() -> SentMessage | None:
        return next((m for m in world.telegram.messages(chat_id) if f"-{ad_id}/" in m.text), None)

    world.wait_for(lambda: found() is not None, f"the alert of {ad_id}")
    alert = found()
    assert alert is not None
    return alert


def edited(world: World, alert: SentMessage, start: str) -> bool:
    """Whether the alert's latest edit begins with `start`."""
    edits = world.telegram.edits_of(alert.chat_id, alert.message_id)
    return bool(edits) and edits[-1].text.startswith(start)


def alerted(world: World) -> SentMessage:
    """Anna watches the search; a new advert appears and is alerted."""
    world.site.set_listings(SEARCH, [gpu(1, 300)])
    world.start()
    world.subscribe(ANNA)
    world.site.add(SEARCH, NEW)
    return alert_of(world, ANNA, NEW.id)


def test_a_reservation_and_a_price_cut_edit_the_sent_alert(world: World) -> None:
    """Reserved: the alert says so at the next read; back on offer and cheaper: the drop
    alert comes as before, and the first alert says both."""
    alert = alerted(world)
    world.site.set_reserved(NEW.id, True)
    world.wait_for(lambda: edited(world, alert, "🔒 <b>reserviert</b>"), "the reserved edit")
    world.site.set_reserved(NEW.id, False)
    world.site.set_price(NEW.id, Decimal(120))
    world.wait_for(
        lambda: edited(world, alert, "✅ <b>wieder verfügbar</b>\n💶 <b>jetzt € 120</b>"),
        "the back-on-offer and price edit",
    )
    world.wait_for(
        lambda: any("📉" in m.text for m in world.telegram.messages(ANNA)), "the drop alert"
    )


CHECKS = {"HABICHT_SCRAPE_INTERVAL": "12"}
"""Page checks come only when no search is due within the scheduler's tick (10 s): with an
interval of a second a search always is; at 12 s each scan leaves two seconds of room."""

PROOF = 90.0
"""Seconds a page check's proof may take at that interval: the first check once no read
showed the advert for an interval, the confirming one an interval later."""


def test_one_404_that_turns_back_into_the_page_marks_nothing(world: World) -> None:
    """The advert leaves the search; its page answers 404 once, then shows it on offer: two
    page checks, no edit."""
    world.overrides.update(CHECKS)
    alert = alerted(world)
    world.site.remove(SEARCH, NEW.id)
    world.site.fail_next(SiteFault.not_found(), url=NEW.url)
    world.wait_for(lambda: world.site.advert_pages[NEW.id] >= 2, "two page checks", timeout=PROOF)
    found = world.query("SELECT found FROM page_checks ORDER BY rowid")
    assert found[:2] == [("missing",), ("active",)]
    assert world.telegram.edits_of(ANNA, alert.message_id) == []


def test_a_gone_advert_is_marked_gone_after_a_restart(world: World) -> None:
    """habicht is killed after the alert and started again; the advert's page is gone for
    good (410): the alert is marked gone, its title struck, its open button removed."""
    world.overrides.update(CHECKS)
    alert = alerted(world)
    world.wait_for(lambda: set(world.outbox().values()) == {"sent"}, "the alert recorded sent")
    world.kill()
    world.start()
    world.site.take_down(NEW.id, status=410)
    world.wait_for(
        lambda: edited(world, alert, "❌ <b>nicht mehr online</b>"), "the gone edit", timeout=PROOF
    )
    [edit] = world.telegram.edits_of(ANNA, alert.message_id)
    assert "<s><a href=" in edit.text
    keyboard = (edit.reply_markup or {}).get("inline_keyboard", [])
    assert keyboard
    assert all("url" not in button for row in keyboard for button in row)


def test_an_edit_of_a_deleted_alert_is_tried_once(world: World) -> None:
    """Anna deleted the alert: one edit attempt, dead as `message_gone`, never again."""
    alert = alerted(world)
    world.telegram.delete_message(ANNA, alert.message_id)
    world.site.set_reserved(NEW.id, True)
    world.wait_for(
        lambda: (
            world.query(
                "SELECT dead_reason FROM notifications WHERE kind = 'edit' AND status = 'dead'"
            )
            == [("message_gone",)]
        ),
        "the edit dead",
    )
    world.site.set_reserved(NEW.id, False)
    scans = world.site.hits[SEARCH]
    world.wait_for(lambda: world.site.hits[SEARCH] >= scans + 3, "three more scans")
    assert world.query("SELECT count(*) FROM notifications WHERE kind = 'edit'") == [(1,)]
