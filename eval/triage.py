"""The review queue after a life's chat history: ``manage.py eval_triage``.

A generated ChatGPT export (:mod:`eval.life_history`: 2,000 conversations by default) is
imported for a throwaway person through the real path (``chat_import_store`` then
``chat_import_process``, as ``ingest conversations.json`` does), timed, and the queue it
leaves is measured against the generator's manifest of the person's subjects:

- **cards**: guesses waiting for review; **nodes**: memories written directly (automatic
  capture only);
- **duplicates**: cards beyond the first for one subject of the life, where a card is about a
  subject when its name words include one of the subject's and every other word is one of
  the words it is said with ("Pepper", "our greyhound Pepper"; not "Pepper's vet bill", a
  thing of its own) -- target 0; **typo duplicates**: cards beyond the first whose words are
  another card's but for one slip of the fingers in one word of five letters or more
  ("Electirc car", "Electric car"), whatever their subject (:func:`typo_twins`); **fold
  duplicates**: pairs of cards the queue itself would call one subject
  (:func:`memory.keys.same_subject`);
- **junk**: cards whose label is a fragment, a pronoun, a generic word or a sentence piece
  (:func:`eval.locomo.junk_reason`, the rule ``eval_locomo`` reports);
- **life subjects found**: the life's subjects with a card or a memory, of those it mentions;
- **start here**: of the 20 cards the queue opens on, how many are about the life, and how
  many about a subject brought up in three or more conversations;
- **said in the history**: the share of cards whose "said" time is the messages' own (before
  the import began), not the import's;
- **stale values**: cards whose stored value is not what :mod:`memory.triage` computes now
  (a writer that forgot to set it): must be 0;
- **one-offs expiring**: what cleanup would expire as one-off, low-value guesses
  ``UME_ONE_OFF_DAYS`` after the import (a dry run: nothing is written).

The person is deleted afterwards (``--user`` imports into an existing person instead, and
keeps everything, to look at the queue in the dashboard). The figures depend on the
extractor; run it again after the proposer changes.
"""

from __future__ import annotations

import io
import json
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from eval.life_history import History, generate
from eval.locomo import junk_reason
from memory.imports.formats import CHATGPT
from memory.keys import canonical_key, fold_key, same_subject
from memory.models import Candidate, Episode, Node
from memory.owned import Person
from memory.recall.text import STOP_WORDS
from memory.services.cleanup import cleanup_user
from memory.services.erase import account_delete
from memory.services.imports import chat_import_process, chat_import_store
from memory.triage_selectors import start_here
from memory.vocab import CandidateStatus

RECURRING = 3  # conversations that make a subject recurring, for "start here"
_FILLER = STOP_WORDS | {"s"}


@dataclass(frozen=True)
class LifeSubject:
    id: str
    name: frozenset[str]
    words: frozenset[str]
    conversations: int

    @classmethod
    def from_manifest(cls, entry: dict[str, Any]) -> LifeSubject:
        return cls(
            id=str(entry["id"]),
            name=frozenset(canonical_key(str(entry["name"])).split()),
            words=frozenset(canonical_key(" ".join(entry.get("words", []))).split()),
            conversations=int(entry.get("conversations", 0)),
        )


def _one_slip(a: str, b: str) -> bool:
    """Are two different words one typing slip apart (a letter changed, added or dropped, or
    two neighbours swapped), both of five letters or more?"""
    if a == b or min(len(a), len(b)) < 5 or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        i = diff[0]
        return len(diff) == 2 and diff[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def typo_twins(keys: dict[int, str]) -> list[list[int]]:
    """Groups of cards (id -> canonical key) whose words are equal but for one slip in one
    word (:func:`_one_slip`): each group of two or more, its ids sorted."""
    parent = {cid: cid for cid in keys}

    def root(cid: int) -> int:
        while parent[cid] != cid:
            cid = parent[cid]
        return cid

    buckets: dict[tuple[str, ...], list[tuple[int, str]]] = defaultdict(list)
    for cid, key in keys.items():
        words = key.split()
        for i, word in enumerate(words):
            buckets[(*words[:i], "*", *words[i + 1 :])].append((cid, word))
    for members in buckets.values():
        for i, (one, word) in enumerate(members):
            for other, other_word in members[i + 1 :]:
                if _one_slip(word, other_word):
                    parent[root(other)] = root(one)
    groups: dict[int, list[int]] = defaultdict(list)
    for cid in keys:
        groups[root(cid)].append(cid)
    return [sorted(ids) for ids in groups.values() if len(ids) > 1]


def subject_of(key: str, subjects: list[LifeSubject]) -> str | None:
    """The life subject a card (its canonical ``key``) names, or None: its name words include
    one of the subject's and every other word is one the subject is said with, or filler."""
    words = set(key.split()) - _FILLER
    best, best_overlap = None, 0
    for subject in subjects:
        overlap = len(words & subject.name)
        if overlap and words <= subject.name | subject.words and overlap > best_overlap:
            best, best_overlap = subject.id, overlap
    return best


@dataclass
class Figures:
    """What :func:`run_eval` measured."""

    conversations: int
    seed: int | None
    extractor: str
    messages: int = 0
    import_seconds: float = 0.0
    cards: int = 0
    nodes: int = 0
    duplicates: int = 0
    typo_duplicates: int = 0
    fold_duplicates: int = 0
    junk: int = 0
    life_subjects: int = 0
    life_subjects_found: int = 0
    cards_on_life: int = 0
    start_cards: int = 0
    start_on_life: int = 0
    start_recurring: int = 0
    said_in_history: int = 0
    stale_values: int = 0
    one_offs_expiring: int = 0
    junk_labels: list[str] = field(default_factory=list)
    duplicate_labels: list[list[str]] = field(default_factory=list)
    typo_labels: list[list[str]] = field(default_factory=list)
    off_life_labels: list[str] = field(default_factory=list)
    start_labels: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        def rate(n: int, of: int) -> float:
            return round(n / of, 4) if of else 0.0

        return {
            "conversations": self.conversations,
            "seed": self.seed,
            "extractor": self.extractor,
            "messages": self.messages,
            "import_seconds": round(self.import_seconds, 1),
            "conversations_per_s": rate(self.conversations, int(self.import_seconds) or 1),
            "cards": self.cards,
            "nodes": self.nodes,
            "duplicates": self.duplicates,
            "duplicate_rate": rate(self.duplicates, self.cards),
            "typo_duplicates": self.typo_duplicates,
            "typo_duplicate_rate": rate(self.typo_duplicates, self.cards),
            "fold_duplicates": self.fold_duplicates,
            "junk": self.junk,
            "junk_rate": rate(self.junk, self.cards),
            "life_subjects": self.life_subjects,
            "life_subjects_found": self.life_subjects_found,
            "cards_on_life_subjects": self.cards_on_life,
            "start_here": {
                "cards": self.start_cards,
                "on_life_subjects": self.start_on_life,
                "recurring_subjects": self.start_recurring,
            },
            "said_in_history_rate": rate(self.said_in_history, self.cards),
            "stale_values": self.stale_values,
            "one_off_days": settings.UME_ONE_OFF_DAYS,
            "one_offs_expiring": self.one_offs_expiring,
            "junk_labels": self.junk_labels,
            "duplicate_labels": self.duplicate_labels,
            "typo_labels": self.typo_labels,
            "off_life_labels": self.off_life_labels,
            "start_labels": self.start_labels,
        }


def _import(owner: Person, history: History, extractor: str | None, figures: Figures) -> None:
    data = json.dumps(history.export, ensure_ascii=False).encode("utf-8")
    started = time.perf_counter()
    result = chat_import_store(
        owner=owner,
        stream=io.BytesIO(data),
        name="conversations.json",
        fmt=CHATGPT,
        source="command",
        extractor=extractor,
    )
    if not result.ok:
        raise RuntimeError(f"the generated export was refused: {result.message}")
    chat_import_process(result, extractor=extractor)
    figures.import_seconds = time.perf_counter() - started


def _score_cards(owner: Person, subjects: list[LifeSubject], figures: Figures) -> None:
    cards = list(Candidate.objects.for_owner(owner).filter(status=CandidateStatus.PENDING))
    figures.cards = len(cards)
    figures.nodes = Node.objects.for_owner(owner).count()
    by_subject: dict[str, list[str]] = defaultdict(list)
    for card in cards:
        subject = subject_of(card.canonical_key, subjects)
        if subject is not None:
            by_subject[subject].append(card.label_guess)
        elif len(figures.off_life_labels) < 60:
            figures.off_life_labels.append(card.label_guess)
        if junk_reason(card.label_guess):
            figures.junk += 1
            figures.junk_labels.append(card.label_guess)
        if abs(card.value - card.value_now()) > 1e-9:
            figures.stale_values += 1
    figures.cards_on_life = sum(len(labels) for labels in by_subject.values())
    figures.duplicates = sum(len(labels) - 1 for labels in by_subject.values())
    figures.duplicate_labels = [sorted(ls) for ls in by_subject.values() if len(ls) > 1]
    node_keys = Node.objects.for_owner(owner).values_list("canonical_key", flat=True)
    found = set(by_subject) | {subject_of(key, subjects) for key in node_keys} - {None}
    figures.life_subjects = len(subjects)
    figures.life_subjects_found = len(found)
    labels = {card.pk: card.label_guess for card in cards}
    twins = typo_twins({card.pk: card.canonical_key for card in cards})
    figures.typo_duplicates = sum(len(ids) - 1 for ids in twins)
    figures.typo_labels = [[labels[cid] for cid in ids] for ids in twins]
    folds: dict[str, list[str]] = defaultdict(list)
    for card in cards:
        folds[fold_key(card.canonical_key)].append(card.canonical_key)
    figures.fold_duplicates = sum(
        1
        for keys in folds.values()
        for i, key in enumerate(keys)
        for other in keys[i + 1 :]
        if same_subject(key, other)
    )


def _score_start(owner: Person, subjects: list[LifeSubject], figures: Figures) -> None:
    recurring = {s.id for s in subjects if s.conversations >= RECURRING}
    shown = start_here(owner)
    figures.start_cards = len(shown)
    figures.start_labels = [c.label_guess for c in shown]
    for card in shown:
        subject = subject_of(card.canonical_key, subjects)
        figures.start_on_life += subject is not None
        figures.start_recurring += subject in recurring


def run_eval(
    *,
    conversations: int = 2000,
    seed: int = 7,
    history: History | None = None,
    extractor: str | None = None,
    owner: Person | None = None,
    on_step: Callable[[str], None] | None = None,
) -> Figures:
    """Import the history (generated from ``seed`` unless given) for a throwaway person (or
    ``owner``, kept) and measure the queue; see the module docstring."""
    step = on_step or (lambda name: None)
    history = history or generate(seed=seed, conversations=conversations)
    figures = Figures(
        conversations=len(history.export),
        seed=history.manifest.get("seed"),
        extractor=extractor or settings.UME_DEFAULT_EXTRACTOR,
    )
    subjects = [LifeSubject.from_manifest(e) for e in history.manifest.get("subjects", [])]
    throwaway = owner is None
    person = owner or get_user_model().objects.create_user(
        username=f"eval-triage-{uuid.uuid4().hex[:12]}", password=None
    )
    try:
        step("importing")
        begun = timezone.now()
        _import(person, history, extractor, figures)
        figures.messages = Episode.objects.for_owner(person).count()
        step("scoring the queue")
        _score_cards(person, subjects, figures)
        _score_start(person, subjects, figures)
        figures.said_in_history = (
            Candidate.objects.for_owner(person)
            .filter(status=CandidateStatus.PENDING, last_said_at__lt=begun)
            .count()
        )
        if settings.UME_ONE_OFF_DAYS:
            later = timezone.now() + timedelta(days=settings.UME_ONE_OFF_DAYS, hours=1)
            report = cleanup_user(owner=person, now=later, dry_run=True)
            figures.one_offs_expiring = report.counts["one_offs_expired"]
    finally:
        if throwaway:
            account_delete(person)
    return figures
