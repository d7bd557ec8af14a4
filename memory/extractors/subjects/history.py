"""What the person said of a subject in earlier conversations: evidence that it matters.

Pure: the ingest service reads the person's earlier messages that may name a subject and the
labels of the guesses waiting for review (:func:`memory.selectors.said_before`); this decides
which really do. A subject said again, of themselves, in another conversation is the best
evidence a person keeps it; a card already waiting for it gives its label, so the new
sentences join that card instead of making another.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

from memory.extractors import patterns as p
from memory.extractors.subjects import Heard
from memory.extractors.subjects.framing import mentions_self
from memory.extractors.subjects.phrases import ALL_OF, label_keys, stem, words_of


@dataclass(frozen=True)
class _Said:
    """One sentence of an earlier message, read once for every subject looked for in it."""

    line: str  # its words (:func:`.phrases.words_of`), space-separated, a space either side
    stems: frozenset[str]  # the stems of its words
    own: bool  # the speaker is in it (:func:`.framing.mentions_self`)


def _said(sentence: str) -> _Said:
    words = words_of(sentence)
    return _Said(f" {' '.join(words)} ", frozenset(stem(w) for w in words), mentions_self(sentence))


@lru_cache(maxsize=4096)
def _sentences(text: str) -> tuple[_Said, ...]:
    """The sentences of an earlier message, read. Cached: every conversation of an import
    reads again the messages of the ones before it that name its subjects."""
    return tuple(_said(s) for s in p.split_sentences(text))


def _names(said: _Said, key: str) -> bool:
    return _naming(key)(said)


def _naming(key: str) -> Callable[[_Said], bool]:
    """:func:`_names` of ``key``, for one sentence after another (the key read once)."""
    if ALL_OF in key:  # a subject said again only with all its words (:func:`said_again_key`)
        parts = key.split(ALL_OF)
        return lambda said: all(part in said.stems for part in parts)
    if " " in key:
        spaced = f" {key} "
        return lambda said: spaced in said.line
    return lambda said: key in said.stems


def names_it(text: str, key: str) -> bool:
    """Whether ``text`` names the subject ``key`` (:func:`.phrases.topic_key`): a name of
    several words as whole words, any other key as the stem of one of its words."""
    return _names(_said(text), key)


def _holding(
    parts: Sequence[str], joined: str, starts: Sequence[int], needle: str
) -> Iterator[int]:
    """The positions of the texts ``parts`` that hold ``needle``, in order: one search of
    them ``joined`` by a NUL (which no needle of words holds; each begins at ``starts``),
    not one per text."""
    if not parts or not needle or "\0" in needle:
        yield from (at for at, part in enumerate(parts) if needle in part)
        return
    found = joined.find(needle)
    while found != -1:
        at = bisect_right(starts, found) - 1
        yield at
        if at + 1 == len(starts):
            return
        found = joined.find(needle, starts[at + 1])


# The positions of the texts that hold a needle, when the caller already knows them
# (:meth:`memory.selectors.SaidSoFar.holding`), else None.
Holding = Callable[[str], "list[int] | None"]


class _Lowered:
    """The texts lowered and joined once, when a needle must be searched here."""

    def __init__(self, texts: Sequence[tuple[int, str]]) -> None:
        self.parts = [text.lower() for _transcript, text in texts]
        self.joined = "\0".join(self.parts)
        self.starts = list(accumulate((len(part) + 1 for part in self.parts[:-1]), initial=0))

    def holding(self, needle: str) -> list[int]:
        return list(_holding(self.parts, self.joined, self.starts, needle))


def heard(
    texts: Sequence[tuple[int, str]],
    labels: Sequence[tuple[str, str]],
    needles: dict[str, str],
    known: Holding | None = None,
) -> dict[str, Heard]:
    """Per subject key, in how many earlier conversations the person said it in a sentence of
    their own ("I", "my", "we"...), and the label of the card waiting for it (``labels``:
    each waiting card's label and a sentence it holds). ``known`` gives the texts that hold
    a needle when the caller already searched for it (an import's), the same as searching."""
    out: dict[str, Heard] = {}
    # Each message lowered once, and split and read once when a subject's needle is in it,
    # not once per subject: an import reads thousands of earlier messages per conversation.
    lowered: _Lowered | None = None
    sentences: dict[int, tuple[_Said, ...]] = {}  # by position in ``texts``
    holding: dict[str, list[int]] = {}  # by needle: a subject and its all-words key share one
    for key, needle in needles.items():
        conversations: set[int] = set()
        names = _naming(key)
        if needle not in holding:
            found = known(needle) if known is not None else None
            if found is None:
                lowered = lowered or _Lowered(texts)
                found = lowered.holding(needle)
            holding[needle] = found
        for at in holding[needle]:
            transcript, text = texts[at]
            if transcript in conversations:
                continue
            if at not in sentences:
                sentences[at] = _sentences(text)
            if any(said.own and names(said) for said in sentences[at]):
                conversations.add(transcript)
        waiting = (
            None  # an all-words key finds no card: its subject's own key does
            if ALL_OF in key
            else next((label for label, said in labels if key in label_keys(label, said)), None)
        )
        if conversations or waiting:
            out[key] = Heard(len(conversations), waiting)
    return out
