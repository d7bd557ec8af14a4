"""Recall's index kept in step with every write: postings, lengths, statistics and vectors,
the same as a rebuild after any sequence of writes, scoped to the owner, and the ``reindex``
command."""

from __future__ import annotations

import json
from collections import Counter
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from memory.models import MemoryRule, Node, RecallDoc, RecallStats, RecallTerm, RecallTermCount
from memory.recall import recall, vectors
from memory.recall.embed import DIM, MODEL_NAME
from memory.recall.loaders import recall_index_stale
from memory.services.erase import memory_erase_all, receipt_undo
from memory.services.ingest import ingest_proposals
from memory.services.nodes import alias_add, alias_remove, node_delete, node_update
from memory.services.recall_index import recall_index_rebuild, recall_index_refresh
from memory.services.review import candidate_promote
from tests.factories import make_candidate, make_node, make_page, make_slice

pytestmark = pytest.mark.django_db


def ev(quote: str) -> list[dict]:
    return [{"message_id": "M0", "quote": quote}]


DOC = [
    {
        "object": "node",
        "label": "Kestrel",
        "category": "project",
        "confidence": 0.95,
        "evidence": ev("I'm building Kestrel"),
    },
    {
        "object": "slice",
        "on": "Kestrel",
        "kind": "technical_detail",
        "text": "the telemetry pipeline runs on Kafka",
        "confidence": 0.9,
        "evidence": ev("Kestrel's telemetry pipeline runs on Kafka"),
    },
]


def index_state(owner: Any) -> dict:
    """The owner's index as comparable rows (the version is random by design: left out)."""
    return {
        "docs": sorted(
            RecallDoc.objects.for_owner(owner).values_list(
                "kind", "ref_id", "length", "model", "vector", "words"
            )
        ),
        "terms": sorted(
            RecallTerm.objects.for_owner(owner).values_list(
                "term", "kind", "ref_id", "tf", "length"
            )
        ),
        "counts": sorted(
            RecallTermCount.objects.for_owner(owner).values_list("term", "kind", "docs")
        ),
        # A corpus without a statistics row and one with zero documents are the same.
        "stats": {
            corpus: (docs, length)
            for corpus, docs, length in RecallStats.objects.for_owner(owner).values_list(
                "corpus", "docs", "total_length"
            )
            if docs or length
        },
    }


def labels(owner: Any, query: str) -> list[str]:
    return [item.label for item in recall(owner, query).items]


@pytest.fixture
def auto(owner: User) -> Any:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    return owner


def test_an_ingest_is_searchable_by_its_details_at_once(auto: Any) -> None:
    ingest_proposals(owner=auto, objects=DOC, name="chat.json", source="upload")
    result = recall(auto, "what runs the telemetry")
    assert [i.label for i in result.items] == ["Kestrel"]
    assert "lexical" in result.items[0].why


def test_every_write_path_keeps_the_index_equal_to_a_rebuild(auto: Any) -> None:
    receipt = ingest_proposals(owner=auto, objects=DOC, name="chat.json", source="upload")
    node = Node.objects.for_owner(auto).get(label="Kestrel")
    node_update(node=node, label="Kestrel Telemetry", summary="streams device metrics")
    alias = alias_add(node=node, alias="KT")
    boxing = make_node(owner=auto, label="Boxing", category="skill")
    make_slice(node=boxing, text="spars on Thursday evenings")
    make_page(owner=auto, title="Sparring notes", summary="footwork drills", node=boxing)
    alias_remove(alias=alias)
    candidate_promote(candidate=make_candidate(owner=auto, label="Chess"), by=auto)
    node_delete(node=boxing)
    receipt_undo(receipt=receipt)
    kept = index_state(auto)
    recall_index_rebuild(owner_id=auto.pk)
    assert index_state(auto) == kept
    assert kept["stats"]["memory"][0] == Node.objects.for_owner(auto).count() + 1  # + page
    assert kept["counts"] == counted_postings(auto)


def counted_postings(owner: Any) -> list[tuple[str, str, int]]:
    """The document frequencies as a count of the postings: what the kept counts must be."""
    per: Counter[tuple[str, str]] = Counter(
        RecallTerm.objects.for_owner(owner).values_list("term", "kind")
    )
    return sorted((term, kind, n) for (term, kind), n in per.items())


def test_document_frequencies_follow_every_write_and_vanish_at_zero(
    owner: User, other_user: User
) -> None:
    kiln = make_node(owner=owner, label="Kiln", category="interest", summary="fires pots")
    make_slice(node=kiln, text="glaze firing every other week")
    wheel = make_node(owner=owner, label="Wheel", category="interest", summary="throws pots")
    make_node(owner=other_user, label="Pots", category="interest", summary="pots and pots")
    counts = dict(
        (term, docs)
        for term, kind, docs in RecallTermCount.objects.for_owner(owner).values_list(
            "term", "kind", "docs"
        )
        if kind == "node"
    )
    assert counts["pot"] == 2 and counts["glaze"] == 1
    assert sorted(RecallTermCount.objects.for_owner(owner).values_list("term", "kind", "docs")) == (
        counted_postings(owner)
    )
    node_delete(node=kiln)
    assert RecallTermCount.objects.for_owner(owner).get(term="pot").docs == 1
    assert not RecallTermCount.objects.for_owner(owner).filter(term="glaze").exists()
    node_delete(node=wheel)
    assert not RecallTermCount.objects.for_owner(owner).exists()
    # the other person's counts are theirs alone
    assert RecallTermCount.objects.for_owner(other_user).get(term="pot").docs == 1


def test_statistics_count_documents_and_their_weighted_length(owner: User) -> None:
    node = make_node(owner=owner, label="Kiln", category="interest", summary="fires pots")
    # label (3 x 1 word) + summary (1.5 x 2 words) + category (1 x 1 word)
    assert RecallDoc.objects.for_owner(owner).get(kind="node", ref_id=node.pk).length == 7.0
    memory = RecallStats.objects.for_owner(owner).get(corpus="memory")
    assert (memory.docs, memory.total_length) == (1, 7.0)
    before = memory.version
    node_delete(node=node)
    memory.refresh_from_db()
    assert (memory.docs, memory.total_length) == (0, 0.0)
    assert memory.version != before
    assert not RecallTerm.objects.for_owner(owner).exists()


def test_a_deleted_row_never_comes_back_even_before_its_document_is_removed(owner: User) -> None:
    node = make_node(owner=owner, label="Kiln", category="interest")
    make_slice(node=node, text="glaze firing every other week")
    assert labels(owner, "when is the glaze firing") == ["Kiln"]
    Node.objects.filter(pk=node.pk).delete()  # a raw delete: no service, no index write
    assert labels(owner, "when is the glaze firing") == []


def test_another_owners_index_is_never_read(owner: User, other_user: User) -> None:
    theirs = make_node(owner=other_user, label="Harbour", category="place")
    make_slice(node=theirs, text="moored the sailing boat at the marina")
    mine = make_node(owner=owner, label="Allotment", category="interest")
    make_slice(node=mine, text="grows beans and courgettes")
    assert labels(owner, "where is the sailing boat moored") == []
    assert labels(other_user, "where is the sailing boat moored") == ["Harbour"]
    assert labels(owner, "what vegetables do I grow") == ["Allotment"]


def test_the_semantic_lane_finds_a_memory_in_other_words(owner: User) -> None:
    make_node(owner=owner, label="Dr Okoro", category="person", summary="The dentist in Graca.")
    make_node(owner=owner, label="Gus", category="interest", summary="Sourdough starter.")
    result = recall(owner, "who looks after my teeth")
    assert [i.label for i in result.items] == ["Dr Okoro"]
    assert result.items[0].why == "semantic"


def test_cached_vectors_follow_every_write(owner: User) -> None:
    vectors.clear()
    make_node(owner=owner, label="Gus", category="interest", summary="Sourdough starter.")
    assert labels(owner, "who looks after my teeth") == []  # caches the owner's vectors
    make_node(owner=owner, label="Dr Okoro", category="person", summary="The dentist in Graca.")
    assert labels(owner, "who looks after my teeth") == ["Dr Okoro"]


def test_vectors_of_another_model_are_detected_and_never_mixed(owner: User) -> None:
    node = make_node(owner=owner, label="Dr Okoro", category="person", summary="The dentist.")
    RecallDoc.objects.for_owner(owner).filter(ref_id=node.pk).update(model="some-other-model")
    recall_index_refresh(owner_id=owner.pk)  # nothing to refresh: the version stays
    RecallStats.objects.for_owner(owner).update(version=12345)  # as after any other write
    assert recall_index_stale(owner) == 1
    assert labels(owner, "who looks after my teeth") == []
    out = StringIO()
    call_command("reindex", "--user", owner.username, "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["stale_before"] == 1
    assert report["model"] == MODEL_NAME and report["documents"]["node"] == 1
    assert recall_index_stale(owner) == 0
    assert labels(owner, "who looks after my teeth") == ["Dr Okoro"]


def test_delete_all_empties_the_index(auto: Any) -> None:
    ingest_proposals(owner=auto, objects=DOC, name="chat.json", source="upload")
    memory_erase_all(owner=auto)
    assert not RecallDoc.objects.for_owner(auto).exists()
    assert not RecallTerm.objects.for_owner(auto).exists()
    assert not RecallTermCount.objects.for_owner(auto).exists()
    assert set(RecallStats.objects.for_owner(auto).values_list("docs", flat=True)) == {0}


def test_reindex_command_everyone_and_errors(owner: User, other_user: User) -> None:
    make_node(owner=owner, label="Kiln", category="interest")
    make_node(owner=other_user, label="Harbour", category="place")
    RecallTerm.objects.all().delete()
    out = StringIO()
    call_command("reindex", stdout=out)
    text = out.getvalue()
    assert "owner: 1 nodes, 0 pages, 0 episodes indexed" in text
    assert "other: 1 nodes" in text
    assert labels(owner, "kiln") == ["Kiln"]
    with pytest.raises(CommandError, match="no user 'nobody'"):
        call_command("reindex", "--user", "nobody")


def test_rebuild_reports_progress(owner: User) -> None:
    for i in range(3):
        make_node(owner=owner, label=f"Topic {i}", category="interest")
    seen: list[tuple[int, int]] = []
    recall_index_rebuild(owner_id=owner.pk, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (3, 3)


def test_the_vector_cache_reads_only_what_was_written_since_and_everything_after_a_removal(
    owner: User,
) -> None:
    from memory.recall.loaders import load_stats
    from memory.recall.vectors import load_vectors

    def current() -> Any:
        return load_vectors(
            owner.pk, "memory", load_stats(owner)["memory"], model=MODEL_NAME, dim=DIM
        )

    vectors.clear()
    kiln = make_node(owner=owner, label="Kiln", category="interest", summary="fires pots")
    wheel = make_node(owner=owner, label="Wheel", category="interest")
    first = current()
    assert first.size == 2 and current() is first  # same version: the cache
    make_node(owner=owner, label="Glaze", category="interest")
    grown = current()
    assert grown is first and grown.size == 3  # only the new document was read
    before = grown.full[[grown.refs[i] for i in range(grown.size)].index(("node", kiln.pk))].copy()
    node_update(node=kiln, summary="an electric kiln for stoneware")
    rewritten = current()
    assert rewritten is first and rewritten.size == 3
    row = [rewritten.refs[i] for i in range(rewritten.size)].index(("node", kiln.pk))
    assert not (rewritten.full[row] == before).all()  # the new vector replaced the old one
    node_delete(node=wheel)
    reread = current()
    assert reread is not first and reread.size == 2  # a removal: the corpus read again
    assert ("node", wheel.pk) not in [reread.refs[i] for i in range(reread.size)]


def test_an_episode_keeps_its_stem_line_in_the_saves_transaction(auto: Any) -> None:
    from memory.models import Episode
    from memory.recall.text import stem_line
    from memory.services.ingest import ingest_text

    ingest_text(
        owner=auto,
        text="User: My sister Maya is moving to Lisbon in June.\nAssistant: That is a big move.",
        name="chat",
    )
    texts = dict(Episode.objects.for_owner(auto).values_list("id", "text"))
    docs = RecallDoc.objects.for_owner(auto).filter(kind="episode")
    assert {ref: words for ref, words in docs.values_list("ref_id", "words")} == {
        pk: stem_line(text) for pk, text in texts.items()
    }
    assert "maya" in docs.get(ref_id=min(texts)).words.split()
    # nodes and pages keep no line
    assert not RecallDoc.objects.for_owner(auto).exclude(kind="episode").exclude(words="")
