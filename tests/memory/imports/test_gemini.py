"""Google Takeout's Gemini activity: detected by its records, prompts grouped into
conversations by time, answers read from HTML, other activity skipped and counted; imported
like any chat export (one transcript and receipt per conversation, a duplicate the second
time, a continued conversation stored with only its new messages)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from memory.imports import gemini
from memory.imports.formats import GEMINI, Conversation, detect_format, iter_export
from memory.imports.gemini import html_to_text
from memory.models import ChatImport, Receipt, Transcript

EXPORTS = Path(__file__).resolve().parents[2] / "fixtures" / "exports"
FIXTURE = EXPORTS / "gemini_my_activity.json"
BIG = 5 * 1024 * 1024


def record(title: str, time: str, html: str = "<p>An answer.</p>", **extra: Any) -> dict:
    return {
        "header": "Gemini Apps",
        "title": title,
        "time": time,
        "products": ["Gemini Apps"],
        "activityControls": ["Gemini Apps Activity"],
        "safeHtmlItem": [{"html": html}] if html else [],
        **extra,
    }


def read(data: bytes, max_element_bytes: int = BIG) -> list[Any]:
    stream = io.BytesIO(data)
    return [
        item
        for _, item in iter_export(
            stream, fmt=GEMINI, name="MyActivity.json", max_element_bytes=max_element_bytes
        )
    ]


def ingest_json(path: Path, owner: str = "owner") -> list[dict]:
    out = io.StringIO()
    call_command("ingest", str(path), user=owner, json=True, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


# --- pure ---------------------------------------------------------------------------------


def test_html_is_read_as_text_by_a_parser() -> None:
    markup = (
        "<h2>Plan</h2><p>Rest &amp; <b>eat</b>&nbsp;well.<br>Sleep.</p>"
        "<script>document.write('<p>not text</p>')</script><style>p{}</style>"
        "<ul><li>one</li><li>two <a href='javascript:x'>link</a></li></ul>"
        "<p>a < b and <unclosed"
    )
    # what is left unclosed at the end is text, never markup
    assert html_to_text(markup) == (
        "Plan\nRest & eat well.\nSleep.\n- one\n- two link\na < b and <unclosed"
    )


def test_hostile_html_stays_bounded() -> None:
    nested = "<div>" * 50_000 + "deep" + "</div>" * 50_000
    assert html_to_text(nested) == "deep"
    assert html_to_text("<" * 100_000) == "<" * 100_000


def test_gemini_is_detected_by_its_records_not_by_the_file_name() -> None:
    data = FIXTURE.read_bytes()
    for name in ("MyActivity.json", "anything.json"):
        assert detect_format(io.BytesIO(data), name=name, max_element_bytes=BIG) == GEMINI
    search = json.dumps(
        [
            {
                **record("Searched for skis", "2025-01-01T00:00:00Z"),
                "header": "Search",
                "products": ["Search"],
            }
        ]
    )
    assert (
        detect_format(io.BytesIO(search.encode()), name="MyActivity.json", max_element_bytes=BIG)
        is None
    )
    # a first record over the element limit: its header still says what the file is
    big = json.dumps([record("Prompted hi", "2025-01-01T00:00:00Z", html="<p>x</p>" * 500)])
    assert detect_format(io.BytesIO(big.encode()), name="x.json", max_element_bytes=1000) == GEMINI


def test_prompts_close_in_time_are_one_conversation_in_time_order() -> None:
    first, second = read(FIXTURE.read_bytes())
    assert isinstance(first, Conversation) and isinstance(second, Conversation)
    # newest first in the file; each conversation in the order it was said
    assert [m["role"] for m in first.messages] == ["user", "assistant", "user", "assistant"]
    assert first.messages[0]["content"].startswith("I am training for the Engadin ski marathon")
    assert first.messages[1]["content"] == (
        "A week of training\nThree easy sessions, one interval day & one long day."
    )
    assert first.messages[3]["content"] == (
        "For snow colder than −10 °C, pick a hard green or polar wax.\n"
        "- Green: −10 to −18\n- Polar: below −18"
    )  # the script is gone
    assert [m["ts"] for m in first.messages] == [
        "2025-02-14T18:20:41+00:00",
        "2025-02-14T18:20:41+00:00",
        "2025-02-14T18:40:05.120000+00:00",
        "2025-02-14T18:40:05.120000+00:00",
    ]
    assert first.title.startswith("I am training for the Engadin ski marathon in March")
    assert len(first.title) == gemini.TITLE_CHARS and first.title.endswith("…")
    assert (
        first.created_at is not None and first.created_at.isoformat() == "2025-02-14T18:20:41+00:00"
    )
    assert first.updated_at is not None and first.updated_at.minute == 40
    assert first.external_id == "2025-02-14T18:20:41+00:00"
    # four days earlier: another conversation, with its attachment counted
    assert second.title == "suggest a name for my sourdough starter"
    assert second.attachments == 1
    assert sum((first.skipped + second.skipped).values()) == 2
    assert (first.skipped + second.skipped)["activity"] == 2


def test_a_gap_of_more_than_thirty_minutes_starts_another_conversation() -> None:
    records = [
        record("Prompted c", "2025-03-01T11:01:00Z"),
        record("Prompted b", "2025-03-01T10:30:00Z"),  # 31 minutes before c
        record("Prompted a", "2025-03-01T10:00:00Z"),  # 30 minutes before b: same
    ]
    groups = read(json.dumps(records).encode())
    assert [[m["content"] for m in g.messages if m["role"] == "user"] for g in groups] == [
        ["c"],
        ["a", "b"],
    ]


def test_a_conversation_ends_at_the_message_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gemini, "MAX_MESSAGES", 4)
    records = [record(f"Prompted q{i}", f"2025-03-01T10:0{i}:00Z") for i in range(5)]
    groups = read(json.dumps(records).encode())
    assert [len(g.messages) for g in groups] == [4, 4, 2]


def test_prompts_without_an_answer_or_time_and_only_activity_are_counted() -> None:
    records = [
        record("Prompted no answer", "2025-03-01T10:00:00Z", html=""),
        record("Prompted no time", ""),
        {"title": 5},
        record("Prompted ", "2025-03-01T10:01:00Z"),
    ]
    (group,) = read(json.dumps(records).encode())
    assert [m["role"] for m in group.messages] == ["user"]
    assert group.skipped == {"no answer": 1, "no time": 1, "unreadable": 1, "empty": 1}
    (only,) = read(json.dumps([record("Created Gem", "2025-03-01T10:00:00Z")]).encode())
    assert isinstance(only, Conversation) and not only.messages
    assert only.skipped == {"activity": 1}


def test_a_record_over_the_element_limit_fails_alone() -> None:
    records = [
        record("Prompted small", "2025-03-01T10:05:00Z"),
        record("Prompted huge", "2025-03-01T10:04:00Z", html="<p>x</p>" * 400),
        record("Prompted after", "2025-03-01T10:03:00Z"),
    ]
    items = read(json.dumps(records).encode(), max_element_bytes=1000)
    assert [type(i).__name__ for i in items] == [
        "Conversation",
        "ImportFormatError",
        "Conversation",
    ]
    assert "over 1,000 bytes" in str(items[1])


# --- imported -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_ingest_stores_one_transcript_and_receipt_per_conversation(owner: User) -> None:
    lines = ingest_json(FIXTURE)
    assert len(lines) == 2
    assert {line["path"].split(" / ", 1)[1] for line in lines} == set(
        Transcript.objects.for_owner(owner).values_list("name", flat=True)
    )
    row = ChatImport.objects.for_owner(owner).get()
    assert (row.format, row.conversations, row.stored, row.attachments) == (GEMINI, 2, 2, 1)
    assert row.skipped == {"activity": 2}
    ski = Transcript.objects.for_owner(owner).get(name__startswith="I am training")
    assert (
        ski.source_time is not None and ski.source_time.isoformat() == "2025-02-14T18:20:41+00:00"
    )
    messages = json.loads(ski.text)["messages"]
    assert [m["ts"][:16] for m in messages] == ["2025-02-14T18:20"] * 2 + ["2025-02-14T18:40"] * 2
    assert ski.status == "done" and ski.receipt is not None
    assert ski.receipt.detail["messages"] == 4 and ski.receipt.detail["user_messages"] == 2
    assert Receipt.objects.for_owner(owner).count() == 2


@pytest.mark.django_db
def test_a_second_import_is_a_duplicate_and_a_later_takeout_adds_only_what_is_new(
    owner: User, tmp_path: Path
) -> None:
    ingest_json(FIXTURE)
    (line,) = ingest_json(FIXTURE)
    assert line["outcome"] == "duplicate"
    assert Transcript.objects.for_owner(owner).count() == 2
    later = [
        record("Prompted and how do I wax the grip zone", "2025-02-14T18:55:00Z"),
        *json.loads(FIXTURE.read_text()),
    ]
    path = tmp_path / "MyActivity.json"
    path.write_text(json.dumps(later))
    ingest_json(path)
    added = Transcript.objects.for_owner(owner).order_by("-pk").first()
    assert added is not None and Transcript.objects.for_owner(owner).count() == 3
    # the conversation went on: only the new exchange is stored
    assert [m["content"] for m in json.loads(added.text)["messages"]] == [
        "and how do I wax the grip zone",
        "An answer.",
    ]
    assert added.chat_import is not None and added.chat_import.duplicates == 1


@pytest.mark.django_db
def test_each_person_imports_their_own(owner: User, other_user: User) -> None:
    ingest_json(FIXTURE)
    lines = ingest_json(FIXTURE, owner="other")
    assert "duplicate" not in {line["outcome"] for line in lines}
    assert Transcript.objects.for_owner(other_user).count() == 2
    assert Transcript.objects.for_owner(owner).count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"\x00\x01\xfe\xff" * 64, "binary"),
        (
            b'{"header": "Gemini Apps", "title": "Prompted hi", "time": "2025-01-01T00:00:00Z"}',
            "expected a JSON list",
        ),
    ],
)
def test_bad_input_gives_a_clear_error_and_no_transcript(
    owner: User, tmp_path: Path, data: bytes, error: str
) -> None:
    path = tmp_path / "MyActivity.json"
    path.write_bytes(data)
    (line,) = ingest_json(path)
    assert line["outcome"] == "rejected_input" and error in line["error"]
    assert not Transcript.objects.exists()


@pytest.mark.django_db
def test_malformed_json_or_a_huge_record_stores_nothing_and_says_so(
    owner: User, tmp_path: Path, settings: Any
) -> None:
    path = tmp_path / "MyActivity.json"
    good = json.dumps(record("Prompted hi", "2025-01-01T00:00:00Z"))
    path.write_text(f'[{good}, {{"header": "Gemini Apps", "title": ')
    (line,) = ingest_json(path)
    assert line["outcome"] == "rejected_input" and "malformed JSON" in line["error"]
    assert not Transcript.objects.exists()
    settings.UME_MAX_TRANSCRIPT_BYTES = 1000
    path.write_text(
        json.dumps([record("Prompted huge", "2025-01-01T00:00:00Z", html="<p>x</p>" * 400)])
    )
    (line,) = ingest_json(path)
    assert line["outcome"] == "rejected_input" and "over 1,000 bytes" in line["error"]
    assert not Transcript.objects.exists()


def test_a_large_takeout_is_read_one_record_at_a_time(tmp_path: Path) -> None:
    import tracemalloc

    path = tmp_path / "MyActivity.json"
    answer = "<p>" + "Keep the effort easy and the cadence high. " * 40 + "</p>"
    with path.open("w") as fh:
        fh.write("[")
        for i in range(4000):  # one prompt an hour: 4,000 conversations
            moment = f"2024-{1 + i // 700:02d}-{1 + (i // 24) % 28:02d}T{i % 24:02d}:00:00Z"
            fh.write(
                ("," if i else "") + json.dumps(record(f"Prompted question {i}", moment, answer))
            )
        fh.write("]")
    size = path.stat().st_size
    assert size > 7_000_000
    tracemalloc.start()
    with path.open("rb") as stream:
        count = sum(
            1
            for _, item in iter_export(stream, fmt=GEMINI, name=path.name, max_element_bytes=BIG)
            if isinstance(item, Conversation) and item.messages
        )
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"Gemini takeout {size:,} bytes, peak traced memory while reading it {peak:,} bytes")
    assert count == 4000
    assert peak < size / 10, (peak, size)
