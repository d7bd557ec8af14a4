"""What the person said of a subject in earlier conversations: evidence that it matters.

Pure: the ingest service reads the person's earlier messages that may name a subject and the
labels of the guesses waiting for review (:func:`memory.selectors.said_before`); this decides
which really do. A subject said again, of themselves, in another conversation is the best
evidence a person keeps it; a card already waiting for it gives its label, so the new
sentences join that card instead of making another.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.extractors import patterns as p
from memory.extractors.subjects import Heard
from memory.extractors.subjects.framing import mentions_self
from memory.extractors.subjects.phrases import label_keys, stem, words_of


def names_it(text: str, key: str) -> bool:
    """Whether ``text`` names the subject ``key`` (:func:`.phrases.topic_key`): a name of
    several words as whole words, any other key as the stem of one of its words."""
    words = words_of(text)
    if " " in key:
        return f" {key} " in f" {' '.join(words)} "
    return any(stem(w) == key for w in words)


def heard(
    texts: Sequence[tuple[int, str]],
    labels: Sequence[tuple[str, str]],
    needles: dict[str, str],
) -> dict[str, Heard]:
    """Per subject key, in how many earlier conversations the person said it in a sentence of
    their own ("I", "my", "we"...), and the label of the card waiting for it (``labels``:
    each waiting card's label and a sentence it holds)."""
    out: dict[str, Heard] = {}
    lowered = [text.lower() for _transcript, text in texts]  # once, not once per subject
    sentences: dict[int, list[str]] = {}  # by position in ``texts``, split when first needed
    for key, needle in needles.items():
        conversations: set[int] = set()
        for at, (transcript, text) in enumerate(texts):
            if transcript in conversations or needle not in lowered[at]:
                continue
            if at not in sentences:
                sentences[at] = p.split_sentences(text)
            if any(names_it(s, key) and mentions_self(s) for s in sentences[at]):
                conversations.add(transcript)
        waiting = next((label for label, said in labels if key in label_keys(label, said)), None)
        if conversations or waiting:
            out[key] = Heard(len(conversations), waiting)
    return out
