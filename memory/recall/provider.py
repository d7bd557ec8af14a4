"""Where recall's vectors come from: the bundled ``wordllama`` model (the default, offline), the
optional local all-MiniLM-L6-v2 sentence model (``minilm``, :mod:`memory.recall.minilm`), or
an OpenAI-compatible ``/v1/embeddings`` endpoint (Ollama, LM Studio, vLLM, a hosted one),
chosen by ``UME_EMBEDDINGS_PROVIDER`` (docs/embeddings.md).

Every vector is stored with the name of the model that made it, and its dimension is its
length in bytes (int8). An owner's index is *served* by one model at a time
(``RecallStats.model``): recall embeds a question with that model and compares it only with
vectors of that model, never another's. ``reindex`` moves an owner to the configured model and
then swaps (:mod:`memory.services.recall_vectors`).

A remote endpoint that fails (a timeout, a refused connection, an HTTP error, a reply that is
not the protocol's JSON, a vector of the wrong dimension) raises :class:`EmbeddingUnavailable`;
callers log it and carry on without the semantic lane, never failing a recall or a write.
After a failure the endpoint is not asked again for ``UME_EMBEDDINGS_RETRY_SECONDS``, so a
dead endpoint costs one timeout, not one per save."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx
import numpy as np
from django.conf import settings

from memory.recall import embed as local
from memory.recall import minilm

PROVIDERS = ("wordllama", "minilm", "openai")
MAX_REPLY_BYTES = 64 * 1024 * 1024
QUESTIONS_KEPT = 256  # recent single texts (questions) kept per remote model

log = logging.getLogger(__name__)


class EmbeddingUnavailable(Exception):
    """The embedding model could not give vectors now (the reason is the message)."""


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 rows, one per text (zeros for a text without words)."""
        ...


class LocalEmbedder:
    """The bundled ``wordllama`` model: always available, no network."""

    name = local.MODEL_NAME
    dim = local.DIM

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return local.embed(texts)


class MiniLMEmbedder:
    """The optional local sentence model (``make minilm``): no network; when it is not
    installed, or its weights fail their checksum, it is unavailable like a dead endpoint."""

    name = minilm.MODEL_NAME
    dim = minilm.DIM

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        try:
            return minilm.embed(texts)
        except minilm.ModelUnavailable as exc:
            raise EmbeddingUnavailable(f"{self.name}: {exc}") from exc


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to unit length (a row of zeros stays zeros)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def parse_reply(body: Any, count: int, dim: int | None) -> np.ndarray:
    """The vectors of an embeddings reply (``{"data": [{"embedding": [...], "index": i}]}``)
    in the order of the input, as unit-length float32 rows. Raises
    :class:`EmbeddingUnavailable` for anything else: a missing or short ``data``, a vector
    that is not a list of numbers, rows of different lengths, or a length other than
    ``dim`` (when known)."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list) or len(data) != count:
        got = len(data) if isinstance(data, list) else "no"
        raise EmbeddingUnavailable(f"the reply has {got} vectors for {count} texts")
    rows: list[Any] = [None] * count
    for position, item in enumerate(data):
        index = item.get("index", position) if isinstance(item, dict) else None
        vector = item.get("embedding") if isinstance(item, dict) else None
        if not isinstance(index, int) or not 0 <= index < count or rows[index] is not None:
            raise EmbeddingUnavailable(f"the reply's vector {position} has a bad index")
        if not isinstance(vector, list) or not vector:
            raise EmbeddingUnavailable(f"the reply's vector {position} is not a list of numbers")
        rows[index] = vector
    if len({len(row) for row in rows}) != 1:
        raise EmbeddingUnavailable("the reply's vectors have different lengths")
    try:
        matrix = np.asarray(rows, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbeddingUnavailable("the reply's vectors are not lists of numbers") from exc
    if dim is not None and matrix.shape[1] != dim:
        raise EmbeddingUnavailable(
            f"the model answered vectors of {matrix.shape[1]} dimensions, expected {dim}"
        )
    if not np.isfinite(matrix).all():
        raise EmbeddingUnavailable("the reply's vectors hold numbers that are not finite")
    return unit_rows(matrix)


@dataclass
class RemoteEmbedder:
    """An OpenAI-compatible embeddings endpoint. ``url`` is the API's base (``.../v1``) or the
    full ``.../embeddings`` address; ``dim`` is learned from the first answer unless set."""

    url: str
    name: str
    key: str = ""
    timeout: float = 10.0
    batch: int = 64
    dim: int | None = None
    retry_seconds: float = 30.0
    _down_until: float = 0.0
    _down_reason: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _recent: OrderedDict[str, np.ndarray] = field(default_factory=OrderedDict)

    @property
    def endpoint(self) -> str:
        base = self.url.rstrip("/")
        return base if base.endswith("/embeddings") else f"{base}/embeddings"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        seen = self._recent.get(texts[0]) if len(texts) == 1 else None
        if seen is not None:
            return seen[None, :]
        wanted = [i for i, t in enumerate(texts) if t.strip()]
        parts: list[np.ndarray] = []
        for start in range(0, len(wanted), self.batch):
            chunk = [texts[i] for i in wanted[start : start + self.batch]]
            parts.append(self._ask(chunk))
        width = parts[0].shape[1] if parts else (self.dim or 0)
        out = np.zeros((len(texts), width), dtype=np.float32)
        if parts:
            out[wanted] = np.concatenate(parts)
        if len(texts) == 1:
            with self._lock:
                self._recent[texts[0]] = out[0]
                while len(self._recent) > QUESTIONS_KEPT:
                    self._recent.popitem(last=False)
        return out

    def _ask(self, texts: list[str]) -> np.ndarray:
        now = time.monotonic()
        if now < self._down_until:
            raise EmbeddingUnavailable(f"{self._down_reason} (not asked again yet)")
        try:
            vectors = parse_reply(self._post(texts), len(texts), self.dim)
        except EmbeddingUnavailable as exc:
            with self._lock:
                self._down_until = time.monotonic() + self.retry_seconds
                self._down_reason = f"embeddings endpoint {self.endpoint}: {exc}"
            raise EmbeddingUnavailable(self._down_reason) from exc
        if self.dim is None:
            self.dim = int(vectors.shape[1])
        return vectors

    def _post(self, texts: list[str]) -> Any:
        headers = {"Accept": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        payload = {"model": self.name, "input": texts}
        try:
            with httpx.Client(timeout=self.timeout) as client:
                response = client.post(self.endpoint, json=payload, headers=headers)
        except httpx.TimeoutException as exc:
            raise EmbeddingUnavailable(f"timed out after {self.timeout:g} s") from exc
        except httpx.HTTPError as exc:
            raise EmbeddingUnavailable(f"request failed ({type(exc).__name__}: {exc})") from exc
        if response.status_code >= 400:
            raise EmbeddingUnavailable(f"answered HTTP {response.status_code}")
        if len(response.content) > MAX_REPLY_BYTES:
            raise EmbeddingUnavailable("the reply is too large")
        try:
            return json.loads(response.content)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise EmbeddingUnavailable("the reply is not JSON") from exc


_configured: tuple[tuple[Any, ...], Embedder] | None = None
_configured_lock = threading.Lock()
_LOCAL = LocalEmbedder()
_MINILM = MiniLMEmbedder()


def _settings_key() -> tuple[Any, ...]:
    return tuple(
        getattr(settings, name)
        for name in (
            "UME_EMBEDDINGS_PROVIDER",
            "UME_EMBEDDINGS_URL",
            "UME_EMBEDDINGS_MODEL",
            "UME_EMBEDDINGS_KEY",
            "UME_EMBEDDINGS_TIMEOUT_SECONDS",
            "UME_EMBEDDINGS_BATCH",
            "UME_EMBEDDINGS_DIM",
            "UME_EMBEDDINGS_RETRY_SECONDS",
        )
    )


def configured() -> Embedder:
    """The embedder the settings choose (one per process and setting, so a learned dimension
    and a pause after a failure are kept between calls)."""
    global _configured
    key = _settings_key()
    with _configured_lock:
        if _configured is not None and _configured[0] == key:
            return _configured[1]
        provider, url, model, api_key, timeout, batch, dim, retry = key
        embedder: Embedder = _LOCAL
        if provider == "minilm":
            embedder = _MINILM
        elif provider == "openai":
            embedder = RemoteEmbedder(
                url=url,
                name=model,
                key=api_key,
                timeout=timeout,
                batch=batch,
                dim=dim or None,
                retry_seconds=retry,
            )
        _configured = (key, embedder)
        return embedder


def for_model(name: str) -> Embedder | None:
    """The embedder that makes vectors of model ``name`` (empty: the configured one): the
    configured one, or a local model, or ``None`` when none makes them (vectors of a remote
    model that is no longer configured: only ``reindex`` helps)."""
    chosen = configured()
    if not name or name == chosen.name:
        return chosen
    for embedder in (_LOCAL, _MINILM):
        if name == embedder.name:
            return embedder
    return None


def question_vector(owner_id: int, model: str, text: str) -> tuple[str, np.ndarray] | None:
    """``text`` embedded by ``model``, the model serving the owner's vectors (empty: the
    configured one), with that model's name; ``None``, with a logged warning, when it cannot
    be had (an endpoint down, vectors of a model no longer configured): recall then goes on
    with its lexical lanes."""
    embedder = for_model(model)
    if embedder is None:
        log.warning(
            "recall: owner %s's vectors are of %s, which is not configured; words only until "
            "`manage.py reindex` moves them to the configured model",
            owner_id,
            model,
        )
        return None
    try:
        return embedder.name, embedder.embed([text])[0]
    except EmbeddingUnavailable as exc:
        log.warning("recall: no semantic lane for owner %s: %s", owner_id, exc)
        return None
