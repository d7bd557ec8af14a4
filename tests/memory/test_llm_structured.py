"""The LLM extractor's request: our vocabularies, worked examples and proposals schema as
structured output, with a fallback for endpoints that do not support it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memory.extractors import ExtractorFailed
from memory.extractors.llm import (
    RESPONSE_FORMAT,
    SYSTEM_PROMPT,
    extract,
    find_json,
    proposals_schema,
)
from memory.proposals import parse_proposals
from memory.transcripts import Message
from memory.vocab import Category, EventAction
from tests.llm_stub import StubLLMServer

MESSAGES = [Message("M0", "user", "I quit smoking in January.", None)]
SMOKING = {
    "object": "node",
    "label": "Smoking",
    "category": "habit",
    "state": "stopped",
    "confidence": 0.9,
    "evidence": [{"message_id": "M0", "quote": "I quit smoking in January"}],
}


def run(server: StubLLMServer) -> Any:
    return extract(MESSAGES, base_url=server.base_url, model="m", api_key="", timeout=5)


def test_the_request_asks_for_our_schema_as_structured_output(llm_server: StubLLMServer) -> None:
    llm_server.reply_objects([SMOKING])
    assert [p.label for p in run(llm_server)] == ["Smoking"]
    body = llm_server.last_request.body
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema == proposals_schema()
    node = schema["properties"]["objects"]["items"]["anyOf"][0]
    assert node["properties"]["category"]["enum"] == list(Category.values)


def test_an_endpoint_without_structured_output_is_asked_again_without_it(
    llm_server: StubLLMServer,
) -> None:
    llm_server.reply_status(400, '{"error": "unknown parameter: response_format"}')
    llm_server.reply_objects([SMOKING])
    assert [p.label for p in run(llm_server)] == ["Smoking"]
    first, second = llm_server.requests
    assert "response_format" in first.body and "response_format" not in second.body


def test_another_400_is_a_clear_failure_and_is_not_retried(llm_server: StubLLMServer) -> None:
    llm_server.reply_status(400, '{"error": "model not found"}')
    with pytest.raises(ExtractorFailed, match="HTTP 400"):
        run(llm_server)
    assert len(llm_server.requests) == 1


@pytest.mark.parametrize(
    "content",
    ['{"objects": [{"object": "node", "label": 42}]}', "Sure! Here you go.", '{"objects": "x"}'],
)
def test_a_malformed_answer_fails_clearly(llm_server: StubLLMServer, content: Any) -> None:
    llm_server.reply_content(content)
    with pytest.raises(ExtractorFailed):
        run(llm_server)


def test_the_prompt_carries_our_vocabularies_and_worked_examples() -> None:
    for action in EventAction.values:
        assert action in SYSTEM_PROMPT
    assert "WORKED EXAMPLES" in SYSTEM_PROMPT
    assert "R&D Tracker" in SYSTEM_PROMPT and "bad_label" not in SYSTEM_PROMPT


def test_every_worked_example_is_valid_under_our_own_parser() -> None:
    examples = SYSTEM_PROMPT.split("WORKED EXAMPLES", 1)[1]
    answers = [find_json(chunk) for chunk in examples.split("->")[1:]]
    assert len(answers) == 4
    assert [len(parse_proposals(answer)) for answer in answers] == [5, 3, 2, 0]


def test_the_response_format_is_plain_json() -> None:
    assert json.loads(json.dumps(RESPONSE_FORMAT)) == RESPONSE_FORMAT


def test_markup_is_sent_as_text_and_quotes_of_the_text_are_grounded(
    llm_server: StubLLMServer,
) -> None:
    messages = [Message("M0", "user", "I use a tool called <b>R&amp;D Tracker</b> at work.", None)]
    llm_server.reply_objects(
        [
            {
                "object": "node",
                "label": "R&D Tracker",
                "category": "tool",
                "confidence": 0.9,
                "evidence": [{"message_id": "M0", "quote": "a tool called R&D Tracker"}],
            }
        ]
    )
    found = extract(messages, base_url=llm_server.base_url, model="m", api_key="", timeout=5)
    assert [getattr(p, "label", None) for p in found] == ["R&D Tracker"]
    sent = llm_server.last_request.user_payload["messages"][0]["content"]
    assert sent == "I use a tool called R&D Tracker at work."
