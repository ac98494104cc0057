"""What subscribers can do: /start, /help, /watch, /list, /unwatch, /pause, /resume
(/filter and /history live in `filtering`).

Thin handlers: read `context.args`, answer bad input with usage and return, call
`Subscriptions`, answer with a text from `texts` (which escapes every value). Replies to a
command go straight back to the chat; alerts go through the outbox.

Inline buttons carry `unwatch:<watch id>` (an id, not a number: numbers shift when a watch
is deleted) or `watch:<offer>`, a random key into the chat's last `OFFERS_KEPT` offers, held
in memory. A restart forgets them, and the button then says the offer expired; the keys are
random so that an old button can never match a newer offer under a recycled key. A button
under a message too old to edit is answered with a new message.

Every reply is in the chat's language. In a group, only its admins may add, change, pause or
remove watches, by command or button (`habicht.bot.guards`); reading (`/list`, `/help`) is for all.
A watch added in a forum topic records that topic; replies go to the topic they answer.
"""

from __future__ import annotations

import re
import secrets

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from habicht.bot.guards import admins_only, admins_only_button
from habicht.bot.handling import chat_of, edit_in_place, reply
from habicht.bot.jobs import scan_now
from habicht.bot.reactivation import reactivate, welcome_back
from habicht.bot.services import Context
from habicht.bot.texts import Html, Texts
from habicht.digits import row_id, whole_number
from habicht.model import Search
from habicht.watches.errors import DuplicateWatch, TooManyWatches
from habicht.watches.watch import WatchInfo
from habicht.willhaben.errors import InvalidSearch
from habicht.willhaben.urls import parse_watch_argument

__all__ = [
    "OFFERS_KEPT",
    "help_command",
    "list_command",
    "on_button",
    "on_text",
    "pause_command",
    "resume_command",
    "start",
    "unwatch_command",
    "watch_command",
]

OFFERS_KEPT = 10
"""Pasted links a chat may have pending offers for; older offers expire."""

_WILLHABEN_LINK = re.compile(r"(?:https?://)?(?:www\.)?willhaben\.at/\S*", re.IGNORECASE)


def _texts(update: Update, context: Context) -> Texts:
    """The texts of the update's chat, in its language."""
    return context.bot_data.texts_for(chat_of(update))


def _thread_id(update: Update) -> int | None:
    """The forum topic the update came from, if any (replies go there by themselves)."""
    message = update.effective_message
    return message.message_thread_id if message is not None and message.is_topic_message else None


async def _watch_number(update: Update, context: Context) -> int | None:
    """The watch number the arguments name; anything else is answered here, and gives None."""
    given = " ".join(context.args or [])
    number = whole_number(given)
    if number is None:
        texts = _texts(update, context)
        await reply(update, texts.fill("not_a_number", given=texts.echo(given)))
    return number


async def start(update: Update, context: Context) -> None:
    """Greet the chat (registered by `note_chat`); after a block, re-activate it and its
    watches, whose new baselines are taken now, not next cycle, and say how many run again
    (a chat without active watches is greeted as a new one)."""
    resumed = await reactivate(context, chat_of(update))
    texts = _texts(update, context)
    await reply(update, welcome_back(texts, resumed) if resumed else texts.fill("start"))


async def help_command(update: Update, context: Context) -> None:
    await reply(update, _texts(update, context).fill("help"))


async def _add_watch(update: Update, context: Context, search: Search) -> Html:
    """Add the watch, start its baseline scan at once, and say what happens next."""
    services = context.bot_data
    chat_id = chat_of(update)
    texts = services.texts_for(chat_id)
    await services.subscriptions.register_chat(chat_id)
    try:
        watch = await services.subscriptions.add_watch(
            chat_id,
            search,
            max_watches=services.settings.max_watches,
            thread_id=_thread_id(update),
        )
    except DuplicateWatch as exc:
        return texts.fill(
            "watch_duplicate", number=exc.watch.number, label=texts.search_name(exc.watch.search)
        )
    except TooManyWatches as exc:
        return texts.fill("watch_too_many", limit=exc.limit)
    scan_now(context.application)
    return texts.fill("watch_added", number=watch.number, label=texts.search_name(watch.search))


@admins_only
async def watch_command(update: Update, context: Context) -> None:
    """`/watch <willhaben URL>` or `/watch <keywords> [max <price>]`."""
    texts = _texts(update, context)
    if not context.args:
        await reply(update, texts.fill("watch_usage"))
        return
    try:
        search = parse_watch_argument(" ".join(context.args))
    except InvalidSearch as exc:
        await reply(update, texts.invalid(exc.reason))
        return
    await reply(update, await _add_watch(update, context, search))


def _scan_state(watch: WatchInfo, context: Context) -> str:
    texts = context.bot_data.texts_for(watch.chat_id)
    if watch.consecutive_failures > 0:
        return texts.fill("scan_failing")
    if watch.last_success_at is None:
        return texts.fill("scan_never")
    return texts.fill("scan_ok", age=texts.age(context.bot_data.clock() - watch.last_success_at))


def _list_entry(watch: WatchInfo, context: Context) -> str:
    """One watch in /list: its line, then its filter and what the filter hid, if any."""
    texts = context.bot_data.texts_for(watch.chat_id)
    lines = [
        texts.fill(
            "list_line",
            number=watch.number,
            url=watch.url,
            label=texts.search_name(watch.search),
            status=Html(texts.fill("status_paused" if watch.paused else "status_active")),
            known=texts.listings(watch.listings_known),
            scan=Html(_scan_state(watch, context)),
        )
    ]
    if not watch.filter.empty:
        lines.append(texts.fill("list_filter", rules=texts.rules(watch.filter.rules())))
    if watch.hidden:
        hits = ", ".join(texts.hit(rule, count) for rule, count in watch.hidden)
        lines.append(texts.fill("list_hidden", hits=Html(hits)))
    return "\n".join(lines)


async def list_command(update: Update, context: Context) -> None:
    """Each watch: number, label (linked), active or paused, listings known, last scan, and
    its filter with what it hid in the last day."""
    texts = _texts(update, context)
    watches = await context.bot_data.subscriptions.watches(chat_of(update), with_hits=True)
    if not watches:
        await reply(update, texts.fill("list_empty"))
        return
    lines = [_list_entry(watch, context) for watch in watches]
    await reply(update, texts.lines(texts.fill("list_header"), lines))


@admins_only
async def unwatch_command(update: Update, context: Context) -> None:
    """`/unwatch <n>`; without a number, one button per watch."""
    services = context.bot_data
    chat_id = chat_of(update)
    texts = services.texts_for(chat_id)
    if not context.args:
        watches = await services.subscriptions.watches(chat_id)
        if not watches:
            await reply(update, texts.fill("no_watches"))
            return
        buttons = [
            [
                InlineKeyboardButton(
                    f"{w.number}. {texts.search_name(w.search)}", callback_data=f"unwatch:{w.id}"
                )
            ]
            for w in watches
        ]
        await reply(update, texts.fill("unwatch_usage"), InlineKeyboardMarkup(buttons))
        return
    number = await _watch_number(update, context)
    if number is not None:
        await reply(update, await _unwatch(context, chat_id, number))


async def _unwatch(context: Context, chat_id: int, number: int) -> Html:
    texts = context.bot_data.texts_for(chat_id)
    removed = await context.bot_data.subscriptions.remove_watch(chat_id, number)
    if removed is None:
        return texts.fill("no_such_watch", number=number)
    return texts.fill(
        "unwatch_done", number=removed.number, label=texts.search_name(removed.search)
    )


async def _set_paused(update: Update, context: Context, *, paused: bool) -> None:
    services = context.bot_data
    texts = _texts(update, context)
    number = None  # all of the chat's watches
    if context.args:
        number = await _watch_number(update, context)
        if number is None:
            return
    changed = await services.subscriptions.set_paused(chat_of(update), number, paused=paused)
    if not changed:
        key = "no_watches" if number is None else "no_such_watch"
        await reply(update, texts.fill(key, number=number))
    elif number is None:
        await reply(update, texts.fill("paused_all" if paused else "resumed_all"))
    else:
        watch = changed[0]
        key = "paused_one" if paused else "resumed_one"
        await reply(
            update, texts.fill(key, number=watch.number, label=texts.search_name(watch.search))
        )
    if not paused and changed:
        # A pass now; it fetches only what `set_paused` asked for: the watches it resumed.
        scan_now(context.application)


@admins_only
async def pause_command(update: Update, context: Context) -> None:
    """`/pause [n]`: one watch, or all of the chat's watches."""
    await _set_paused(update, context, paused=True)


@admins_only
async def resume_command(update: Update, context: Context) -> None:
    """`/resume [n]`: a resumed watch starts with a fresh, silent baseline scan."""
    await _set_paused(update, context, paused=False)


async def on_text(update: Update, context: Context) -> None:
    """Plain text: a pasted willhaben link gets an offer to watch it, anything else a hint."""
    texts = _texts(update, context)
    message = update.effective_message
    match = _WILLHABEN_LINK.search(message.text or "") if message else None
    if match is None:
        await reply(update, texts.fill("plain_text"))
        return
    try:
        search = parse_watch_argument(match.group(0))
    except InvalidSearch as exc:
        await reply(update, texts.invalid(exc.reason))
        return
    key = secrets.token_urlsafe(8)
    offers = context.chat_data.setdefault("offers", {}) if context.chat_data is not None else {}
    offers[key] = search
    for old in list(offers)[:-OFFERS_KEPT]:  # insertion order: the oldest first
        del offers[old]
    button = InlineKeyboardButton(texts.fill("button_watch"), callback_data=f"watch:{key}")
    await reply(
        update,
        texts.fill("offer_url", label=texts.search_name(search)),
        InlineKeyboardMarkup([[button]]),
    )


@admins_only_button
async def on_button(update: Update, context: Context) -> None:
    """An inline button: `watch:<offer>` adds the offered search, `unwatch:<id>` deletes."""
    query = update.callback_query
    if query is None or query.data is None:
        return
    await query.answer()
    action, _, value = query.data.partition(":")
    chat_id = chat_of(update)
    texts = context.bot_data.texts_for(chat_id)
    if action == "watch":
        offers = (context.chat_data or {}).get("offers", {})
        search = offers.pop(value, None)
        text = (
            texts.fill("offer_expired")
            if search is None
            else await _add_watch(update, context, search)
        )
    elif action == "unwatch":
        watch_id = row_id(value)
        watches = await context.bot_data.subscriptions.watches(chat_id)
        number = next((w.number for w in watches if w.id == watch_id), None)
        text = (
            texts.fill("no_such_watch", number="?")  # deleted meanwhile
            if number is None
            else await _unwatch(context, chat_id, number)
        )
    else:
        return
    await edit_in_place(query, text)
