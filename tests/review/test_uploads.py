"""Uploads: several files at once, small ones processed now, large ones left for
``ingest --pending``; a bad file gets its own message and the others are kept."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from memory.models import Receipt, Transcript
from memory.services.ingest import ingest_pending
from tests.htmx import HX

pytestmark = pytest.mark.django_db
UPLOADS = reverse("review:uploads")
UPLOAD = reverse("review:upload")

GOOD = b"User: I started learning the cello last week.\nAssistant: Nice!\n"


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def test_anonymous_cannot_upload(client: Client) -> None:
    assert client.get(UPLOADS)["Location"].startswith("/login/")
    response = client.post(UPLOAD, {"transcripts": [upload("a.txt", GOOD)]})
    assert response["Location"].startswith("/login/")
    assert not Transcript.objects.exists()


def test_upload_page_empty_state(owner_client: Client) -> None:
    html = owner_client.get(UPLOADS).content.decode()
    assert (
        'enctype="multipart/form-data"' in html
        and 'type="file" name="transcripts"' in html
        and "multiple" in html
    )
    assert "No uploads yet" in html


def test_several_files_good_and_bad_each_with_its_own_message(
    owner_client: Client, owner: User, settings: Settings
) -> None:
    settings.UME_MAX_TRANSCRIPT_BYTES = 2000
    files = [
        upload("good.txt", GOOD),
        upload("photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR"),
        upload("empty.md", b"  \n\n"),
        upload("broken.json", b'{"messages": [{"role": "user", "content": "hi"}'),
        upload("huge.txt", b"User: " + b"words " * 1000),
        upload("chat.json", b'[{"role": "user", "content": "I moved to Lisbon in 2024."}]'),
    ]
    response = owner_client.post(UPLOAD, {"transcripts": files})
    html = response.content.decode()
    assert response.status_code == 200
    assert "photo.txt: looks binary" in html
    assert "empty.md: the file is empty" in html
    assert "broken.json: malformed JSON" in html
    assert "huge.txt: 6,006 bytes is over the limit of 2,000 bytes" in html
    assert html.count("Not stored:") == 4
    # the good files are kept and processed
    stored = dict(Transcript.objects.for_owner(owner).values_list("name", "status"))
    assert stored == {"good.txt": "done", "chat.json": "done"}
    rejected = Receipt.objects.for_owner(owner).filter(outcome="rejected_input")
    assert set(rejected.values_list("subject", flat=True)) == {
        "photo.txt",
        "empty.md",
        "broken.json",
        "huge.txt",
    }
    receipt = Transcript.objects.get(name="good.txt").receipt
    assert receipt is not None
    assert reverse("receipts:detail", args=[receipt.pk]) in html


def test_larger_files_wait_for_ingest_pending(
    owner_client: Client, owner: User, settings: Settings
) -> None:
    settings.UME_INLINE_UPLOAD_BYTES = 10
    response = owner_client.post(UPLOAD, {"transcripts": [upload("long.txt", GOOD)]}, **HX)
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="upload-panel"')
    assert "ingest --pending" in html
    transcript = Transcript.objects.for_owner(owner).get()
    assert transcript.status == "pending" and transcript.receipt is None
    ingest_pending(limit=5)
    transcript.refresh_from_db()
    assert transcript.status == "done"
    page = owner_client.get(UPLOADS).content.decode()
    assert reverse("receipts:detail", args=[transcript.receipt_id]) in page


def test_when_did_this_happen_sets_the_source_time(owner_client: Client, owner: User) -> None:
    owner_client.post(
        UPLOAD, {"transcripts": [upload("old.txt", GOOD)], "happened_on": "2024-05-10"}
    )
    transcript = Transcript.objects.for_owner(owner).get()
    assert transcript.source_time is not None
    assert transcript.source_time.date() == date(2024, 5, 10)


def test_the_same_file_twice_is_stored_once(owner_client: Client, owner: User) -> None:
    owner_client.post(UPLOAD, {"transcripts": [upload("a.txt", GOOD)]})
    response = owner_client.post(UPLOAD, {"transcripts": [upload("again.txt", GOOD)]})
    assert "Already uploaded; nothing new." in response.content.decode()
    assert Transcript.objects.for_owner(owner).count() == 1


def test_no_file_is_a_form_error(owner_client: Client) -> None:
    response = owner_client.post(UPLOAD, {}, **HX)
    assert response.status_code == 400
    assert "Choose one or more transcript files." in response.content.decode()


def test_bad_date_is_a_form_error(owner_client: Client) -> None:
    response = owner_client.post(
        UPLOAD, {"transcripts": [upload("a.txt", GOOD)], "happened_on": "x"}
    )
    assert response.status_code == 400
    assert not Transcript.objects.exists()


def test_another_users_uploads_are_not_listed(other_client: Client, owner: User) -> None:
    Transcript.objects.create(owner=owner, name="mine.txt", text="x", sha256="x", source="upload")
    assert "mine.txt" not in other_client.get(UPLOADS).content.decode()


def test_an_oversized_file_is_refused_by_its_size_before_it_is_read(
    owner: User, settings: Settings
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    from memory.services.uploads import transcripts_upload

    class NeverRead(SimpleUploadedFile):
        def read(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("an oversized upload must not be read into memory")

    settings.UME_MAX_TRANSCRIPT_BYTES = 100
    big = NeverRead("big.txt", b"User: hi\n" * 50, content_type="text/plain")
    (result,) = transcripts_upload(owner=owner, files=[big])
    assert not result.ok and result.message == "big.txt: 450 bytes is over the limit of 100 bytes"
    assert result.receipt is not None and result.receipt.outcome == "rejected_input"
    assert not Transcript.objects.exists()


def test_plain_notes_are_read_as_the_persons_words_and_the_format_is_named(
    owner_client: Client,
) -> None:
    notes = b"I started learning the cello in January.\nMy sister Ana moved to Lisbon.\n"
    html = owner_client.post(UPLOAD, {"transcripts": [upload("notes.txt", notes)]}).content.decode()
    assert "Read as plain notes (your own words)." in html
    assert Receipt.objects.get(subject__contains="notes.txt").outcome == "wrote"
    conversation = owner_client.post(UPLOAD, {"transcripts": [upload("c.txt", GOOD)]})
    assert "Read as a conversation (User:/Assistant: lines)." in conversation.content.decode()


def test_a_file_with_only_assistant_lines_says_why_nothing_was_written(
    owner_client: Client,
) -> None:
    data = b"Assistant: You could try yoga.\nAssistant: And drink more water.\n"
    html = owner_client.post(UPLOAD, {"transcripts": [upload("a.txt", data)]}).content.decode()
    assert "Nothing written: no line is yours" in html


def test_plain_notes_with_nothing_to_remember_say_so(owner_client: Client) -> None:
    data = b"Nice weather today.\n"
    html = owner_client.post(UPLOAD, {"transcripts": [upload("w.txt", data)]}).content.decode()
    assert (
        "Read as plain notes (your own words). Nothing written: no memory found in what you said (1 message)."
        in html
    )


def test_an_upload_updates_the_sidebar_badge_out_of_band(owner_client: Client) -> None:
    html = owner_client.post(
        UPLOAD, {"transcripts": [upload("a.txt", GOOD)]}, **HX
    ).content.decode()
    assert html.lstrip().startswith('<section id="upload-panel"')
    assert 'id="pending-count"' in html and 'hx-swap-oob="true"' in html
    assert 'aria-label="1 pending"' in html
