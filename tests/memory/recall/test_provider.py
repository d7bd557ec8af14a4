"""The embeddings client against a local server that speaks the protocol, and each way it
fails: every failure is :class:`EmbeddingUnavailable` with its reason, never another error."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured
from pytest_django import Settings

from memory.recall import provider
from memory.recall.provider import (
    EmbeddingUnavailable,
    LocalEmbedder,
    RemoteEmbedder,
    parse_reply,
)
from tests.embeddings_stub import DIM, Stub, serving, vector_of


@pytest.fixture
def stub() -> Iterator[Stub]:
    with serving(Stub()) as running:
        yield running


def remote(stub: Stub, **overrides: object) -> RemoteEmbedder:
    options: dict[str, object] = {"url": stub.url, "name": "stub-embed", "retry_seconds": 0.0}
    options.update(overrides)
    return RemoteEmbedder(**options)  # type: ignore[arg-type]


def test_vectors_come_back_in_input_order_unit_length_and_batched(stub: Stub) -> None:
    texts = ["my dentist", "sourdough bread", "the landlord", "piano music", "teeth"]
    vectors = remote(stub, batch=2).embed(texts)
    assert vectors.shape == (5, DIM)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert np.allclose(vectors, np.array([vector_of(t) for t in texts]), atol=1e-6)
    assert stub.requests == [texts[0:2], texts[2:4], texts[4:5]]


def test_the_dimension_is_learned_from_the_first_answer_then_held(stub: Stub) -> None:
    embedder = remote(stub)
    assert embedder.dim is None
    embedder.embed(["teeth"])
    assert embedder.dim == DIM
    stub.mode = "wrong_dim"
    with pytest.raises(EmbeddingUnavailable, match=f"{DIM + 1} dimensions, expected {DIM}"):
        embedder.embed(["bread"])


def test_a_set_dimension_refuses_the_first_answer_of_another(stub: Stub) -> None:
    with pytest.raises(EmbeddingUnavailable, match="expected 1024"):
        remote(stub, dim=1024).embed(["teeth"])


def test_empty_texts_are_not_sent_and_get_zeros(stub: Stub) -> None:
    vectors = remote(stub).embed(["", "teeth", "   "])
    assert stub.requests == [["teeth"]]
    assert not vectors[0].any() and not vectors[2].any() and vectors[1].any()


def test_the_key_is_sent_as_a_bearer_token_and_the_model_by_name(stub: Stub) -> None:
    remote(stub, key="sk-local-test").embed(["teeth"])
    assert stub.headers[0]["Authorization"] == "Bearer sk-local-test"


def test_a_full_embeddings_url_is_used_as_given(stub: Stub) -> None:
    vectors = remote(stub, url=stub.url + "/embeddings").embed(["teeth"])
    assert vectors.shape == (1, DIM)


def test_a_question_asked_again_is_not_sent_again(stub: Stub) -> None:
    embedder = remote(stub)
    first = embedder.embed(["who looks after my teeth"])
    again = embedder.embed(["who looks after my teeth"])
    assert len(stub.requests) == 1 and np.array_equal(first, again)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("error", "answered HTTP 500"),
        ("malformed", "not JSON"),
        ("short", "1 vectors for 2 texts"),
        ("wrong_dim", "dimensions, expected"),
    ],
)
def test_each_bad_answer_is_unavailable_with_its_reason(stub: Stub, mode: str, reason: str) -> None:
    stub.mode = mode
    with pytest.raises(EmbeddingUnavailable, match=reason):
        remote(stub, dim=DIM).embed(["teeth", "bread"])


def test_a_503_is_unavailable(stub: Stub) -> None:
    stub.mode, stub.status = "error", 503
    with pytest.raises(EmbeddingUnavailable, match="HTTP 503"):
        remote(stub).embed(["teeth"])


def test_a_slow_endpoint_times_out(stub: Stub) -> None:
    stub.mode, stub.delay = "slow", 1.0
    with pytest.raises(EmbeddingUnavailable, match="timed out after 0.2 s"):
        remote(stub, timeout=0.2).embed(["teeth"])


def test_a_refused_connection_is_unavailable() -> None:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    embedder = RemoteEmbedder(url=f"http://127.0.0.1:{port}/v1", name="m", retry_seconds=0)
    with pytest.raises(EmbeddingUnavailable, match="ConnectError"):
        embedder.embed(["teeth"])


def test_after_a_failure_the_endpoint_is_left_alone_for_a_while(stub: Stub) -> None:
    stub.mode = "error"
    embedder = remote(stub, retry_seconds=60.0)
    with pytest.raises(EmbeddingUnavailable, match="HTTP 500"):
        embedder.embed(["teeth"])
    stub.mode = "ok"
    with pytest.raises(EmbeddingUnavailable, match="not asked again yet"):
        embedder.embed(["bread"])
    assert len(stub.requests) == 1


@pytest.mark.parametrize(
    "body",
    [
        None,
        [],
        {"data": "no"},
        {"data": [{"embedding": "no"}]},
        {"data": [{"embedding": []}]},
        {"data": [{"embedding": [1.0, "x"]}]},
        {"data": [{"embedding": [1.0], "index": 3}]},
        {"data": [{"embedding": [float("nan")]}]},
    ],
)
def test_replies_that_are_not_the_protocol_are_refused(body: object) -> None:
    with pytest.raises(EmbeddingUnavailable):
        parse_reply(body, 1, None)


def test_rows_of_different_lengths_are_refused() -> None:
    body = {"data": [{"embedding": [1.0, 0.0]}, {"embedding": [1.0]}]}
    with pytest.raises(EmbeddingUnavailable, match="different lengths"):
        parse_reply(body, 2, None)


def test_the_settings_choose_the_embedder(settings: Settings, stub: Stub) -> None:
    assert isinstance(provider.configured(), LocalEmbedder)
    settings.UME_EMBEDDINGS_PROVIDER = "openai"
    settings.UME_EMBEDDINGS_URL = stub.url
    settings.UME_EMBEDDINGS_MODEL = "stub-embed"
    chosen = provider.configured()
    assert isinstance(chosen, RemoteEmbedder) and chosen.name == "stub-embed"
    assert provider.configured() is chosen  # one per setting: what it learned is kept
    assert provider.for_model("") is chosen
    assert isinstance(provider.for_model(LocalEmbedder.name), LocalEmbedder)
    assert provider.for_model("a-model-no-longer-configured") is None


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"UME_EMBEDDINGS_PROVIDER": "bert"}, "must be wordllama, minilm or openai"),
        ({"UME_EMBEDDINGS_PROVIDER": "openai"}, "UME_EMBEDDINGS_URL must be"),
        (
            {"UME_EMBEDDINGS_PROVIDER": "openai", "UME_EMBEDDINGS_URL": "http://h/v1"},
            "UME_EMBEDDINGS_MODEL must name",
        ),
    ],
)
def test_bad_settings_are_refused_at_start(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], message: str
) -> None:
    import importlib

    import ume.settings

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    try:
        with pytest.raises(ImproperlyConfigured, match=message):
            importlib.reload(ume.settings)
    finally:
        for name in env:
            monkeypatch.delenv(name)
        importlib.reload(ume.settings)
