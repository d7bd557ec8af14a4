"""Confidence: what each piece of evidence is worth, and the gate. Pure tables."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from memory.recall.confidence import (
    ADDRESSED_FACTOR,
    AGREEMENT_SHARE,
    ALIAS_FACTOR,
    QUESTION_FACTOR,
    ROLE_FACTORS,
    SEMANTIC_CAP,
    SEMANTIC_STRONG,
    SEMANTIC_WEAK,
    addressed,
    asks,
    combine,
    coverage,
    doc_confidence,
    gate,
    passes,
    question_weights,
    role_factor,
    term_weight,
)
from memory.recall.items import WHY_ALIAS, WHY_EXACT, WHY_LEXICAL, Doc


@pytest.mark.parametrize(
    ("common", "rare"),
    [("said", "cholesterol"), ("house", "allotment"), ("good", "amlodipine")],
)
def test_a_rarer_word_weighs_more(common: str, rare: str) -> None:
    assert 1.0 <= term_weight(common) < term_weight(rare)


@pytest.mark.parametrize("word", ["may", "tuesday", "2023", "14", "3rd", "21st"])
def test_date_words_weigh_nothing(word: str) -> None:
    assert term_weight(word) == 0.0


def test_question_weights_are_by_stem_and_skip_stop_words() -> None:
    weights = question_weights(["what", "did", "the", "allotment", "allotments", "garden"])
    assert set(weights) == {"allot", "garden"}
    assert weights["allot"] > weights["garden"]


def test_coverage_weighs_what_an_item_holds() -> None:
    weights = {"rare": 3.0, "common": 1.0}
    assert coverage(weights, {"rare": 1.0, "common": 1.0}) == 1.0
    assert coverage(weights, {"rare": 1.0}) == 0.75
    assert coverage(weights, {"common": 1.0}) == 0.25
    # held only through the message a reply answers: the context's weight
    assert coverage(weights, {"rare": 0.8}) == pytest.approx(0.6)
    assert coverage(weights, {"rare": 2.0}) == 0.75  # counted twice is still held once
    assert coverage({}, {}) == 0.0
    assert coverage({"may": 0.0}, {"may": 1.0}) == 1.0  # only date words, and one is held


def test_combine_meaning_alone_is_capped_and_agreement_adds() -> None:
    assert combine(0.0, None) == 0.0
    assert combine(0.0, SEMANTIC_WEAK) == 0.0
    assert combine(0.0, SEMANTIC_STRONG) == SEMANTIC_CAP
    assert combine(0.0, 0.99) == SEMANTIC_CAP
    lexical = 0.8  # above what meaning alone gives
    both = combine(lexical, SEMANTIC_STRONG)
    assert both == pytest.approx(lexical + (1 - lexical) * AGREEMENT_SHARE, abs=1e-4)
    assert combine(1.0, SEMANTIC_STRONG) == 1.0
    assert combine(0.5, None, factor=0.5) == 0.25


def test_a_memory_named_whole_is_certain_and_an_alias_a_little_less() -> None:
    doc = Doc(kind="node", id=1, label="Bea", key="bea", aliases=["my sister"])
    weights = question_weights(["bea"])
    assert doc_confidence(doc, WHY_EXACT, weights) == 1.0
    assert doc_confidence(doc, WHY_ALIAS, weights) == ALIAS_FACTOR


def test_a_memory_that_holds_only_the_name_of_a_longer_question_is_unsure() -> None:
    doc = Doc(kind="node", id=1, label="Bea", key="bea", slices=[("Sister, a chef", "fact")])
    weights = question_weights("what did bea say about her cholesterol".split())
    held = doc_confidence(doc, WHY_EXACT, weights)
    assert 0.0 < held < 0.6
    chef = question_weights("what does bea do chef".split())
    assert doc_confidence(doc, WHY_LEXICAL, chef) > held


@pytest.mark.parametrize(
    ("text", "asking"),
    [
        ("Did you make it?", True),
        ("Wow! What got you into running?", True),
        ("I made this bowl in my class.", False),
        ("Is it fixed? Yes, on Tuesday.", False),
    ],
)
def test_asks(text: str, asking: bool) -> None:
    assert asks(text) is asking


@dataclass(frozen=True)
class Item:
    confidence: float


@pytest.mark.parametrize(
    ("confidences", "threshold", "kept"),
    [
        ((0.9, 0.1), 0.5, 2),  # a weak item beside a strong one stays
        ((0.4, 0.3), 0.5, 0),  # the best is weak: nothing
        ((0.5,), 0.5, 1),  # at the threshold counts
        ((0.0,), 0.0, 1),  # threshold 0: the gate is off
        ((), 0.0, 0),
    ],
)
def test_gate_keeps_all_or_nothing(
    confidences: tuple[float, ...], threshold: float, kept: int
) -> None:
    items = [Item(c) for c in confidences]
    assert len(gate(items, threshold)) == kept
    assert passes(confidences, threshold) is bool(kept)


def test_the_words_that_named_a_memory_count_as_held() -> None:
    # the named lane reads a memory without its aliases: the words that named it still count
    doc = Doc(kind="node", id=2, label="PostgreSQL", key="postgresql")
    weights = question_weights(["postgres"])
    assert doc_confidence(doc, WHY_ALIAS, weights) == 0.0
    assert doc_confidence(doc, WHY_ALIAS, weights, named=["postgr"]) == ALIAS_FACTOR


@pytest.mark.parametrize(
    ("text", "speaks_of_the_other"),
    [
        ("That charity race sounds great, Mel! You must be so proud of yourself", True),
        ("Love your necklace, you always find the best things", True),
        ("I ran a charity race for mental health last Saturday", False),
        ("can you remind me to call my mum", False),  # a request: as much me as you
        ("thanks, you too! I'm off to the gym", False),
        ("Thank you", True),
    ],
)
def test_addressed(text: str, speaks_of_the_other: bool) -> None:
    assert addressed(text) is speaks_of_the_other


def test_role_factor() -> None:
    assert role_factor("user", "I ran a race on Saturday") == 1.0
    assert role_factor("assistant", "I ran a race on Saturday") == ROLE_FACTORS["assistant"]
    assert role_factor("user", "that race sounds great, you did so well") == ADDRESSED_FACTOR
    assert role_factor("user", "what got you into running?") == pytest.approx(
        QUESTION_FACTOR * ADDRESSED_FACTOR
    )
    # what the assistant says to the person is already weighed by who said it
    assert role_factor("assistant", "your race sounds great") == ROLE_FACTORS["assistant"]
