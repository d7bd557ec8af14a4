"""``eval.bench`` at a tiny size: every lane is measured, queries per recall stay bounded,
and the throwaway owner is gone afterwards. Nothing here is timed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from eval.bench import bench_recall, environment, main, markdown, run
from memory.models import Candidate, Episode, Node, RecallDoc, Receipt
from memory.recall import recall
from tests.factories import make_node

pytestmark = pytest.mark.django_db


def test_bench_runs_every_kind_at_a_tiny_size() -> None:
    (row,) = run([12], [30], queries=20, transcripts=2, seed=3)
    assert row["nodes"] == 12 and row["episodes"] == 30
    kinds = {"named", "lexical", "semantic", "profile", "episodes", "smalltalk"}
    assert set(row["recall_p50_ms_by_kind"]) == kinds
    assert set(row["recall_p95_ms_by_kind"]) == kinds
    # A constant number of queries per recall, whatever the size (the test suite pins each
    # path): at most the lexical path's 12 (name lookup 3, statistics 1, postings 3, vectors
    # 1, candidates 3, events 1) and the episode lane's 8.
    assert 0 <= row["queries_per_recall_min"] <= row["queries_per_recall_max"] <= 20
    assert row["ingest_outcomes"] == {"wrote": 2}
    # History: an ingest of a node, a fact and an event records three revisions, an edit one;
    # rows are counted from the writes made with recording on.
    assert row["history_rows_per_1000_ingests"] == 3000
    assert row["history_rows_per_1000_edits"] == 1000
    assert row["history_ingest_per_s_on"] > 0 and row["history_ingest_per_s_off"] > 0
    assert 0 < row["history_snapshot_bytes_mean"] < 1000
    assert row["peak_mb"] > 0
    assert not get_user_model().objects.filter(username__startswith="bench-").exists()
    assert not Node.objects.exists() and not Episode.objects.exists()
    assert not RecallDoc.objects.exists()


def test_bench_counts_every_query_of_a_recall(owner: Any) -> None:
    make_node(owner=owner, label="Kayak club", category="interest")
    for question in ("Kayak club", "what do you know about the kayak club", "thanks!"):
        recall(owner, question)  # warm: the vectors are cached as in the bench's worker
        with CaptureQueriesContext(connection) as captured:
            recall(owner, question)
        row = bench_recall(owner, [("any", question)])
        assert row["queries_per_recall_max"] == len(captured.captured_queries), question
    assert bench_recall(owner, [("any", "Kayak club")])["queries_per_recall_max"] > 0


def test_bench_times_pages_the_rules_ingest_and_cleanup_with_other_owners(tmp_path: Path) -> None:
    (row,) = run(
        [12],
        [30],
        queries=9,
        transcripts=1,
        seed=3,
        candidates=[6],
        receipts=[10],
        owners=1,
        messages=20,
    )
    assert row["owners"] == 2 and row["candidates"] == 6 and row["receipts"] == 10
    pages = {
        "review_queue",
        "review_queue_filtered",
        "review_all",
        "review_by_subject",
        "review_by_category",
        "review_by_conversation",
        "saves",
        "saves_filtered",
        "memory_browser",
        "memory_browser_filtered",
        "search",
        "node_page",
        "graph",
        "graph_filtered",
    }
    assert set(row["page_ms"]) == set(row["page_cpu_ms"]) == set(row["page_queries"]) == pages
    assert row["transcript_messages"] == 20 and row["ingest_messages_per_s"] > 0
    # Half the seeded candidates were past their date: cleanup expired them.
    assert row["cleanup_counts"]["candidates_expired"] == 3
    section = markdown([row], environment(), "python -m eval.bench --sizes 12")
    assert "| review queue ms / CPU ms (queries) |" in section and "12 nodes" in section
    # every lane on its own line, and the recall worker's memory
    for kind in ("named", "lexical", "semantic", "profile", "episodes", "smalltalk"):
        assert f"| recall, {kind}: p50 / p95 ms |" in section
    assert f"| recall worker peak MB | {row['peak_mb']} |" in section
    # Every person it created is gone, with their rows.
    assert not get_user_model().objects.filter(username__startswith="bench-").exists()
    assert not Candidate.objects.exists() and not Receipt.objects.exists()


def test_bench_flags_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--sizes", "10,20", "--episodes", "5"])
    assert "one count (0 or more) per size" in capsys.readouterr().err


def test_a_spawned_workers_peak_memory_is_its_own_not_the_bench_that_started_it() -> None:
    """The recall worker's peak is read in a process spawned by the bench, which has seeded
    the store and is large: Linux's ``ru_maxrss`` there keeps the larger of the two."""
    import multiprocessing

    from eval.bench import _peak_mb

    ballast = b"x" * (400 * 1024 * 1024)  # written, so resident
    assert _peak_mb() >= 400
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        worker = pool.apply(_peak_mb)
    assert 0 < worker < 300
    del ballast


def test_realistic_questions_are_six_to_twenty_words_about_the_corpus() -> None:
    import random

    from eval.bench_corpus import NEVER_NAMES, NEVER_PLACES, SETS, conversations, question_sets

    corpus = conversations(600, random.Random(5), words=["amber", "cedar"])
    assert sum(len(c) for c in corpus.conversations) == 600
    said = " ".join(text for c in corpus.conversations for _role, text in c)
    questions = list(question_sets(corpus, 25, random.Random(6)))
    assert {name for name, _q in questions} == set(SETS)
    assert all(6 <= len(q.split()) <= 20 for _name, q in questions)
    first = [q for name, q in questions if name == "real_first"]
    assert all({"i", "my", "me"} & set(q.lower().split()) for q in first)
    # the never-said questions name someone or somewhere no message mentions
    for question in (q for name, q in questions if name == "real_never"):
        unknown = [w for w in question.split() if w in NEVER_NAMES or w in NEVER_PLACES]
        assert unknown and not any(w in said for w in unknown), question


def test_bench_times_the_realistic_sets_beside_the_mix() -> None:
    (row,) = run([12], [200], queries=9, transcripts=1, seed=3, real_queries=3, recall_only=True)
    for name in ("real", "real_first", "real_third", "real_paraphrase", "real_never"):
        assert row[f"recall_{name}_p50_ms"] <= row[f"recall_{name}_p95_ms"]
    assert row["recall_real_questions"] == 12
    # and for a person whose vectors the worker does not hold
    assert row["recall_real_cold_p50_ms"] <= row["recall_real_cold_p95_ms"]
    assert row["vector_cache_mb_per_person"] > 0 and row["vector_cache_people"] > 0
    assert 0 < row["queries_per_recall_real_min"] <= row["queries_per_recall_real_max"] <= 20
    assert "ingest_p50_ms" not in row and "page_ms" not in row  # recall only
    section = markdown([row], environment(), "python -m eval.bench --recall-only")
    assert "| recall, real first: p50 / p95 ms |" in section
    assert not get_user_model().objects.filter(username__startswith="bench-").exists()


def test_the_generated_export_is_chatgpts_shape_with_exactly_the_messages_asked() -> None:
    import io
    import json
    import random

    from eval.bench_export import chatgpt_conversations
    from memory.imports.formats import CHATGPT, Conversation, detect_format, iter_export

    items = list(chatgpt_conversations(7, 60, random.Random(3)))
    data = json.dumps(items).encode()
    assert detect_format(io.BytesIO(data), name="conversations.json", max_element_bytes=10**7) == (
        CHATGPT
    )
    read = [
        c
        for _position, c in iter_export(
            io.BytesIO(data), fmt=CHATGPT, name="conversations.json", max_element_bytes=10**7
        )
        if isinstance(c, Conversation)
    ]
    assert len(read) == 7 and sum(len(c.messages) for c in read) == 60
    assert {m["role"] for c in read for m in c.messages} == {"user", "assistant"}
    assert all(c.skipped == {"system": 1} for c in read)  # the hidden system message


def test_the_import_bench_imports_every_message_and_cleans_up(tmp_path: Path) -> None:
    from eval.bench import bench_import

    row = bench_import(4, 30, seed=2, folder=str(tmp_path), worker=False)
    assert row["import_conversations"] == 4 and row["import_messages"] == 30
    assert sum(row["import_receipts"].values()) == 4  # one receipt per conversation
    assert row["import_rows"]["recall_docs"] >= 30 and row["import_messages_per_s"] > 0
    assert not get_user_model().objects.filter(username__startswith="bench-").exists()
    assert not Episode.objects.exists()
