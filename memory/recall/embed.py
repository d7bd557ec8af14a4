"""The local embedding model behind the semantic lane.

``wordllama`` ships its 256-dimension weights and tokenizer inside its wheel, so nothing is
downloaded at run time: the model is loaded from the package's own folder with downloads
disabled (its project-root lookup would miss the bundled tokenizer). Vectors are unit length
and stored as int8 (x127), 256 bytes each; :data:`MODEL_NAME` is stored with every vector so
that a model change is detected (``reindex`` rebuilds them), never silently mixed. Pure: no
ORM."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

MODEL_NAME = "wordllama-l2_supercat-256"
DIM = 256
SCALE = 127.0
# Texts per batch of the model: each batch is a (texts x longest text's tokens x 256) float32
# array, and its product with the mask another, so 64 messages of 2,000 characters hold
# about 30 MB at once (the import's peak, and RSS that does not go back); 16 hold a quarter of
# it for the same vectors (a text's vector does not depend on its batch) and the same CPU.
BATCH = 16

_lock = threading.Lock()
_model: Any = None


def _load() -> Any:
    global _model
    with _lock:
        if _model is None:
            import wordllama
            from wordllama import WordLlama

            folder = os.path.dirname(wordllama.__file__)
            _model = WordLlama.load(
                config="l2_supercat", dim=DIM, cache_dir=folder, disable_download=True
            )
    return _model


def embed(texts: Sequence[str]) -> np.ndarray:
    """Unit-length float32 vectors, one row per text (a row of zeros for a text without
    words)."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    model = _load()
    # Shortest first: the model pads each batch to its longest text, so batches of texts of
    # like length pad (and pool) far less. Each text's vector does not depend on its batch
    # (padding adds exact zeros); they are put back in the order given.
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    with np.errstate(invalid="ignore", divide="ignore"):  # a text without words norms to 0
        found = np.asarray(
            model.embed([texts[i] for i in order], norm=True, batch_size=BATCH), dtype=np.float32
        )
    vectors = np.empty_like(found)
    vectors[order] = np.nan_to_num(found)
    return vectors.reshape(len(texts), DIM)


def quantize(vectors: np.ndarray) -> list[bytes]:
    """int8 bytes of unit-length vectors, one per row."""
    q = np.clip(np.rint(vectors * SCALE), -127, 127).astype(np.int8)
    return [row.tobytes() for row in q]


def matrix(blobs: Sequence[bytes]) -> np.ndarray:
    """The int8 matrix of stored vectors (rows in the order given)."""
    if not blobs:
        return np.zeros((0, DIM), dtype=np.int8)
    return np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), DIM)
