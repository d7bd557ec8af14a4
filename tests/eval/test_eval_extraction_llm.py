"""The extraction eval run against the llm extractor through a local HTTP server that replays
answers (eval/fixtures/extraction_chats_llm_replay.json): an honest test of our side of the
protocol, from the request to the scores, with the faults a model makes."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from pytest_django import Settings

from eval.extraction import score_extraction
from memory.extractors import get_extractor
from memory.markup import markup_to_text
from memory.transcripts import messages_from_json
from tests.llm_stub import StubLLMServer, conversation_key

FIXTURES = Path(__file__).resolve().parents[2] / "eval" / "fixtures"
CHATS = FIXTURES / "extraction_chats.json"
REPLAY = FIXTURES / "extraction_chats_llm_replay.json"


def recorded_answers() -> dict[str, str]:
    fixtures = {f["id"]: f for f in json.loads(CHATS.read_text())["fixtures"]}
    answers = json.loads(REPLAY.read_text())["answers"]
    by_conversation = {}
    for fixture_id, content in answers.items():
        messages = messages_from_json(fixtures[fixture_id]["messages"])
        sent = [
            {"id": m.id, "role": m.role, "content": markup_to_text(m.content)}
            for m in messages
            if m.content.strip()
        ]
        by_conversation[conversation_key(sent)] = content
    return by_conversation


@pytest.fixture
def replaying(llm_server: StubLLMServer, settings: Settings) -> Any:
    llm_server.replay(recorded_answers())
    settings.UME_LLM_BASE_URL = llm_server.base_url
    settings.UME_LLM_MODEL = "replay"
    settings.UME_LLM_API_KEY = ""
    return llm_server


def test_every_chat_fixture_has_an_answer() -> None:
    fixtures = {f["id"] for f in json.loads(CHATS.read_text())["fixtures"]}
    assert set(json.loads(REPLAY.read_text())["answers"]) == fixtures


def test_the_chat_set_through_the_llm_extractor(replaying: Any) -> None:
    report = score_extraction(json.loads(CHATS.read_text()), get_extractor("llm"))
    assert len(replaying.requests) == report["fixtures"] == 68
    assert all("response_format" in r.body for r in replaying.requests)
    # The two faulty answers fail their fixtures as llm_failed would, and the run goes on.
    failed = {
        r["id"]: r["extractor_failed"] for r in report["per_fixture"] if r["extractor_failed"]
    }
    assert set(failed) == {"c56-assistant-only-facts", "c61-smalltalk-only"}
    assert "no JSON" in failed["c61-smalltalk-only"]
    # The friend's dislike filed under the user is caught as a forbidden claim.
    leaked = [r["id"] for r in report["per_fixture"] if r["forbidden_leak"]]
    assert leaked == ["c12-friend-preference"]
    # The object quoting words that are not in the message was dropped by grounding.
    rd = next(r for r in report["per_fixture"] if r["id"] == "c07-rd-tracker-html")
    assert rd["labels"] == ["R&D Tracker"]
    assert report["control_leaks"] == 0
    assert report["must_save_recall"] == 1.0
    assert report["category_accuracy"] == 1.0
    assert report["dated_event_rate"] >= 0.8


def test_the_command_scores_the_llm_extractor(replaying: Any) -> None:
    out = StringIO()
    call_command("eval_extraction", str(CHATS), "--extractor", "llm", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["extractor_failures"] == 2
    assert report["fixtures"] == 68


def test_an_unreachable_endpoint_fails_every_fixture_clearly(settings: Settings) -> None:
    from tests.llm_stub import closed_base_url

    settings.UME_LLM_BASE_URL = closed_base_url()
    settings.UME_LLM_MODEL = "m"
    settings.UME_LLM_TIMEOUT = 2
    fixture = json.loads(CHATS.read_text())["fixtures"][:2]
    report = score_extraction(fixture, get_extractor("llm"))
    assert report["extractor_failures"] == 2
    assert all("could not connect" in r["extractor_failed"] for r in report["per_fixture"])
