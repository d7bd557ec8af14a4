"""``python -m eval.bench``: recall latency per lane, queries per recall, worker memory,
ingest throughput, and what history costs (ingest and edit throughput with it on and off).

Creates a throwaway owner per corpus size with a synthetic corpus (nodes with aliases,
current and superseded slices, dated and undated events, pages, and conversation messages
kept as episodes), builds recall's index for it, runs a mix of recall queries (named: exact
and alias; lexical; semantic: words the corpus never uses; profile; episodes: the episode
lane's candidates; smalltalk), then realistic questions of 6 to 20 words about the people,
places, dates and things of its conversations (:mod:`eval.bench_corpus`: first person, third
person, paraphrases, never said; ``recall_<set>_p50_ms`` and ``recall_<set>_p95_ms``), and
ingests transcripts of proposals through
:func:`memory.services.ingest.ingest_proposals`. Prints figures, p50 and p95 per kind;
asserts nothing. Every owner it creates is deleted afterwards, also when it fails.

``--sizes 2000,100000 --episodes 4000,200000`` is the scale the targets are set at (about
half an hour on SQLite, more on PostgreSQL); the default run takes a few minutes.

Runs against the configured database (``DATABASE_URL``; SQLite in the project folder by
default), which it migrates first.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from eval.bench_corpus import SETS, Corpus, conversations, question_sets
from memory.owned import Person

WORDS = """
amber anchor apple arrow aspen atlas aurora badger bamboo banner basil beacon birch bison
bloom bolt breeze bridge bronze cactus canyon cedar charcoal cinder citrus clover cobalt comet
copper coral cotton crane crystal cypress dahlia delta dune eagle ember falcon fern fjord
flint forest fox galaxy garnet ginger glacier granite harbor hazel heron hollow indigo iris
ivory jade jasper juniper kestrel lagoon lantern larch lava lemon lilac linen lotus lunar
magnet maple marble meadow mesa meteor mint mist monsoon moss nectar nimbus nova oak oasis
ochre olive onyx opal orbit orchid osprey otter pebble pepper pine plume polar poplar prairie
prism quartz quill raven reef ridge river robin ruby saffron sage sapphire sequoia shadow
sierra silver slate solar sparrow spruce summit sunset tango thistle thunder tide timber
topaz tundra tulip valley velvet violet walnut willow wren zephyr
""".split()
VERBS = "tuned fixed shipped reviewed planned measured rewrote tested cleaned migrated".split()
# Questions in words the synthetic corpus never uses: only the semantic lane can answer them.
SEMANTIC_QUESTIONS = [
    "which gemstone did I mention",
    "what tree grows near the house",
    "which bird did I see",
    "what flower do I like",
    "anything about the weather at sea",
    "which spice did I cook with",
]
SAID = [
    "we talked about the {w} {v} plan again",
    "I {v} the {w} thing yesterday, it went fine",
    "remind me to check the {w} numbers on Monday",
    "my sister thinks the {w} idea is silly",
    "yes, the {w} one",
]
CATEGORIES = ["project", "tool", "skill", "habit", "person", "interest", "health", "goal"]
# A conversation as a person has it: statements the rules extractor acts on (projects, tools,
# status changes, preferences, people, health, dated events) among questions, small talk and
# the assistant's replies. ``{W}`` is a capitalised word, ``{w}`` a word, ``{v}`` a verb.
USER_LINES = [
    "My next project is {W} {W}, a {w} tracker for my team.",
    "{W} {W} uses {W} for the backend.",
    "I started learning {W} last week.",
    "I paused the {W} {W} project because of the {w} deadline.",
    "I prefer {w} tea over coffee in the morning.",
    "My sister {W} moved to {W} in March.",
    "I finished the {W} course on Friday.",
    "I {v} the {w} module of {W} {W} today.",
    "Remember that my dentist is Dr. {W}.",
    "I go running every {w} morning.",
    "what do you think about the {w} idea?",
    "ok cool",
    "thanks, that helps",
    "can you explain the {w} part again?",
]
ASSISTANT_LINES = [
    "Sure, here is how the {w} part could work.",
    "That sounds like a good plan for {W}.",
    "Do you want me to sketch the {w} table?",
]


def _setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ume.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def _label(rng: random.Random, i: int) -> str:
    return f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()} {i}"


def seed_corpus(owner: Person, size: int, rng: random.Random) -> list[dict[str, str]]:
    """``size`` nodes with their details; returns what the queries can ask about."""
    from memory.keys import canonical_key
    from memory.models import Alias, Event, Node, Page, Slice
    from memory.vocab import NodeState

    now = datetime.now(UTC)
    nodes = [
        Node(
            owner=owner,
            label=(label := _label(rng, i)),
            canonical_key=canonical_key(label),
            category=CATEGORIES[i % len(CATEGORIES)],
            state=NodeState.ACTIVE if i % 5 else NodeState.PAUSED,
            summary=f"{rng.choice(WORDS)} {rng.choice(WORDS)} notes for item {i}",
        )
        for i in range(size)
    ]
    Node.objects.bulk_create(nodes, batch_size=500)
    nodes = list(Node.objects.for_owner(owner).order_by("id"))
    aliases, slices, events = [], [], []
    facts: list[dict[str, str]] = []
    for i, node in enumerate(nodes):
        if i % 4 == 0:
            alias = f"AX{i}"
            aliases.append(
                Alias(owner=owner, node=node, alias=alias, canonical_key=canonical_key(alias))
            )
        detail = f"{rng.choice(VERBS)} the {rng.choice(WORDS)} {rng.choice(WORDS)} module"
        slices.append(Slice(owner=owner, node=node, text=detail, kind="progress"))
        slices.append(
            Slice(owner=owner, node=node, text="an older detail", kind="progress", is_current=False)
        )
        dated = i % 2 == 0
        events.append(
            Event(
                owner=owner,
                node=node,
                action="started",
                text=f"started {node.label.lower()}",
                happened_at=datetime(2025, 1 + i % 12, 1, tzinfo=UTC) if dated else None,
                happened_at_precision="month" if dated else "",
                happened_at_source="stated" if dated else "unknown",
                created_at=now,
            )
        )
        facts.append(
            {"label": node.label, "alias": f"AX{i}" if i % 4 == 0 else "", "detail": detail}
        )
    Alias.objects.bulk_create(aliases, batch_size=500)
    Slice.objects.bulk_create(slices, batch_size=500)
    Event.objects.bulk_create(events, batch_size=500)
    pages = [
        Page(
            owner=owner,
            title=(title := f"{rng.choice(WORDS).title()} Review {i}"),
            canonical_key=canonical_key(title),
            summary=f"what we learned about {rng.choice(WORDS)} and {rng.choice(WORDS)}",
            node=nodes[i] if i < len(nodes) else None,
        )
        for i in range(max(1, size // 20))
    ]
    Page.objects.bulk_create(pages, batch_size=500)
    return facts


def seed_episodes(owner: Person, count: int, rng: random.Random) -> tuple[list[str], Corpus]:
    """``count`` messages in conversations of 50 (:func:`eval.bench_corpus.conversations`:
    what a person tells an assistant about the people, places and things in their life,
    among small talk), kept as episodes, and a node with an alias for each person they
    mention; returns the small talk's words (for the two-word episode questions) and the
    corpus (for the realistic ones)."""
    from memory.keys import canonical_key
    from memory.models import Alias, Episode, Node, Slice, Transcript
    from memory.vocab import TranscriptStatus

    now = datetime.now(UTC)
    corpus = conversations(count, rng, words=WORDS)
    if not count:
        return corpus.said, corpus
    people = Node.objects.bulk_create(
        Node(owner=owner, label=full, canonical_key=canonical_key(full), category="person")
        for full, _relation in corpus.people.values()
    )
    Alias.objects.bulk_create(
        Alias(owner=owner, node=node, alias=first, canonical_key=canonical_key(first))
        for node, first in zip(people, corpus.people, strict=True)
    )
    Slice.objects.bulk_create(
        Slice(owner=owner, node=node, text=f"my {relation}", kind="relationship")
        for node, (_full, relation) in zip(people, corpus.people.values(), strict=True)
    )
    for start in range(0, len(corpus.conversations), 100):
        batch = corpus.conversations[start : start + 100]
        transcripts = Transcript.objects.bulk_create(
            Transcript(
                owner=owner,
                name=f"bench chat {start + i}",
                text="",
                sha256=uuid.uuid4().hex,
                status=TranscriptStatus.DONE,
            )
            for i in range(len(batch))
        )
        Episode.objects.bulk_create(
            (
                Episode(
                    owner=owner,
                    transcript=transcript,
                    message_id=f"m{seq}",
                    seq=seq,
                    role=role,
                    text=text,
                    said_at=now,
                    learned_at=now,
                )
                for transcript, messages in zip(transcripts, batch, strict=True)
                for seq, (role, text) in enumerate(messages)
            ),
            batch_size=1000,
        )
    return corpus.said, corpus


def transcript_text(count: int, rng: random.Random) -> str:
    """A ``User:``/``Assistant:`` transcript of ``count`` messages (two in three the
    person's), for the rules extractor's throughput."""

    def fill(template: str) -> str:
        return template.format_map(_Filler(rng))

    lines = []
    for n in range(count):
        if n % 3 == 2:
            lines.append("Assistant: " + fill(rng.choice(ASSISTANT_LINES)))
        else:
            lines.append("User: " + fill(rng.choice(USER_LINES)))
    return "\n".join(lines) + "\n"


class _Filler(dict[str, str]):
    """Fills ``{W}``, ``{w}`` and ``{v}`` with a fresh random word at every use."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng

    def __missing__(self, key: str) -> str:
        if key == "v":
            return self.rng.choice(VERBS)
        word = self.rng.choice(WORDS)
        return word.title() if key == "W" else word


def seed_review_and_saves(
    owner: Person, nodes: int, candidates: int, receipts: int, rng: random.Random
) -> int:
    """The rest of what the pages show at scale, written with ``bulk_create`` (no ingest):
    ``candidates`` pending candidates, each with a quote from a transcript; ``receipts``
    receipts of every outcome and source; and one node with 250 facts, 250 events and 50
    links (the node page's worst case). Returns that node's id."""
    now = datetime.now(UTC)
    _seed_receipts(owner, receipts, now)
    _seed_candidates(owner, candidates, now, rng)
    return _seed_big_node(owner)


def _seed_receipts(owner: Person, receipts: int, now: datetime) -> None:
    """``receipts`` receipts of every outcome and source, a minute apart."""
    from memory.models import Outcome, Receipt, Source

    outcomes, sources = list(Outcome.values), list(Source.values)
    for start in range(0, receipts, 5000):
        Receipt.objects.bulk_create(
            (
                Receipt(
                    owner=owner,
                    source=sources[n % len(sources)],
                    outcome=outcomes[n % len(outcomes)],
                    extractor="rules",
                    subject=f"bench save {n}",
                    counts={"nodes": n % 3, "candidates": n % 5},
                    summary=f"{n % 3} memories, {n % 5} guesses",
                    duration_ms=n % 400,
                    created_at=now - timedelta(minutes=n),
                )
                for n in range(start, min(receipts, start + 5000))
            ),
            batch_size=1000,
        )


def _seed_candidates(owner: Person, candidates: int, now: datetime, rng: random.Random) -> None:
    """``candidates`` pending candidates, each with a quote from one of 20 transcripts."""
    from memory.keys import canonical_key, fold_key
    from memory.models import Candidate, Evidence, Transcript
    from memory.triage import candidate_value
    from memory.vocab import CandidateStatus, TranscriptStatus

    sources_rows = Transcript.objects.bulk_create(
        Transcript(
            owner=owner,
            name=f"bench source {i}",
            text="",
            sha256=uuid.uuid4().hex,
            status=TranscriptStatus.DONE,
        )
        for i in range(20)
    )
    for start in range(0, candidates, 5000):
        rows = Candidate.objects.bulk_create(
            (
                Candidate(
                    owner=owner,
                    label_guess=(label := f"{rng.choice(WORDS).title()} Guess {n}"),
                    canonical_key=canonical_key(label),
                    fold_key=fold_key(canonical_key(label)),
                    category_guess=CATEGORIES[n % len(CATEGORIES)],
                    confidence=0.5 + (n % 40) / 100,
                    status=CandidateStatus.PENDING,
                    # Every other one past its date: cleanup has that many to expire.
                    expires_at=now + timedelta(days=30 if n % 2 else -1),
                    last_seen_at=now - timedelta(minutes=n),
                    last_said_at=now - timedelta(minutes=n),
                    session_count=1 + n % 7,
                    # bulk_create skips Candidate.save, which sets the value: as ingest does
                    value=candidate_value(
                        sessions=1 + n % 7,
                        mentions=1,
                        confidence=0.5 + (n % 40) / 100,
                        last_said=now - timedelta(minutes=n),
                    ),
                )
                for n in range(start, min(candidates, start + 5000))
            ),
            batch_size=1000,
        )
        Evidence.objects.bulk_create(
            (
                Evidence(
                    owner=owner,
                    candidate=row,
                    transcript=sources_rows[i % len(sources_rows)],
                    message_id=f"m{i}",
                    quote=f"I keep thinking about {row.label_guess}",
                )
                for i, row in enumerate(rows)
            ),
            batch_size=1000,
        )


def _seed_big_node(owner: Person) -> int:
    """One node with 250 facts, 250 events and 50 links (the node page's worst case)."""
    from memory.models import Edge, Event, Node, Slice

    big = Node.objects.create(
        owner=owner, label="Bench Big Node", canonical_key="bench big node", category="project"
    )
    Slice.objects.bulk_create(
        Slice(owner=owner, node=big, text=f"detail {i} of the big node", kind="progress")
        for i in range(250)
    )
    Event.objects.bulk_create(
        Event(owner=owner, node=big, action="other", text=f"step {i} of the big node")
        for i in range(250)
    )
    others = list(Node.objects.for_owner(owner).exclude(pk=big.pk).order_by("id")[:50])
    Edge.objects.bulk_create(
        Edge(owner=owner, from_node=big, to_node=other, type="uses") for other in others
    )
    return big.pk


def bench_pages(owner: Person, big_node: int, label: str, repeat: int = 5) -> dict[str, Any]:
    """Server time of each list page and the node page, in-process through Django's test
    client (middleware, view, template; no network): median of ``repeat`` after a warm-up,
    and the queries each runs."""
    from django.test import Client
    from django.test.utils import override_settings

    client = Client()
    client.force_login(owner)
    # The test client's host, over plain HTTP: what is timed is the server's work.
    plain = override_settings(ALLOWED_HOSTS=["testserver"], SECURE_SSL_REDIRECT=False)
    plain.enable()
    try:
        return _time_pages(client, big_node, label, repeat)
    finally:
        plain.disable()


def _time_pages(client: Any, big_node: int, label: str, repeat: int) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    pages = {
        "review_queue": reverse("review:queue"),
        "review_queue_filtered": reverse("review:queue") + "?category=interest&sort=confidence",
        "review_all": reverse("review:queue") + "?view=all",
        "review_by_subject": reverse("review:groups", args=["subject"]),
        "review_by_category": reverse("review:groups", args=["category"]),
        "review_by_conversation": reverse("review:groups", args=["conversation"]),
        "saves": reverse("receipts:list"),
        "saves_filtered": reverse("receipts:list") + "?outcome=wrote&source=api",
        "memory_browser": reverse("memory:nodes"),
        "memory_browser_filtered": reverse("memory:nodes") + "?category=project&state=active",
        "search": reverse("memory:nodes") + "?q=" + label.replace(" ", "+"),
        "node_page": reverse("memory:node", args=[big_node]),
        "graph": reverse("memory:graph"),
        "graph_filtered": reverse("memory:graph") + "?category=project",
    }
    ms: dict[str, float] = {}
    cpu_ms: dict[str, float] = {}
    queries: dict[str, int] = {}
    for name, url in pages.items():
        response = client.get(url)  # warm-up: templates, caches
        if response.status_code != 200:
            raise RuntimeError(f"{name}: {url} answered {response.status_code}")
        timings, cpu = [], []
        for _ in range(repeat):
            with CaptureQueriesContext(connection) as ctx:
                started, cpu_started = time.perf_counter(), time.process_time()
                client.get(url)
                timings.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - cpu_started) * 1000)
            queries[name] = len(ctx.captured_queries)
        ms[name] = round(statistics.median(timings), 1)
        cpu_ms[name] = round(statistics.median(cpu), 1)
    # CPU time of this process: on SQLite it includes the queries (in-process), so on a
    # shared, busy machine it is the figure that does not depend on the neighbours' load.
    return {"page_ms": ms, "page_cpu_ms": cpu_ms, "page_queries": queries}


def query_mix(
    facts: list[dict[str, str]], said: list[str], count: int, rng: random.Random
) -> list[tuple[str, str]]:
    """``count`` queries as ``(kind, query)``; kinds name the path recall takes."""
    with_alias = [f for f in facts if f["alias"]]
    said = said or WORDS
    makers = [
        ("named", lambda: rng.choice(facts)["label"]),
        ("named", lambda: f"what do you remember about {rng.choice(facts)['label']}?"),
        (
            "named",
            lambda: rng.choice(with_alias)["alias"] if with_alias else rng.choice(facts)["label"],
        ),
        ("lexical", lambda: " ".join(rng.choice(facts)["detail"].split()[2:4])),
        ("profile", lambda: "what are my projects"),
        ("lexical", lambda: "cooking pasta tonight"),
        ("semantic", lambda: rng.choice(SEMANTIC_QUESTIONS)),
        ("episodes", lambda: f"what did we say about the {rng.choice(said)} numbers"),
        ("smalltalk", lambda: "thanks!"),
    ]
    return [(makers[i % len(makers)][0], makers[i % len(makers)][1]()) for i in range(count)]


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)], 2)


def _peak_mb() -> float:
    """Peak resident memory of this process (the worker's share: Django, the model, caches).

    From ``VmHWM`` where Linux gives it: ``ru_maxrss`` of a spawned process also counts the
    parent it was forked from before ``exec`` (Linux keeps the larger of the two), so a
    recall worker started by a bench that has just seeded 100,000 nodes reported the
    bench's own size."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def bench_recall(owner: Person, queries: list[tuple[str, str]]) -> dict[str, Any]:
    from django.db import connection

    from memory.recall import recall

    timings, counts = [], []
    by_kind: dict[str, list[float]] = {}
    executed = [0]

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        executed[0] += 1
        return execute(sql, params, many, context)

    for kind, query in queries:
        # Queries are counted by a wrapper that does nothing else: the test client's
        # CaptureQueriesContext records each statement with its parameters formatted in,
        # work a web worker does not do, and which was part of every timing.
        executed[0] = 0
        with connection.execute_wrapper(count):
            started = time.perf_counter()
            # Every kind is the whole recall an assistant gets: an episode question goes
            # through the same path (its lane runs inside recall), not a part of it.
            recall(owner, query)
            elapsed = (time.perf_counter() - started) * 1000
        timings.append(elapsed)
        by_kind.setdefault(kind, []).append(elapsed)
        counts.append(executed[0])
    if not timings:
        return {}
    return {
        "recall_questions": len(timings),
        "recall_p50_ms": round(statistics.median(timings), 2),
        "recall_p95_ms": _p95(timings),
        "recall_p50_ms_by_kind": {
            kind: round(statistics.median(values), 2) for kind, values in by_kind.items()
        },
        "recall_p95_ms_by_kind": {kind: _p95(values) for kind, values in by_kind.items()},
        "queries_per_recall_max": max(counts),
        "queries_per_recall_min": min(counts),
    }


def bench_ingest(owner: Person, count: int, rng: random.Random) -> dict[str, float]:
    from memory.models import MemoryRule
    from memory.services.ingest import ingest_proposals

    MemoryRule.objects.update_or_create(owner=owner, defaults={"capture_default": "auto"})
    started = time.perf_counter()
    outcomes: dict[str, int] = {}
    durations: list[float] = []
    for i in range(count):
        one = time.perf_counter()
        label = f"Bench {rng.choice(WORDS).title()} {i}"
        objects = [
            {"object": "node", "label": label, "category": "project", "confidence": 0.95},
            {
                "object": "slice",
                "on": label,
                "text": f"{rng.choice(VERBS)} the {rng.choice(WORDS)} part",
                "kind": "progress",
                "confidence": 0.95,
            },
            {
                "object": "event",
                "on": label,
                "action": "started",
                "text": f"started {label.lower()}",
                "happened_at": "2026-03",
                "confidence": 0.95,
            },
        ]
        receipt = ingest_proposals(
            owner=owner, objects=objects, name=f"bench {i}", source="command"
        )
        durations.append((time.perf_counter() - one) * 1000)
        outcome = str(receipt.outcome)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    elapsed = time.perf_counter() - started
    return {
        "ingest_transcripts": count,
        "ingest_per_s": round(count / elapsed, 1) if elapsed else 0.0,
        "ingest_p50_ms": round(statistics.median(durations), 1),
        "ingest_outcomes": outcomes,  # type: ignore[dict-item]
    }


def _ingest_objects(label: str, rng: random.Random) -> list[dict[str, Any]]:
    return [
        {"object": "node", "label": label, "category": "project", "confidence": 0.95},
        {
            "object": "slice",
            "on": label,
            "text": f"{rng.choice(VERBS)} the {rng.choice(WORDS)} part",
            "kind": "progress",
            "confidence": 0.95,
        },
        {"object": "event", "on": label, "action": "started", "text": f"started {label}"},
    ]


def bench_history(owner: Person, count: int, rng: random.Random) -> dict[str, Any]:
    """What history costs: ingests and edits timed with recording on and off (the
    ``UME_HISTORY`` setting, which exists for this comparison only), alternating one of each
    so that drift of the machine hits both alike; history rows per 1,000 writes; the mean
    stored snapshot size."""
    from django.test.utils import override_settings

    from memory.models import MemoryRule, Node, Revision
    from memory.services.ingest import ingest_proposals
    from memory.services.nodes import node_update

    MemoryRule.objects.update_or_create(owner=owner, defaults={"capture_default": "auto"})
    spent = {"ingest": {True: 0.0, False: 0.0}, "edit": {True: 0.0, False: 0.0}}
    rows = {"ingest": 0, "edit": 0}
    nodes = list(Node.objects.for_owner(owner).order_by("id")[: 2 * count])
    for i in range(2 * count):
        on = i % 2 == 0
        with override_settings(UME_HISTORY=on):
            before = Revision.objects.for_owner(owner).count()
            objects = _ingest_objects(f"History {rng.choice(WORDS).title()} {i}", rng)
            started = time.perf_counter()
            ingest_proposals(owner=owner, objects=objects, name=f"h {i}", source="command")
            spent["ingest"][on] += time.perf_counter() - started
            middle = Revision.objects.for_owner(owner).count()
            node = nodes[i % len(nodes)] if nodes else None
            if node is not None:
                started = time.perf_counter()
                node_update(node=node, summary=f"{rng.choice(VERBS)} {rng.choice(WORDS)} {i}")
                spent["edit"][on] += time.perf_counter() - started
            after = Revision.objects.for_owner(owner).count()
            if on:
                rows["ingest"] += middle - before
                rows["edit"] += after - middle
    edits = count if nodes else 0

    def per_s(kind: str, on: bool, n: int) -> float:
        return round(n / spent[kind][on], 1) if spent[kind][on] else 0.0

    snapshots = Revision.objects.for_owner(owner).values_list("snapshot", flat=True)[:2000]
    lengths = [len(json.dumps(snap)) for snap in snapshots]
    return {
        "history_ingest_per_s_on": per_s("ingest", True, count),
        "history_ingest_per_s_off": per_s("ingest", False, count),
        "history_edit_per_s_on": per_s("edit", True, edits),
        "history_edit_per_s_off": per_s("edit", False, edits),
        "history_rows_per_1000_ingests": round(1000 * rows["ingest"] / count),
        "history_rows_per_1000_edits": round(1000 * rows["edit"] / edits) if edits else 0,
        "history_snapshot_bytes_mean": round(statistics.mean(lengths)) if lengths else 0,
    }


def _worker(
    owner_pk: int, queries: list[tuple[str, str]], real: list[tuple[str, str]]
) -> dict[str, Any]:
    """In a fresh process, as a web worker: load the application as ``ume.asgi`` does (Django,
    the MCP app, then freezing what start-up loaded: ``ume/workers.py``), answer ``queries``
    for the owner (the first call loads the owner's vectors), and report the figures with
    this process's peak memory."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ume.settings")
    import warnings

    with warnings.catch_warnings():
        # whitenoise's note that ``collectstatic`` has not run: pages are not served here
        warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)
        import ume.asgi  # noqa: F401
    from django.contrib.auth import get_user_model

    from memory.recall import recall

    owner = get_user_model().objects.get(pk=owner_pk)
    recall(owner, "warm up the semantic cache")
    figures = bench_recall(owner, queries)
    figures.update(realistic_figures(bench_recall(owner, real)))
    figures.update(bench_cold(owner, real))
    figures["peak_mb"] = _peak_mb()
    return figures


def bench_cold(owner: Person, questions: list[tuple[str, str]]) -> dict[str, Any]:
    """Recall for a person whose vectors this worker does not hold: the cache is emptied
    before each question, as when many people share a worker and its bounded cache
    (``UME_RECALL_VECTOR_CACHE_MB``) keeps only the most recent. Reports the p50 and p95
    (``recall_real_cold_p50_ms``, ``recall_real_cold_p95_ms``), what one person's vectors
    take in the cache, and how many such people the bound holds."""
    from django.conf import settings

    from memory.recall import recall, vectors
    from memory.recall.documents import CORPUS_MEMORY
    from memory.recall.loaders import load_stats
    from memory.recall.provider import question_vector

    if not questions:
        return {}
    timings = []
    for _kind, question in questions:
        vectors.clear()
        started = time.perf_counter()
        recall(owner, question)
        timings.append((time.perf_counter() - started) * 1000)
    stats = load_stats(owner).get(CORPUS_MEMORY)
    asked = question_vector(owner.pk, stats.model, "size") if stats else None
    held = (
        vectors.load_vectors(
            owner.pk, CORPUS_MEMORY, stats, model=asked[0], dim=len(asked[1])
        ).nbytes
        if stats and asked
        else 0
    )
    budget = int(settings.UME_RECALL_VECTOR_CACHE_MB)
    return {
        "recall_real_cold_p50_ms": round(statistics.median(timings), 2),
        "recall_real_cold_p95_ms": _p95(timings),
        "vector_cache_mb": budget,
        "vector_cache_mb_per_person": round(held / 1024 / 1024, 2),
        "vector_cache_people": int(budget * 1024 * 1024 // held) if held else 0,
    }


def realistic_figures(measured: dict[str, Any]) -> dict[str, Any]:
    """The realistic sets' figures as the bench reports them (DESIGN.md): per set
    ``recall_<set>_p50_ms`` and ``recall_<set>_p95_ms``, the same over every realistic
    question (``recall_real_p50_ms``, ``recall_real_p95_ms``), and their queries per recall.
    ``measured`` is :func:`bench_recall` over those questions."""
    out: dict[str, Any] = {}
    if not measured.get("recall_questions"):
        return out
    for name in SETS:
        if name in measured["recall_p50_ms_by_kind"]:
            out[f"recall_{name}_p50_ms"] = measured["recall_p50_ms_by_kind"][name]
            out[f"recall_{name}_p95_ms"] = measured["recall_p95_ms_by_kind"][name]
    out["recall_real_questions"] = measured["recall_questions"]
    out["recall_real_p50_ms"] = measured["recall_p50_ms"]
    out["recall_real_p95_ms"] = measured["recall_p95_ms"]
    out["queries_per_recall_real_min"] = measured["queries_per_recall_min"]
    out["queries_per_recall_real_max"] = measured["queries_per_recall_max"]
    return out


def _recall_figures(
    owner: Person,
    queries: list[tuple[str, str]],
    worker: bool,
    real: list[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    if worker:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        from django.db import connection

        connection.close()  # the worker opens its own
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            return pool.submit(_worker, owner.pk, queries, real or []).result()
    from memory.recall import recall

    recall(owner, "warm up the semantic cache")  # the first call loads the vectors
    figures = bench_recall(owner, queries)
    figures.update(realistic_figures(bench_recall(owner, real or [])))
    figures.update(bench_cold(owner, real or []))
    figures["peak_mb"] = _peak_mb()
    return figures


def bench_transcript(owner: Person, messages: int, rng: random.Random) -> dict[str, Any]:
    """The rules extractor's throughput: one ``messages``-message transcript through the
    whole ingest (extract, gate, apply, episodes, recall's index), wall and CPU time."""
    from memory.extractors import get_extractor
    from memory.services.ingest import ingest_text

    get_extractor("rules")  # imported once, as in a running worker
    text = transcript_text(messages, rng)
    started, cpu = time.perf_counter(), time.process_time()
    receipt = ingest_text(owner=owner, text=text, name="bench transcript", extractor="rules")
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {
        "transcript_messages": messages,
        "transcript_outcome": str(receipt.outcome),
        "ingest_messages_per_s": round(messages / elapsed, 1) if elapsed else 0.0,
        "ingest_messages_per_cpu_s": round(messages / cpu, 1) if cpu else 0.0,
    }


def bench_import(
    conversations: int,
    messages: int,
    seed: int,
    *,
    folder: str = "",
    profile: str = "",
    worker: bool = True,
) -> dict[str, Any]:
    """A ChatGPT export of ``conversations`` conversations and ``messages`` messages
    (:mod:`eval.bench_export`) imported for a new person as ``ingest PATH`` does (stored, then
    each conversation ingested with the default extractor; episodes, vectors and history
    on), in a fresh process whose peak memory is the import's: messages per second, wall and
    CPU seconds, peak MB, the receipts by outcome and the rows written. The person is deleted
    afterwards. ``profile``: a path for the import's cProfile statistics (CPU time).
    Without ``worker``, in this process (tests: the database is theirs)."""
    import multiprocessing
    import tempfile
    from concurrent.futures import ProcessPoolExecutor

    from django.db import connection

    from eval.bench_export import write_export

    with tempfile.TemporaryDirectory(dir=folder or None) as tmp:
        path = os.path.join(tmp, "conversations.json")
        size = write_export(path, conversations, messages, seed)
        if not worker:
            return {
                "import_conversations": conversations,
                "import_bytes": size,
                **_import(path, profile),
            }
        connection.close()  # the worker opens its own
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            figures = pool.submit(_import_worker, path, profile).result()
    return {"import_conversations": conversations, "import_bytes": size, **figures}


def _import_worker(path: str, profile: str) -> dict[str, Any]:
    """In a fresh process: import ``path`` for a new person (see :func:`bench_import`)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ume.settings")
    import django

    django.setup()
    return _import(path, profile)


def _import(path: str, profile: str) -> dict[str, Any]:
    """Import ``path`` for a new person, as ``ingest PATH`` does; its figures."""
    import cProfile

    from django.contrib.auth import get_user_model

    from memory.services.erase import account_delete
    from memory.services.imports import chat_import_process, chat_import_store, export_format

    owner = get_user_model().objects.create_user(
        username=f"bench-{uuid.uuid4().hex[:12]}", password=None
    )
    # CPU time, not wall time: on a shared machine the wall clock counts the neighbours too
    profiler = cProfile.Profile(time.process_time) if profile else None
    try:
        started, cpu = time.perf_counter(), time.process_time()
        if profiler is not None:
            profiler.enable()
        with open(path, "rb") as stream:
            fmt = export_format(stream, "conversations.json")
            if fmt is None:
                raise RuntimeError("the generated export was not recognised")
            result = chat_import_store(
                owner=owner, stream=stream, name="conversations.json", fmt=fmt, source="command"
            )
        receipts = chat_import_process(result)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        figures = _imported(owner, receipts, elapsed, cpu)
    finally:
        account_delete(owner)
    return figures


def _imported(owner: Person, receipts: list[Any], elapsed: float, cpu: float) -> dict[str, Any]:
    """What an import wrote, and its rate (see :func:`bench_import`)."""
    from collections import Counter

    from memory.models import Candidate, Episode, Node, RecallDoc, Revision

    episodes = Episode.objects.for_owner(owner).count()
    return {
        "import_messages": episodes,
        "import_s": round(elapsed, 1),
        "import_cpu_s": round(cpu, 1),
        "import_messages_per_s": round(episodes / elapsed, 1) if elapsed else 0.0,
        "import_messages_per_cpu_s": round(episodes / cpu, 1) if cpu else 0.0,
        "import_peak_mb": _peak_mb(),
        "import_receipts": dict(sorted(Counter(str(r.outcome) for r in receipts).items())),
        "import_rows": {
            "nodes": Node.objects.for_owner(owner).count(),
            "candidates": Candidate.objects.for_owner(owner).count(),
            "revisions": Revision.objects.for_owner(owner).count(),
            "recall_docs": RecallDoc.objects.for_owner(owner).count(),
        },
    }


def bench_cleanup(owner: Person) -> dict[str, Any]:
    """``cleanup`` for the owner (expiring the candidates seeded as past their date): its time
    and the peak of Python memory it allocated (tracemalloc, which also slows it down)."""
    import tracemalloc

    from memory.services.cleanup import cleanup_user

    tracemalloc.start()
    started = time.perf_counter()
    report = cleanup_user(owner=owner)
    elapsed = time.perf_counter() - started
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "cleanup_s": round(elapsed, 2),
        "cleanup_peak_mb": round(peak / 1024 / 1024, 1),
        "cleanup_counts": {k: n for k, n in report.counts.items() if n},
    }


def run(
    sizes: list[int],
    episodes: list[int],
    queries: int,
    transcripts: int,
    seed: int,
    *,
    worker: bool = False,
    on_row: Any = None,
    candidates: list[int] | None = None,
    receipts: list[int] | None = None,
    owners: int = 0,
    messages: int = 0,
    real_queries: int = 40,
    recall_only: bool = False,
) -> list[dict[str, Any]]:
    """One row of figures per size. With ``worker``, recall runs in a fresh process (its
    peak memory is a web worker's: Django, the model and the owner's cached vectors, not the
    seeding); the corpus must then be committed, as it is outside tests.

    ``candidates`` and ``receipts`` (one count per size) seed the review queue and the Saves
    page, whose server times are measured with the memory browser, search, the node page and
    the graph; ``owners`` other people get the same nodes, candidates and receipts (not
    indexed), so every page's scoping is exercised; ``messages`` > 0 times one transcript of
    that many messages through the rules extractor; then ``cleanup`` runs for the owner.
    ``real_queries`` questions of each realistic set (:data:`eval.bench_corpus.SETS`) are
    timed beside the mix; ``recall_only`` stops each size there (no pages, ingest, cleanup
    or history)."""
    from django.contrib.auth import get_user_model

    user_model = get_user_model()
    rows = []
    candidates = candidates or [0] * len(sizes)
    receipts = receipts or [0] * len(sizes)
    for size, n_episodes, n_candidates, n_receipts in zip(
        sizes, episodes, candidates, receipts, strict=True
    ):
        rng = random.Random(seed + size)
        people = [
            user_model.objects.create_user(username=f"bench-{uuid.uuid4().hex[:12]}", password=None)
            for _ in range(1 + owners)
        ]
        owner = people[0]
        try:
            row, big_node, pick = _seed_and_recall(
                people,
                size,
                n_episodes,
                n_candidates,
                n_receipts,
                rng,
                queries=queries,
                real_queries=real_queries,
                worker=worker,
            )
            if not recall_only:
                row.update(bench_pages(owner, big_node, pick))
                row.update(bench_ingest(owner, transcripts, rng))
                if messages:
                    row.update(bench_transcript(owner, messages, rng))
                row.update(bench_cleanup(owner))
                row.update(bench_history(owner, transcripts, rng))
            rows.append(row)
            if on_row is not None:
                on_row(row)
        finally:
            from memory.services.erase import account_delete

            for person in people:
                account_delete(person)
    return rows


def _seed_and_recall(
    people: list[Any],
    size: int,
    n_episodes: int,
    n_candidates: int,
    n_receipts: int,
    rng: random.Random,
    *,
    queries: int,
    real_queries: int,
    worker: bool,
) -> tuple[dict[str, Any], Any, str]:
    """Seed one size for the first person (and the others' look-alike memories), index it and
    time recall: the row so far, the node the node page is timed on, and a label searched."""
    from django.db import connection

    owner = people[0]
    started = time.perf_counter()
    facts = seed_corpus(owner, size, rng)
    said, corpus = seed_episodes(owner, n_episodes, rng)
    big_node = seed_review_and_saves(owner, size, n_candidates, n_receipts, rng)
    for other in people[1:]:
        seed_corpus(other, size, rng)
        seed_review_and_saves(other, size, n_candidates, n_receipts, rng)
    seeded = time.perf_counter() - started
    indexed = _index(owner)
    row: dict[str, Any] = {
        "backend": connection.vendor,
        "nodes": size,
        "episodes": n_episodes,
        "candidates": n_candidates,
        "receipts": n_receipts,
        "owners": len(people),
        "seed_s": round(seeded, 2),
        "index_s": round(indexed, 2),
    }
    mix = query_mix(facts, said, queries, rng)
    real = list(question_sets(corpus, real_queries, rng))
    row.update(_recall_figures(owner, mix, worker, real))
    return row, big_node, facts[len(facts) // 2]["label"]


def _index(owner: Person) -> float:
    """Build the owner's recall index; the seconds it took. On PostgreSQL, then do what
    autovacuum does on a running server: without statistics on the tables just filled,
    PostgreSQL takes them for empty (the queue's list of sources took 40 s, joining every
    pending guess for each transcript); without a vacuum, every index-only read of the recall
    index visits the table too. (Inside a transaction, the tests', VACUUM cannot run:
    statistics only.)"""
    from django.db import connection

    from memory.services.recall_index import recall_index_rebuild

    started = time.perf_counter()
    recall_index_rebuild(owner_id=owner.pk)
    indexed = time.perf_counter() - started
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE" if connection.in_atomic_block else "VACUUM ANALYZE")
    return indexed


TARGETS = """\
Targets (issue 12): ingest with the rules extractor >= 1,000 messages/s on a 5,000-message
transcript; ingest time at 100,000 nodes within 1.5x its time at 2,000; review queue, Saves
(filtered and unfiltered), memory browser and search <= 100 ms server time; node page (500
facts and events) and graph <= 150 ms; cleanup in bounded memory."""

LIST_PAGES = (
    "review_queue",
    "review_queue_filtered",
    "saves",
    "saves_filtered",
    "memory_browser",
    "memory_browser_filtered",
    "search",
)


def environment() -> dict[str, str]:
    """Machine, backend and versions, for the dated table."""
    import platform

    import django
    from django.db import connection

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            names = [
                line.split(":", 1)[1].strip() for line in info if line.startswith("model name")
            ]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SHOW server_version")
            backend = f"PostgreSQL {cursor.fetchone()[0]}"
        else:
            cursor.execute("SELECT sqlite_version()")
            backend = f"SQLite {cursor.fetchone()[0]}"
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
        "backend": backend,
        "versions": f"Python {platform.python_version()}, Django {django.get_version()}",
    }


def markdown(rows: list[dict[str, Any]], env: dict[str, str], command: str) -> str:
    """A dated section for docs/benchmarks.md: one column per size."""
    head = "| figure | " + " | ".join(f"{r['nodes']:,} nodes" for r in rows) + " |"
    lines = [
        f"## {env['date']} -- {env['backend']}",
        "",
        f"Machine: {env['machine']}. {env['versions']}. Command: `{command}`.",
        "",
        head,
        "| --- |" + " --- |" * len(rows),
    ]

    def line(name: str, value: Any) -> None:
        lines.append(f"| {name} | " + " | ".join(str(value(r)) for r in rows) + " |")

    line(
        "episodes / pending candidates / receipts",
        lambda r: f"{r['episodes']:,} / {r['candidates']:,} / {r['receipts']:,}",
    )
    line("owners", lambda r: r["owners"])
    line("recall p50 / p95 ms", lambda r: f"{r['recall_p50_ms']} / {r['recall_p95_ms']}")
    for kind in rows[0]["recall_p95_ms_by_kind"] if rows else []:
        line(
            f"recall, {kind}: p50 / p95 ms",
            lambda r, k=kind: f"{r['recall_p50_ms_by_kind'][k]} / {r['recall_p95_ms_by_kind'][k]}",
        )
    line(
        "queries per recall (min-max)",
        lambda r: f"{r['queries_per_recall_min']}-{r['queries_per_recall_max']}",
    )
    for name in ("real", *SETS):
        if rows and all(f"recall_{name}_p95_ms" in r for r in rows):
            line(
                f"recall, {name.replace('_', ' ')}: p50 / p95 ms",
                lambda r, n=name: f"{r[f'recall_{n}_p50_ms']} / {r[f'recall_{n}_p95_ms']}",
            )
    if rows and all("recall_real_cold_p95_ms" in r for r in rows):
        line(
            "recall, realistic, owner not in the vector cache: p50 / p95 ms",
            lambda r: f"{r['recall_real_cold_p50_ms']} / {r['recall_real_cold_p95_ms']}",
        )
        line(
            "vector cache: MB per person / people in the bound",
            lambda r: (
                f"{r['vector_cache_mb_per_person']} / {r['vector_cache_people']:,}"
                f" of {r['vector_cache_mb']} MB"
            ),
        )
    if rows and all("queries_per_recall_real_max" in r for r in rows):
        line(
            "queries per realistic recall (min-max)",
            lambda r: f"{r['queries_per_recall_real_min']}-{r['queries_per_recall_real_max']}",
        )
    line("recall worker peak MB", lambda r: r["peak_mb"])
    if rows and "ingest_p50_ms" not in rows[0]:
        return "\n".join(lines) + "\n"
    line("ingest (3 objects) p50 ms", lambda r: r["ingest_p50_ms"])
    line(
        "rules ingest messages/s (per CPU s)",
        lambda r: (
            f"{r['ingest_messages_per_s']} ({r['ingest_messages_per_cpu_s']})"
            if "ingest_messages_per_s" in r
            else "-"
        ),
    )
    pages = list(rows[0]["page_ms"]) if rows else []
    for page in pages:
        line(
            f"{page.replace('_', ' ')} ms / CPU ms (queries)",
            lambda r, p=page: f"{r['page_ms'][p]} / {r['page_cpu_ms'][p]} ({r['page_queries'][p]})",
        )
    line("cleanup s / peak MB", lambda r: f"{r['cleanup_s']} / {r['cleanup_peak_mb']}")
    return "\n".join(lines) + "\n"


def write_markdown(path: str, section: str) -> None:
    """Append ``section`` to ``path`` (created with a heading if missing)."""
    exists = os.path.exists(path)
    with open(path, "a", encoding="utf-8") as out:
        if not exists:
            out.write(
                "# Benchmarks\n\nWritten by `make bench` (`python -m eval.bench`), newest "
                "last. Server times are in-process (Django's test client: middleware, view, "
                "template; no network).\n\n" + TARGETS + "\n\n"
            )
        out.write(section + "\n")


def _counts(text: str, flag: str, sizes: list[int], default: Any) -> list[int]:
    try:
        values = [int(s) for s in text.split(",") if s.strip()] or [default(n) for n in sizes]
    except ValueError:
        raise ValueError(f"{flag} takes whole numbers separated by commas") from None
    if len(values) != len(sizes) or min(values) < 0:
        raise ValueError(f"{flag} needs one count (0 or more) per size")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.import_export:
        return _main_import(parser, args)
    sizes, episodes, candidates, receipts = _sized_counts(parser, args)
    _setup_django()
    rows = run(
        sizes,
        episodes,
        args.queries,
        args.transcripts,
        args.seed,
        worker=True,
        on_row=lambda row: _show(row, as_json=args.json),
        candidates=candidates,
        receipts=receipts,
        owners=args.owners,
        messages=args.messages,
        real_queries=args.real_queries,
        recall_only=args.recall_only,
    )
    if args.markdown:
        command = "python -m eval.bench " + " ".join(argv if argv is not None else sys.argv[1:])
        write_markdown(args.markdown, markdown(rows, environment(), command.strip()))
    return 0


def _main_import(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--import-export C:M``: the import benchmark alone, one row."""
    try:
        conversations, messages = (int(n) for n in args.import_export.split(":"))
    except ValueError:
        parser.error("--import-export takes CONVERSATIONS:MESSAGES, e.g. 2000:54388")
    if conversations < 1 or messages < conversations:
        parser.error("--import-export needs at least one message per conversation")
    _setup_django()
    from django.db import connection

    row = {"backend": connection.vendor}
    row.update(bench_import(conversations, messages, args.seed, profile=args.import_profile))
    if args.json:
        print(json.dumps(row), flush=True)
    else:
        print(
            f"{row['backend']:<10} import of {row['import_conversations']:,} conversations, "
            f"{row['import_messages']:,} messages ({row['import_bytes']:,} bytes): "
            f"{row['import_messages_per_s']} messages/s wall, "
            f"{row['import_messages_per_cpu_s']} per CPU second; {row['import_s']} s "
            f"(CPU {row['import_cpu_s']} s), peak {row['import_peak_mb']} MB; receipts "
            f"{row['import_receipts']}; rows {row['import_rows']}",
            flush=True,
        )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--sizes", default="200,2000,10000", help="corpus sizes in nodes (comma list)"
    )
    parser.add_argument(
        "--episodes",
        default="",
        help="messages kept as episodes, one per size (comma list; default twice the nodes)",
    )
    parser.add_argument("--queries", type=int, default=90, help="recall calls per size")
    parser.add_argument("--transcripts", type=int, default=30, help="ingests per size")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object per size")
    parser.add_argument(
        "--candidates",
        default="",
        help="pending candidates, one per size (comma list; default a tenth of the nodes)",
    )
    parser.add_argument(
        "--receipts", default="", help="receipts, one per size (comma list; default the nodes)"
    )
    parser.add_argument(
        "--owners", type=int, default=2, help="other people with the same amount of data"
    )
    parser.add_argument(
        "--messages",
        type=int,
        default=5000,
        help="messages of the transcript timed through the rules extractor (0: none)",
    )
    parser.add_argument(
        "--real-queries",
        type=int,
        default=40,
        help="questions of each realistic set per size (first person, third person, "
        "paraphrases, never said)",
    )
    parser.add_argument(
        "--recall-only",
        action="store_true",
        help="time recall only (no pages, ingest, cleanup or history)",
    )
    parser.add_argument(
        "--import-export",
        default="",
        metavar="CONVERSATIONS:MESSAGES",
        help="only time importing a generated ChatGPT export of that size (e.g. 2000:54388)",
    )
    parser.add_argument("--import-profile", default="", help="cProfile statistics to this path")
    parser.add_argument(
        "--markdown", default="", help="append a dated table of the figures to this file"
    )
    return parser


def _sized_counts(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> tuple[list[int], list[int], list[int], list[int]]:
    """Sizes, and the episodes, candidates and receipts of each size (``parser.error`` on
    anything that is not a count)."""
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes takes whole numbers separated by commas")
    if not sizes or min(sizes) < 1 or args.queries < 1 or args.transcripts < 1:
        parser.error("sizes, --queries and --transcripts must be at least 1")
    try:
        episodes = [int(s) for s in args.episodes.split(",") if s.strip()] or [2 * s for s in sizes]
    except ValueError:
        parser.error("--episodes takes whole numbers separated by commas")
    if len(episodes) != len(sizes) or min(episodes) < 0:
        parser.error("--episodes needs one count (0 or more) per size")
    if args.owners < 0 or args.messages < 0 or args.real_queries < 0:
        parser.error("--owners, --messages and --real-queries must be 0 or more")
    try:
        candidates = _counts(args.candidates, "--candidates", sizes, lambda n: n // 10)
        receipts = _counts(args.receipts, "--receipts", sizes, lambda n: n)
    except ValueError as exc:
        parser.error(str(exc))
    return sizes, episodes, candidates, receipts


def _show(row: dict[str, Any], *, as_json: bool) -> None:
    """Print one size's row: as JSON, or as the lines a person reads."""
    if as_json:
        print(json.dumps(row), flush=True)
        return
    print(
        f"{row['backend']:<10} nodes={row['nodes']:<6} episodes={row['episodes']:<6} "
        f"recall p50={row['recall_p50_ms']} ms p95={row['recall_p95_ms']} ms "
        f"queries/recall={row['queries_per_recall_min']}..{row['queries_per_recall_max']}  "
        f"peak={row['peak_mb']} MB  "
        f"(seeded in {row['seed_s']} s, indexed in {row['index_s']} s)"
    )
    for kind in row["recall_p50_ms_by_kind"]:
        print(
            f"    {kind:<16} p50={row['recall_p50_ms_by_kind'][kind]} ms "
            f"p95={row['recall_p95_ms_by_kind'][kind]} ms"
        )
    for name in ("real", *SETS):
        if f"recall_{name}_p95_ms" in row:
            print(
                f"    {name:<16} p50={row[f'recall_{name}_p50_ms']} ms "
                f"p95={row[f'recall_{name}_p95_ms']} ms"
            )
    if "recall_real_cold_p95_ms" in row:
        print(
            f"    cold owner       p50={row['recall_real_cold_p50_ms']} ms "
            f"p95={row['recall_real_cold_p95_ms']} ms  (vector cache "
            f"{row['vector_cache_mb_per_person']} MB a person, {row['vector_cache_people']:,} "
            f"people in {row['vector_cache_mb']} MB)"
        )
    if "queries_per_recall_real_max" in row:
        print(
            f"    realistic queries/recall="
            f"{row['queries_per_recall_real_min']}..{row['queries_per_recall_real_max']}"
        )
    if "ingest_p50_ms" in row:
        _show_writes(row)
    sys.stdout.flush()


def _show_writes(row: dict[str, Any]) -> None:
    """The write path's and the pages' lines of :func:`_show`."""
    print(
        f"    ingest={row['ingest_per_s']} transcripts/s {row['ingest_outcomes']}  "
        f"history ingest {row['history_ingest_per_s_on']}/s on, "
        f"{row['history_ingest_per_s_off']}/s off; edit {row['history_edit_per_s_on']}/s "
        f"on, {row['history_edit_per_s_off']}/s off; rows per 1,000 writes: "
        f"{row['history_rows_per_1000_ingests']} an ingest (3 objects), "
        f"{row['history_rows_per_1000_edits']} an edit; snapshot "
        f"{row['history_snapshot_bytes_mean']} bytes on average"
    )
    print(
        f"    ingest p50={row['ingest_p50_ms']} ms  "
        + (
            f"rules ingest={row['ingest_messages_per_s']} messages/s "
            f"({row['ingest_messages_per_cpu_s']} per CPU second)  "
            if "ingest_messages_per_s" in row
            else ""
        )
        + f"cleanup={row['cleanup_s']} s peak={row['cleanup_peak_mb']} MB"
    )
    for page, ms in row["page_ms"].items():
        print(
            f"    {page:<24} {ms} ms  CPU {row['page_cpu_ms'][page]} ms  "
            f"queries={row['page_queries'][page]}"
        )


if __name__ == "__main__":
    sys.exit(main())
