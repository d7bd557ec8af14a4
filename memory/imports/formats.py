"""Chat exports -> conversations: pure parsing, no database.

Recognised (``detect_format``):

- ``chatgpt``: ChatGPT's ``conversations.json``, a list of conversations whose messages form a
  ``mapping`` tree (every edit or regeneration is a branch). The branch the person kept is the
  path from ``current_node`` up through the parents.
- ``claude``: Claude's ``conversations.json``, a list of conversations with ``chat_messages``
  (with ``parent_message_uuid`` in newer exports: then the kept branch is the path up from the
  newest message).
- ``jsonl``: JSON Lines of ``{role, content, ts}``, one conversation per file.
- ``gemini``: Google Takeout's ``My Activity/Gemini Apps/MyActivity.json``, a list of activity
  records grouped into conversations by time (:mod:`memory.imports.gemini`).
- ``claude_memories``: Claude's ``memories.json``, what Claude remembers about the person;
  imported as guesses to review, not as conversations (:mod:`memory.imports.claude_memories`).
- ``ume``: ume's own export (JSON Lines whose first line is its header): a whole memory,
  imported as it is (:mod:`memory.exports`), not as conversations.

Anything else (ume's own transcript JSON, ``User:``/``Assistant:`` text, plain notes) is left
to :mod:`memory.transcripts`.

System, tool and hidden messages (custom instructions, tool calls and results, reasoning) are
skipped and counted, as are messages with no text; attachments are counted, never inlined.
Exports are read with :func:`memory.imports.jsonstream.iter_json_array` (ijson), one
conversation at a time, never whole.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any

from memory.exports.format import is_header
from memory.imports.jsonstream import ImportFormatError, head_events, iter_json_array

CHATGPT, CLAUDE, JSONL = "chatgpt", "claude", "jsonl"
GEMINI, CLAUDE_MEMORIES, UME = "gemini", "claude_memories", "ume"
EXPORT_FORMATS = (CHATGPT, CLAUDE, JSONL, GEMINI, CLAUDE_MEMORIES, UME)
FORMAT_LABELS = {
    CHATGPT: "ChatGPT export",
    CLAUDE: "Claude export",
    JSONL: "JSON Lines",
    GEMINI: "Gemini Takeout",
    CLAUDE_MEMORIES: "Claude's memories",
    UME: "ume export",
}

_WS = " \t\r\n"
# ChatGPT content types that are the model's or the app's own, not the conversation.
_CHATGPT_HIDDEN_TYPES = {
    "user_editable_context",
    "model_editable_context",
    "thoughts",
    "reasoning_recap",
    "system_error",
}
_CHATGPT_ATTACHMENT_PARTS = {"image_asset_pointer", "audio_asset_pointer", "file_asset_pointer"}
_JSONL_ROLES = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "model": "assistant",
}


@dataclass
class Conversation:
    """One conversation, ready to be stored as a transcript."""

    external_id: str
    title: str
    created_at: datetime | None
    updated_at: datetime | None
    messages: list[dict[str, Any]] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    attachments: int = 0

    def transcript_json(self) -> str:
        """The transcript text ume stores: its own JSON shape, deterministic for re-imports."""
        return json.dumps(
            {
                "title": self.title,
                "conversation_id": self.external_id,
                "messages": self.messages,
            },
            ensure_ascii=False,
            sort_keys=True,
        )


def detect_format(stream: IO[bytes], *, name: str, max_element_bytes: int) -> str | None:
    """The export's format (``chatgpt``, ``claude``, ``jsonl``, ``gemini``,
    ``claude_memories``, ``ume``); None for any other transcript.

    Reads the first conversation (or line) at most and rewinds the stream.
    """
    start = stream.tell()
    try:
        head = stream.read(4096).lstrip(b"\xef\xbb\xbf" + _WS.encode())
        if head.startswith(b"["):
            stream.seek(start)
            try:
                first = next(iter_json_array(stream, max_element_bytes=max_element_bytes), None)
            except ImportFormatError:
                first = None
            kind = _kind_of(first)
            if kind is None and first is None or isinstance(first, ImportFormatError):
                # The first conversation is too large (or unreadable) to decode whole: its keys
                # still say what the file is, and that conversation will fail alone.
                stream.seek(start)
                kind = _kind_of_first_keys(stream)
            return kind  # None: leave the message to the transcript reader
        if head.startswith(b"{"):
            stream.seek(start)
            first_line = stream.readline(max_element_bytes + 1)
            try:
                first = json.loads(first_line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                first = None
            if isinstance(first, dict):
                kind = _kind_of(first)
                if kind:
                    return kind
                if "role" in first and (
                    name.lower().endswith((".jsonl", ".ndjson"))
                    or stream.read(4096).strip().startswith(b"{")
                ):
                    return JSONL
            if name.lower().endswith((".jsonl", ".ndjson")):
                return JSONL
            if first is None:
                # One object over several lines: Claude's memories of one account on their own.
                stream.seek(start)
                if _kind_of_first_keys(stream, key_depth=1) == CLAUDE_MEMORIES:
                    return CLAUDE_MEMORIES
        return None
    finally:
        stream.seek(start)


def _kind_of_first_keys(stream: IO[bytes], *, key_depth: int = 2) -> str | None:
    """The format from the keys of the first conversation of a list (``key_depth`` 2) or of
    a lone object (1), found without building its values (within the first MiB): a
    ``mapping`` object, a ``chat_messages`` list, a memory key, or a ``header`` naming
    Gemini."""
    owner = "item" if key_depth == 2 else ""
    last = ""
    for prefix, event, value in head_events(stream):
        if prefix == owner and event == "map_key":
            last = value
            if last in _MEMORY_KEYS:
                return CLAUDE_MEMORIES
            continue
        if prefix == owner and event == "end_map":
            return None  # the first conversation ended without any of the keys
        if last == "mapping" and event == "start_map" and prefix == _key(owner, last):
            return CHATGPT
        if last == "chat_messages" and event == "start_array" and prefix == _key(owner, last):
            return CLAUDE
        if (
            last == "header"
            and event == "string"
            and prefix == _key(owner, last)
            and "Gemini" in value
        ):
            return GEMINI
        if prefix == _key(owner, last) and event not in ("start_map", "start_array"):
            last = ""
    return None


def _key(owner: str, key: str) -> str:
    return f"{owner}.{key}" if owner else key


def _kind_of(item: Any) -> str | None:
    if is_header(item):
        return UME
    if isinstance(item, dict):
        if isinstance(item.get("mapping"), dict):
            return CHATGPT
        if isinstance(item.get("chat_messages"), list):
            return CLAUDE
        if any(key in item for key in _MEMORY_KEYS):
            return CLAUDE_MEMORIES
        if _is_gemini_record(item):
            return GEMINI
    return None


_MEMORY_KEYS = ("conversations_memory", "project_memories")


def _is_gemini_record(item: dict[str, Any]) -> bool:
    """A Takeout activity record of Gemini (Search and YouTube records have the same keys)."""
    if not isinstance(item.get("title"), str) or "time" not in item:
        return False
    products = item.get("products")
    named = [item.get("header"), *(products if isinstance(products, list) else [])]
    return any(isinstance(name, str) and "Gemini" in name for name in named)


def iter_export(
    stream: IO[bytes], *, fmt: str, name: str, max_element_bytes: int
) -> Iterator[tuple[int, Conversation | ImportFormatError]]:
    """(position, conversation or the error that conversation alone failed with).

    Malformed JSON ends the iteration with :class:`ImportFormatError`: nothing after it
    can be trusted.
    """
    if fmt == JSONL:
        try:
            yield 0, conversation_from_jsonl(stream, name=name, max_bytes=max_element_bytes)
        except ImportFormatError as exc:
            yield 0, exc
        return
    if fmt == GEMINI:
        # Imported here: the Gemini reader builds on this module's conversations.
        from memory.imports.gemini import gemini_conversations

        records = iter_json_array(stream, max_element_bytes=max_element_bytes)
        yield from gemini_conversations(records, max_element_bytes=max_element_bytes)
        return
    parse = conversation_from_chatgpt if fmt == CHATGPT else conversation_from_claude
    head = stream.read(4096).lstrip(b"\xef\xbb\xbf" + _WS.encode())
    stream.seek(0)
    if head.startswith(b"{"):  # one conversation on its own, not in a list
        data = stream.read(max_element_bytes + 1)
        if len(data) > max_element_bytes:
            yield 0, ImportFormatError(f"the conversation is over {max_element_bytes:,} bytes")
            return
        try:
            elements: Any = [json.loads(data)]
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ImportFormatError(f"malformed JSON: {exc}") from exc
        except RecursionError as exc:
            raise ImportFormatError("malformed JSON: nested too deeply") from exc
    else:
        elements = iter_json_array(stream, max_element_bytes=max_element_bytes)
    for index, element in enumerate(elements):
        if isinstance(element, ImportFormatError):
            yield index, element
            continue
        try:
            yield index, parse(element, index)
        except (ImportFormatError, TypeError, ValueError, KeyError, AttributeError) as exc:
            reason = (
                str(exc)
                if isinstance(exc, ImportFormatError)
                else f"unreadable conversation ({type(exc).__name__})"
            )
            title = element.get("title") or element.get("name") if isinstance(element, dict) else ""
            title = " ".join(str(title or "").split())[:120]
            yield index, ImportFormatError(f"{title}: {reason}" if title else reason)


# --- times and text -------------------------------------------------------------------------


def _time(value: Any) -> datetime | None:
    if value in (None, ""):
        return None
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            seconds = value / 1000 if value > 10**11 else value
            return datetime.fromtimestamp(seconds, tz=UTC)
        if isinstance(value, str):
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
            return moment.astimezone(UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return None


#: A time in an export (ISO 8601 text, or seconds or milliseconds since 1970) in UTC, or None.
parse_time = _time


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _clean(text: str) -> str:
    return text.replace("\x00", "").strip()


def _message(msg_id: str, role: str, text: str, ts: datetime | None) -> dict[str, Any]:
    data: dict[str, Any] = {"id": msg_id[:64], "role": role, "content": text}
    if ts is not None:
        data["ts"] = ts.isoformat()
    return data


def _title(raw: Any, created: datetime | None) -> str:
    title = " ".join(str(raw or "").replace("\x00", "").split())[:200]
    if title:
        return title
    return f"Untitled conversation ({created.date().isoformat()})" if created else "Untitled"


# --- ChatGPT --------------------------------------------------------------------------------


def _chatgpt_branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The nodes from the root to ``current`` (the branch the person kept), in order."""
    if not isinstance(current, str) or current not in mapping:
        # No current node recorded: the newest leaf is what the person saw last.
        leaves = [
            node for node in mapping.values() if isinstance(node, dict) and not node.get("children")
        ]
        if not leaves:
            raise ImportFormatError("the message tree has no leaf to follow")
        current = max(
            leaves,
            key=lambda n: (
                _time((n.get("message") or {}).get("create_time"))
                or datetime.min.replace(tzinfo=UTC)
            ),
        ).get("id")
    path: list[Any] = []
    seen: set[Any] = set()
    node_id = current
    while isinstance(node_id, str) and node_id in mapping:
        if node_id in seen:
            raise ImportFormatError("the message tree loops back on itself")
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            raise ImportFormatError(f"message node {node_id[:40]} is not an object")
        path.append(node)
        node_id = node.get("parent")
    path.reverse()
    return path


def conversation_from_chatgpt(data: Any, index: int = 0) -> Conversation:
    if not isinstance(data, dict) or not isinstance(data.get("mapping"), dict):
        raise ImportFormatError("not a ChatGPT conversation (no message mapping)")
    created = _time(data.get("create_time"))
    conv = Conversation(
        external_id=str(data.get("conversation_id") or data.get("id") or f"#{index + 1}")[:100],
        title=_title(data.get("title"), created),
        created_at=created,
        updated_at=_time(data.get("update_time")),
    )
    for node in _chatgpt_branch(data["mapping"], data.get("current_node")):
        message = node.get("message")
        if not isinstance(message, dict):
            continue  # the tree's root holds no message
        author = _dict(message.get("author"))
        role = str(author.get("role") or "")
        content = _dict(message.get("content"))
        metadata = _dict(message.get("metadata"))
        ctype = str(content.get("content_type") or "text")
        parts = content.get("parts")
        # An uploaded image is both a part and an attachment entry: count the file once.
        listed = metadata.get("attachments")
        conv.attachments += max(
            len(listed) if isinstance(listed, list) else 0,
            sum(
                1
                for part in (parts if isinstance(parts, list) else [])
                if isinstance(part, dict) and part.get("content_type") in _CHATGPT_ATTACHMENT_PARTS
            ),
        )
        if role in {"system", "tool"}:
            conv.skipped[role] += 1
            continue
        if role not in {"user", "assistant"}:
            conv.skipped["other"] += 1
            continue
        if metadata.get("is_visually_hidden_from_conversation") or ctype in _CHATGPT_HIDDEN_TYPES:
            conv.skipped["hidden"] += 1
            continue
        recipient = message.get("recipient")
        if role == "assistant" and recipient not in (None, "all"):
            conv.skipped["tool"] += 1  # a call to a tool (browser, python, ...)
            continue
        texts = []
        if isinstance(parts, list):
            for part in parts:
                if isinstance(part, str):
                    texts.append(part)
                elif isinstance(part, dict) and isinstance(part.get("text"), str):
                    texts.append(part["text"])
        elif isinstance(content.get("text"), str):
            texts.append(content["text"])
        text = _clean("\n".join(t for t in texts if t))
        if not text:
            conv.skipped["empty"] += 1
            continue
        conv.messages.append(
            _message(
                str(message.get("id") or node.get("id") or f"M{len(conv.messages)}"),
                role,
                text,
                _time(message.get("create_time")),
            )
        )
    return conv


# --- Claude ---------------------------------------------------------------------------------


def _claude_branch(messages: list[Any]) -> list[Any]:
    """With parent links, the path up from the newest message; without, the list as it is."""
    by_id = {
        m.get("uuid"): m for m in messages if isinstance(m, dict) and isinstance(m.get("uuid"), str)
    }
    if not any(isinstance(m, dict) and m.get("parent_message_uuid") for m in messages):
        return messages
    parents = {m.get("parent_message_uuid") for m in by_id.values()}
    leaves = [m for uid, m in by_id.items() if uid not in parents]
    if not leaves:
        raise ImportFormatError("the message tree has no leaf to follow")
    newest = max(
        enumerate(leaves),
        key=lambda pair: (
            _time(pair[1].get("created_at")) or datetime.min.replace(tzinfo=UTC),
            pair[0],
        ),
    )[1]
    path: list[Any] = []
    seen: set[Any] = set()
    node: Any = newest
    while isinstance(node, dict):
        uid = node.get("uuid")
        if uid in seen:
            raise ImportFormatError("the message tree loops back on itself")
        seen.add(uid)
        path.append(node)
        node = by_id.get(node.get("parent_message_uuid"))
    path.reverse()
    return path


def conversation_from_claude(data: Any, index: int = 0) -> Conversation:
    if not isinstance(data, dict) or not isinstance(data.get("chat_messages"), list):
        raise ImportFormatError("not a Claude conversation (no chat_messages)")
    created = _time(data.get("created_at"))
    conv = Conversation(
        external_id=str(data.get("uuid") or f"#{index + 1}")[:100],
        title=_title(data.get("name"), created),
        created_at=created,
        updated_at=_time(data.get("updated_at")),
    )
    for position, message in enumerate(_claude_branch(data["chat_messages"])):
        if not isinstance(message, dict):
            raise ImportFormatError(f"message {position + 1} is not an object")
        sender = str(message.get("sender") or "")
        for key in ("attachments", "files"):
            if isinstance(message.get(key), list):
                conv.attachments += len(message[key])
        if sender not in {"human", "assistant"}:
            conv.skipped["system" if sender == "system" else "other"] += 1
            continue
        content = message.get("content")
        texts: list[str] = []
        tool_parts = hidden_parts = 0
        if isinstance(content, list) and content:
            for part in content:
                kind = part.get("type") if isinstance(part, dict) else None
                if kind == "text" and isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif kind in {"tool_use", "tool_result"}:
                    tool_parts += 1
                elif kind in {"thinking", "redacted_thinking"}:
                    hidden_parts += 1
                elif kind in {"image", "document"}:
                    conv.attachments += 1
        elif isinstance(message.get("text"), str):
            texts.append(message["text"])
        text = _clean("\n".join(t for t in texts if t))
        if not text:
            conv.skipped["tool" if tool_parts else "hidden" if hidden_parts else "empty"] += 1
            continue
        conv.skipped["tool"] += tool_parts
        conv.skipped["hidden"] += hidden_parts
        conv.messages.append(
            _message(
                str(message.get("uuid") or f"M{position}"),
                "user" if sender == "human" else "assistant",
                text,
                _time(message.get("created_at")),
            )
        )
    return conv


# --- JSON Lines -----------------------------------------------------------------------------


def conversation_from_jsonl(stream: IO[bytes], *, name: str, max_bytes: int) -> Conversation:
    """One conversation from ``{role, content, ts}`` lines; a bad line names its number."""
    conv = Conversation(external_id=name[:100], title="", created_at=None, updated_at=None)
    size = 0
    for number, raw in enumerate(stream, start=1):
        size += len(raw)
        if size > max_bytes:
            raise ImportFormatError(f"the conversation is over {max_bytes:,} bytes")
        line = raw.strip()
        if not line:
            continue
        try:
            item = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ImportFormatError(f"line {number}: not a JSON object ({exc})") from exc
        except RecursionError as exc:
            raise ImportFormatError(f"line {number}: malformed JSON (nested too deeply)") from exc
        if not isinstance(item, dict):
            raise ImportFormatError(f"line {number}: expected an object with role and content")
        role_raw = str(item.get("role") or "").strip().lower()
        if role_raw in {"system", "tool", "function"}:
            conv.skipped["system" if role_raw == "system" else "tool"] += 1
            continue
        role = _JSONL_ROLES.get(role_raw)
        if role is None:
            raise ImportFormatError(f"line {number}: role must be user or assistant")
        content = item.get("content")
        if isinstance(content, list):
            content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise ImportFormatError(f"line {number}: content must be text")
        text = _clean(content)
        if not text:
            conv.skipped["empty"] += 1
            continue
        ts = _time(item.get("ts"))
        if item.get("ts") not in (None, "") and ts is None:
            raise ImportFormatError(f"line {number}: ts {item.get('ts')!r} is not a time")
        conv.messages.append(_message(str(item.get("id") or f"L{number}"), role, text, ts))
        if ts and (conv.created_at is None or ts < conv.created_at):
            conv.created_at = ts
        if ts and (conv.updated_at is None or ts > conv.updated_at):
            conv.updated_at = ts
    stem = name.rsplit("/", 1)[-1]
    conv.title = _title(stem.rsplit(".", 1)[0] if "." in stem else stem, conv.created_at)
    return conv
