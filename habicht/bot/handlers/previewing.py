"""`/preview <n>`: why not that one? What watch n's filter did with its search's latest read.

The scraper judges (`Subscriptions.preview`, `habicht.watches.preview`); this renders: how
many adverts pass, how many each rule hid, up to `EXAMPLES` of each as links, in one message
in the chat's language. Everyone in a group may preview: it reads and changes nothing.

One message whatever the titles: each example's title is shortened to `EXAMPLE_TITLE`, and
should the whole still be over Telegram's limit (a filter of many rules), the examples thin
out — three of each, then two, one, none — before any count is left out.
"""

from __future__ import annotations

from telegram import Update

from habicht.bot.handling import chat_of, reply
from habicht.bot.services import BotServices, Context
from habicht.bot.texts import MAX_MESSAGE, Html, Texts, shorten, visible_len
from habicht.digits import whole_number
from habicht.watches.filters import NO_PLACE
from habicht.watches.preview import EXAMPLES, Example, Preview, PreviewGroup

__all__ = ["EXAMPLE_TITLE", "preview_command", "preview_text"]

EXAMPLE_TITLE = 80
"""UTF-16 code units of an example's title (the link); the rest of it is on the advert."""


async def preview_command(update: Update, context: Context) -> None:
    """`/preview <n>`: the watch's outcomes (module docstring); usage without one number."""
    chat_id = chat_of(update)
    await reply(update, await _answer(context.bot_data, chat_id, context.args or []))


async def _answer(services: BotServices, chat_id: int, args: list[str]) -> Html:
    texts = services.texts_for(chat_id)
    if len(args) != 1:
        return texts.fill("preview_usage")
    number = whole_number(args[0])
    if number is None:
        return texts.fill("not_a_number", given=texts.echo(args[0]))
    preview = await services.subscriptions.preview(chat_id, number)
    if preview is None:
        return texts.fill("no_such_watch", number=number)
    if preview.scanned_at is None:
        label = texts.search_name(preview.watch.search)
        return texts.fill("preview_never", number=number, label=label)
    return preview_text(texts, preview, now=services.clock())


def preview_text(texts: Texts, preview: Preview, *, now: float) -> Html:
    """The preview as one message within `MAX_MESSAGE` (module docstring); `preview` must be
    of a watch whose search was scanned."""
    assert preview.scanned_at is not None, "a never-scanned watch has nothing to preview"
    for examples in range(EXAMPLES, 0, -1):
        text = _text(texts, preview, now=now, examples=examples)
        if visible_len(text) <= MAX_MESSAGE:
            return text
    # The counts alone: a header, at most one line per rule (`MAX_WORDS` words and the few
    # other rules, each shortened to `ECHO_BUDGET`) and two notes fit several times over.
    return _text(texts, preview, now=now, examples=0)


def _text(texts: Texts, preview: Preview, *, now: float, examples: int) -> Html:
    watch = preview.watch
    assert preview.scanned_at is not None
    lines: list[str] = [
        texts.fill(
            "preview_header",
            number=watch.number,
            label=texts.search_name(watch.search),
            age=texts.age(now - preview.scanned_at),
            adverts=texts.listings(preview.adverts),
        )
    ]
    if watch.paused:
        lines.append(texts.fill("preview_paused", number=watch.number))
    elif preview.muted_until is not None:
        lines.append(texts.fill("preview_muted", age=texts.age(preview.muted_until - now)))
    if preview.adverts == 0:
        lines.append(texts.fill("preview_empty"))
    else:
        lines.append("")
        key = "preview_all" if watch.filter.empty else "preview_passed"
        lines.append(texts.fill(key, count=preview.alerted.count))
        lines += _examples(texts, preview.alerted, examples)
        for outcome in preview.hidden:
            lines.append(_hidden(texts, outcome))
            lines += _examples(texts, outcome, examples)
    lines.append("")
    if preview.price_rules:
        rules = texts.rules(preview.price_rules)
        lines.append(texts.fill("preview_price_rules", rules=rules))
    lines.append(texts.fill("preview_footer"))
    return Html("\n".join(lines))


def _hidden(texts: Texts, outcome: PreviewGroup) -> Html:
    """`🙈 3 hidden by -defekt`; the adverts `near` could not place are said as such."""
    if outcome.rule == NO_PLACE:
        return texts.fill("preview_unplaced", count=outcome.count)
    rule = texts.echo(outcome.rule or "")
    return texts.fill("preview_hidden", count=outcome.count, rule=rule)


def _examples(texts: Texts, outcome: PreviewGroup, most: int) -> list[Html]:
    return [_example(texts, example) for example in outcome.examples[:most]]


def _example(texts: Texts, example: Example) -> Html:
    """`• <title as the link> · € 120 · 3,2 km` (the distance where the watch knows one)."""
    listing = example.listing
    line = texts.fill(
        "preview_example",
        url=listing.url,
        title=shorten(listing.title, EXAMPLE_TITLE),
        price=texts.price(listing.price, listing.price_display),
    )
    if example.notes.km is None:
        return line
    return Html(line + texts.fill("preview_km", km=texts.km(example.notes.km)))
