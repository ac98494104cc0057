"""The owner's `/queue` (`habicht.bot.handlers.admin`) through the real Application: its counts
match the outbox, dead items show their error without the token, and for anyone else it is an
unknown command that changes nothing."""

from __future__ import annotations

from kit.bot import ALICE, OWNER, Bot

from habicht.message import Outgoing


async def test_queue_numbers_match_the_database(bot: Bot) -> None:
    """/queue shows exactly the counts in the outbox: pending, dead, and dead by reason."""
    store = bot.app.bot_data.store
    await store.enqueue_many(
        Outgoing(chat_id=5000 + n, kind="info", text=f"hi {n}", dedupe_key=f"t:{n}")
        for n in range(3)
    )
    claimed = await store.claim(1)
    await store.mark_dead(claimed, reason="blocked", error="Forbidden: bot was blocked")
    stats = await store.stats()
    assert (stats.pending, stats.dead) == (2, 1)
    await bot.say(OWNER, "/queue")
    text = bot.last(OWNER)
    assert f"wartend: {stats.pending} " in text
    assert f"tot: {stats.dead}" in text
    assert "blocked: 1" in text
    await bot.say(OWNER, "/queue dead")
    assert f"#{claimed[0].id} Chat {claimed[0].chat_id}" in bot.last(OWNER)
    await bot.say(OWNER, "/queue retry all")
    assert "1 Nachrichten wieder eingereiht" in bot.last(OWNER)
    assert (await store.stats()).pending == 3
    await bot.say(OWNER, "/stats")
    assert "Statistik" in bot.last(OWNER)


async def test_strangers_get_a_refusal_that_reveals_nothing(bot: Bot) -> None:
    """A non-owner's /queue gets exactly the unknown-command answer (none in a group, like an
    unknown command) and changes nothing in the database. (A non-owner's /stats is the
    subscribers' `/stats <n>`: tests/bot/test_figures.py.)"""
    store = bot.app.bot_data.store
    await store.enqueue_many(
        Outgoing(chat_id=5000 + n, kind="info", text=f"hi {n}", dedupe_key=f"t:{n}")
        for n in range(2)
    )
    (sent, dead) = await store.claim(2)
    await store.mark_sent([sent])
    await store.mark_dead([dead], reason="blocked", error="Forbidden: bot was blocked")
    snapshot = "SELECT * FROM notifications ORDER BY id"
    before = [tuple(row) for row in await bot.app.bot_data.db.fetchall(snapshot)]

    await bot.say(ALICE, "/frobnicate")
    unknown = bot.last(ALICE)
    for command in ("/queue purge 0", "/queue retry all", "/queue"):
        await bot.say(ALICE, command)
        assert bot.last(ALICE) == unknown
    assert [tuple(row) for row in await bot.app.bot_data.db.fetchall(snapshot)] == before

    group = -4002
    await bot.say(group, "/queue", user_id=ALICE, group=True)
    await bot.say(group, "/frobnicate", user_id=ALICE, group=True)
    assert bot.api.messages(group) == []


async def test_dead_items_show_their_error_without_the_token(bot: Bot) -> None:
    """`/queue dead` shows each dead item's error with the bot token scrubbed out."""
    store = bot.app.bot_data.store
    await store.enqueue_many([Outgoing(chat_id=5000, kind="info", text="hi", dedupe_key="t")])
    token = bot.api.token
    await store.mark_dead(await store.claim(1), reason="unknown", error=f"POST /bot{token}/x")
    await bot.say(OWNER, "/queue dead")
    assert "unknown: POST /bot[REDACTED]/x" in bot.last(OWNER)
    assert token not in bot.last(OWNER)
