"""Reading chat exports: pure, no database. The fixtures are ours, in the exports' real shapes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from memory.imports.formats import (
    CHATGPT,
    CLAUDE,
    JSONL,
    ImportFormatError,
    detect_format,
    iter_export,
    iter_json_array,
)

EXPORTS = Path(__file__).resolve().parents[2] / "fixtures" / "exports"
BIG = 5 * 1024 * 1024


def read_all(name: str, fmt: str) -> list:
    with (EXPORTS / name).open("rb") as stream:
        return [item for _, item in iter_export(stream, fmt=fmt, name=name, max_element_bytes=BIG)]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("chatgpt_conversations.json", CHATGPT),
        ("claude_conversations.json", CLAUDE),
        ("greyhound.jsonl", JSONL),
    ],
)
def test_exports_are_recognised_by_their_shape_and_the_stream_is_rewound(
    name: Any, expected: Any
) -> None:
    with (EXPORTS / name).open("rb") as stream:
        assert detect_format(stream, name="upload.bin", max_element_bytes=BIG) == expected
        assert stream.tell() == 0


@pytest.mark.parametrize(
    "data",
    [
        b"User: I moved to Lyon.\nAssistant: Nice.",
        b"just a note to myself about the garden",
        json.dumps([{"role": "user", "content": "hi"}]).encode(),
        json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode(),
        b"[1, 2",  # malformed: the transcript reader says what is wrong
        b"",
    ],
)
def test_other_transcripts_are_left_to_the_transcript_reader(data: Any) -> None:
    assert detect_format(io.BytesIO(data), name="t.json", max_element_bytes=BIG) is None


def test_chatgpt_follows_the_kept_branch_and_counts_what_it_skips() -> None:
    marathon, only_system, broken, sourdough = read_all("chatgpt_conversations.json", CHATGPT)
    assert marathon.title == "Marathon training plan"
    assert marathon.created_at.isoformat().startswith("2024-06-03")
    assert [(m["role"], m["content"]) for m in marathon.messages] == [
        ("user", "I signed up for the Porto marathon in October."),
        ("assistant", "Congratulations! How is your training going?"),
        ("user", "I started physiotherapy for my left knee. Here is my weekly log."),
        ("assistant", "Physiotherapy twice a week fits well with a marathon block."),
    ]
    # the edited-away message and its answer are not in the conversation
    assert "quit running" not in marathon.transcript_json()
    assert dict(marathon.skipped) == {"system": 1, "hidden": 2, "empty": 1, "tool": 2}
    assert marathon.attachments == 1
    assert all("ts" in m for m in marathon.messages)
    assert only_system.messages == [] and only_system.title.startswith("Untitled conversation")
    assert isinstance(broken, ImportFormatError)
    assert "Half-exported chat" in str(broken) and "loops" in str(broken)
    # no current_node: the newest leaf (the regenerated answer) is the one kept
    assert [m["content"] for m in sourdough.messages][-1].startswith("Feed it every twelve")


def test_claude_follows_the_newest_branch_and_skips_tools_thinking_and_empty_messages() -> None:
    lisbon, cello, broken, empty = read_all("claude_conversations.json", CLAUDE)
    assert lisbon.title == "Moving to Lisbon"
    assert [(m["role"], m["content"]) for m in lisbon.messages] == [
        ("user", "We are moving to Lisbon in March with our two cats."),
        ("assistant", "Your cats will need EU pet passports."),
        ("assistant", "I see a floor plan. Is this the Alfama flat?"),
        ("user", "Yes, I start my new job at the Gulbenkian in April."),
    ]
    assert "neighbourhood" not in lisbon.transcript_json()  # the retried-away message
    assert "1200 EUR" not in lisbon.transcript_json()  # attachment text is not the person's
    assert dict(lisbon.skipped) == {"tool": 2, "empty": 1, "hidden": 1}
    assert lisbon.attachments == 2
    assert [m["role"] for m in cello.messages] == ["user", "assistant"]
    assert isinstance(broken, ImportFormatError) and "Garbled chat" in str(broken)
    assert empty.messages == []


def test_json_lines_become_one_conversation_with_its_times() -> None:
    (conv,) = read_all("greyhound.jsonl", JSONL)
    assert [m["content"] for m in conv.messages] == [
        "I adopted a greyhound called Pimenta last weekend.",
        "Congratulations on adopting Pimenta!",
        "She sleeps on the sofa now.",
    ]
    assert dict(conv.skipped) == {"system": 1, "tool": 1, "empty": 1}
    assert conv.title == "greyhound"
    assert conv.created_at.isoformat() == "2025-02-02T09:00:00+00:00"


def test_a_bad_json_line_names_its_number() -> None:
    data = b'{"role": "user", "content": "hi"}\n{"role": "user", "content": \n'
    (item,) = [
        item
        for _, item in iter_export(
            io.BytesIO(data), fmt=JSONL, name="x.jsonl", max_element_bytes=BIG
        )
    ]
    assert isinstance(item, ImportFormatError) and "line 2" in str(item)


def test_the_array_reader_streams_elements_across_chunk_boundaries() -> None:
    items = [{"n": i, "text": "é" * (i * 5000)} for i in range(60)] + [123456789]
    data = (
        "\ufeff  [ " + " ,\n".join(json.dumps(x, ensure_ascii=False) for x in items) + " ]"
    ).encode()
    assert list(iter_json_array(io.BytesIO(data), max_element_bytes=BIG)) == items


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'[{"a": 1}, {"a": ', "malformed JSON in conversation 2"),
        (b'[{"a": 1} {"a": 2}]', "malformed JSON after conversation 1: .*expect ',' or ']'"),
        (b'{"a": 1}', "expected a JSON list"),
        (b'[{"a": "' + b"x" * 5000, "malformed JSON in conversation 1"),
        (b'[{"a": "\xff"}]', "not valid UTF-8"),
    ],
)
def test_the_array_reader_refuses_malformed_input_saying_where(data: Any, message: Any) -> None:
    with pytest.raises(ImportFormatError, match=message):
        list(iter_json_array(io.BytesIO(data), max_element_bytes=1000))


def test_malformed_json_midway_keeps_the_conversations_before_it() -> None:
    good = json.loads((EXPORTS / "claude_conversations.json").read_text())[1]
    data = ("[" + json.dumps(good) + ', {"uuid": "x", "chat_messages": [').encode()
    stream = io.BytesIO(data)
    seen = []
    with pytest.raises(ImportFormatError, match="conversation 2"):
        for _, item in iter_export(stream, fmt=CLAUDE, name="c.json", max_element_bytes=BIG):
            seen.append(item)
    assert [getattr(c, "title", None) for c in seen] == ["Learning the cello"]


def test_a_conversation_over_the_limit_fails_alone() -> None:
    data = b'[{"a": "' + b"x" * 1500 + b'"}, {"b": 2}]'
    first, second = iter_json_array(io.BytesIO(data), max_element_bytes=1000)
    assert isinstance(first, ImportFormatError) and "over 1,000 bytes" in str(first)
    assert second == {"b": 2}
