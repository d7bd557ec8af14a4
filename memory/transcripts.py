"""Reading a transcript into messages.

Accepted shapes (docs/clients.md, "The HTTP API"): text or Markdown with ``User:`` / ``Assistant:`` lines (a line
without a speaker continues the previous message), or JSON: a list of ``{role, content, ts?}``
or ``{"messages": [...]}``. Bad input raises :class:`TranscriptError` with a message fit to show
a person; nothing is guessed.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

ROLES = {"user", "assistant", "system"}
_ROLE_ALIASES = {
    "user": "user",
    "human": "user",
    "me": "user",
    "you": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "bot": "assistant",
    "claude": "assistant",
    "chatgpt": "assistant",
    "gpt": "assistant",
    "model": "assistant",
    "system": "system",
}
# "User: hi", "**User:** hi", "> Assistant: ...", "### Human: ..."
_SPEAKER = re.compile(
    r"^\s*(?:[#>*_\-\s]*)(?P<role>user|human|me|you|assistant|ai|bot|claude|chatgpt|gpt|model|system)"
    r"\s*(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s?(?P<rest>.*)$",
    re.IGNORECASE,
)
MAX_MESSAGES = 5000


class TranscriptError(ValueError):
    """The input is not a transcript ume can read."""


@dataclass(frozen=True)
class Message:
    id: str
    role: str
    content: str
    ts: datetime | None = None


def content_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def decode_bytes(data: bytes, *, name: str, max_bytes: int) -> str:
    """Bytes of an uploaded or read file -> text, refusing what is not a transcript."""
    if len(data) > max_bytes:
        raise TranscriptError(
            f"{name}: {len(data):,} bytes is over the limit of {max_bytes:,} bytes"
        )
    if b"\x00" in data:
        raise TranscriptError(f"{name}: looks binary (contains NUL bytes), not a transcript")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TranscriptError(
            f"{name}: not valid UTF-8 (byte {exc.start}); save the transcript as UTF-8 text"
        ) from exc
    control = sum(1 for ch in text if ord(ch) < 32 and ch not in "\n\r\t\f")
    if control > max(8, len(text) // 100):
        raise TranscriptError(f"{name}: looks binary (too many control characters)")
    return text


def _parse_ts(value: Any, where: str) -> datetime | None:
    if value in (None, ""):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if value > 10**11 else value  # epoch ms or s
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError) as exc:
            raise TranscriptError(f"{where}: ts {value!r} is out of range") from exc
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError as exc:
            raise TranscriptError(f"{where}: ts {value!r} is not an ISO 8601 time") from exc
        moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        try:  # year 9999 at -05:00 parses, then overflows wherever it is made UTC
            moment.astimezone(UTC)
        except OverflowError as exc:
            raise TranscriptError(f"{where}: ts {value!r} is out of range") from exc
        return moment
    raise TranscriptError(f"{where}: ts must be an ISO 8601 string or epoch number")


def messages_from_json(data: Any) -> list[Message]:
    """``[{role, content, ts?, id?}]`` or ``{"messages": [...]}`` -> messages."""
    if isinstance(data, dict):
        if "messages" not in data:
            raise TranscriptError(
                'JSON transcript must be a list of messages or {"messages": [...]}'
            )
        data = data["messages"]
    if not isinstance(data, list):
        raise TranscriptError('JSON transcript must be a list of messages or {"messages": [...]}')
    if len(data) > MAX_MESSAGES:
        raise TranscriptError(f"too many messages ({len(data)} > {MAX_MESSAGES})")
    messages: list[Message] = []
    for index, item in enumerate(data):
        where = f"message {index}"
        if not isinstance(item, dict):
            raise TranscriptError(f"{where}: expected an object with role and content")
        role = _ROLE_ALIASES.get(str(item.get("role", "")).strip().lower())
        if role is None:
            raise TranscriptError(f"{where}: role must be user, assistant or system")
        content = item.get("content")
        if isinstance(content, list):  # OpenAI-style content parts
            content = " ".join(
                str(part.get("text", "")) for part in content if isinstance(part, dict)
            )
        if not isinstance(content, str):
            raise TranscriptError(f"{where}: content must be text")
        message_id = str(item.get("id") or f"M{index}")[:64]
        if "\x00" in content or "\x00" in message_id:
            # PostgreSQL refuses NUL in text columns; refuse it here, saying where.
            raise TranscriptError(f"{where}: contains a NUL character (\\u0000)")
        try:  # a lone surrogate escape ("\ud800") parses as JSON, but is not text
            content.encode("utf-8")
            message_id.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise TranscriptError(
                f"{where}: contains a lone surrogate escape (\\ud800-\\udfff); send valid Unicode"
            ) from exc
        messages.append(
            Message(message_id, role, content.strip(), _parse_ts(item.get("ts"), where))
        )
    return messages


def messages_from_text(text: str) -> list[Message]:
    """Speaker-prefixed lines -> messages. Text with no speakers at all is the user's own note."""
    messages: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        match = _SPEAKER.match(line)
        if match:
            messages.append((_ROLE_ALIASES[match.group("role").lower()], [match.group("rest")]))
        elif messages:
            messages[-1][1].append(line)
        elif line.strip():
            messages.append(("user", [line]))
    result = []
    for index, (role, lines) in enumerate(messages):
        content = "\n".join(lines).strip()
        if content:
            result.append(Message(f"M{index}", role, content))
    if len(result) > MAX_MESSAGES:
        raise TranscriptError(f"too many messages ({len(result)} > {MAX_MESSAGES})")
    return result


def transcript_format(text: str, *, name: str = "") -> str:
    """Which accepted shape ``text`` was read as, in words fit to show the person."""
    if text.lstrip()[:1] in "[{" or name.lower().endswith(".json"):
        return "JSON messages"
    if any(_SPEAKER.match(line) for line in text.splitlines()):
        return "a conversation (User:/Assistant: lines)"
    return "plain notes (your own words)"


def parse_transcript(text: str, *, name: str = "transcript") -> list[Message]:
    """Text of any accepted shape -> messages. JSON is recognised by its first character."""
    stripped = text.lstrip()
    if stripped[:1] in "[{" or name.lower().endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TranscriptError(
                f"{name}: malformed JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
            ) from exc
        except RecursionError as exc:
            raise TranscriptError(f"{name}: malformed JSON (nested too deeply)") from exc
        try:
            return messages_from_json(data)
        except TranscriptError as exc:
            raise TranscriptError(f"{name}: {exc}") from exc
    return messages_from_text(text)


@dataclass(frozen=True)
class EpisodeRow:
    """What one message becomes when it is kept as an episode."""

    message_id: str
    seq: int
    role: str
    text: str
    said_at: datetime


def episode_rows(
    messages: list[Message], *, source_time: datetime | None, now: datetime
) -> list[EpisodeRow]:
    """Messages -> episode rows: said at the message's ``ts``, else the transcript's source time,
    else ``now`` (when it was ingested). Empty messages are skipped; a message id repeated in
    one transcript gets its position appended, so every row stays unique per transcript."""
    rows: list[EpisodeRow] = []
    seen: set[str] = set()
    for seq, message in enumerate(messages):
        text = message.content.strip()
        if not text:
            continue
        message_id = message.id or f"M{seq}"
        if message_id in seen:
            message_id = f"{message_id[:60]}#{seq}"
        seen.add(message_id)
        said_at = message.ts or source_time or now
        rows.append(EpisodeRow(message_id, seq, message.role, text, said_at))
    return rows
