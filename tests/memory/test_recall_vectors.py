"""Recall's vectors from an OpenAI-compatible endpoint (a local stub server that speaks the
protocol): stored with their model, never mixed with another's, moved by ``reindex`` without
a gap, and a failing endpoint that degrades recall to words and never loses a write."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pytest_django import Settings

from memory.checks import embeddings_check
from memory.models import Episode, Node, RecallDoc, RecallStats
from memory.recall import EpisodeItem, recall, vectors
from memory.recall.embed import MODEL_NAME
from memory.recall.episode_loaders import _meaning_checks
from memory.recall.episodes import EpisodeRow
from memory.recall.provider import EmbeddingUnavailable
from memory.services.ingest import ingest_text
from memory.services.recall_vectors import recall_vectors_move
from tests.embeddings_stub import DIM, Stub, serving
from tests.factories import make_node

pytestmark = pytest.mark.django_db

STUB_MODEL = "stub-embed"
TEETH = "who looks after my teeth"


@pytest.fixture
def stub() -> Iterator[Stub]:
    vectors.clear()
    with serving(Stub()) as running:
        yield running
    vectors.clear()


def use(settings: Settings, url: str) -> None:
    settings.UME_EMBEDDINGS_PROVIDER = "openai"
    settings.UME_EMBEDDINGS_URL = url
    settings.UME_EMBEDDINGS_MODEL = STUB_MODEL
    settings.UME_EMBEDDINGS_RETRY_SECONDS = 0.0
    settings.UME_EMBEDDINGS_TIMEOUT_SECONDS = 0.5


@pytest.fixture
def remote(settings: Settings, stub: Stub) -> Stub:
    use(settings, stub.url)
    return stub


def labels(owner: Any, query: str) -> list[str]:
    return [item.label for item in recall(owner, query).items if item.kind == "node"]


def why(owner: Any, query: str, label: str) -> str:
    return next(i.why for i in recall(owner, query).items if getattr(i, "label", "") == label)


def dentist_and_baker(owner: Any) -> tuple[Node, Node]:
    return (
        make_node(owner=owner, label="Dr Okoro", category="person", summary="The dentist."),
        make_node(owner=owner, label="Gus", category="interest", summary="Sourdough starter."),
    )


def served(owner: Any) -> set[str]:
    """The models serving the owner's corpora that hold documents (an empty one is served by
    the configured model as soon as anything reads or writes it: nothing to move)."""
    return set(
        RecallStats.objects.for_owner(owner).filter(docs__gt=0).values_list("model", flat=True)
    )


def test_vectors_are_stored_with_the_remote_model_and_its_dimension(
    owner: User, remote: Stub
) -> None:
    dentist, _gus = dentist_and_baker(owner)
    doc = RecallDoc.objects.for_owner(owner).get(kind="node", ref_id=dentist.pk)
    assert doc.model == STUB_MODEL and doc.vector is not None and len(doc.vector) == DIM
    assert served(owner) == {STUB_MODEL}
    assert labels(owner, TEETH) == ["Dr Okoro"]
    assert "semantic" in why(owner, TEETH, "Dr Okoro")  # by meaning: no word is shared
    assert any("teeth" in " ".join(texts) for texts in remote.requests)


def test_remote_recall_reads_as_many_queries_as_the_bundled_model(
    owner: User, other_user: User, settings: Settings, stub: Stub
) -> None:
    dentist_and_baker(other_user)  # served by the bundled model
    use(settings, stub.url)
    dentist_and_baker(owner)
    counts = []
    for person in (owner, other_user):
        vectors.clear()
        with CaptureQueriesContext(connection) as reads:
            assert labels(person, TEETH) == ["Dr Okoro"]
        counts.append(len(reads))
    assert counts[0] == counts[1]


def test_a_failing_endpoint_keeps_the_write_without_a_vector_until_reindex_missing(
    owner: User, remote: Stub, caplog: pytest.LogCaptureFixture
) -> None:
    remote.mode = "error"
    with caplog.at_level(logging.WARNING):
        kiln = make_node(owner=owner, label="Kiln", category="interest", summary="Pottery kiln.")
    assert Node.objects.for_owner(owner).filter(pk=kiln.pk).exists()
    doc = RecallDoc.objects.for_owner(owner).get(kind="node", ref_id=kiln.pk)
    assert doc.vector is None
    assert "written without vectors" in caplog.text and "HTTP 500" in caplog.text
    assert labels(owner, "pottery kiln") == ["Kiln"]  # by its words
    assert [m.id for m in embeddings_check()] == ["memory.W002"]
    remote.mode = "ok"
    out = StringIO()
    call_command("reindex", "--missing", "--user", owner.username, "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["vectors_embedded"] == 1 and report["documents"] is None
    assert report["model"] == STUB_MODEL and report["dim"] == DIM and report["done"]
    doc.refresh_from_db()
    assert doc.vector is not None and len(doc.vector) == DIM
    assert embeddings_check() == []


@pytest.mark.parametrize("failure", ["error", "slow", "malformed", "wrong_dim", "short", "refused"])
def test_each_failure_at_recall_degrades_to_words_with_a_warning(
    owner: User,
    remote: Stub,
    settings: Settings,
    caplog: pytest.LogCaptureFixture,
    failure: str,
) -> None:
    make_node(owner=owner, label="Kiln", category="interest", summary="The pottery kiln.")
    dentist_and_baker(owner)
    remote.requests.clear()
    if failure == "refused":
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            settings.UME_EMBEDDINGS_URL = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    else:
        remote.mode, remote.delay = failure, 2.0
    with caplog.at_level(logging.WARNING):
        assert labels(owner, "where is my pottery kiln") == ["Kiln"]
        assert labels(owner, TEETH) == []  # only meaning could find the dentist
    assert "no semantic lane" in caplog.text


def test_a_conversation_saved_while_the_endpoint_is_down_is_kept_and_found_by_words(
    owner: User, remote: Stub
) -> None:
    remote.mode = "error"
    messages = [
        {"role": "user", "content": "My landlord raised the rent on the flat in Graca."},
        {"role": "assistant", "content": "That is a lot."},
    ]
    receipt = ingest_text(
        owner=owner,
        text=json.dumps({"objects": [], "messages": messages}),
        name="chat",
        extractor="proposals",
        source_time=datetime(2026, 4, 3, tzinfo=UTC),
    )
    assert receipt.outcome != "db_write_failed"
    assert Episode.objects.for_owner(owner).count() == 2
    assert not RecallDoc.objects.for_owner(owner).filter(vector__isnull=False).exists()
    result = recall(owner, "what did my landlord do to the rent")
    said = [i.text for i in result.items if isinstance(i, EpisodeItem)]
    assert any("landlord" in text for text in said)


def test_reindex_moves_an_owner_to_the_new_model_without_a_gap(
    owner: User, settings: Settings, stub: Stub
) -> None:
    dentist_and_baker(owner)
    assert labels(owner, TEETH) == ["Dr Okoro"]  # the bundled model's meaning
    use(settings, stub.url)
    # Configured, not yet moved: the old vectors serve, the question embedded by their model.
    assert served(owner) == {MODEL_NAME}
    assert labels(owner, TEETH) == ["Dr Okoro"]
    assert stub.requests == []
    assert [m.id for m in embeddings_check()] == ["memory.W001"]
    during: list[tuple[list[str], set[str]]] = []

    def progress(done: int, total: int) -> None:
        models = set(RecallDoc.objects.for_owner(owner).values_list("model", flat=True))
        during.append((labels(owner, TEETH), models))

    move = recall_vectors_move(owner_id=owner.pk, batch=1, progress=progress)
    assert move.swapped and move.embedded == 2 and move.before["memory"] == MODEL_NAME
    assert during == [(["Dr Okoro"], {MODEL_NAME})] * 2  # served by the old vectors throughout
    docs = RecallDoc.objects.for_owner(owner)
    assert set(docs.values_list("model", flat=True)) == {STUB_MODEL}
    assert not docs.filter(staged_vector__isnull=False).exists()
    assert served(owner) == {STUB_MODEL}
    assert labels(owner, TEETH) == ["Dr Okoro"]
    assert any(TEETH.split()[-1] in " ".join(texts) for texts in stub.requests)
    assert embeddings_check() == []
    asked = len(stub.requests)
    again = recall_vectors_move(owner_id=owner.pk)
    assert again.embedded == 0 and again.done and len(stub.requests) == asked  # idempotent


def test_reindex_stopped_by_a_failure_goes_on_where_it_stopped(
    owner: User, settings: Settings, stub: Stub
) -> None:
    dentist_and_baker(owner)
    make_node(owner=owner, label="Kiln", category="interest", summary="The pottery kiln.")
    use(settings, stub.url)
    stub.fail_after = 1
    with pytest.raises(CommandError, match="HTTP 500.*run reindex again"):
        call_command("reindex", "--missing", "--batch", "1", "--user", owner.username)
    docs = RecallDoc.objects.for_owner(owner)
    assert docs.filter(staged_model=STUB_MODEL).count() == 1
    assert served(owner) == {MODEL_NAME}
    assert labels(owner, TEETH) == ["Dr Okoro"]  # still served by the old vectors
    stub.fail_after = None
    stub.requests.clear()
    out = StringIO()
    call_command("reindex", "--missing", "--batch", "1", "--user", owner.username, stdout=out)
    assert "2 vectors made; now served by stub-embed" in out.getvalue()
    assert sum(len(texts) for texts in stub.requests) == 2  # the one staged is not asked again
    assert set(docs.values_list("model", flat=True)) == {STUB_MODEL}


def test_a_full_reindex_rebuilds_the_words_then_moves_the_vectors(
    owner: User, settings: Settings, stub: Stub
) -> None:
    dentist_and_baker(owner)
    use(settings, stub.url)
    out = StringIO()
    call_command("reindex", "--user", owner.username, "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["documents"] == {"node": 2, "page": 0, "episode": 0}
    assert report["served_before"]["memory"] == MODEL_NAME
    assert report["swapped"] and report["model"] == STUB_MODEL
    assert labels(owner, TEETH) == ["Dr Okoro"]


def test_vectors_of_a_model_no_longer_configured_are_never_used(
    owner: User, remote: Stub, caplog: pytest.LogCaptureFixture
) -> None:
    dentist_and_baker(owner)
    RecallDoc.objects.for_owner(owner).update(model="retired-model")
    RecallStats.objects.for_owner(owner).update(model="retired-model", version=7)
    with caplog.at_level(logging.WARNING):
        assert labels(owner, TEETH) == []
        assert labels(owner, "sourdough") == ["Gus"]  # words still find it
    assert "retired-model, which is not configured" in caplog.text
    (warning,) = embeddings_check()
    assert warning.id == "memory.W001" and "words only" in warning.msg
    move = recall_vectors_move(owner_id=owner.pk)
    assert move.swapped and served(owner) == {STUB_MODEL}
    assert labels(owner, TEETH) == ["Dr Okoro"]


def test_a_move_never_touches_another_owners_vectors(
    owner: User, other_user: User, settings: Settings, stub: Stub
) -> None:
    dentist_and_baker(owner)
    dentist_and_baker(other_user)
    use(settings, stub.url)
    recall_vectors_move(owner_id=owner.pk)
    others = RecallDoc.objects.for_owner(other_user)
    assert set(others.values_list("model", flat=True)) == {MODEL_NAME}
    assert not others.filter(staged_vector__isnull=False).exists()
    assert served(other_user) == {MODEL_NAME}


def test_a_move_with_the_endpoint_down_raises_and_changes_nothing(
    owner: User, settings: Settings, stub: Stub
) -> None:
    dentist_and_baker(owner)
    use(settings, stub.url)
    stub.mode = "error"
    with pytest.raises(EmbeddingUnavailable):
        recall_vectors_move(owner_id=owner.pk)
    assert served(owner) == {MODEL_NAME}
    assert not RecallDoc.objects.for_owner(owner).filter(staged_vector__isnull=False).exists()


def test_the_cleanup_cron_fills_what_was_written_while_the_endpoint_was_down(
    owner: User, other_user: User, remote: Stub
) -> None:
    remote.mode = "error"
    make_node(owner=owner, label="Kiln", category="interest", summary="The pottery kiln.")
    make_node(owner=other_user, label="Dr Okoro", category="person", summary="The dentist.")
    out = StringIO()
    call_command("cleanup", "--json", stdout=out)  # still down: nothing filled, nothing fails
    assert json.loads(out.getvalue())["sweeps"]["recall_vectors_filled"] == 0
    assert RecallDoc.objects.filter(vector__isnull=True).count() == 2
    remote.mode = "ok"
    out = StringIO()
    call_command("cleanup", "--dry-run", "--json", stdout=out)
    assert json.loads(out.getvalue())["sweeps"]["recall_vectors_filled"] == 2
    assert RecallDoc.objects.filter(vector__isnull=True).count() == 2  # a dry run writes none
    out = StringIO()
    call_command("cleanup", "--json", stdout=out)
    assert json.loads(out.getvalue())["sweeps"]["recall_vectors_filled"] == 2
    assert not RecallDoc.objects.filter(vector__isnull=True).exists()
    assert labels(other_user, TEETH) == ["Dr Okoro"]


def test_the_episode_lane_answers_by_words_when_the_endpoint_fails_at_recall(
    owner: User, remote: Stub, caplog: pytest.LogCaptureFixture
) -> None:
    messages = [
        {"role": "user", "content": "My landlord raised the rent on the flat in Graca."},
        {"role": "assistant", "content": "That is a lot."},
    ]
    ingest_text(
        owner=owner,
        text=json.dumps({"objects": [], "messages": messages}),
        name="chat",
        extractor="proposals",
        source_time=datetime(2026, 4, 3, tzinfo=UTC),
    )
    docs = RecallDoc.objects.for_owner(owner).filter(kind="episode")
    assert docs.count() == 2 and not docs.filter(vector__isnull=True).exists()
    remote.mode = "error"
    result = recall(owner, "what did my landlord do to the rent")
    said = [i.text for i in result.items if isinstance(i, EpisodeItem)]
    assert any("landlord" in text for text in said)
    # where the lane asks for meaning, a failing endpoint gives none, never an error
    rows = [
        EpisodeRow(e.pk, e.transcript_id, e.message_id, e.seq, e.role, e.text, e.said_at)
        for e in Episode.objects.for_owner(owner).order_by("pk")
    ]
    with caplog.at_level(logging.WARNING):
        closeness, likeness = _meaning_checks(owner, STUB_MODEL, "who is my landlord", rows)
        assert closeness is not None and likeness is not None
        assert closeness([r.text for r in rows]) == [0.0, 0.0]
        assert likeness([rows[0].text], [rows[1].text]) == [0.0]
    assert "no semantic lane" in caplog.text


def test_stored_meaning_without_a_model_at_hand_reads_a_missing_vector_as_nothing() -> None:
    from memory.recall.embed import embed, quantize
    from memory.recall.episode_loaders import StoredMeaning

    when = datetime(2026, 4, 2, tzinfo=UTC)
    kept = quantize(embed(["my sister moved to Porto"]))[0]
    rows = [
        EpisodeRow(
            1, 1, "m1", 1, "user", "my sister moved to Porto", when, vector=kept, model=MODEL_NAME
        ),
        EpisodeRow(2, 1, "m2", 2, "user", "the boiler broke", when, vector=None, model=MODEL_NAME),
    ]
    vectors = StoredMeaning.of(rows).of_texts([r.text for r in rows])
    assert vectors[0].any() and not vectors[1].any()  # found by its words only
