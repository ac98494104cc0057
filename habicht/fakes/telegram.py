"""An in-memory Telegram Bot API, close enough to the real one that python-telegram-bot parses
its answers and raises its real exceptions.

One core, `FakeBotAPI.respond(token, method, params)`, behind two adapters: `transport()` (an
httpx transport, for in-process tests and `habicht demo`: hand it to
`HTTPXRequest(httpx_kwargs={"transport": ...})`) and `serve()` (a loopback HTTP server whose
`base_url` a real `habicht run` process can be pointed at through `HABICHT_TELEGRAM_API`).

Its parts, each a module beside this one: the faults a test scripts and the errors Telegram
answers (`telegram_faults`), the books a delivery test reads — every message with its time,
every attempt, the rate-limit violations (`telegram_books`) —, what Telegram accepts as text
(`telegram_text`) and as an edit (`telegram_edits`), and the shapes of requests and answers
(`telegram_payloads`). This module is the fake's front door: `FakeBotAPI` and the names a
test needs with it.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qsl

import httpx

from habicht.clock import Clock
from habicht.fakes.telegram_books import Limits, SentMessage, Violation
from habicht.fakes.telegram_edits import EDIT_METHODS, edit_refusal, edited
from habicht.fakes.telegram_faults import (
    CANT_BE_EDITED,
    EDIT_NOT_FOUND,
    NO_CAPTION_TO_EDIT,
    NO_TEXT_TO_EDIT,
    NOT_MODIFIED,
    PHOTO_REFUSALS,
    TOPIC_DELETED,
    Fault,
)
from habicht.fakes.telegram_payloads import (
    MemberStatus,
    Params,
    Payload,
    Upload,
    chat_payload,
    error_payload,
    json_param,
    member_payload,
    multipart_fields,
    ok_answer,
    photo_size,
    thread_id_of,
    user_payload,
)
from habicht.fakes.telegram_text import text_problem, utf16_len
from habicht.fakes.wire import FaultScript, LoopbackServer, Observable, threaded_transport

__all__ = [
    "CANT_BE_EDITED",
    "DEFAULT_TOKEN",
    "EDIT_NOT_FOUND",
    "NOT_MODIFIED",
    "NO_CAPTION_TO_EDIT",
    "NO_TEXT_TO_EDIT",
    "PHOTO_REFUSALS",
    "TOPIC_DELETED",
    "FakeBotAPI",
    "Fault",
    "SentMessage",
    "Upload",
    "Violation",
]

DEFAULT_TOKEN = "123456789:AAFakeTokenForHabichtTests0123456789"


class FakeBotAPI(Observable):
    """An in-memory Bot API for one bot; thread-safe; see the module docstring.

    `delay` holds back every answer but getUpdates by that many seconds (the delivery
    benchmark uses 0.05). `clock` stamps messages and drives the limit accounting.
    Close it (or use it as a context manager) to wake long polls and stop its threads.
    """

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        delay: float = 0.0,
        clock: Clock = time.time,
        username: str = "habicht_test_bot",
    ) -> None:
        self.token = token
        self.delay = delay
        self._clock = clock
        self._me: Payload = {
            "id": int(token.split(":", 1)[0]),
            "is_bot": True,
            "first_name": "Habicht Test",
            "username": username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }
        super().__init__()
        self._closed = threading.Event()
        self._ids = itertools.count(1)
        self._updates: list[Payload] = []
        self._messages: list[SentMessage] = []
        self._sent: dict[tuple[int, int], SentMessage] = {}
        """Each message (by chat and message id) as it was sent…"""
        self._shown_now: dict[tuple[int, int], SentMessage] = {}
        """… and, while the chat still has it, as it shows now."""
        self._uneditable: set[tuple[int, int]] = set()
        self._limits = Limits()
        self._blocked: set[int] = set()
        self._members: dict[tuple[int, int], MemberStatus] = {}
        self._refused_photos: dict[str, str] = {}
        self._deleted_topics: set[tuple[int, int]] = set()
        self._faults: FaultScript[int, Fault] = FaultScript()
        self._executor: ThreadPoolExecutor | None = None
        self.calls: Counter[str] = Counter()
        """Requests per Bot API method, failed ones included."""
        self.in_progress: Counter[str] = Counter()
        """Requests per method being answered right now (a client may have gone already)."""
        self.attempts: Counter[int] = Counter()
        """sendMessage requests per chat, failed ones included."""
        self.violations = self._limits.violations
        """Sends and edits that broke one of Telegram's limits, in order (`Limits`)."""
        self.edits: list[SentMessage] = []
        """Every edit Telegram accepted, in order, as its message shows afterwards (`edits_of`
        picks one message's)."""
        self.callback_answers: list[Payload] = []
        self.commands: list[Payload] = []
        """The command menu for users of any language…"""
        self.commands_by_lang: dict[str, list[Payload]] = {}
        """… and for those whose app is set to one language (`language_code`)."""

    # ----------------------------------------------------------------- lifecycle and adapters

    def transport(self) -> httpx.MockTransport:
        """An httpx transport answering from this fake, for `HTTPXRequest(httpx_kwargs=...)`."""
        with self._cond:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(64, thread_name_prefix="fake-bot-api")
            return threaded_transport(self.handle, self._executor)

    def serve(self) -> LoopbackServer:
        """A loopback server for this fake; use as a context manager and read `base_url`."""
        return LoopbackServer(self.handle, base_path="/bot")

    def close(self) -> None:
        """Answer every waiting long poll now, and stop the transport's threads."""
        self._closed.set()
        with self._cond:
            self._cond.notify_all()
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def handle(self, request: httpx.Request) -> httpx.Response:
        """The HTTP face: ``/bot<token>/<method>`` with query, form or JSON parameters."""
        _, found, rest = request.url.path.rpartition("/bot")
        token, _, method = rest.partition("/")
        if not found or not token or not method or "/" in method:
            return httpx.Response(404, json=error_payload(404, "Not Found"))
        params: dict[str, Any] = dict(request.url.params)
        content_type = request.headers.get("content-type", "")
        if content_type.startswith("application/json"):
            params.update(json.loads(request.content or b"{}"))
        elif content_type.startswith("application/x-www-form-urlencoded"):
            params.update(parse_qsl(request.content.decode(), keep_blank_values=True))
        elif content_type.startswith("multipart/form-data"):
            params.update(multipart_fields(content_type, request.content))
        status, payload = self.respond(token, method, params)
        return httpx.Response(status, json=payload)

    # ----------------------------------------------------------------- the core

    def respond(self, token: str, method: str, params: Params) -> tuple[int, Payload]:
        """Answer one Bot API call as Telegram would; blocks for long polls and delays."""
        with self._cond:
            self.calls[method] += 1  # counted on arrival: a long poll is a call while it waits
            self.in_progress[method] += 1
            self._cond.notify_all()
        try:
            return self._respond(token, method.lower(), params)
        finally:
            with self._cond:
                self.in_progress[method] -= 1
                self._cond.notify_all()  # wakes `wait_until` on any change

    def _respond(self, token: str, name: str, params: Params) -> tuple[int, Payload]:
        if token != self.token:
            return 401, error_payload(401, "Unauthorized")
        if name == "getupdates":
            return ok_answer(self._get_updates(params))
        if self.delay:
            self._closed.wait(self.delay)
        fault = self._fault_for(params) if name in _CHAT_METHODS else None
        if name in ("sendmessage", "sendphoto"):
            with self._cond:
                self.attempts[int(params["chat_id"])] += 1
        if fault is not None and not fault.deliver:
            return fault.status, error_payload(fault.status, fault.description, fault.parameters)
        answer = self._dispatch(name, params)
        if fault is not None:
            self._closed.wait(fault.delay)
        return answer

    def _fault_for(self, params: Params) -> Fault | None:
        chat_id = int(params.get("chat_id", 0))
        if chat_id in self._blocked:
            return Fault.blocked()
        return self._faults.pop(chat_id)

    def _dispatch(self, name: str, params: Params) -> tuple[int, Payload]:
        if name == "getme":
            return ok_answer(self._me)
        if name in ("sendmessage", "sendphoto"):
            return self._send_message(params)
        if name in EDIT_METHODS:
            return self._edit_message(name, params)
        if name == "getchatmember":
            user_id = int(params["user_id"])
            with self._cond:
                status = self._members.get((int(params["chat_id"]), user_id), "member")
            return ok_answer(member_payload(user_id, status))
        if name == "answercallbackquery":
            with self._cond:
                self.callback_answers.append(dict(params))
            return ok_answer(True)
        if name == "setmycommands":
            commands = list(json_param(params, "commands") or [])
            with self._cond:
                if params.get("language_code"):
                    self.commands_by_lang[str(params["language_code"])] = commands
                else:
                    self.commands = commands
            return ok_answer(True)
        return ok_answer(True)  # deleteWebhook, sendChatAction, close, …: accepted

    def _get_updates(self, params: Params) -> list[Payload]:
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        deadline = time.monotonic() + float(params.get("timeout") or 0)
        with self._cond:
            # An offset confirms every update below it: Telegram forgets them.
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
            while True:
                if self._updates or self._closed.is_set():
                    return self._updates[:limit]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return []
                self._cond.wait(remaining)

    def _send_problem(self, params: Params) -> str | None:
        """Why Telegram would refuse this sendMessage or sendPhoto (None: it would not)."""
        chat_id, thread_id = int(params["chat_id"]), thread_id_of(params)
        with self._cond:
            if thread_id is not None and (chat_id, thread_id) in self._deleted_topics:
                return TOPIC_DELETED
            photo = params.get("photo", "")
            refusal = None if isinstance(photo, Upload) else self._refused_photos.get(str(photo))
        return refusal or text_problem(params)

    def _send_message(self, params: Params) -> tuple[int, Payload]:
        problem = self._send_problem(params)
        if problem:
            return 400, error_payload(400, problem)
        chat_id = int(params["chat_id"])
        photo = params.get("photo")
        upload = photo if isinstance(photo, Upload) else None
        with self._cond:
            at = self._clock()
            sent = SentMessage(
                chat_id=chat_id,
                message_id=next(self._ids),
                text=str(params["caption" if photo is not None else "text"]),
                parse_mode=params.get("parse_mode"),
                at=at,
                reply_markup=json_param(params, "reply_markup"),
                thread_id=thread_id_of(params),
                photo=None if photo is None else upload.filename if upload else str(photo),
                upload=None if upload is None else upload.content,
                params=dict(params),
            )
            self._messages.append(sent)
            self._sent[(chat_id, sent.message_id)] = sent
            self._shown_now[(chat_id, sent.message_id)] = sent
            self._limits.account(chat_id, at)
            self._cond.notify_all()
        return ok_answer(self._message_payload(sent))

    def _edit_message(self, name: str, params: Params) -> tuple[int, Payload]:
        """editMessageText, editMessageCaption or editMessageReplyMarkup: refused as Telegram
        would (`telegram_edits`), or recorded in `edits` as the message shows afterwards and
        counted against the limits like a send."""
        key = (int(params.get("chat_id") or 0), int(params.get("message_id") or 0))
        with self._cond:  # judged and recorded at once: of two equal edits, one is news
            shown = self._shown_now.get(key)
            if shown is None:
                return 400, error_payload(400, EDIT_NOT_FOUND)
            refusal = edit_refusal(name, params, shown, editable=key not in self._uneditable)
            if refusal:
                return 400, error_payload(400, refusal)
            after = edited(name, params, shown, at=self._clock())
            self.edits.append(after)
            self._shown_now[key] = after
            self._limits.account(after.chat_id, after.at)
            self._cond.notify_all()
        return ok_answer(self._message_payload(after))

    def as_shown(self, chat_id: int, message_id: int) -> Payload | None:
        """The bot's message as it shows now (as sent, or as last edited), in the form an
        update carries it (a button press); None if the bot sent no such message or the user
        deleted it."""
        with self._cond:
            shown = self._shown_now.get((chat_id, message_id))
        return None if shown is None else self._message_payload(shown)

    def edits_of(self, chat_id: int, message_id: int) -> list[SentMessage]:
        """The edits Telegram accepted of one message, in order, each as the message showed
        afterwards (empty: never edited)."""
        with self._cond:
            return [e for e in self.edits if (e.chat_id, e.message_id) == (chat_id, message_id)]

    def _message_payload(self, sent: SentMessage) -> Payload:
        """`sent` as the Bot API shows a message: an edited one keeps the date it was sent
        and carries the date of its last edit."""
        with self._cond:
            first = self._sent.get((sent.chat_id, sent.message_id), sent)
        payload: Payload = {
            "message_id": sent.message_id,
            "from": self._me,
            "chat": chat_payload(sent.chat_id),
            "date": int(first.at),
        }
        if first is not sent:
            payload["edit_date"] = int(sent.at)
        if sent.photo is not None:
            payload["photo"] = [photo_size(sent.message_id)]
            payload["caption"] = sent.text
        else:
            payload["text"] = sent.text
        if sent.reply_markup:
            payload["reply_markup"] = sent.reply_markup
        return payload

    # ----------------------------------------------------------------- driving it from a test

    def push_message(
        self, chat_id: int, user_id: int, text: str, *, lang: str | None = None
    ) -> int:
        """Queue a user's text message (a command gets its `bot_command` entity), written in
        an app set to `lang`; its update id."""
        message: Payload = {
            "message_id": next(self._ids),
            "from": user_payload(user_id, lang),
            "chat": chat_payload(chat_id),
            "date": int(self._clock()),
            "text": text,
        }
        if text.startswith("/"):
            command = text.split(maxsplit=1)[0]
            message["entities"] = [
                {"type": "bot_command", "offset": 0, "length": utf16_len(command)}
            ]
        return self._push({"message": message})

    def push_callback(
        self, chat_id: int, user_id: int, data: str, *, message_id: int | None = None
    ) -> int:
        """Queue a button press on the bot's message (default: its last one to the chat), as
        the message shows now (text or photo and caption, buttons)."""
        with self._cond:
            own = [m for m in self._messages if m.chat_id == chat_id]
        if message_id is None and own:
            message_id = own[-1].message_id
        message = None if message_id is None else self.as_shown(chat_id, message_id)
        if message is None:
            message = {
                "message_id": message_id or next(self._ids),
                "from": self._me,
                "chat": chat_payload(chat_id),
                "date": int(self._clock()),
                "text": "…",
            }
        query = {
            "id": str(next(self._ids)),
            "from": user_payload(user_id),
            "message": message,
            "chat_instance": str(chat_id),
            "data": data,
        }
        return self._push({"callback_query": query})

    def _push(self, update: Payload) -> int:
        with self._cond:
            update_id = next(self._ids)
            self._updates.append({"update_id": update_id, **update})
            self._cond.notify_all()
            return update_id

    def fail_next(self, chat_id: int, *faults: Fault) -> None:
        """Answer the next requests for `chat_id` — sends, edits, chat actions — with `faults`,
        in order, then normally."""
        self._faults.push(chat_id, *faults)

    def block(self, chat_id: int) -> None:
        """The user blocks the bot: every later send or edit to the chat gets 403 until
        `unblock`."""
        with self._cond:
            self._blocked.add(chat_id)

    def set_member(self, chat_id: int, user_id: int, status: MemberStatus) -> None:
        """What getChatMember answers for this user in this chat (unset: "member")."""
        with self._cond:
            self._members[(chat_id, user_id)] = status

    def refuse_photo(self, url: str, description: str = PHOTO_REFUSALS[0]) -> None:
        """Answer every sendPhoto of `url` with 400 `description` (one of `PHOTO_REFUSALS`)."""
        with self._cond:
            self._refused_photos[url] = description

    def delete_topic(self, chat_id: int, thread_id: int) -> None:
        """The forum topic is deleted: sends to it get 400 "message thread not found"."""
        with self._cond:
            self._deleted_topics.add((chat_id, thread_id))

    def delete_message(self, chat_id: int, message_id: int) -> None:
        """The user deletes the bot's message in their app: from then on every edit of it gets
        400 "message to edit not found" and `as_shown` has nothing; `messages` still lists it,
        since it was delivered."""
        with self._cond:
            self._shown_now.pop((chat_id, message_id), None)
            self._cond.notify_all()

    def make_uneditable(self, chat_id: int, message_id: int) -> None:
        """The message can no longer be edited (Telegram's reasons vary — its age, the chat's
        kind): every later edit of it gets 400 "message can't be edited"."""
        with self._cond:
            self._uneditable.add((chat_id, message_id))

    def unblock(self, chat_id: int) -> None:
        with self._cond:
            self._blocked.discard(chat_id)

    def revoke_token(self) -> None:
        """The owner revoked the token at @BotFather: every later call gets 401."""
        self.token = self.token + "-revoked"

    def messages(self, chat_id: int | None = None) -> list[SentMessage]:
        """Messages delivered so far, in order, to one chat or to all."""
        with self._cond:
            return [m for m in self._messages if chat_id is None or m.chat_id == chat_id]

    @property
    def pending_updates(self) -> int:
        """Updates the bot has not confirmed yet (by asking for a higher offset)."""
        with self._cond:
            return len(self._updates)


# Methods whose `chat_id` the per-chat faults and blocks apply to.
_CHAT_METHODS = frozenset(
    {"sendmessage", "sendphoto", "editmessagetext", "editmessagecaption", "sendchataction"}
    | {"editmessagereplymarkup"}
)
