"""The ``llm`` extractor: an OpenAI-compatible chat-completions endpoint proposes objects.

Contract (see :mod:`memory.extractors`): ``extract(messages, *, source_time) -> proposals``.
The endpoint is any server speaking ``POST {base_url}/chat/completions`` (OpenAI, Ollama,
vLLM, llama.cpp server), configured by ``UME_LLM_BASE_URL``, ``UME_LLM_MODEL``,
``UME_LLM_API_KEY`` and ``UME_LLM_TIMEOUT``.

The prompt carries ume's closed vocabularies and worked examples, and the request asks for
ume's proposals JSON schema as structured output (``response_format`` ``json_schema``, which
OpenAI, Ollama, vLLM and llama.cpp's server understand). An endpoint that refuses the
parameter (HTTP 400 naming it) is asked once more without it; the prompt alone then describes
the format.

The reply is untrusted. It must validate against the proposal schema, and every object must be
grounded: each evidence span cites a user message by id and quotes words that are in it. An
ungrounded object (no evidence, an unknown message, an assistant message, a quote that is not
there) is dropped; a reply that proposed objects of which none is grounded fails. Every other
problem (not configured, unreachable, timed out, an HTTP error, a refusal, no JSON, a schema
violation) raises :class:`ExtractorFailed` with a message fit for a receipt. The API key never
appears in a message or a log line.
"""

from __future__ import annotations

import json
import logging
import re
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from django.conf import settings

from memory.extractors import ExtractorFailed
from memory.markup import markup_to_text
from memory.proposals import AnyProposal, EvidenceSpan, ProposalError, parse_proposals
from memory.transcripts import Message
from memory.vocab import Category, EdgeType, EventAction, Importance, NodeState, SliceKind

logger = logging.getLogger(__name__)

MAX_REPLY_BYTES = 2 * 1024 * 1024
_EXCERPT = 200
# How many opening brackets to try before giving up on finding JSON in the reply.
_MAX_JSON_STARTS = 20


def _choices(values: Sequence[str]) -> str:
    return ", ".join(values)


SYSTEM_PROMPT = f"""\
You extract durable personal memories about one person (the user) from a conversation between \
the user and an AI assistant. You propose; a review step decides what is stored.

INPUT: a JSON object with
- "messages": [{{"id", "role", "ts", "content"}}], role is "user" or "assistant";
  "ts" is the message's time (ISO 8601) or null;
- "source_time": when the conversation happened (ISO 8601) or null;
- "instructions": the person's own memory rules (what to keep or leave out), possibly empty.
  Follow them for what to propose; they never change this output format.

SOURCES
- Only the user's own messages are sources. Assistant messages are context only: never \
propose anything that only the assistant said, and never cite an assistant message.
- Never save greetings, thanks, questions to the assistant, requests or control messages \
("save this", "remember this conversation", "retry", "send me the prompt"), small talk, \
or general world facts that are not about the person's own life.
- Subjects are the person's own: "my sister Meera lives in Bangalore" is about Meera (a \
family node labelled "Meera"), not about the user. "Remember that ..." is a request wrapper: \
extract what follows it, never the wrapper.
- A hedged or tentative statement ("I might try tennis", "maybe I'll learn Go") becomes a \
candidate, not a node or event.
- Status changes (started, stopped, paused, finished ...) are events; details are slices. An \
event or slice names its subject in "on"; also propose a node for that subject. Propose an \
edge only when the user states the relation, and propose both endpoints as nodes.

OUTPUT: reply with exactly one JSON object and nothing else: {{"objects": [...]}}. \
{{"objects": []}} is the right answer when nothing is worth remembering. Each object has \
"object" set to one of the kinds below, and "confidence" between 0 and 1.
- node: {{"object": "node", "label", "category", "state"?, "aliases"?: [...], "confidence", \
"evidence"}}
- slice: {{"object": "slice", "on": node label, "text", "kind", "confidence", "evidence"}}
- event: {{"object": "event", "on": node label, "action", "text", "importance", \
"happened_at"?, "happened_at_source"?, "confidence", "evidence"}}
- edge: {{"object": "edge", "from": node label, "to": node label, "type", "confidence", \
"evidence"}}
- candidate: {{"object": "candidate", "label", "category"?, "reason"?, "confidence", \
"evidence"}}

CLOSED VOCABULARIES (use these values exactly)
- category: {_choices(Category.values)}
- state: {_choices(NodeState.values)}
- slice kind: {_choices(SliceKind.values)}
- event action: {_choices(EventAction.values)}
- importance: {_choices(Importance.values)}
- edge type: {_choices(EdgeType.values)}

EVIDENCE (required on every object): "evidence": [{{"message_id": the id of a user message, \
"quote": the user's own words copied verbatim from that message}}]. Quote the shortest span \
that supports the object; do not paraphrase, translate or correct it.

DATES: "happened_at" is "YYYY", "YYYY-MM" or "YYYY-MM-DD", only when the text states the date \
("in March 2021": "2021-03", "happened_at_source": "stated") or implies it against the \
message's ts or the source_time ("last week", "yesterday": resolve it, \
"happened_at_source": "resolved_phrase"). Otherwise omit "happened_at"; never use today's date \
as a guess.

LABELS: a label is the name of one thing as the user wrote it, never a fragment of a sentence \
("Going", "Few Days", "Taste of" are not labels). Keep names whole with their punctuation and \
accents ("R&D Tracker", "C++", "AT&T", "O'Neill", "Tomás"). Read HTML or Markdown as text.

CATEGORIES THAT FIT: medications, conditions, allergies and intolerances are health; \
volunteering and routines are habit; pets are possession (family when the user says so); an \
employer is organization and a job title is identity. Things stopped, paused or finished get \
that state and a dated event when a time is said.

WORKED EXAMPLES (inputs shortened)
1. user M0 (ts 2026-05-12): "I'm a data engineer at Brightline Logistics, I joined in March \
2024. My manager is Sofia Almeida." ->
{{"objects": [
 {{"object": "node", "label": "Brightline Logistics", "category": "organization", \
"confidence": 0.9, "evidence": [{{"message_id": "M0", "quote": "I'm a data engineer at \
Brightline Logistics"}}]}},
 {{"object": "event", "on": "Brightline Logistics", "action": "joined", "text": "Joined \
Brightline Logistics", "importance": "important", "happened_at": "2024-03", \
"happened_at_source": "stated", "confidence": 0.9, "evidence": [{{"message_id": "M0", \
"quote": "I joined in March 2024"}}]}},
 {{"object": "node", "label": "Data Engineer", "category": "identity", "confidence": 0.9, \
"evidence": [{{"message_id": "M0", "quote": "I'm a data engineer"}}]}},
 {{"object": "node", "label": "Sofia Almeida", "category": "person", "confidence": 0.9, \
"evidence": [{{"message_id": "M0", "quote": "My manager is Sofia Almeida"}}]}},
 {{"object": "slice", "on": "Sofia Almeida", "text": "The user's manager", "kind": "other", \
"confidence": 0.9, "evidence": [{{"message_id": "M0", "quote": "My manager is Sofia Almeida"}}]}}
]}}
2. user M0 (ts 2026-05-12): "I stopped drinking coffee two weeks ago and I'm lactose \
intolerant." ->
{{"objects": [
 {{"object": "node", "label": "Coffee", "category": "habit", "state": "stopped", \
"confidence": 0.9, "evidence": [{{"message_id": "M0", "quote": "I stopped drinking coffee two \
weeks ago"}}]}},
 {{"object": "event", "on": "Coffee", "action": "stopped", "text": "Stopped drinking coffee", \
"importance": "ordinary", "happened_at": "2026-04-28", "happened_at_source": \
"resolved_phrase", "confidence": 0.9, "evidence": [{{"message_id": "M0", "quote": "I stopped \
drinking coffee two weeks ago"}}]}},
 {{"object": "node", "label": "Lactose Intolerance", "category": "health", "confidence": 0.9, \
"evidence": [{{"message_id": "M0", "quote": "I'm lactose intolerant"}}]}}
]}}
3. assistant M0: "What's your favourite pizza?"; user M1: "Pepperoni, of course!" ->
{{"objects": [{{"object": "node", "label": "Pizza", "category": "preference", "confidence": \
0.8, "evidence": [{{"message_id": "M1", "quote": "Pepperoni, of course!"}}]}}, {{"object": \
"slice", "on": "Pizza", "text": "Favourite pizza is pepperoni", "kind": "preference", \
"confidence": 0.8, "evidence": [{{"message_id": "M1", "quote": "Pepperoni, of course!"}}]}}]}}
4. user M0: "Can you summarise this thread?" -> {{"objects": []}}
"""


def _evidence_schema() -> dict[str, Any]:
    return {
        "type": "array",
        "minItems": 1,
        "items": {
            "type": "object",
            "properties": {"message_id": {"type": "string"}, "quote": {"type": "string"}},
            "required": ["message_id", "quote"],
        },
    }


def proposals_schema() -> dict[str, Any]:
    """ume's proposals format as a JSON Schema: ``{"objects": [node | slice | event | edge |
    candidate]}`` with the closed vocabularies as enums. Sent as structured output."""
    confidence = {"type": "number", "minimum": 0, "maximum": 1}
    evidence = _evidence_schema()
    category = {"type": "string", "enum": list(Category.values)}
    date = {"type": "string", "pattern": r"^\d{4}(-\d{2}(-\d{2})?)?$"}
    kinds: list[dict[str, Any]] = [
        {
            "properties": {
                "object": {"const": "node"},
                "label": {"type": "string"},
                "category": category,
                "state": {"type": "string", "enum": list(NodeState.values)},
                "aliases": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["object", "label", "category"],
        },
        {
            "properties": {
                "object": {"const": "slice"},
                "on": {"type": "string"},
                "text": {"type": "string"},
                "kind": {"type": "string", "enum": list(SliceKind.values)},
            },
            "required": ["object", "on", "text", "kind"],
        },
        {
            "properties": {
                "object": {"const": "event"},
                "on": {"type": "string"},
                "action": {"type": "string", "enum": list(EventAction.values)},
                "text": {"type": "string"},
                "importance": {"type": "string", "enum": list(Importance.values)},
                "happened_at": date,
                "happened_at_source": {"type": "string", "enum": ["stated", "resolved_phrase"]},
            },
            "required": ["object", "on", "action", "text"],
        },
        {
            "properties": {
                "object": {"const": "edge"},
                "from": {"type": "string"},
                "to": {"type": "string"},
                "type": {"type": "string", "enum": list(EdgeType.values)},
            },
            "required": ["object", "from", "to", "type"],
        },
        {
            "properties": {
                "object": {"const": "candidate"},
                "label": {"type": "string"},
                "category": category,
                "reason": {"type": "string"},
            },
            "required": ["object", "label"],
        },
    ]
    for kind in kinds:
        kind["type"] = "object"
        kind["properties"]["confidence"] = confidence
        kind["properties"]["evidence"] = evidence
        kind["required"] = [*kind["required"], "confidence", "evidence"]
    return {
        "type": "object",
        "properties": {"objects": {"type": "array", "items": {"anyOf": kinds}}},
        "required": ["objects"],
    }


RESPONSE_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "ume_proposals", "schema": proposals_schema()},
}
# An endpoint that does not know structured output says so in a 400 naming the parameter.
_NO_STRUCTURED = re.compile(r"response_format|json_schema|structured|schema", re.IGNORECASE)


class _Unsupported(Exception):
    """The endpoint refused the structured-output parameter; ask again without it."""


def extract(
    messages: Sequence[Message],
    *,
    source_time: datetime | None = None,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    timeout: float | None = None,
    instructions: str = "",
) -> list[AnyProposal]:
    """Ask the configured endpoint for proposals about ``messages`` and return the grounded ones.

    Arguments left as ``None`` come from settings. Raises :class:`ExtractorFailed` when no valid
    proposal can be had; a valid empty reply is an empty list.
    """
    base_url = (settings.UME_LLM_BASE_URL if base_url is None else base_url).strip()
    model = (settings.UME_LLM_MODEL if model is None else model).strip()
    api_key = (settings.UME_LLM_API_KEY if api_key is None else api_key).strip()
    timeout = float(settings.UME_LLM_TIMEOUT if timeout is None else timeout)
    missing = [
        name
        for name, value in (("UME_LLM_BASE_URL", base_url), ("UME_LLM_MODEL", model))
        if not value
    ]
    if missing:
        raise ExtractorFailed(f"the llm extractor is not configured: set {' and '.join(missing)}")

    # HTML and Markdown are read as text: the model sees readable words, and its quotes are
    # grounded against the same words.
    context = [
        replace(m, content=markup_to_text(m.content))
        for m in messages
        if m.role in ("user", "assistant") and m.content.strip()
    ]
    if not any(m.role == "user" for m in context):
        return []  # nothing the person said, so nothing to ask about

    payload = {
        "model": model,
        "temperature": 0,
        "stream": False,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": _user_content(context, source_time, instructions)},
        ],
    }
    url = _endpoint(base_url)
    try:
        body = _post(
            url, {**payload, "response_format": RESPONSE_FORMAT}, api_key=api_key, timeout=timeout
        )
    except _Unsupported:
        body = _post(url, payload, api_key=api_key, timeout=timeout)
    content = _reply_content(body)
    proposals = _parse_content(content, truncated=_finish_reason(body) == "length")
    return _grounded(proposals, context)


def _endpoint(base_url: str) -> str:
    url = base_url.rstrip("/")
    return url if url.endswith("/chat/completions") else f"{url}/chat/completions"


def _safe_url(url: str) -> str:
    """The URL without any user:password part, for messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _user_content(
    messages: Sequence[Message], source_time: datetime | None, instructions: str
) -> str:
    data = {
        "source_time": source_time.isoformat() if source_time else None,
        "instructions": instructions.strip(),
        "messages": [
            {
                "id": m.id,
                "role": m.role,
                "ts": m.ts.isoformat() if m.ts else None,
                "content": m.content,
            }
            for m in messages
        ],
    }
    return json.dumps(data, ensure_ascii=False)


def _post(url: str, payload: dict[str, Any], *, api_key: str, timeout: float) -> Any:
    """POST the request and return the decoded JSON body, reading at most MAX_REPLY_BYTES."""
    where = _safe_url(url)
    headers = {"Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    deadline = time.monotonic() + timeout
    try:
        with (
            httpx.Client(timeout=timeout) as client,
            client.stream("POST", url, json=payload, headers=headers) as response,
        ):
            raw = bytearray()
            for chunk in response.iter_bytes():
                raw.extend(chunk)
                if len(raw) > MAX_REPLY_BYTES:
                    raise ExtractorFailed(
                        f"the LLM reply from {where} is larger than {MAX_REPLY_BYTES:,} bytes"
                    )
                if time.monotonic() > deadline:
                    raise ExtractorFailed(
                        f"the LLM endpoint {where} timed out after {timeout:g} s (reply unfinished)"
                    )
            status = response.status_code
    except httpx.TimeoutException as exc:
        raise ExtractorFailed(f"the LLM endpoint {where} timed out after {timeout:g} s") from exc
    except httpx.ConnectError as exc:
        raise ExtractorFailed(f"could not connect to the LLM endpoint {where}: {exc}") from exc
    except httpx.InvalidURL as exc:
        raise ExtractorFailed(f"UME_LLM_BASE_URL is not a valid URL: {exc}") from exc
    except httpx.HTTPError as exc:
        name = type(exc).__name__
        raise ExtractorFailed(f"the LLM request to {where} failed ({name}): {exc}") from exc

    text = bytes(raw).decode("utf-8", errors="replace")
    if api_key:  # a server may echo the credentials back in an error body
        text = text.replace(api_key, "[redacted]")
    if status == 400 and "response_format" in payload and _NO_STRUCTURED.search(text):
        raise _Unsupported(text)
    if status >= 400:
        raise ExtractorFailed(f"the LLM endpoint {where} answered HTTP {status}: {_excerpt(text)}")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ExtractorFailed(
            f"the LLM endpoint {where} answered HTTP {status} with a body that is not JSON: "
            f"{_excerpt(text)}"
        ) from exc


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    if not flat:
        return "(empty body)"
    return flat if len(flat) <= _EXCERPT else flat[:_EXCERPT] + "..."


def _first_choice(body: Any) -> dict[str, Any]:
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        if isinstance(body, dict) and body.get("error"):
            raise ExtractorFailed(
                f"the LLM endpoint returned an error: {_excerpt(str(body['error']))}"
            )
        raise ExtractorFailed("the LLM reply has no choices (not a chat-completions response)")
    return choices[0]


def _finish_reason(body: Any) -> str:
    return str(_first_choice(body).get("finish_reason") or "")


def _reply_content(body: Any) -> str:
    choice = _first_choice(body)
    message = choice.get("message")
    if not isinstance(message, dict):
        raise ExtractorFailed("the LLM reply has no message in choices[0]")
    if message.get("refusal"):
        raise ExtractorFailed(f"the model refused: {_excerpt(str(message['refusal']))}")
    if choice.get("finish_reason") == "content_filter":
        raise ExtractorFailed("the model refused: the reply was stopped by a content filter")
    content = message.get("content")
    if isinstance(content, list):  # content parts
        content = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    if content is None or not isinstance(content, str):
        raise ExtractorFailed("the model gave no answer (choices[0].message.content is empty)")
    if not content.strip():
        raise ExtractorFailed("the model gave an empty answer")
    return content


_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^\s*```[\w-]*\s*$", re.MULTILINE)


def _parse_content(content: str, *, truncated: bool = False) -> list[AnyProposal]:
    """Model text -> validated proposals (not yet checked for grounding)."""
    text = _THINK.sub("", content)
    if re.search(r"<think(?:ing)?>", text, re.IGNORECASE):
        raise ExtractorFailed(
            "the model's reply is only unfinished reasoning (<think> never closed)"
        )
    text = _FENCE.sub("", text).strip()
    data = find_json(text)
    if data is None:
        why = " (the reply was cut off: finish_reason length)" if truncated else ""
        raise ExtractorFailed(f"no JSON object found in the model's reply{why}: {_excerpt(text)}")
    try:
        return parse_proposals(data)
    except ProposalError as exc:
        raise ExtractorFailed(f"the model's reply breaks the proposal schema: {exc}") from exc


def find_json(text: str) -> dict[str, Any] | list[Any] | None:
    """The first balanced JSON object or array in ``text`` that decodes, else ``None``.

    Trailing commas before a closing bracket are tolerated (small models write them).
    """
    start = 0
    for _ in range(_MAX_JSON_STARTS):
        positions = [p for p in (text.find("{", start), text.find("[", start)) if p >= 0]
        if not positions:
            return None
        begin = min(positions)
        span = _balanced(text, begin)
        if span is not None:
            for candidate in (span, _drop_trailing_commas(span)):
                try:
                    data = json.loads(candidate)
                except (json.JSONDecodeError, RecursionError):
                    continue
                if isinstance(data, (dict, list)):
                    return data
        start = begin + 1
    return None


def _balanced(text: str, begin: int) -> str | None:
    """The bracketed span opening at ``begin``, skipping brackets inside strings."""
    depth = 0
    in_string = escaped = False
    for index in range(begin, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return text[begin : index + 1]
    return None


def _drop_trailing_commas(span: str) -> str:
    out: list[str] = []
    in_string = escaped = False
    for index, char in enumerate(span):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == ",":
            rest = span[index + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                continue
        out.append(char)
    return "".join(out)


_STRAIGHT_QUOTES = str.maketrans("\u2018\u2019\u201c\u201d", "''\"\"")


def _normal(text: str) -> str:
    """Case, Unicode form, curly quotes and runs of spaces never make a quote "not verbatim"."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_STRAIGHT_QUOTES)
    return " ".join(text.split())


def _ground_span(span: EvidenceSpan, by_id: dict[str, Message]) -> EvidenceSpan | None:
    """The span with its message's time filled in, or ``None`` when it is not the user's words."""
    message = by_id.get(span.message_id)
    quote = _normal(span.quote).strip(" \"'.,;:!?…")
    if message is None or message.role != "user" or not re.search(r"\w", quote):
        return None
    if quote not in _normal(message.content):
        return None
    return span if span.ts or message.ts is None else span.model_copy(update={"ts": message.ts})


def _grounded(proposals: list[AnyProposal], messages: Sequence[Message]) -> list[AnyProposal]:
    by_id = {m.id: m for m in messages}
    kept: list[AnyProposal] = []
    for proposal in proposals:
        spans = [_ground_span(span, by_id) for span in proposal.evidence]
        if spans and all(span is not None for span in spans):
            kept.append(proposal.model_copy(update={"evidence": tuple(spans)}))
    dropped = len(proposals) - len(kept)
    if dropped:
        logger.info("llm extractor dropped %d of %d ungrounded objects", dropped, len(proposals))
    if proposals and not kept:
        raise ExtractorFailed(
            f"none of the {len(proposals)} proposed objects quotes a user message: each needs "
            "evidence with a user message id and a verbatim quote from it"
        )
    return kept
