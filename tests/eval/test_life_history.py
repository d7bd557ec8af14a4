"""The generated chat history (eval.life_history): deterministic, realistic in shape, and read
by ume's own ChatGPT importer as the conversations it says it holds."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest

from eval.life_history import END, START, History, generate, main
from memory.imports.formats import CHATGPT, Conversation, detect_format, iter_export

LIMIT = 5 * 1024 * 1024


def read(data: bytes) -> list[Conversation]:
    """The conversations ume's importer reads from ``data`` (none of them an error)."""
    read = []
    for _position, item in iter_export(
        io.BytesIO(data), fmt=CHATGPT, name="conversations.json", max_element_bytes=LIMIT
    ):
        assert isinstance(item, Conversation), item
        read.append(item)
    return read


@pytest.fixture(scope="module")
def history() -> History:
    return generate(seed=11, conversations=400)


def test_the_same_seed_gives_the_same_bytes_and_another_seed_another_life() -> None:
    one = json.dumps(generate(seed=3, conversations=50).export)
    assert one == json.dumps(generate(seed=3, conversations=50).export)
    other = generate(seed=4, conversations=50)
    assert json.dumps(other.export) != one
    names = {s["name"] for s in generate(seed=3, conversations=50).manifest["subjects"]}
    assert names != {s["name"] for s in other.manifest["subjects"]}


def test_ume_reads_every_conversation_with_the_messages_own_times(history: History) -> None:
    data = json.dumps(history.export).encode()
    found = detect_format(io.BytesIO(data), name="conversations.json", max_element_bytes=LIMIT)
    assert found == CHATGPT
    conversations = read(data)
    assert len(conversations) == 400
    times = [m["ts"] for c in conversations for m in c.messages]
    assert len(times) >= 800 and all(t for t in times)
    assert min(times) >= START.isoformat()[:10] and max(times) <= "2025-10-01"
    # the hidden system message, the custom instructions, tool calls and results are skipped
    skipped: Counter[str] = Counter()
    for conversation in conversations:
        skipped.update(conversation.skipped)
    assert skipped["system"] == 400 and skipped["hidden"] > 0
    roles = {m["role"] for c in conversations for m in c.messages}
    assert roles == {"user", "assistant"}


def test_an_edited_first_message_is_a_side_branch_ume_does_not_follow(history: History) -> None:
    edited = [
        c
        for c in history.export
        if len(c["mapping"]["client-created-root"]["children"]) == 1
        and any(len(n["children"]) > 1 for n in c["mapping"].values())
    ]
    assert edited, "some conversations have an edited first message"
    for item in edited[:5]:
        (conversation,) = read(json.dumps([item]).encode())
        said = [m["content"] for m in conversation.messages]
        assert said and "Could you say a bit more?" not in said  # the abandoned branch's


def test_most_of_a_history_is_everyday_help_and_life_subjects_recur(history: History) -> None:
    manifest = history.manifest
    assert 0.15 < manifest["life_conversations"] / 400 < 0.45
    by_id = {s["id"]: s for s in manifest["subjects"]}
    assert by_id["partner"]["conversations"] >= 10
    assert by_id["partner"]["mentions"] >= by_id["partner"]["conversations"]
    # subjects come and go with the life: the old job ends before the new one starts
    assert by_id["employer1"]["last_said"] < by_id["employer2"]["first_said"]
    once = [s for s in manifest["subjects"] if s["id"].startswith(("trip", "once"))]
    assert once and all(s["conversations"] <= 3 for s in once)
    for subject in manifest["subjects"]:
        assert START.isoformat() <= subject["first_said"] <= subject["last_said"]
        assert subject["last_said"] <= END.isoformat()


def test_people_type_in_their_own_ways(history: History) -> None:
    texts = [
        node["message"]["content"]["parts"][-1]
        for c in history.export
        for node in c["mapping"].values()
        if node["message"]
        and node["message"]["author"]["role"] == "user"
        and node["message"]["content"]["content_type"] in ("text", "multimodal_text")
    ]
    assert any(t == t.lower() and "'" not in t for t in texts)  # lower case, hurried
    assert any(t[:1].isupper() for t in texts)
    assert any(" u " in f" {t} " or "pls" in t for t in texts)


def test_the_command_writes_the_export_and_its_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, manifest = tmp_path / "conversations.json", tmp_path / "subjects.json"
    assert main(["--seed", "5", "--conversations", "30", "--out", str(out),
                 "--manifest", str(manifest)]) == 0  # fmt: skip
    assert len(json.loads(out.read_text())) == 30
    assert json.loads(manifest.read_text())["conversations"] == 30
    with pytest.raises(SystemExit):
        main(["--conversations", "0", "--out", str(out)])
