"""The pure lanes: names found in a query, BM25 over field-weighted terms, the profile lane.
No database: documents are built by hand."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memory.recall.items import WHY_ALIAS, WHY_EXACT, CorpusStats, Doc, OwnerIndex
from memory.recall.lanes import bm25, bm25_postings, named_spans, profile_lane


def node(doc_id: int, label: str, *fields: tuple[str, str], **extra: Any) -> Doc:
    doc = Doc("node", doc_id, label, label.lower(), **extra)
    doc.fields = [("label", label), *fields]
    return doc


def test_named_spans_take_the_longest_name_and_never_overlap() -> None:
    uml = node(1, "UML")
    society = node(2, "UML College Society")
    names = {"uml": [(uml, WHY_ALIAS)], "uml college society": [(society, WHY_EXACT)]}
    spans = named_spans("the uml college society meeting".split(), names)
    assert [s.key for s in spans] == ["uml college society"]
    assert [s.key for s in named_spans("uml and stuff".split(), names)] == ["uml"]


def test_a_name_made_only_of_stop_words_is_not_a_span() -> None:
    doc = node(1, "The Who")
    assert named_spans(["the", "who"], {"the who": [(doc, WHY_EXACT)]}) == []


def test_bm25_scores_matching_documents_and_stems() -> None:
    swim = node(1, "Swimming", ("slice", "swims at the lido every morning"))
    tax = node(2, "Marta", ("summary", "my accountant, does the yearly tax return"))
    scores = bm25([swim, tax], ["swim", "morn"], [])
    assert set(scores) == {0}
    assert scores[0] > 0


def test_bm25_needs_enough_of_the_query_weight() -> None:
    boots = node(1, "Best man speech", ("summary", "speech for the wedding"))
    other = node(2, "Kiln", ("summary", "pottery firing schedule"))
    third = node(3, "Hiking club", ("summary", "weekend walks"))
    # "best" alone is a small share of "best hiking boots waterproof": no match for doc 0.
    scores = bm25([boots, other, third], ["best", "hike", "boot", "waterproof"], [])
    assert 0 not in scores


def test_bm25_named_terms_count_for_coverage_only() -> None:
    doc = node(1, "Atlas", ("slice", "the atlas export ships friday"))
    other = node(2, "Kiln", ("slice", "pottery class"))
    assert bm25([doc, other], [], ["atla"]) == {}
    assert bm25([doc, other], ["export"], ["atla"])[0] > 0


def test_bm25_over_postings_weighs_words_by_how_many_documents_hold_them() -> None:
    # (term, kind, ref_id, tf, length): "kayak" in two documents, "lake" in one
    postings = [
        ("kayak", "node", 1, 1.0, 6.0),
        ("lake", "node", 1, 2.0, 6.0),
        ("kayak", "page", 1, 1.0, 4.0),
    ]
    stats = CorpusStats(docs=100, total_length=500.0)
    counted = bm25_postings(postings, stats, ["kayak", "lake"], [], min_share=0.0)
    # a node and a page with the same id are two documents; the one with both words leads
    assert set(counted) == {("node", 1), ("page", 1)}
    assert counted[("node", 1)] > counted[("page", 1)]
    # read from the index, "kayak" is in 60 of the 100 documents: it weighs less than the
    # two postings here say, and the page that only holds "kayak" scores less
    known = bm25_postings(postings, stats, ["kayak", "lake"], [], df={"kayak": 60}, min_share=0.0)
    assert known[("page", 1)] < counted[("page", 1)]
    assert known[("node", 1)] < counted[("node", 1)]
    # with the share of the question a document must hold, a page with only "kayak" is out
    assert ("page", 1) not in bm25_postings(
        postings, stats, ["kayak", "lake"], [], df={"kayak": 60}
    )
    assert bm25_postings(postings, stats, [], ["kayak"]) == {}


def test_profile_lane_puts_active_and_recent_first() -> None:
    old = node(1, "Kiln", category="interest", state="active")
    old.last_seen_at = datetime(2026, 1, 1, tzinfo=UTC)
    new = node(2, "Wheel", category="interest", state="active")
    new.last_seen_at = datetime(2026, 3, 1, tzinfo=UTC)
    paused = node(3, "Archery", category="interest", state="paused")
    health = node(4, "Asthma", category="health", state="active")
    index = OwnerIndex(docs=[old, new, paused, health], names={})
    items = profile_lane(index, ("interest",), False)
    assert [i.label for i in items] == ["Wheel", "Kiln", "Archery"]
    assert all(i.why == "profile" for i in items)
    assert len(profile_lane(index, (), True)) == 4
