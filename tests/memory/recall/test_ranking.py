"""Pure ranking: named lane first, lexical after it with a floor, the identity guard, and
the context an assistant reads. No database."""

from __future__ import annotations

from memory.recall.items import WHY_EXACT, Candidates, Doc, OwnerIndex, RecallItem
from memory.recall.query import REASON_MATCHED, REASON_NO_MATCH, parse_query
from memory.recall.ranking import SEMANTIC_FLOOR, build_context, fuse, rank


def node(doc_id: int, label: str, *fields: tuple[str, str]) -> Doc:
    doc = Doc("node", doc_id, label, label.lower(), category="project", state="active")
    doc.fields = [("label", label), *fields]
    return doc


def index_of(*docs: Doc) -> OwnerIndex:
    return OwnerIndex(docs=list(docs), names={d.key: [(d, WHY_EXACT)] for d in docs})


def test_named_identity_first_and_its_twin_never_returned() -> None:
    uml = node(1, "UML")
    society = node(2, "UML College Society", ("summary", "student society"))
    items, reason = rank(index_of(uml, society), parse_query("what do you know about UML"))
    assert reason == REASON_MATCHED
    assert [i.label for i in items] == ["UML"]
    assert items[0].why == "exact"


def test_lexical_and_semantic_candidates_follow_the_named_lane_with_their_lanes_in_why() -> None:
    atlas = node(1, "Atlas", ("slice", "the export feature ships on friday"))
    kiln = node(2, "Kiln", ("slice", "pottery class on thursdays"))
    swim = node(3, "Swimming", ("slice", "at the lido every morning"))
    index = OwnerIndex(docs=[atlas, kiln, swim], names={}, complete=False)
    candidates = Candidates(
        lexical={("node", 1): 4.0, ("node", 2): 0.5},  # Kiln is below the relative floor
        semantic={("node", 1): 0.5, ("node", 3): 0.45, ("node", 2): 0.1},  # 0.1: noise
    )
    items, reason = rank(index, parse_query("when does the export ship"), candidates)
    assert reason == REASON_MATCHED
    assert [(i.label, i.why) for i in items] == [
        ("Atlas", "lexical+semantic"),
        ("Swimming", "semantic"),
    ]
    none, reason = rank(index, parse_query("tell me about sailing"), Candidates())
    assert none == [] and reason == REASON_NO_MATCH


def test_fusion_is_reciprocal_rank_with_ties_sharing_a_rank() -> None:
    fused = fuse(
        Candidates(
            lexical={("node", 1): 2.0, ("node", 2): 2.0, ("node", 3): 1.0},
            semantic={("node", 3): 0.9, ("node", 4): 0.8},
        )
    )
    # Node 3: lexical rank 3, semantic rank 1: the best fused score.
    assert fused[("node", 3)] == (1.0, ("lexical", "semantic"))
    assert fused[("node", 1)][0] == fused[("node", 2)][0]  # tied lexical scores
    assert fused[("node", 1)][0] < 1.0 and fused[("node", 1)][1] == ("lexical",)
    assert fused[("node", 4)][1] == ("semantic",)


def test_semantic_floors_keep_weak_matches_out() -> None:
    assert fuse(Candidates(semantic={("node", 1): SEMANTIC_FLOOR - 0.01})) == {}
    best = 0.6
    kept = fuse(Candidates(semantic={("node", 1): best, ("node", 2): 0.5 * best}))
    assert set(kept) == {("node", 1)}


def test_identity_guard_holds_in_the_fused_lanes() -> None:
    uml = node(1, "UML")
    society = node(2, "UML College Society", ("summary", "student society exam results"))
    index = OwnerIndex(docs=[uml, society], names={"uml": [(uml, WHY_EXACT)]}, complete=False)
    candidates = Candidates(lexical={("node", 2): 3.0}, semantic={("node", 2): 0.7})
    items, _ = rank(index, parse_query("UML exam results"), candidates)
    assert [i.label for i in items] == ["UML"]


def test_a_person_sharing_a_first_name_never_answers_for_the_one_named() -> None:
    park = node(1, "Lena Park")
    fischer = node(2, "Lena Fischer", ("slice", "signed off the schema migration"))
    street = node(3, "Park Street Project", ("slice", "migration of the billing service"))
    names = {"lena park": [(park, WHY_EXACT)]}
    index = OwnerIndex(docs=[park, fischer, street], names=names, complete=False)
    candidates = Candidates(
        lexical={("node", 2): 3.0, ("node", 3): 2.0}, semantic={("node", 2): 0.7}
    )
    items, _ = rank(index, parse_query("what did Lena Park say about the migration"), candidates)
    assert [i.label for i in items] == ["Lena Park"]
    # a memory whose whole name the question says is asked about, whatever words it shares
    items, _ = rank(
        index, parse_query("Lena Park and the Park Street Project migration"), candidates
    )
    assert [i.label for i in items] == ["Lena Park", "Park Street Project"]


def test_build_context_clips_the_first_line_that_does_not_fit() -> None:
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
