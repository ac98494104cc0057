"""The `habicht` command line: run, demo, health, backup, restore, queue …, scrape.

Each subcommand is a small coroutine taking the parsed arguments and the settings and
returning an exit code. Configuration and database problems end in one line on stderr and
exit code 2 — never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from habicht.config import ConfigError, Settings, load_settings
from habicht.db import DatabaseError

__all__ = ["build_parser", "main"]

Command = Callable[[argparse.Namespace, Settings], Coroutine[Any, Any, int]]

EXIT_USAGE = 2


def _settings_epilog() -> str:
    rows = "\n".join(
        f"  {env:<26} {default!s:<30} {help}" for env, default, help in Settings.documented()
    )
    return f"settings (environment or .env):\n{rows}"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; `--help` lists every subcommand and every setting."""
    parser = argparse.ArgumentParser(
        prog="habicht",
        description="A Telegram bot that watches willhaben.at searches for its subscribers.",
        epilog=_settings_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sub.add_parser("run", help="run the bot (needs HABICHT_BOT_TOKEN)").set_defaults(func=_run)

    demo = sub.add_parser("demo", help="the whole pipeline offline: fake Telegram, fake willhaben")
    demo.add_argument("--db", help="a new database file to keep (default: a temporary one)")
    demo.add_argument("--speed", type=float, help="virtual seconds per real second (default: 300)")
    demo.add_argument("--seed", type=int, help="seed of the retry jitter (default: 6)")
    demo.set_defaults(func=_demo)

    sub.add_parser(
        "health", help="exit 0 if the running bot is healthy, 1 if not; prints JSON"
    ).set_defaults(func=_health)

    copy = sub.add_parser(
        "backup", help="copy the database to PATH with SQLite's online backup (safe while running)"
    )
    copy.add_argument(
        "path",
        help="the copy's file: a new one, or an earlier habicht backup, which is replaced once"
        " the copy is complete; never the database or a file beside it named after it",
    )
    copy.add_argument(
        "--force",
        action="store_true",
        help="replace PATH even if it is a file that is no habicht backup",
    )
    copy.set_defaults(func=_backup)

    back = sub.add_parser(
        "restore",
        help="put HABICHT_DB back from HABICHT_REPLICA (or --from a backup); refused beside a"
        " running bot",
    )
    back.add_argument(
        "--from",
        dest="source",
        metavar="FILE",
        help="a `habicht backup` file instead of the replica",
    )
    back.add_argument(
        "--time",
        help="restore the replica to this moment (ISO 8601, e.g. 2026-12-06T14:05:00+01:00;"
        " without an offset: UTC); default: its latest state",
    )
    back.set_defaults(func=_restore)

    queue = sub.add_parser("queue", help="inspect and repair the notification queue")
    queue_sub = queue.add_subparsers(dest="queue_command", required=True, metavar="ACTION")
    queue_sub.add_parser("stats", help="counts per status, oldest pending, dead by reason")
    dead = queue_sub.add_parser("dead", help="the most recent dead items and why they died")
    dead.add_argument("--limit", type=int, default=20, help="how many (default 20)")
    retry = queue_sub.add_parser("retry", help="requeue dead items: ids, or 'all'")
    retry.add_argument("ids", nargs="+", help="notification ids, or 'all'")
    purge = queue_sub.add_parser("purge", help="delete sent and dead items older than N days")
    purge.add_argument("--days", type=float, default=30, help="age in days (default 30)")
    queue.set_defaults(func=_queue)

    scrape = sub.add_parser("scrape", help="fetch one willhaben search and print its listings")
    scrape.add_argument("url", help="a willhaben search URL, or keywords ('rtx 3070 max 400')")
    scrape.set_defaults(func=_scrape)
    return parser


async def _run(args: argparse.Namespace, settings: Settings) -> int:
    """The bot, until SIGTERM/SIGINT (exit 0) or a rejected token (one line, exit 1); another
    run already serving HABICHT_DB is refused by `serve` (one line, exit 2)."""
    # Imported here: the other subcommands (health runs every few seconds) need no Telegram.
    from telegram.error import InvalidToken, TelegramError

    from habicht.bot import build_application, redacted_logs, scrub, serve
    from habicht.db import examine
    from habicht.watchdog import Watchdog, stall_thresholds

    token = settings.require_token()
    # Another application's file is refused before Telegram is asked anything and before
    # the instance lock is created beside it (the bot's own open checks again).
    await asyncio.to_thread(examine, settings.db)
    if not args.verbose:  # APScheduler logs every job run at INFO: two lines per drain
        logging.getLogger("apscheduler").setLevel(logging.WARNING)
    with redacted_logs(token):
        application = build_application(settings)
        try:
            code = await serve(application, watchdog=Watchdog(stall_thresholds(settings)))
        except InvalidToken:
            print("habicht: error: Telegram rejected HABICHT_BOT_TOKEN", file=sys.stderr)
            return 1
        except TelegramError as exc:
            print(f"habicht: error: Telegram: {scrub(str(exc), token)}", file=sys.stderr)
            return 1
        if application.bot_data.fatal is not None:
            print(f"habicht: error: {scrub(application.bot_data.fatal, token)}", file=sys.stderr)
        return code


async def _demo(args: argparse.Namespace, settings: Settings) -> int:
    """The whole pipeline offline; exit 0 when every alert was delivered once or is dead."""
    from pathlib import Path

    from habicht.demo import run_demo

    if args.speed is not None and not args.speed > 0:
        print(f"habicht: error: --speed must be above 0, got {args.speed:g}", file=sys.stderr)
        return EXIT_USAGE
    db = None if args.db is None else Path(args.db)
    if db is not None and db.exists():
        print(
            f"habicht: error: {db} exists; the demo fills its database with made-up "
            "subscribers, so give --db a new file",
            file=sys.stderr,
        )
        return EXIT_USAGE
    given = {"speed": args.speed, "seed": args.seed}
    summary = await run_demo(
        db=db,
        lang=settings.lang,
        verbose=args.verbose,
        **{name: value for name, value in given.items() if value is not None},
    )
    return 0 if summary.lost == 0 and summary.duplicates == 0 and summary.pending == 0 else 1


async def _health(args: argparse.Namespace, settings: Settings) -> int:
    """The container's health check: JSON on stdout always; exit 0 healthy, 1 not."""
    import json

    from habicht.clock import system_clock
    from habicht.health import probe

    report = await probe(settings, now=system_clock())
    print(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    return 0 if report.healthy else 1


async def _backup(args: argparse.Namespace, settings: Settings) -> int:
    """Copy HABICHT_DB to PATH while the bot may be running: SQLite's online backup, never a
    file copy (which can miss what is still in the `-wal` file, or catch a page half-written).
    A PATH that would hurt — the database, its `-wal`, anything else of it, a file that is no
    habicht backup without `--force` — is refused in one line (`habicht.db.backup`)."""
    from pathlib import Path

    from habicht.db import backup

    target = Path(args.path)
    size = await asyncio.to_thread(backup, settings.db, target, force=args.force)
    print(f"backed up {settings.db} to {target} ({size} bytes)")
    return 0


async def _restore(args: argparse.Namespace, settings: Settings) -> int:
    """`habicht restore` (`habicht.restore`): one line saying what it did, or why not."""
    from datetime import UTC, datetime
    from pathlib import Path

    from habicht.replica import ReplicaError
    from habicht.restore import restore

    at = None
    if args.time is not None:
        try:
            at = datetime.fromisoformat(args.time)
        except ValueError:
            print(f"habicht: error: --time must be ISO 8601, got {args.time!r}", file=sys.stderr)
            return EXIT_USAGE
        at = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    source = None if args.source is None else Path(args.source)
    try:
        done = await restore(settings, backup=source, at=at)
    except ReplicaError as exc:
        print(f"habicht: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    moment = (
        "an unknown moment (the file holds no dated write)"
        if done.moment is None
        else datetime.fromtimestamp(done.moment, UTC).isoformat(timespec="seconds")
    )
    aside = "" if done.aside is None else f"; the database it replaced is at {done.aside}"
    print(
        f"restored {settings.db} from {done.source}: as of {moment}, {done.pending} alerts"
        f" waiting (the next start tells the owners){aside}"
    )
    return 0


async def _queue(args: argparse.Namespace, settings: Settings) -> int:
    """Inspect and repair the outbox of HABICHT_DB; it must exist (never created here)."""
    # Imported per subcommand: `habicht health` runs every few seconds in the container and
    # should not pay for importing the rest of habicht.
    from habicht.clock import system_clock
    from habicht.db import Database
    from habicht.queue import NotificationStore
    from habicht.queue.report import describe_dead, describe_stats, parse_ids

    if args.queue_command == "dead" and args.limit < 1:
        print(f"habicht: error: --limit must be at least 1, got {args.limit}", file=sys.stderr)
        return EXIT_USAGE
    if args.queue_command == "purge" and not args.days >= 0:
        print(f"habicht: error: --days must be 0 or more, got {args.days:g}", file=sys.stderr)
        return EXIT_USAGE
    # "rw": a missing or empty file is refused, never created; `async with` then only closes.
    async with await Database(settings.db).open(mode="rw") as db:
        store = NotificationStore(
            db, clock=system_clock, max_attempts=settings.max_attempts, ttl=settings.message_ttl
        )
        match args.queue_command:
            case "stats":
                print(describe_stats(await store.stats(), now=system_clock()))
            case "dead":
                print(describe_dead(await store.dead(args.limit), now=system_clock()))
            case "retry":
                try:
                    ids = parse_ids(args.ids)
                except ValueError as exc:
                    print(f"habicht: error: {exc}", file=sys.stderr)
                    return EXIT_USAGE
                print(f"requeued {await store.requeue(ids)} dead notification(s)")
            case "purge":
                purged = await store.purge(args.days * 86400)
                print(f"purged {purged} sent/dead notification(s) older than {args.days:g} days")
    return 0


async def _scrape(args: argparse.Namespace, settings: Settings) -> int:
    """Fetch one search from HABICHT_WILLHABEN_URL and print its listings: a debugging aid."""
    from habicht.willhaben.errors import InvalidSearch, ScrapeError
    from habicht.willhaben.fetch import WillhabenClient
    from habicht.willhaben.urls import parse_watch_argument

    try:
        search = parse_watch_argument(args.url)
    except InvalidSearch as exc:
        print(f"habicht: error: not a willhaben search ({exc.reason}): {exc}", file=sys.stderr)
        return EXIT_USAGE
    async with WillhabenClient(
        base_url=settings.willhaben_url, fetch_gap=settings.fetch_gap
    ) as client:
        try:
            page = await client.search(search.url)
        except ScrapeError as exc:
            print(f"habicht: error: {exc.kind}: {exc}", file=sys.stderr)
            return 1
        except Exception as exc:  # a debugging aid answers in one line; -v adds the traceback
            logging.getLogger(__name__).debug("scrape failed", exc_info=True)
            print(f"habicht: error: unexpected {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
    print(f"{search.url}\n{len(page.listings)} listings shown of {page.rows_found} found")
    for listing in page.listings:
        price = listing.price_display or "-"
        flags = [
            name for name, on in (("reserved", listing.reserved), ("bumped", listing.bumped)) if on
        ]
        flag = f" ({', '.join(flags)})" if flags else ""
        where = f"  [{listing.location}]" if listing.location else ""
        print(f"{listing.id:>10}  {price:>14}  {listing.title}{flag}{where}")
        print(f"{'':>10}  {listing.url}")
    return 0


def configure_logging(*, verbose: bool) -> None:
    """Log to stderr; keep httpx quiet because its request lines carry the bot token."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `habicht` console script."""
    args = build_parser().parse_args(argv)
    configure_logging(verbose=args.verbose)
    command: Command = args.func
    try:
        settings = load_settings()
        return asyncio.run(command(args, settings))
    except (ConfigError, DatabaseError) as exc:
        print(f"habicht: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
