"""Reading transcripts: speakers, JSON shapes, and clear errors for what is not a transcript."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from memory.transcripts import (
    TranscriptError,
    decode_bytes,
    parse_transcript,
    transcript_format,
)


def test_speaker_lines_with_continuations() -> None:
    messages = parse_transcript(
        "User: I started boxing.\nIt is fun.\n\nAssistant: Great!\n**Human:** one more\n> AI: ok"
    )
    assert [(m.id, m.role, m.content) for m in messages] == [
        ("M0", "user", "I started boxing.\nIt is fun."),
        ("M1", "assistant", "Great!"),
        ("M2", "user", "one more"),
        ("M3", "assistant", "ok"),
    ]


def test_text_without_speakers_is_the_persons_own_note() -> None:
    (message,) = parse_transcript("I moved to Berlin in March 2021.\nMy sister lives there.")
    assert message.role == "user" and message.content.startswith("I moved")


@pytest.mark.parametrize(
    "text",
    [
        '[{"role": "user", "content": "hi", "ts": "2026-05-10T10:00:00Z"}]',
        '{"messages": [{"role": "user", "content": "hi", "ts": 1778407200000}]}',
        '{"messages": [{"role": "human", "content": [{"type": "text", "text": "hi"}], "ts": "2026-05-10T10:00:00"}]}',
    ],
)
def test_json_shapes(text: Any) -> None:
    (message,) = parse_transcript(text, name="chat.json")
    assert (message.role, message.content) == ("user", "hi")
    assert message.ts == datetime(2026, 5, 10, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('[{"role": "user"', "malformed JSON (line 1"),
        ('{"chat": []}', "must be a list of messages"),
        ("[1, 2]", "message 0: expected an object"),
        ('[{"role": "narrator", "content": "x"}]', "message 0: role must be"),
        ('[{"role": "user", "content": 5}]', "content must be text"),
        ('[{"role": "user", "content": "x", "ts": "yesterday"}]', "not an ISO 8601 time"),
        ('[{"role": "user", "content": "x", "ts": 1e30}]', "out of range"),
    ],
)
def test_bad_json_says_what_and_where(text: Any, error: Any) -> None:
    with pytest.raises(TranscriptError, match="chat.json") as info:
        parse_transcript(text, name="chat.json")
    assert error in str(info.value)


@pytest.mark.parametrize(
    ("data", "limit", "error"),
    [
        (b"x" * 11, 10, "f.txt: 11 bytes is over the limit of 10 bytes"),
        (b"abc\x00def", 100, "f.txt: looks binary (contains NUL bytes)"),
        (b"caf\xe9", 100, "f.txt: not valid UTF-8 (byte 3)"),
        (
            b"\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0e\x0f",
            100,
            "f.txt: looks binary (too many control",
        ),
    ],
)
def test_decode_refuses_what_is_not_text(data: Any, limit: Any, error: Any) -> None:
    with pytest.raises(TranscriptError) as info:
        decode_bytes(data, name="f.txt", max_bytes=limit)
    assert error in str(info.value)


def test_decode_accepts_utf8_with_bom() -> None:
    assert decode_bytes("\ufeffUser: Zoë".encode(), name="f.txt", max_bytes=100) == "User: Zoë"


@pytest.mark.parametrize(
    ("text", "name", "shape"),
    [
        ("I moved to Lisbon.\nI like tea.", "notes.txt", "plain notes (your own words)"),
        ("User: hi\nAssistant: hello", "chat.md", "a conversation (User:/Assistant: lines)"),
        ("**Human:** hi", "chat.md", "a conversation (User:/Assistant: lines)"),
        ('[{"role": "user", "content": "hi"}]', "x.txt", "JSON messages"),
        ("", "x.json", "JSON messages"),
    ],
)
def test_transcript_format_names_the_shape_that_was_read(text: Any, name: Any, shape: Any) -> None:
    assert transcript_format(text, name=name) == shape


def test_plain_notes_are_one_message_of_the_user() -> None:
    messages = parse_transcript("I moved to Lisbon.\nI like tea.")
    assert [(m.role, m.content) for m in messages] == [("user", "I moved to Lisbon.\nI like tea.")]
