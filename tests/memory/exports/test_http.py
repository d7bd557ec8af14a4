"""The export as a download: ``GET /v1/export`` (a token's owner only, ``memory:read``) and
the Saves page's button (the signed-in person only), both streamed. Over the real ASGI
server the file is sent as it is read, in pieces, in memory far below its size."""

from __future__ import annotations

import random
import tracemalloc
from typing import Any

import httpx
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from eval.bench import seed_corpus, seed_episodes
from memory.exports.format import MEDIA_TYPE
from memory.services.tokens import token_create
from memory.vocab import SCOPE_READ, SCOPE_WRITE
from tests.factories import make_node, make_user
from tests.memory.exports.conftest import export_bytes


def body(response: Any) -> bytes:
    assert response.streaming
    return b"".join(response.streaming_content)


def same_rows(a: bytes, b: bytes) -> bool:
    """Two exports of one memory: equal but for the header's time of export."""
    return a.splitlines()[1:] == b.splitlines()[1:]


@pytest.mark.django_db
def test_get_v1_export_streams_the_tokens_owner_memory(
    client: Client, owner: Any, other_user: Any, rich: dict[str, Any]
) -> None:
    make_node(owner=other_user, label="Kayak")
    secret = token_create(owner=owner, name="mover", scopes=[SCOPE_READ])[1]
    response = client.get("/v1/export", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 200
    assert response["Content-Type"] == f"{MEDIA_TYPE}; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="ume-export-owner-')
    assert response["Cache-Control"] == "no-store"
    data = body(response)
    assert same_rows(data, export_bytes("owner"))
    assert b"Kayak" not in data
    theirs = token_create(owner=other_user, name="theirs")[1]
    other = body(client.get("/v1/export", HTTP_AUTHORIZATION=f"Bearer {theirs}"))
    assert b"Kayak" in other and b"Cello" not in other
    assert same_rows(other, export_bytes("other"))


@pytest.mark.django_db
def test_get_v1_export_needs_a_live_token_with_read(client: Client, owner: Any) -> None:
    response = client.get("/v1/export")
    assert response.status_code == 401 and response.json()["code"]
    response = client.get("/v1/export", HTTP_AUTHORIZATION="Bearer ume_nonsense")
    assert response.status_code == 401
    write_only = token_create(owner=owner, name="writer", scopes=[SCOPE_WRITE])[1]
    response = client.get("/v1/export", HTTP_AUTHORIZATION=f"Bearer {write_only}")
    assert response.status_code == 200  # write implies read (api.auth)


@pytest.mark.django_db
def test_reading_the_export_costs_the_same_queries_whatever_its_size(
    client: Client, owner: Any, other_user: Any
) -> None:
    def queries_for_export(person: Any) -> int:
        secret = token_create(owner=person, name="mover")[1]
        response = client.get("/v1/export", HTTP_AUTHORIZATION=f"Bearer {secret}")
        with CaptureQueriesContext(connection) as captured:
            assert body(response).endswith(b'"type":"end"}\n')
        return len(captured)

    seed_corpus(owner, 20, random.Random(1))
    seed_corpus(other_user, 400, random.Random(2))
    assert queries_for_export(owner) == queries_for_export(other_user)


@pytest.mark.django_db
def test_the_saves_page_downloads_the_signed_in_persons_memory(
    client: Client, owner: Any, other_user: Any, rich: dict[str, Any]
) -> None:
    make_node(owner=other_user, label="Kayak")
    response = client.get("/saves/export/")
    assert response.status_code == 302 and "/login/" in response["Location"]
    client.force_login(owner)
    page = client.get("/saves/")
    assert b'href="/saves/export/" download>Download all my memory</a>' in page.content
    response = client.get("/saves/export/")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith('attachment; filename="ume-export-owner-')
    data = body(response)
    assert same_rows(data, export_bytes("owner")) and b"Kayak" not in data
    assert client.post("/saves/export/").status_code == 405


@pytest.mark.django_db(transaction=True)
def test_over_asgi_the_file_arrives_in_pieces_in_bounded_memory(live_asgi_url: str) -> None:
    """The live server (uvicorn, ``ume.asgi``) runs in a thread of this process, so the
    traced peak includes everything it allocated to send the file (after a first, small
    export: modules imported on a server's first request are not the download's)."""
    owner = make_user("mover")
    rng = random.Random(5)
    seed_corpus(owner, 10_000, rng)
    seed_episodes(owner, 6000, rng)
    secret = token_create(owner=owner, name="mover")[1]
    # What the server's first request imports (the API, its schemas) is not the download's.
    warm = token_create(owner=make_user("warm"), name="warm")[1]
    first = httpx.get(f"{live_asgi_url}/v1/export", headers={"Authorization": f"Bearer {warm}"})
    assert first.status_code == 200 and first.content.endswith(b'"type":"end"}\n')
    size = pieces = 0
    tail = b""
    tracemalloc.start()
    try:
        with httpx.stream(
            "GET",
            f"{live_asgi_url}/v1/export",
            headers={"Authorization": f"Bearer {secret}"},
            timeout=120,
        ) as response:
            assert response.status_code == 200
            for piece in response.iter_raw():
                size += len(piece)
                pieces += 1
                tail = (tail + piece)[-300:]
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"export over ASGI: {size:,} bytes in {pieces} pieces, traced peak {peak:,} bytes")
    assert size > 12_000_000 and pieces > 50
    assert b'"type":"end"' in tail
    assert peak < size / 4, (peak, size)
