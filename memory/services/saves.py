"""The rules a save must meet before anything is stored, in one place: a text is not empty,
holds no NUL, and a memory, a conversation or an uploaded file is within
``UME_MAX_TRANSCRIPT_BYTES``; a conversation's messages, and a file's lines, read as messages. Each refusal is one :class:`SaveRefused` with a
``code``: the HTTP API answers ``too_large`` with 413 and ``invalid_input`` with 400
(``api.views``), the MCP tools answer either as a tool error (``mcp_server.tools``).

The byte limits of a request body are checked before it is read (``ume.guard``); these are
what a body that was read must still meet, whichever interface read it (stdio has no body
limit)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings

from memory.transcripts import TranscriptError, decode_bytes, messages_from_json, parse_transcript

TOO_LARGE = "too_large"
INVALID_INPUT = "invalid_input"


class SaveRefused(ValueError):
    """A save that breaks one of the rules above; the message says which, for the caller."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def transcript_limit() -> int:
    return int(settings.UME_MAX_TRANSCRIPT_BYTES)


def text_checked(name: str, value: str, *, limit: int | None = None) -> str:
    """``value``, when it holds no NUL, is not blank and is at most ``limit`` bytes (a
    transcript's limit unless said)."""
    if "\x00" in value:
        raise SaveRefused(INVALID_INPUT, f"{name} must not contain NUL characters")
    if not value.strip():
        raise SaveRefused(INVALID_INPUT, f"{name} must not be empty")
    limit = limit or transcript_limit()
    if len(value.encode("utf-8")) > limit:
        raise SaveRefused(TOO_LARGE, f"{name} is over the limit of {limit:,} bytes")
    return value


def memory_checked(text: str) -> str:
    """One memory's text: not blank, no NUL, within a transcript's limit."""
    if "\x00" in text:
        raise SaveRefused(INVALID_INPUT, "text must not contain NUL characters")
    if not text.strip():
        raise SaveRefused(INVALID_INPUT, "text must not be empty")
    size = len(text.encode("utf-8"))
    if size > transcript_limit():
        raise SaveRefused(TOO_LARGE, f"text is {size:,} bytes; the limit is {transcript_limit():,}")
    return text


def conversation_checked(messages: Sequence[dict[str, Any]]) -> str:
    """A conversation's messages, read as messages and within a transcript's limit; returns
    the name its save is given (its first message of the person's, shortened)."""
    if not messages:
        raise SaveRefused(INVALID_INPUT, "messages must hold at least one message")
    try:
        messages_from_json(list(messages))
    except TranscriptError as exc:
        raise SaveRefused(INVALID_INPUT, str(exc)) from exc
    size = sum(len(str(m.get("content", "")).encode("utf-8")) for m in messages)
    if size > transcript_limit():
        raise SaveRefused(
            TOO_LARGE, f"messages are {size:,} bytes; the limit is {transcript_limit():,}"
        )
    first = next((m for m in messages if m.get("role") == "user"), messages[0])
    return "conversation: " + " ".join(str(first.get("content", "")).split())[:80]


def file_checked(data: bytes, name: str) -> str:
    """An uploaded transcript file's text (the dashboard's upload and ``POST /v1/transcripts``):
    within a transcript's limit, UTF-8 text rather than binary, not empty, holding messages."""
    limit = transcript_limit()
    if len(data) > limit:
        raise SaveRefused(
            TOO_LARGE, f"{name}: {len(data):,} bytes is over the limit of {limit:,} bytes"
        )
    try:
        text = decode_bytes(data, name=name, max_bytes=limit)
        if not text.strip():
            raise SaveRefused(INVALID_INPUT, f"{name}: the file is empty")
        if not parse_transcript(text, name=name):
            raise SaveRefused(INVALID_INPUT, f"{name}: no messages found")
    except TranscriptError as exc:
        raise SaveRefused(INVALID_INPUT, str(exc)) from exc
    return text
