"""Pure ranking: named lane first, lexical after it with a floor, the identity guard, and
the context an assistant reads. No database."""

from __future__ import annotations

from memory.recall.items import WHY_EXACT, Doc, OwnerIndex, RecallItem
from memory.recall.query import REASON_MATCHED, REASON_NO_MATCH, parse_query
from memory.recall.ranking import build_context, rank


def node(doc_id: int, label: str, *fields: tuple[str, str]) -> Doc:
    doc = Doc("node", doc_id, label, label.lower(), category="project", state="active")
    doc.fields = [("label", label), *fields]
    return doc


def index_of(*docs: Doc) -> OwnerIndex:
    return OwnerIndex(docs=list(docs), names={d.key: [(d, WHY_EXACT)] for d in docs})


def test_named_identity_first_and_its_twin_never_returned():
    uml = node(1, "UML")
    society = node(2, "UML College Society", ("summary", "student society"))
    items, reason = rank(index_of(uml, society), parse_query("what do you know about UML"))
    assert reason == REASON_MATCHED
    assert [i.label for i in items] == ["UML"]
    assert items[0].why == "exact"


def test_lexical_matches_follow_and_nothing_unrelated_is_returned():
    atlas = node(1, "Atlas", ("slice", "the export feature ships on friday"))
    kiln = node(2, "Kiln", ("slice", "pottery class on thursdays"))
    items, _ = rank(index_of(atlas, kiln), parse_query("when does the export ship"))
    assert [(i.label, i.why) for i in items] == [("Atlas", "lexical")]
    none, reason = rank(index_of(atlas, kiln), parse_query("tell me about sailing"))
    assert none == [] and reason == REASON_NO_MATCH


def test_build_context_clips_the_first_line_that_does_not_fit():
    items = [
        RecallItem("node", 1, "Atlas", "project", "active", "exact", 1.0, summary="a tool"),
        RecallItem("node", 2, "Kiln", "interest", "active", "lexical", 0.5, summary="pots"),
    ]
    full, truncated = build_context(items, 1000)
    assert full.splitlines() == [
        "Atlas (project, active) - a tool",
        "Kiln (interest, active) - pots",
    ]
    assert truncated is False
    clipped, truncated = build_context(items, 40)
    assert truncated is True and clipped.endswith("…") and len(clipped) <= 40
