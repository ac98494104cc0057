"""Chats and watches: add, list by number, remove, pause/resume, block, and the owner's view."""

from __future__ import annotations

import pytest
from kit.fakes import FakeClock

from habicht.db import Database
from habicht.model import Search
from habicht.watches.errors import DuplicateWatch, TooManyWatches, WatchError
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.urls import parse_watch_argument

RTX = parse_watch_argument("rtx 3070 max 400")
SOFA = parse_watch_argument("sofa")
TISCH = parse_watch_argument("tisch")


async def test_watches_are_numbered_in_creation_order(subs: Subscriptions) -> None:
    """A chat's watches are listed oldest first, numbered from 1."""
    for search in (RTX, SOFA, TISCH):
        await subs.add_watch(1, search, max_watches=5)
    watches = await subs.watches(1)
    assert [(w.number, w.label) for w in watches] == [
        (1, "rtx 3070 (max € 400)"),
        (2, "sofa"),
        (3, "tisch"),
    ]
    first = watches[0]
    assert (first.url, first.paused, first.baseline_at, first.listings_known) == (
        RTX.url,
        False,
        None,
        0,
    )
    assert await subs.watch(1, 2) == watches[1]
    assert await subs.watch(1, 4) is None
    assert await subs.watch(1, 0) is None


async def test_add_watch_returns_the_new_watch(subs: Subscriptions) -> None:
    """add_watch answers with the watch as /list will show it."""
    await subs.add_watch(1, SOFA, max_watches=5)
    added = await subs.add_watch(1, RTX, max_watches=5)
    assert (added.number, added.chat_id, added.url) == (2, 1, RTX.url)


async def test_identical_searches_share_one_search(subs: Subscriptions, db: Database) -> None:
    """Two chats watching the same normalised URL share one searches row."""
    a = await subs.add_watch(1, RTX, max_watches=5)
    b = await subs.add_watch(2, Search(url=RTX.url, label="meine rtx"), max_watches=5)
    assert a.search_id == b.search_id
    assert await db.single_value("SELECT COUNT(*) FROM searches") == 1


async def test_a_duplicate_watch_is_refused(subs: Subscriptions) -> None:
    """Watching the same search twice raises DuplicateWatch naming the existing watch."""
    await subs.add_watch(1, SOFA, max_watches=5)
    await subs.add_watch(1, RTX, max_watches=5)
    with pytest.raises(DuplicateWatch) as duplicate:
        await subs.add_watch(1, RTX, max_watches=5)
    assert duplicate.value.watch.number == 2
    assert isinstance(duplicate.value, WatchError)


async def test_the_watch_limit_is_enforced(subs: Subscriptions, db: Database) -> None:
    """At max_watches a further watch raises TooManyWatches and leaves no trace."""
    await subs.add_watch(1, SOFA, max_watches=2)
    await subs.add_watch(1, TISCH, max_watches=2)
    with pytest.raises(TooManyWatches) as too_many:
        await subs.add_watch(1, RTX, max_watches=2)
    assert too_many.value.limit == 2
    assert len(await subs.watches(1)) == 2
    assert await db.single_value("SELECT COUNT(*) FROM searches") == 2


async def test_remove_watch_renumbers_and_drops_orphan_searches(
    subs: Subscriptions, db: Database
) -> None:
    """Removing #1 makes #2 the new #1; a search nobody watches any more is deleted."""
    await subs.add_watch(1, SOFA, max_watches=5)
    await subs.add_watch(1, RTX, max_watches=5)
    await subs.add_watch(2, RTX, max_watches=5)
    removed = await subs.remove_watch(1, 1)
    assert removed is not None
    assert removed.label == "sofa"
    assert [(w.number, w.url) for w in await subs.watches(1)] == [(1, RTX.url)]
    assert await subs.remove_watch(1, 5) is None
    assert await subs.remove_watch(1, 1) is not None
    assert await db.single_value("SELECT COUNT(*) FROM searches") == 1  # chat 2 still has RTX


async def test_a_removed_watchs_id_is_never_given_to_another_watch(subs: Subscriptions) -> None:
    """Issue 35: the id of a removed watch — even the newest, whose id SQLite's plain row ids
    hand out again — is never another watch's, in its chat or any other: whatever names a
    watch by id (an alert's buttons, `/unwatch`'s) names that one watch for ever."""
    given: set[int] = set()
    for chat in (1, 2, 1):
        sofa = await subs.add_watch(chat, SOFA, max_watches=5)
        assert sofa.id not in given
        given.add(sofa.id)
        assert await subs.remove_watch(chat, sofa.number) is not None
    rtx = await subs.add_watch(1, RTX, max_watches=5)
    assert rtx.id not in given
    assert rtx.id > max(given)


async def test_pause_and_resume_one_or_all(subs: Subscriptions, db: Database) -> None:
    """Pausing addresses one watch or all; resuming clears the baseline for a silent restart."""
    for search in (RTX, SOFA):
        await subs.add_watch(1, search, max_watches=5)
    async with db.transaction() as conn:
        await conn.execute("UPDATE watches SET baseline_at = 5")
    paused = await subs.set_paused(1, 2, paused=True)
    assert [(w.number, w.paused) for w in paused] == [(2, True)]
    assert [w.paused for w in await subs.watches(1)] == [False, True]
    assert await subs.set_paused(1, 9, paused=True) == []
    resumed = await subs.set_paused(1, None, paused=False)
    assert [(w.number, w.paused, w.baseline_at) for w in resumed] == [
        (1, False, 5),
        (2, False, None),
    ]


async def test_blocking_and_coming_back(subs: Subscriptions, db: Database) -> None:
    """A blocked chat is reported as blocked; /start re-activates it and re-baselines watches."""
    assert await subs.register_chat(1) is False
    await subs.add_watch(1, RTX, max_watches=5)
    async with db.transaction() as conn:
        await conn.execute("UPDATE watches SET baseline_at = 5")
    await subs.block_chat(1)
    assert await subs.is_blocked(1) is True
    assert await subs.register_chat(1) is True
    assert await subs.is_blocked(1) is False
    assert await subs.register_chat(1) is False
    (watch,) = await subs.watches(1)
    assert watch.baseline_at is None
    await subs.block_chat(99)
    assert await subs.is_blocked(99) is True
    assert await subs.is_blocked(100) is False


async def test_overview_counts_and_lists_failing_searches(
    subs: Subscriptions, db: Database
) -> None:
    """The owner's overview counts chats, watches, searches, listings and names failing ones."""
    await subs.add_watch(1, RTX, max_watches=5)
    await subs.add_watch(2, RTX, max_watches=5)
    await subs.add_watch(2, SOFA, max_watches=5)
    await subs.set_paused(2, 2, paused=True)
    await subs.block_chat(1)
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE searches SET consecutive_failures = 3, last_error_kind = 'layout',"
            " last_error = 'no __NEXT_DATA__' WHERE url = ?",
            (RTX.url,),
        )
    overview = await subs.overview()
    assert (overview.chats, overview.active_chats, overview.watches) == (2, 1, 3)
    assert (overview.active_watches, overview.searches, overview.listings) == (1, 2, 0)
    (failing,) = overview.failing
    assert (failing.url, failing.watchers, failing.consecutive_failures) == (RTX.url, 2, 3)
    assert (failing.last_error_kind, failing.last_error) == ("layout", "no __NEXT_DATA__")
    assert failing.search == RTX


async def test_a_search_is_labelled_as_its_oldest_watch(subs: Subscriptions) -> None:
    """Issue 36: the owners' texts name a search by the label of its oldest watch (a label is
    what a chat typed); a URL nobody watches is left out."""
    await subs.add_watch(1, parse_watch_argument("Sofa"), max_watches=5)
    await subs.add_watch(2, SOFA, max_watches=5)
    await subs.add_watch(2, RTX, max_watches=5)
    named = await subs.searches([SOFA.url, RTX.url, TISCH.url])
    assert named == {SOFA.url: Search(SOFA.url, "Sofa"), RTX.url: RTX}


async def test_a_migrated_group_keeps_its_watches_under_the_new_id(db: Database) -> None:
    """After a group becomes a supergroup, its chat and watches answer to the new chat id."""
    subs = Subscriptions(db, clock=FakeClock())
    await subs.add_watch(-100, parse_watch_argument("rtx 3070"), max_watches=5)
    await subs.add_watch(-100, parse_watch_argument("sofa"), max_watches=5)
    await subs.add_watch(-200, parse_watch_argument("sofa"), max_watches=5)
    await subs.migrate_chat(-100, -200)
    assert await subs.watches(-100) == []
    assert sorted(w.label for w in await subs.watches(-200)) == ["rtx 3070", "sofa"]
    assert await db.single_value("SELECT COUNT(*) FROM chats WHERE chat_id = -100") == 0


async def test_a_migrated_group_takes_every_column_of_its_chat_row(db: Database) -> None:
    """Issue 19 (5): the move copies the chat row column by column as the schema has them,
    so a setting a later migration adds moves too — and replaces the defaults of a row the
    new id got from a message before the move."""
    subs = Subscriptions(db, clock=FakeClock())
    async with db.transaction() as conn:  # a setting a future migration might add
        await conn.execute("ALTER TABLE chats ADD COLUMN future_setting TEXT")
    await subs.add_watch(-100, SOFA, max_watches=5)
    await subs.register_chat(-200)
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE chats SET future_setting = 'kept', digest_after = 12, quiet_from = '22:00'"
            " WHERE chat_id = -100"
        )
    await subs.migrate_chat(-100, -200)
    row = await db.fetchone(
        "SELECT future_setting, digest_after, quiet_from FROM chats WHERE chat_id = -200"
    )
    assert row is not None
    assert tuple(row) == ("kept", 12, "22:00")
