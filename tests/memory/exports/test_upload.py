"""An export on the Upload page: recognised by its header whatever its name, imported at once
when small, else by the pending workers (one transaction each: a worker that dies midway left
nothing, and the next one takes it over); refused at once into a memory that is not empty."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django import Settings

from memory.exports.selectors import export_counts
from memory.exports.services import MAX_ATTEMPTS
from memory.models import ChatImport, Receipt
from memory.services.ingest import ingest_pending
from memory.vocab import ImportState, Outcome
from tests.factories import make_node, make_user
from tests.memory.exports.conftest import export_bytes
from tests.memory.exports.roundtrip import differences

pytestmark = pytest.mark.django_db
UPLOAD = reverse("review:upload")


@pytest.fixture
def newcomer(db: None) -> Any:
    return make_user("newcomer")


@pytest.fixture
def newcomer_client(newcomer: Any) -> Client:
    client = Client()
    client.force_login(newcomer)
    return client


@pytest.fixture
def exported(owner: Any, rich: dict[str, Any]) -> bytes:
    return export_bytes("owner")


def upload(client: Client, data: bytes, name: str = "ume-export-owner.jsonl") -> str:
    response = client.post(UPLOAD, {"transcripts": [SimpleUploadedFile(name, data)]})
    assert response.status_code == 200
    return response.content.decode()


def test_a_small_export_is_imported_at_once_whatever_its_name(
    newcomer_client: Client, newcomer: Any, exported: bytes, settings: Settings
) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = len(exported)
    html = upload(newcomer_client, exported, name="my memory.json")
    assert "imported a ume export of" in html
    assert differences(exported, export_bytes("newcomer")) == []
    assert ChatImport.objects.for_owner(newcomer).get().format == "ume"


def test_a_large_export_waits_for_a_worker_then_is_imported_whole(
    newcomer_client: Client, newcomer: Any, exported: bytes, settings: Settings
) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = 100
    html = upload(newcomer_client, exported)
    assert "the whole memory in it is imported by `manage.py ingest --pending`" in html
    row = ChatImport.objects.for_owner(newcomer).get()
    assert row.state == ImportState.WAITING and export_counts(newcomer)["node"] == 0
    assert "to import this memory" in html
    # One unit: the import. (The conversation it brought still waiting to be read is the
    # workers' next unit, as it was in the ume it came from.)
    done = ingest_pending(limit=1)
    assert [r.outcome for r in done] == [Outcome.WROTE]
    row.refresh_from_db()
    assert row.state == ImportState.READ and not row.chunks.exists()
    assert differences(exported, export_bytes("newcomer")) == []
    progress = newcomer_client.get(reverse("review:import-progress", args=[row.pk]))
    assert "imported</span> a whole memory" in progress.content.decode()
    # the same file again: one duplicate, nothing stored
    again = upload(newcomer_client, exported)
    assert "already imported" in again
    assert ChatImport.objects.for_owner(newcomer).count() == 1


def test_a_worker_that_died_midway_left_nothing_and_the_next_one_takes_over(
    newcomer_client: Client, newcomer: Any, exported: bytes, settings: Settings
) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = 100
    upload(newcomer_client, exported)
    row = ChatImport.objects.for_owner(newcomer).get()
    # What a worker killed inside the import's transaction leaves: its claim, nothing else.
    stale = timezone.now() - timedelta(seconds=settings.UME_CLAIM_LEASE_SECONDS + 5)
    ChatImport.objects.filter(pk=row.pk).update(
        state=ImportState.READING, claimed_at=stale, attempts=1
    )
    ingest_pending(limit=1)
    row.refresh_from_db()
    assert (row.state, row.attempts) == (ImportState.READ, 2)
    assert differences(exported, export_bytes("newcomer")) == []


def test_an_import_that_keeps_killing_its_worker_is_given_up_visibly(
    newcomer_client: Client, newcomer: Any, exported: bytes, settings: Settings
) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = 100
    upload(newcomer_client, exported)
    row = ChatImport.objects.for_owner(newcomer).get()
    stale = timezone.now() - timedelta(seconds=settings.UME_CLAIM_LEASE_SECONDS + 5)
    ChatImport.objects.filter(pk=row.pk).update(
        state=ImportState.READING, claimed_at=stale, attempts=MAX_ATTEMPTS
    )
    ingest_pending(limit=5)
    row.refresh_from_db()
    assert row.state == ImportState.FAILED and "gave up" in row.error
    assert not row.chunks.exists() and export_counts(newcomer)["node"] == 0
    receipt = Receipt.objects.for_owner(newcomer).order_by("-id").first()
    assert receipt is not None and receipt.outcome == Outcome.DB_WRITE_FAILED


def test_a_bad_file_left_to_the_workers_fails_with_its_reason(
    newcomer_client: Client, newcomer: Any, exported: bytes, settings: Settings
) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = 100
    cut = exported[: exported.rindex(b'{"counts"')]
    upload(newcomer_client, cut)
    ingest_pending(limit=5)
    row = ChatImport.objects.for_owner(newcomer).get()
    assert row.state == ImportState.FAILED and "cut short" in row.error
    assert export_counts(newcomer)["node"] == 0
    progress = newcomer_client.get(reverse("review:import-progress", args=[row.pk]))
    assert "Not imported:" in progress.content.decode()


def test_a_memory_that_is_not_empty_is_told_at_once(
    newcomer_client: Client, newcomer: Any, exported: bytes, settings: Settings
) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = 100
    make_node(owner=newcomer, label="Sourdough")
    html = upload(newcomer_client, exported)
    assert "Not stored:" in html and "already holds memories" in html
    assert not ChatImport.objects.for_owner(newcomer).exists()
