"""Chat messages in and out: the JSONL import format, validated before anything is stored."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .clock import parse_when
from .errors import BadInputError
from .model import ROLES


@dataclass
class ChatMessage:
    """One message to remember. `speaker` names a human in multi-party chats (kept in the text)."""

    content: str
    role: str = "user"
    session_id: str = "default"
    at: datetime | None = None
    message_id: str | None = None
    speaker: str | None = None
    recallable: bool = True  # False: kept in the session's transcript, never recalled (an offline reply)


def check_message(msg: ChatMessage, *, where: str) -> ChatMessage:
    if not isinstance(msg.content, str) or not msg.content.strip():
        raise BadInputError(f"{where}: 'content' must be a non-empty string")
    for name, value in (("content", msg.content), ("session_id", msg.session_id), ("id", msg.message_id)):
        if isinstance(value, str) and not _encodable(value):
            raise BadInputError(f"{where}: {name!r} holds a lone surrogate (\\ud800–\\udfff), which is not text; "
                                "fix the line's escapes")
    if msg.role not in ROLES:
        raise BadInputError(f"{where}: role {msg.role!r} is not one of {', '.join(ROLES)}")
    if not isinstance(msg.session_id, str) or not msg.session_id.strip():
        raise BadInputError(f"{where}: 'session_id' must be a non-empty string")
    return msg


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def message_from_json(obj: object, *, where: str) -> ChatMessage:
    if not isinstance(obj, dict):
        raise BadInputError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    if "role" not in obj:
        raise BadInputError(f"{where}: 'role' is missing; each line needs one of {', '.join(ROLES)}")
    content = obj.get("content")
    message_id = obj.get("id")
    msg = ChatMessage(
        content=content if isinstance(content, str) else "",
        role=obj["role"],
        session_id=str(obj.get("session_id") or "default"),
        at=parse_when(obj.get("at"), what=f"'at' date in {where}"),
        message_id=str(message_id) if message_id is not None else None,
        speaker=obj.get("speaker"),
    )
    return check_message(msg, where=where)


def read_jsonl(path: str | Path) -> list[ChatMessage]:
    """Parse a whole JSONL chat file; any bad line raises BadInputError naming file and line."""
    path = Path(path)
    if not path.is_file():
        raise BadInputError(f"chat file {path} does not exist")
    messages = []
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            where = f"{path}:{number}"
            try:
                line = raw.decode("utf-8").strip()
            except UnicodeDecodeError:
                raise BadInputError(f"{where}: line is not valid UTF-8") from None
            if not line:
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BadInputError(f"{where}: malformed JSON ({exc.msg} at column {exc.colno})") from None
            messages.append(message_from_json(obj, where=where))
    return messages
