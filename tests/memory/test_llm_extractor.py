"""The llm extractor against a real local chat-completions server over real HTTP."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from pytest_django import Settings

from memory.extractors import ExtractorFailed, get_extractor
from memory.extractors.llm import extract, find_json
from memory.proposals import CandidateProposal, EventProposal, NodeProposal
from memory.transcripts import Message
from tests.llm_stub import StubLLMServer, closed_base_url

T0 = datetime(2026, 5, 10, 9, 0, tzinfo=UTC)
MESSAGES = [
    Message("M0", "user", "Hi there!", T0),
    Message("M1", "assistant", "Hello! You told me you love climbing.", T0),
    Message("M2", "user", "I moved to Berlin in March 2021. I might try tennis.", T0),
]
BERLIN = {
    "object": "node",
    "label": "Berlin",
    "category": "place",
    "confidence": 0.9,
    "evidence": [{"message_id": "M2", "quote": "I moved to Berlin in March 2021"}],
}
MOVED = {
    "object": "event",
    "on": "Berlin",
    "action": "moved",
    "text": "moved to Berlin",
    "importance": "important",
    "happened_at": "2021-03",
    "happened_at_source": "stated",
    "confidence": 0.9,
    "evidence": [{"message_id": "M2", "quote": "I moved to Berlin in March 2021."}],
}
TENNIS = {
    "object": "candidate",
    "label": "Tennis",
    "category": "interest",
    "reason": "hedged",
    "confidence": 0.5,
    "evidence": [{"message_id": "M2", "quote": "I might try tennis"}],
}


def run(server: StubLLMServer, messages: list[Message] = MESSAGES, **kwargs: Any) -> Any:
    options: dict[str, Any] = {
        "base_url": server.base_url,
        "model": "stub-model",
        "api_key": "",
        "timeout": 5,
    }
    options.update(kwargs)
    return extract(messages, **options)


def test_good_reply_gives_grounded_proposals(llm_server: StubLLMServer) -> None:
    llm_server.reply_objects([BERLIN, MOVED, TENNIS])

    proposals = run(llm_server, source_time=T0, api_key="sk-test-key", instructions="No work.")

    node, event, candidate = proposals
    assert isinstance(node, NodeProposal) and node.label == "Berlin" and node.category == "place"
    assert isinstance(event, EventProposal) and event.action == "moved"
    assert event.happened_at == datetime(2021, 3, 1, tzinfo=UTC)
    assert (event.happened_at_precision, event.happened_at_source) == ("month", "stated")
    assert isinstance(candidate, CandidateProposal) and candidate.label == "Tennis"
    assert node.evidence[0].message_id == "M2"
    assert node.evidence[0].ts == T0  # filled in from the cited message

    request = llm_server.last_request
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test-key"
    assert request.body["model"] == "stub-model"
    assert request.body["temperature"] == 0
    system = request.body["messages"][0]
    assert system["role"] == "system"
    assert '{"objects": [...]}' in system["content"]
    assert "passed_away" in system["content"] and "evidence" in system["content"]
    payload = request.user_payload
    assert payload["source_time"] == T0.isoformat()
    assert payload["instructions"] == "No work."
    assert [(m["id"], m["role"], m["content"]) for m in payload["messages"]] == [
        (m.id, m.role, m.content) for m in MESSAGES
    ]
    assert payload["messages"][0]["ts"] == T0.isoformat()


def test_no_key_sends_no_authorization_header(llm_server: StubLLMServer) -> None:
    llm_server.reply_objects([BERLIN])
    run(llm_server, api_key="")
    assert "authorization" not in llm_server.last_request.headers


def test_defaults_come_from_settings(llm_server: StubLLMServer, settings: Settings) -> None:
    settings.UME_LLM_BASE_URL = llm_server.base_url + "/"
    settings.UME_LLM_MODEL = "from-settings"
    settings.UME_LLM_API_KEY = "sk-settings"
    settings.UME_LLM_TIMEOUT = 5.0
    llm_server.reply_objects([BERLIN])

    found = get_extractor("llm")(MESSAGES, source_time=None)
    assert [getattr(p, "label", None) for p in found] == ["Berlin"]
    request = llm_server.last_request
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "from-settings"
    assert request.headers["authorization"] == "Bearer sk-settings"


def test_valid_empty_reply_is_an_empty_result(llm_server: StubLLMServer) -> None:
    llm_server.reply_objects([])
    assert run(llm_server) == []


def test_no_user_turns_means_no_request(llm_server: StubLLMServer) -> None:
    assert run(llm_server, [Message("M0", "assistant", "Hello!")]) == []
    assert llm_server.requests == []


@pytest.mark.parametrize(
    "content",
    [
        "<think>The user moved. Maybe {objects}?</think>\n" + json.dumps({"objects": [BERLIN]}),
        "```json\n" + json.dumps({"objects": [BERLIN]}, indent=2) + "\n```",
        "<think>hmm</think>\nHere you go:\n```\n" + json.dumps({"objects": [BERLIN]}) + "\n```",
        "Sure! " + json.dumps([BERLIN]) + " Hope that helps.",
        json.dumps({"objects": [BERLIN]})[:-2] + ",]}",  # a trailing comma
    ],
    ids=["think", "fence", "think-and-fence", "bare-array-in-prose", "trailing-comma"],
)
def test_reasoning_fences_and_prose_are_tolerated(llm_server: StubLLMServer, content: Any) -> None:
    llm_server.reply_content(content)
    assert [p.label for p in run(llm_server)] == ["Berlin"]


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (lambda s: s.reply_content('{"objects": [{"object": "node", "label": '), "no JSON object"),
        (lambda s: s.reply_content("I found nothing worth saving."), "no JSON object"),
        (
            lambda s: s.reply_content('{"objects": [', finish_reason="length"),
            "cut off: finish_reason length",
        ),
        (lambda s: s.reply_content("<think>still thinking {"), "unfinished reasoning"),
        (lambda s: s.reply_status(500, "upstream exploded"), "HTTP 500: upstream exploded"),
        (lambda s: s.reply_status(404, '{"error": "model not found"}'), "HTTP 404"),
        (lambda s: s.reply_status(200, "<html>hello</html>"), "not JSON: <html>hello</html>"),
        (lambda s: s.reply_body({"object": "list"}), "no choices"),
        (lambda s: s.reply_body({"error": {"message": "overloaded"}}), "overloaded"),
        (lambda s: s.reply_body({"choices": [{"index": 0}]}), "no message"),
        (lambda s: s.reply_refusal(), "the model refused: I can't help with that."),
        (lambda s: s.reply_refusal("content_filter"), "content filter"),
        (lambda s: s.reply_content(""), "empty answer"),
        (
            lambda s: s.reply_objects([{"object": "node", "category": "place"}]),
            "breaks the proposal schema: invalid proposal at 0.node.label",
        ),
        (
            lambda s: s.reply_objects([{"object": "memory", "label": "x"}]),
            "breaks the proposal schema",
        ),
        (lambda s: s.reply_content('{"memories": []}'), "breaks the proposal schema"),
        (
            lambda s: s.reply_objects([{**MOVED, "happened_at": "last March"}]),
            "happened_at 'last March' is not an ISO date",
        ),
    ],
    ids=[
        "truncated-json",
        "prose",
        "cut-off",
        "unclosed-think",
        "http-500",
        "http-404",
        "html-body",
        "no-choices",
        "error-body",
        "no-message",
        "refusal",
        "content-filter",
        "empty-content",
        "missing-label",
        "unknown-kind",
        "wrong-top-level",
        "bad-date",
    ],
)
def test_bad_replies_fail_with_a_specific_message(
    llm_server: StubLLMServer,
    script: Any,
    message: Any,
) -> None:
    script(llm_server)
    with pytest.raises(ExtractorFailed) as info:
        run(llm_server)
    assert message in str(info.value)


def test_timeout(llm_server: StubLLMServer) -> None:
    llm_server.reply_delay(30, [BERLIN])
    with pytest.raises(ExtractorFailed, match=r"timed out after 0.3 s"):
        run(llm_server, timeout=0.3)
    assert len(llm_server.requests) == 1


def test_connection_refused() -> None:
    url = closed_base_url()
    with pytest.raises(ExtractorFailed, match="could not connect to the LLM endpoint http://127"):
        extract(MESSAGES, base_url=url, model="m", api_key="", timeout=2)


def test_invalid_base_url() -> None:
    with pytest.raises(ExtractorFailed, match="ftp"):
        extract(MESSAGES, base_url="ftp://example.invalid/v1", model="m", api_key="", timeout=1)


@pytest.mark.parametrize(
    ("base_url", "model", "missing"),
    [
        ("", "m", "set UME_LLM_BASE_URL$"),
        ("http://127.0.0.1:9/v1", " ", "set UME_LLM_MODEL$"),
        ("", "", "set UME_LLM_BASE_URL and UME_LLM_MODEL$"),
    ],
)
def test_unconfigured(base_url: Any, model: Any, missing: Any) -> None:
    with pytest.raises(ExtractorFailed, match="not configured: " + missing):
        extract(MESSAGES, base_url=base_url, model=model, api_key="", timeout=1)


def test_unconfigured_from_settings(settings: Settings) -> None:
    settings.UME_LLM_BASE_URL = ""
    settings.UME_LLM_MODEL = ""
    with pytest.raises(ExtractorFailed, match="not configured"):
        extract(MESSAGES)


def test_api_key_never_appears_in_a_failure(llm_server: StubLLMServer) -> None:
    key = "sk-very-secret-123"
    llm_server.reply_status(401, f"invalid key {key}")
    with pytest.raises(ExtractorFailed) as info:
        run(llm_server, api_key=key)
    assert "HTTP 401" in str(info.value)
    assert key not in str(info.value)
    assert llm_server.last_request.headers["authorization"] == f"Bearer {key}"


def test_credentials_in_the_url_never_appear_in_a_failure(llm_server: StubLLMServer) -> None:
    llm_server.reply_status(500, "down")
    url = llm_server.base_url.replace("http://", "http://user:hunter2@")
    with pytest.raises(ExtractorFailed) as info:
        run(llm_server, base_url=url)
    assert "hunter2" not in str(info.value)
    assert "HTTP 500" in str(info.value)


def test_oversized_reply_fails(llm_server: StubLLMServer) -> None:
    llm_server.reply_content("x" * (2 * 1024 * 1024 + 10))
    with pytest.raises(ExtractorFailed, match="larger than 2,097,152 bytes"):
        run(llm_server)


# -- grounding ------------------------------------------------------------------------------


def _with_evidence(obj: dict, *spans: dict) -> dict:
    return {**obj, "evidence": list(spans)}


def test_ungrounded_objects_are_dropped(llm_server: StubLLMServer) -> None:
    invented = _with_evidence(
        {**BERLIN, "label": "Munich"}, {"message_id": "M2", "quote": "I moved to Munich"}
    )
    unknown_message = _with_evidence(
        {**BERLIN, "label": "Paris"}, {"message_id": "M9", "quote": "I moved to Berlin"}
    )
    no_evidence = {**BERLIN, "label": "Rome", "evidence": []}
    half = _with_evidence(
        {**BERLIN, "label": "Lisbon"},
        {"message_id": "M2", "quote": "I moved to Berlin"},
        {"message_id": "M2", "quote": "Lisbon is lovely"},
    )
    llm_server.reply_objects([invented, BERLIN, unknown_message, no_evidence, half, TENNIS])

    assert [p.label for p in run(llm_server)] == ["Berlin", "Tennis"]


def test_quotes_match_despite_case_spacing_and_curly_quotes(llm_server: StubLLMServer) -> None:
    messages = [Message("a1", "user", "I’m learning   Rust these days")]
    node = _with_evidence(
        {**BERLIN, "label": "Rust", "category": "skill"},
        {"message_id": "a1", "quote": "\u201ci'm learning rust\u201d"},
    )
    llm_server.reply_objects([node])
    assert [p.label for p in run(llm_server, messages)] == ["Rust"]


def test_a_quote_of_only_punctuation_is_not_evidence(llm_server: StubLLMServer) -> None:
    llm_server.reply_objects([_with_evidence(BERLIN, {"message_id": "M2", "quote": "."})])
    with pytest.raises(ExtractorFailed, match="none of the 1 proposed objects"):
        run(llm_server)


def test_assistant_turns_are_context_but_never_a_source(llm_server: StubLLMServer) -> None:
    climbing = _with_evidence(
        {**BERLIN, "label": "Climbing", "category": "interest"},
        {"message_id": "M1", "quote": "you love climbing"},
    )
    llm_server.reply_objects([climbing, BERLIN])

    assert [p.label for p in run(llm_server)] == ["Berlin"]
    roles = [m["role"] for m in llm_server.last_request.user_payload["messages"]]
    assert roles == ["user", "assistant", "user"]


def test_a_reply_citing_only_assistant_turns_fails(llm_server: StubLLMServer) -> None:
    climbing = _with_evidence(
        {**BERLIN, "label": "Climbing", "category": "interest"},
        {"message_id": "M1", "quote": "you love climbing"},
    )
    llm_server.reply_objects([climbing])
    with pytest.raises(ExtractorFailed, match="none of the 1 proposed objects quotes a user"):
        run(llm_server)


def test_system_turns_are_not_sent(llm_server: StubLLMServer) -> None:
    messages = [Message("S0", "system", "You are a helpful assistant."), *MESSAGES]
    llm_server.reply_objects([])
    run(llm_server, messages)
    ids = [m["id"] for m in llm_server.last_request.user_payload["messages"]]
    assert ids == ["M0", "M1", "M2"]


# -- finding JSON in model text ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"objects": []}', {"objects": []}),
        ('noise {"a": "}{"} tail', {"a": "}{"}),
        ('{not json} then {"b": 1}', {"b": 1}),
        ("[1, 2,] and more", [1, 2]),
        ('{"s": "a, ]", "t": [1,],}', {"s": "a, ]", "t": [1]}),
        ('{"q": "say \\"hi\\", }"}', {"q": 'say "hi", }'}),
        ("no json here", None),
        ('{"open": [', None),
    ],
)
def test_find_json(text: Any, expected: Any) -> None:
    assert find_json(text) == expected
