"""The shapes of the fake Telegram's requests and answers: users, chats, members, photos,
an answer's envelope, and the fields of an uploaded form."""

from __future__ import annotations

import email.policy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from email.parser import BytesParser
from typing import Any, Literal

__all__ = [
    "MemberStatus",
    "Params",
    "Payload",
    "Upload",
    "chat_payload",
    "error_payload",
    "json_param",
    "member_payload",
    "multipart_fields",
    "ok_answer",
    "photo_size",
    "thread_id_of",
    "user_payload",
]

Params = Mapping[str, Any]
Payload = dict[str, Any]
MemberStatus = Literal["creator", "administrator", "member", "left"]


@dataclass(frozen=True)
class Upload:
    """A file the bot uploaded with its request (multipart/form-data)."""

    filename: str
    content: bytes


def error_payload(status: int, description: str, parameters: Payload | None = None) -> Payload:
    """An error answer in Telegram's wire format, which python-telegram-bot maps to its
    exceptions (see `telegram_faults`)."""
    payload: Payload = {"ok": False, "error_code": status, "description": description}
    if parameters:
        payload["parameters"] = parameters
    return payload


def ok_answer(result: Any) -> tuple[int, Payload]:
    """A successful answer carrying `result`, with its HTTP status."""
    return 200, {"ok": True, "result": result}


def json_param(params: Params, name: str) -> Any:
    """A parameter python-telegram-bot JSON-encodes (non-strings), decoded; None if absent."""
    value = params.get(name)
    return json.loads(value) if isinstance(value, str) else value


def user_payload(user_id: int, lang: str | None = None) -> Payload:
    """A user; `lang` is their app's `language_code` (Telegram may leave it out, and then
    the bot's default language applies)."""
    user: Payload = {"id": user_id, "is_bot": False, "first_name": f"User {user_id}"}
    if lang is not None:
        user["language_code"] = lang
    return user


_ADMIN_RIGHTS = (
    *("can_be_edited", "can_manage_chat", "can_delete_messages", "can_manage_video_chats"),
    *("can_restrict_members", "can_promote_members", "can_change_info", "can_invite_users"),
    *("can_post_stories", "can_edit_stories", "can_delete_stories"),
)
"""The rights an administrator's `ChatMember` must list (all False: the fake grants none)."""


def thread_id_of(params: Params) -> int | None:
    """The forum topic a request names (`message_thread_id`), if any."""
    value = params.get("message_thread_id")
    return None if value is None else int(value)


def member_payload(user_id: int, status: MemberStatus) -> Payload:
    """A `ChatMember` of `status` with the fields python-telegram-bot requires for it."""
    payload: Payload = {"status": status, "user": user_payload(user_id)}
    if status == "creator":
        payload["is_anonymous"] = False
    elif status == "administrator":
        payload |= {"is_anonymous": False} | dict.fromkeys(_ADMIN_RIGHTS, False)
    return payload


def photo_size(message_id: int) -> Payload:
    """The one size of a sent photo the fake reports (Telegram lists several)."""
    unique = f"photo{message_id}"
    return {"file_id": unique, "file_unique_id": unique, "width": 640, "height": 480}


def chat_payload(chat_id: int) -> Payload:
    if chat_id > 0:
        return {"id": chat_id, "type": "private", "first_name": f"User {chat_id}"}
    return {"id": chat_id, "type": "supergroup", "title": f"Group {chat_id}"}


def multipart_fields(content_type: str, body: bytes) -> Payload:
    """The fields of a multipart/form-data body (how a file is uploaded, e.g. sendPhoto with
    a PNG): text fields as `str`, an uploaded file as `Upload`."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    fields: Payload = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        content = part.get_payload(decode=True)
        if not isinstance(name, str) or not isinstance(content, bytes):
            continue
        filename = part.get_filename()
        fields[name] = content.decode() if filename is None else Upload(filename, content)
    return fields
