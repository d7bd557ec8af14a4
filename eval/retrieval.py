"""The retrieval eval: seed a throwaway tenant from a golden fixture, run recall, score it.

Fixture format (``eval/fixtures/README.md`` has the details):
``corpus.nodes`` (``id, label, category, state, aliases, summary, slices, events``),
``corpus.pages`` (``id, title, topic_filter|topic, short_summary|summary, body?, node_id``),
optional ``setup`` steps run through ume's own services after seeding, and ``queries``
(``id, query, intent, expect_nodes, forbid_nodes, expect_pages?, expect_state?,
expect_no_recall?``).

Metrics, over the ranked list recall returns (nodes and pages in one order, at most 10):

- ``answerable``: queries expecting any node or page; ``recall_at_k``: mean over them of the
  share of expected ids in the top k; ``mrr``: mean of 1/rank of the first expected id (0 if
  none is returned);
- ``wrong_identity_rate``: share of queries with forbidden ids where one is returned;
- ``no_recall_accuracy``: share of queries expecting nothing (``expect_no_recall`` or no
  expectations at all) that return nothing;
- ``state_accuracy``: share of queries with ``expect_state`` whose expected node is returned
  showing that state;
- ``pass``: every expected id in the top 5, nothing forbidden, nothing returned where nothing
  is expected, the expected state shown. ``pass_rate`` is the share of queries that pass.

A metric with no query to measure it on is vacuous: 1.0 for accuracies and recall, 0.0 for
``wrong_identity_rate``. Latencies (``p50_ms``, ``p95_ms``) are nearest-rank percentiles of
the recall calls.
"""

from __future__ import annotations

import json
import math
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from eval.fixture_files import FixtureError, read_fixture_file
from memory.keys import canonical_key
from memory.models import Alias, Candidate, Episode, Event, MemoryRule, Node, Page, Slice
from memory.owned import Person
from memory.proposals import parse_partial_date
from memory.recall import RecallResult, recall
from memory.services.erase import memory_erase_all, receipt_undo
from memory.services.ingest import ingest_proposals, ingest_text
from memory.services.nodes import node_delete
from memory.services.recall_index import recall_index_rebuild
from memory.services.review import candidate_reject
from memory.transcripts import TranscriptError, messages_from_json
from memory.vocab import (
    CandidateStatus,
    CaptureDefault,
    Category,
    EventAction,
    Importance,
    NodeOrigin,
    NodeState,
    SliceKind,
    TimeSource,
)

LIMIT = 10
METRICS = (
    "queries",
    "answerable",
    "recall_at_5",
    "recall_at_10",
    "mrr",
    "wrong_identity_rate",
    "no_recall_accuracy",
    "state_accuracy",
    "pass_rate",
    "p50_ms",
    "p95_ms",
)
# Lower is better for these: a bound on them is a ceiling, on every other metric a floor.
CEILING_METRICS = frozenset({"wrong_identity_rate", "p50_ms", "p95_ms"})
SETUP_STEPS = (
    "rules",
    "ingest",
    "conversation",
    "delete_node",
    "reject_candidate",
    "undo",
    "delete_all",
)


# --- reading a fixture ----------------------------------------------------------------------


def read_fixture(path: Path) -> dict[str, Any]:
    """Decode ``path``; every failure is a :class:`FixtureError` naming the file."""
    data: dict[str, Any] = read_fixture_file(path, validate_fixture)
    return data


def _need(cond: Any, message: str) -> None:
    if not cond:
        raise FixtureError(message)


def _str_list(value: Any, where: str) -> list[str]:
    _need(
        isinstance(value, list) and all(isinstance(v, str) for v in value),
        f"{where} must be a list of strings",
    )
    return list(value)


def validate_fixture(data: Any) -> None:
    """Check the shape before anything is written. Raises :class:`FixtureError`."""
    _need(isinstance(data, dict), "the fixture must be a JSON object")
    corpus = data.get("corpus")
    _need(isinstance(corpus, dict), "missing 'corpus' object")
    nodes = corpus.get("nodes", [])
    pages = corpus.get("pages", [])
    _need(isinstance(nodes, list), "corpus.nodes must be a list")
    _need(isinstance(pages, list), "corpus.pages must be a list")
    ids: set[str] = set()
    _validate_nodes(nodes, ids)
    _validate_pages(pages, ids)
    _validate_setup(data.get("setup", []), ids)
    _validate_queries(data.get("queries"))


def _validate_nodes(nodes: list[Any], ids: set[str]) -> None:
    """Each node: a unique id, a label, a known category and state, its slices and events."""
    for i, node in enumerate(nodes):
        where = f"corpus.nodes[{i}]"
        _need(isinstance(node, dict), f"{where} must be an object")
        _need(isinstance(node.get("id"), str) and node["id"], f"{where} needs a string 'id'")
        _need(node["id"] not in ids, f"{where}: duplicate id {node['id']!r}")
        ids.add(node["id"])
        _need(
            isinstance(node.get("label"), str) and canonical_key(node["label"]),
            f"{where} needs a 'label'",
        )
        _need(
            node.get("category", "other") in Category.values,
            f"{where}: unknown category {node.get('category')!r}",
        )
        _need(
            node.get("state", "active") in NodeState.values,
            f"{where}: unknown state {node.get('state')!r}",
        )
        _str_list(node.get("aliases", []), f"{where}.aliases")
        for j, sl in enumerate(node.get("slices", [])):
            _need(
                isinstance(sl, dict) and isinstance(sl.get("text"), str),
                f"{where}.slices[{j}] needs a 'text'",
            )
        for j, ev in enumerate(node.get("events", [])):
            _need(
                isinstance(ev, dict) and isinstance(ev.get("text"), str),
                f"{where}.events[{j}] needs a 'text'",
            )
            when = ev.get("happened_at")
            _need(
                when is None or (isinstance(when, str) and parse_partial_date(when) is not None),
                f"{where}.events[{j}]: happened_at {when!r} is not an ISO date",
            )


def _validate_pages(pages: list[Any], ids: set[str]) -> None:
    """Each page: a unique id, a title, and a node it joins (if any) that exists."""
    for i, page in enumerate(pages):
        where = f"corpus.pages[{i}]"
        _need(isinstance(page, dict), f"{where} must be an object")
        _need(isinstance(page.get("id"), str) and page["id"], f"{where} needs a string 'id'")
        _need(page["id"] not in ids, f"{where}: duplicate id {page['id']!r}")
        ids.add(page["id"])
        _need(
            isinstance(page.get("title"), str) and canonical_key(page["title"]),
            f"{where} needs a 'title'",
        )
        node_id = page.get("node_id")
        _need(node_id is None or node_id in ids, f"{where}: node_id {node_id!r} is not a node")


def _validate_setup(setup: Any, ids: set[str]) -> None:
    """The setup steps: each a known step with what it needs."""
    _need(isinstance(setup, list), "'setup' must be a list of steps")
    conversations: set[str] = set()
    for i, step in enumerate(setup):
        where = f"setup[{i}]"
        _need(isinstance(step, dict), f"{where} must be an object")
        _need(
            step.get("do") in SETUP_STEPS,
            f"{where}: 'do' must be one of {', '.join(SETUP_STEPS)}",
        )
        if step["do"] == "delete_node":
            _need(step.get("node") in ids, f"{where}: unknown node {step.get('node')!r}")
        if step["do"] == "ingest":
            _need(isinstance(step.get("objects"), list), f"{where} needs an 'objects' list")
            labels = step.get("ids", {})
            _need(
                isinstance(labels, dict) and all(isinstance(v, str) for v in labels.values()),
                f"{where}: 'ids' must map labels to fixture ids",
            )
        if step["do"] == "reject_candidate":
            _need(isinstance(step.get("label"), str), f"{where} needs a 'label'")
        if step["do"] == "rules":
            _need(
                step.get("capture_default", CaptureDefault.REVIEW) in CaptureDefault.values,
                f"{where}: capture_default must be review or auto",
            )
            _str_list(step.get("excludes", []), f"{where}.excludes")
            _need(
                isinstance(step.get("episodes", True), bool),
                f"{where}: episodes must be true or false",
            )
        if step["do"] == "conversation":
            _validate_conversation(step, where, ids, conversations)
        if step["do"] == "undo":
            _need(
                step.get("conversation") in conversations,
                f"{where}: unknown conversation {step.get('conversation')!r}",
            )


def _validate_queries(queries: Any) -> None:
    """The queries: each with a unique id, a query, and lists of ids to expect or forbid."""
    _need(isinstance(queries, list) and queries, "missing 'queries' list")
    seen: set[str] = set()
    for i, q in enumerate(queries):
        where = f"queries[{i}]"
        _need(isinstance(q, dict), f"{where} must be an object")
        _need(isinstance(q.get("id"), str) and q["id"], f"{where} needs a string 'id'")
        _need(q["id"] not in seen, f"{where}: duplicate query id {q['id']!r}")
        seen.add(q["id"])
        _need(isinstance(q.get("query"), str), f"{where} needs a 'query' string")
        for name in ("expect_nodes", "forbid_nodes", "expect_pages", "expect_episodes"):
            _str_list(q.get(name, []), f"{where}.{name}")
        state = q.get("expect_state")
        _need(state is None or state in NodeState.values, f"{where}: unknown expect_state")
        _need(
            state is None or bool(q.get("expect_nodes")),
            f"{where}: expect_state needs an expected node",
        )


def _validate_conversation(
    step: dict[str, Any], where: str, ids: set[str], conversations: set[str]
) -> None:
    """A conversation step: its name is unique, its messages parse, and each message id is a
    fixture id of its own (the episode it becomes is reported by it)."""
    name = step.get("name")
    if not isinstance(name, str) or not name:
        raise FixtureError(f"{where} needs a 'name'")
    _need(name not in conversations, f"{where}: duplicate conversation {name!r}")
    conversations.add(name)
    messages = step.get("messages")
    if not isinstance(messages, list) or not messages:
        raise FixtureError(f"{where} needs a 'messages' list")
    for j, message in enumerate(messages):
        _need(
            isinstance(message, dict) and isinstance(message.get("id"), str) and message["id"],
            f"{where}.messages[{j}] needs a string 'id'",
        )
        _need(message["id"] not in ids, f"{where}.messages[{j}]: duplicate id {message['id']!r}")
        ids.add(message["id"])
    try:
        messages_from_json(messages)
    except TranscriptError as exc:
        raise FixtureError(f"{where}: {exc}") from exc
    _need(isinstance(step.get("objects", []), list), f"{where}: 'objects' must be a list")
    labels = step.get("ids", {})
    _need(
        isinstance(labels, dict) and all(isinstance(v, str) for v in labels.values()),
        f"{where}: 'ids' must map labels to fixture ids",
    )
    when = step.get("source_time")
    _need(
        when is None or (isinstance(when, str) and parse_partial_date(when) is not None),
        f"{where}: source_time {when!r} is not an ISO date",
    )


# --- seeding --------------------------------------------------------------------------------


@dataclass
class Tenant:
    """The throwaway owner and how its objects map back to fixture ids."""

    owner: Person
    node_ids: dict[int, str]
    page_ids: dict[int, str]
    key_ids: dict[str, str]  # canonical label/alias key -> fixture id (for re-created nodes)
    created: dict[str, int]  # fixture id -> node pk
    episode_ids: dict[int, str] = field(default_factory=dict)  # episode pk -> message id
    receipts: dict[str, Any] = field(default_factory=dict)  # conversation name -> receipt

    def fixture_id(self, kind: str, pk: int, label: str) -> str:
        if kind == "episode":
            return self.episode_ids.get(pk, f"episode:{pk}")
        if kind == "page":
            return self.page_ids.get(pk, f"page:{canonical_key(label)}")
        known = self.node_ids.get(pk)
        if known is not None:
            return known
        key = canonical_key(label)
        return self.key_ids.get(key, f"new:{key}")


def _flag(value: Any) -> bool:
    return bool(value) if not isinstance(value, str) else value.lower() in {"1", "true", "yes"}


def seed(owner: Person, data: dict[str, Any]) -> Tenant:
    """Create the corpus for ``owner`` (fixture shape already validated)."""
    corpus = data["corpus"]
    tenant = Tenant(owner=owner, node_ids={}, page_ids={}, key_ids={}, created={})
    for spec in corpus.get("nodes", []):
        node = Node.objects.create(
            owner=owner,
            label=spec["label"],
            canonical_key=canonical_key(spec["label"]),
            category=spec.get("category", Category.OTHER),
            state=spec.get("state", NodeState.ACTIVE),
            summary=spec.get("summary", "") or "",
            origin=NodeOrigin.MANUAL,
        )
        tenant.node_ids[node.pk] = spec["id"]
        tenant.created[spec["id"]] = node.pk
        tenant.key_ids[node.canonical_key] = spec["id"]
        for alias in spec.get("aliases", []):
            key = canonical_key(alias)
            if key and key != node.canonical_key:
                Alias.objects.create(owner=owner, node=node, alias=alias, canonical_key=key)
                tenant.key_ids.setdefault(key, spec["id"])
        for sl in spec.get("slices", []):
            Slice.objects.create(
                owner=owner,
                node=node,
                text=sl["text"],
                kind=sl.get("kind") if sl.get("kind") in SliceKind.values else SliceKind.OTHER,
                is_current=_flag(sl.get("is_current", True)),
            )
        for ev in spec.get("events", []):
            parsed = parse_partial_date(ev["happened_at"]) if ev.get("happened_at") else None
            Event.objects.create(
                owner=owner,
                node=node,
                action=ev.get("action") if ev.get("action") in EventAction.values else "other",
                text=ev["text"],
                importance=ev.get("importance")
                if ev.get("importance") in Importance.values
                else Importance.ORDINARY,
                happened_at=parsed[0] if parsed else None,
                happened_at_precision=(ev.get("happened_at_precision") or parsed[1])
                if parsed
                else "",
                happened_at_source=TimeSource.STATED if parsed else TimeSource.UNKNOWN,
            )
    for spec in corpus.get("pages", []):
        page = Page.objects.create(
            owner=owner,
            title=spec["title"],
            canonical_key=canonical_key(spec["title"]),
            topic=spec.get("topic", spec.get("topic_filter", "")) or "",
            summary=spec.get("summary", spec.get("short_summary", "")) or "",
            body=spec.get("body", "") or "",
            node_id=tenant.created.get(spec["node_id"]) if spec.get("node_id") else None,
        )
        tenant.page_ids[page.pk] = spec["id"]
    recall_index_rebuild(owner_id=owner.pk)
    for i, step in enumerate(data.get("setup", [])):
        _run_step(tenant, step, f"setup[{i}]")
    return tenant


def _run_step(tenant: Tenant, step: dict[str, Any], where: str) -> None:
    owner = tenant.owner
    action = step["do"]
    if action == "rules":
        defaults: dict[str, Any] = {
            "capture_default": step.get("capture_default", CaptureDefault.REVIEW)
        }
        for name in ("excludes", "episodes"):
            if name in step:
                defaults[name] = step[name]
        MemoryRule.objects.update_or_create(owner=owner, defaults=defaults)
    elif action == "conversation":
        _run_conversation(tenant, step, where)
    elif action == "undo":
        receipt_undo(receipt=tenant.receipts[step["conversation"]], source="command")
    elif action == "delete_all":
        memory_erase_all(owner=owner, source="command")
    elif action == "ingest":
        for label, fixture_id in step.get("ids", {}).items():
            tenant.key_ids[canonical_key(label)] = fixture_id
        receipt = ingest_proposals(
            owner=owner, objects=step["objects"], name=f"eval {where}", source="command"
        )
        expected = step.get("expect_outcome")
        if expected and receipt.outcome != expected:
            raise FixtureError(
                f"{where}: ingest gave {receipt.outcome!r}, not {expected!r} ({receipt.summary})"
            )
    elif action == "delete_node":
        node = Node.objects.for_owner(owner).get(pk=tenant.created[step["node"]])
        node_delete(node=node, stick=_flag(step.get("stick", True)), source="eval")
    elif action == "reject_candidate":
        candidate = (
            Candidate.objects.for_owner(owner)
            .filter(
                canonical_key=canonical_key(step["label"]),
                status=CandidateStatus.PENDING,
            )
            .first()
        )
        if candidate is None:
            raise FixtureError(f"{where}: no pending candidate {step['label']!r} to reject")
        candidate_reject(
            candidate=candidate,
            by=owner,
            suppress=_flag(step.get("suppress", True)),
            forget=_flag(step.get("forget", False)),
        )


def _run_conversation(tenant: Tenant, step: dict[str, Any], where: str) -> None:
    """A conversation through the real write path (the proposals an assistant drew from it,
    if any, with its messages), so its messages become episodes as every save's do."""
    for label, fixture_id in step.get("ids", {}).items():
        tenant.key_ids[canonical_key(label)] = fixture_id
    parsed = parse_partial_date(step["source_time"]) if step.get("source_time") else None
    doc = {"objects": step.get("objects", []), "messages": step["messages"]}
    receipt = ingest_text(
        owner=tenant.owner,
        text=json.dumps(doc, ensure_ascii=False),
        name=f"eval {step['name']}",
        source="command",
        extractor="proposals",
        source_time=parsed[0] if parsed else None,
    )
    transcript_id = (receipt.detail or {}).get("transcript")
    if receipt.outcome not in ("wrote", "meaningful_no_write") or transcript_id is None:
        raise FixtureError(f"{where}: the conversation was not saved ({receipt.summary})")
    tenant.receipts[step["name"]] = receipt
    for pk, message_id in Episode.objects.filter(transcript_id=transcript_id).values_list(
        "pk", "message_id"
    ):
        tenant.episode_ids[pk] = message_id


# --- scoring --------------------------------------------------------------------------------


def _percentile(values: Sequence[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = max(0, math.ceil(share * len(ordered)) - 1)
    return round(ordered[index], 2)


def _mean(values: Sequence[float], vacuous: float) -> float:
    return round(sum(values) / len(values), 4) if values else vacuous


def score(
    data: dict[str, Any], tenant: Tenant, on_query: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Run every query for the seeded tenant and compute the report (the README's shape).

    ``on_query(query_id)`` is called after each query (a command's progress bar)."""
    per_query: list[dict[str, Any]] = []
    r5: list[float] = []
    r10: list[float] = []
    rr: list[float] = []
    wrong: list[float] = []
    quiet: list[float] = []
    states: list[float] = []
    passes = 0
    latencies: list[float] = []
    for q in data["queries"]:
        started = time.perf_counter()
        result: RecallResult = recall(tenant.owner, q["query"], limit=LIMIT)
        latencies.append((time.perf_counter() - started) * 1000)
        if on_query is not None:
            on_query(str(q.get("id", "")))
        returned = [
            tenant.fixture_id(item.kind, item.id, item.label) for item in result.items[:LIMIT]
        ]
        states_shown = {
            tenant.fixture_id(item.kind, item.id, item.label): item.state for item in result.items
        }
        expected = (
            list(q.get("expect_nodes", []))
            + list(q.get("expect_pages", []))
            + list(q.get("expect_episodes", []))
        )
        forbidden = set(q.get("forbid_nodes", []))
        passed = True
        if expected:
            top5, top10 = set(returned[:5]), set(returned[:10])
            r5.append(sum(e in top5 for e in expected) / len(expected))
            r10.append(sum(e in top10 for e in expected) / len(expected))
            ranks = [returned.index(e) + 1 for e in expected if e in returned]
            rr.append(1.0 / min(ranks) if ranks else 0.0)
            passed = passed and all(e in top5 for e in expected)
        if forbidden:
            hit = bool(forbidden & set(returned))
            wrong.append(1.0 if hit else 0.0)
            passed = passed and not hit
        if q.get("expect_no_recall") or not expected:
            quiet.append(0.0 if returned else 1.0)
            passed = passed and not returned
        if q.get("expect_state"):
            shown = states_shown.get(q["expect_nodes"][0])
            ok = shown == q["expect_state"]
            states.append(1.0 if ok else 0.0)
            passed = passed and ok
        passes += passed
        per_query.append({"id": q["id"], "passed": passed, "returned": returned})
    total = len(data["queries"])
    return {
        "queries": total,
        "answerable": len(r5),
        "recall_at_5": _mean(r5, 1.0),
        "recall_at_10": _mean(r10, 1.0),
        "mrr": _mean(rr, 1.0),
        "wrong_identity_rate": _mean(wrong, 0.0),
        "no_recall_accuracy": _mean(quiet, 1.0),
        "state_accuracy": _mean(states, 1.0),
        "pass_rate": round(passes / total, 4) if total else 1.0,
        "p50_ms": _percentile(latencies, 0.5),
        "p95_ms": _percentile(latencies, 0.95),
        "per_query": per_query,
    }


def run_eval(data: dict[str, Any], on_query: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Seed a fresh owner with a unique name, score, and delete the owner (even on failure)."""
    validate_fixture(data)
    user_model = get_user_model()
    owner = user_model.objects.create_user(
        username=f"eval-retrieval-{uuid.uuid4().hex[:12]}", password=None
    )
    try:
        with transaction.atomic():
            tenant = seed(owner, data)
        return score(data, tenant, on_query)
    finally:
        user_model.objects.filter(pk=owner.pk).delete()


# --- floors ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bound:
    metric: str
    value: float
    ceiling: bool

    def failed(self, report: dict[str, Any]) -> str | None:
        actual = report[self.metric]
        if self.ceiling and actual > self.value:
            return f"{self.metric} {actual} is above the ceiling {self.value}"
        if not self.ceiling and actual < self.value:
            return f"{self.metric} {actual} is below the floor {self.value}"
        return None


def parse_floors(text: str) -> list[Bound]:
    """``"recall_at_5=1.0,mrr>=0.95,wrong_identity_rate=0"`` -> bounds.

    ``name=value`` is a floor, except for metrics where lower is better
    (:data:`CEILING_METRICS`), where it is a ceiling; ``>=`` and ``<=`` say so explicitly.
    Raises ``ValueError`` with a message fit for the command line.
    """
    bounds: list[Bound] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        for op in (">=", "<=", "="):
            if op in part:
                name, _, raw = part.partition(op)
                break
        else:
            raise ValueError(f"--floors: {part!r} is not metric=value")
        name = name.strip()
        if name not in METRICS:
            raise ValueError(f"--floors: unknown metric {name!r}; one of {', '.join(METRICS)}")
        try:
            value = float(raw)
        except ValueError as exc:
            raise ValueError(f"--floors: {raw.strip()!r} is not a number for {name}") from exc
        ceiling = op == "<=" or (op == "=" and name in CEILING_METRICS)
        bounds.append(Bound(name, value, ceiling))
    return bounds
