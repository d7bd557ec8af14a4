"""Chat exports on the upload page: detected, split per conversation, progress polled by htmx."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from pytest_django import DjangoAssertNumQueries, Settings

from memory.models import ChatImport, Receipt, Transcript
from memory.services.imports import chat_imports_read_pending
from memory.services.ingest import ingest_pending
from tests.htmx import HX

pytestmark = pytest.mark.django_db
UPLOADS = reverse("review:uploads")
UPLOAD = reverse("review:upload")
EXPORTS = Path(__file__).resolve().parents[1] / "fixtures" / "exports"


def export(name: str, as_name: str = "conversations.json") -> SimpleUploadedFile:
    return SimpleUploadedFile(as_name, (EXPORTS / name).read_bytes(), "application/json")


def progress_url(row: ChatImport) -> str:
    return reverse("review:import-progress", args=[row.pk])


def test_a_small_export_is_processed_at_once(owner_client: Client, owner: User) -> None:
    response = owner_client.post(UPLOAD, {"transcripts": [export("claude_conversations.json")]})
    html = response.content.decode()
    assert response.status_code == 200
    assert "Claude export: 4 conversations; 2 new" in html
    assert "1 could not be read" in html and "1 with nothing to read" in html
    row = ChatImport.objects.for_owner(owner).get()
    assert set(row.transcripts.values_list("name", "status")) == {
        ("Moving to Lisbon", "done"),
        ("Learning the cello", "done"),
    }
    assert Receipt.objects.for_owner(owner).filter(subject="Moving to Lisbon").count() == 1
    # the progress panel is there, finished, so it does not poll
    assert f'id="import-{row.pk}"' in html and "finished" in html
    assert 'hx-trigger="every 2s"' not in html


def test_a_large_export_waits_for_the_workers_and_its_progress_polls(
    owner_client: Client, owner: User, settings: Settings
) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = 100
    response = owner_client.post(UPLOAD, {"transcripts": [export("chatgpt_conversations.json")]})
    html = response.content.decode()
    assert "processed by `manage.py ingest --pending`" in html
    row = ChatImport.objects.for_owner(owner).get()
    # the request only stored the file: a worker splits it into conversations
    assert row.state == "waiting" and not row.transcripts.exists()
    polled = owner_client.get(progress_url(row), **HX).content.decode()
    assert 'hx-trigger="every 2s"' in polled and "waiting" in polled
    chat_imports_read_pending()
    assert row.transcripts.filter(status="pending").count() == 2
    # the conversations are listed with their import, not one by one among the uploads
    assert "Sourdough starter" not in html
    polled = owner_client.get(progress_url(row), **HX).content.decode()
    assert polled.lstrip().startswith(f'<article id="import-{row.pk}"')
    assert 'hx-trigger="every 2s"' in polled and "<strong>2</strong> left" in polled
    assert '<strong class="error">1</strong> failed' in polled  # the broken conversation
    ingest_pending(limit=10)
    polled = owner_client.get(progress_url(row), **HX).content.decode()
    assert 'hx-trigger="every 2s"' not in polled
    assert "<strong>2</strong> done" in polled and "finished" in polled
    assert "system 2" in polled and "tool 2" in polled


def test_the_progress_page_works_without_htmx_and_only_for_its_owner(
    client: Client, owner: User, other_user: User, owner_client: Client
) -> None:
    owner_client.post(UPLOAD, {"transcripts": [export("greyhound.jsonl", "greyhound.jsonl")]})
    row = ChatImport.objects.for_owner(owner).get()
    page = owner_client.get(progress_url(row))
    assert page.status_code == 200 and "<html" in page.content.decode().lower()
    client.force_login(other_user)
    assert client.get(progress_url(row)).status_code == 404
    client.logout()
    assert client.get(progress_url(row))["Location"].startswith("/login/")


def test_the_progress_page_lists_each_conversation_with_its_receipt(
    owner_client: Client, owner: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    owner_client.post(UPLOAD, {"transcripts": [export("claude_conversations.json")]})
    row = ChatImport.objects.for_owner(owner).get()
    # session, user, the nav's pending count, the import with its counts, its conversations
    with django_assert_num_queries(5):
        html = owner_client.get(progress_url(row)).content.decode()
    for transcript in row.transcripts.all():
        assert transcript.receipt is not None
        listed = html[html.index(f'id="conversation-{transcript.pk}"') :]
        listed = listed[: listed.index("</tr>")]
        assert transcript.name in listed
        assert reverse("receipts:detail", args=[transcript.receipt.pk]) in listed
    polled = owner_client.get(progress_url(row), **HX).content.decode()
    assert "conversation-" not in polled  # the polling panel stays counts only


def test_the_progress_partial_reads_a_constant_number_of_queries(
    owner_client: Client, owner: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    owner_client.post(UPLOAD, {"transcripts": [export("claude_conversations.json")]})
    row = ChatImport.objects.for_owner(owner).get()
    # session, user, the nav's pending count, the import with its counts
    with django_assert_num_queries(4):
        owner_client.get(progress_url(row), **HX)


def test_reuploading_an_export_is_a_duplicate_and_stores_nothing(
    owner_client: Client, owner: User
) -> None:
    owner_client.post(UPLOAD, {"transcripts": [export("claude_conversations.json")]})
    before = Transcript.objects.count()
    html = owner_client.post(
        UPLOAD, {"transcripts": [export("claude_conversations.json")]}
    ).content.decode()
    assert "already imported" in html
    assert Transcript.objects.count() == before
    assert Receipt.objects.for_owner(owner).filter(outcome="duplicate").count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_upload_page_takes_an_export_larger_than_other_requests(
    live_asgi_url: str, owner: User, settings: Settings
) -> None:
    """Through the real ASGI router and its body guard, not just the view."""
    import re

    import httpx
    from django.test import Client

    settings.UME_MAX_REQUEST_BYTES = settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    data = (EXPORTS / "chatgpt_conversations.json").read_bytes()
    assert len(data) > 4096
    browser_login = Client()
    browser_login.force_login(owner)
    cookies = {"sessionid": browser_login.cookies["sessionid"].value}
    with httpx.Client(base_url=live_asgi_url, cookies=cookies) as browser:
        page = browser.get("/review/uploads/")
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert found is not None
        csrf = found.group(1)
        response = browser.post(
            "/review/uploads/new/",
            data={"csrfmiddlewaretoken": csrf},
            files={"transcripts": ("conversations.json", data, "application/json")},
            headers={"Referer": f"{live_asgi_url}/review/uploads/"},
        )
    assert response.status_code == 200, response.text[:300]
    assert "ChatGPT export: 4 conversations" in response.text
