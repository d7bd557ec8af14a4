"""``python -m eval.bench``: recall latency, queries per recall and ingest throughput.

Creates a throwaway owner per corpus size with a synthetic corpus (nodes with aliases,
current and superseded slices, dated and undated events, pages), runs a mix of recall
queries (exact, alias, lexical, profile, no match, smalltalk) and ingests transcripts of
proposals through :func:`memory.services.ingest.ingest_proposals`. Prints figures; asserts
nothing. Every owner it creates is deleted afterwards, also when it fails.

Runs against the configured database (``DATABASE_URL``; SQLite in the project folder by
default), which it migrates first.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime
from typing import Any

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
CATEGORIES = ["project", "tool", "skill", "habit", "person", "interest", "health", "goal"]


def _setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ume.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def _label(rng: random.Random, i: int) -> str:
    return f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()} {i}"


def seed_corpus(owner: Any, size: int, rng: random.Random) -> list[dict[str, str]]:
    """``size`` nodes with their details; returns what the queries can ask about."""
    from memory.keys import canonical_key
    from memory.models import Alias, Event, Node, Page, Slice

    now = datetime.now(UTC)
    nodes = [
        Node(
            owner=owner,
            label=(label := _label(rng, i)),
            canonical_key=canonical_key(label),
            category=CATEGORIES[i % len(CATEGORIES)],
            state="active" if i % 5 else "paused",
            summary=f"{rng.choice(WORDS)} {rng.choice(WORDS)} notes for item {i}",
        )
        for i in range(size)
    ]
    Node.objects.bulk_create(nodes, batch_size=500)
    nodes = list(Node.objects.filter(owner=owner).order_by("id"))
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


def query_mix(facts: list[dict[str, str]], count: int, rng: random.Random) -> list[tuple[str, str]]:
    """``count`` queries as ``(kind, query)``; kinds name the path recall takes."""
    with_alias = [f for f in facts if f["alias"]]
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
        ("smalltalk", lambda: "thanks!"),
    ]
    return [(makers[i % len(makers)][0], makers[i % len(makers)][1]()) for i in range(count)]


def bench_recall(owner: Any, queries: list[tuple[str, str]]) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memory.recall import recall

    timings, counts = [], []
    by_kind: dict[str, list[float]] = {}
    for kind, query in queries:
        with CaptureQueriesContext(connection) as ctx:
            started = time.perf_counter()
            recall(owner, query)
            elapsed = (time.perf_counter() - started) * 1000
        timings.append(elapsed)
        by_kind.setdefault(kind, []).append(elapsed)
        counts.append(len(ctx.captured_queries))
    timings.sort()
    return {
        "recall_p50_ms": round(statistics.median(timings), 2),
        "recall_p95_ms": round(timings[max(0, int(0.95 * len(timings)) - 1)], 2),
        "recall_p50_ms_by_kind": {
            kind: round(statistics.median(values), 2) for kind, values in by_kind.items()
        },
        "queries_per_recall_max": max(counts),
        "queries_per_recall_min": min(counts),
    }


def bench_ingest(owner: Any, count: int, rng: random.Random) -> dict[str, float]:
    from memory.models import MemoryRule
    from memory.services.ingest import ingest_proposals

    MemoryRule.objects.update_or_create(owner=owner, defaults={"capture_default": "auto"})
    started = time.perf_counter()
    outcomes: dict[str, int] = {}
    for i in range(count):
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
        outcome = str(receipt.outcome)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    elapsed = time.perf_counter() - started
    return {
        "ingest_transcripts": count,
        "ingest_per_s": round(count / elapsed, 1) if elapsed else 0.0,
        "ingest_outcomes": outcomes,  # type: ignore[dict-item]
    }


def run(sizes: list[int], queries: int, transcripts: int, seed: int) -> list[dict[str, Any]]:
    from django.contrib.auth import get_user_model
    from django.db import connection

    user_model = get_user_model()
    rows = []
    for size in sizes:
        rng = random.Random(seed + size)
        owner = user_model.objects.create_user(
            username=f"bench-{uuid.uuid4().hex[:12]}", password=None
        )
        try:
            started = time.perf_counter()
            facts = seed_corpus(owner, size, rng)
            seeded = time.perf_counter() - started
            row: dict[str, Any] = {
                "backend": connection.vendor,
                "nodes": size,
                "seed_s": round(seeded, 2),
            }
            row.update(bench_recall(owner, query_mix(facts, queries, rng)))
            row.update(bench_ingest(owner, transcripts, rng))
            rows.append(row)
        finally:
            user_model.objects.filter(pk=owner.pk).delete()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--sizes", default="200,2000,10000", help="corpus sizes in nodes (comma list)"
    )
    parser.add_argument("--queries", type=int, default=70, help="recall calls per size")
    parser.add_argument("--transcripts", type=int, default=30, help="ingests per size")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object per size")
    args = parser.parse_args(argv)
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes takes whole numbers separated by commas")
    if not sizes or min(sizes) < 1 or args.queries < 1 or args.transcripts < 1:
        parser.error("sizes, --queries and --transcripts must be at least 1")
    _setup_django()
    rows = run(sizes, args.queries, args.transcripts, args.seed)
    for row in rows:
        if args.json:
            print(json.dumps(row))
            continue
        print(
            f"{row['backend']:<10} nodes={row['nodes']:<6} "
            f"recall p50={row['recall_p50_ms']} ms p95={row['recall_p95_ms']} ms "
            f"queries/recall={row['queries_per_recall_min']}..{row['queries_per_recall_max']}  "
            f"p50 by kind={row['recall_p50_ms_by_kind']}  "
            f"ingest={row['ingest_per_s']} transcripts/s {row['ingest_outcomes']}  "
            f"(seeded in {row['seed_s']} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
