"""The subject proposer: what a person talks about, found without sentence templates.

The rules (:mod:`memory.extractors.rules`) read structure: dates, states, relations, the
subject of a sentence shaped the way they know. Speech nobody here wrote is mostly shaped
otherwise, so subjects are also found from signals that hold on any wording:

1. **names and rare noun phrases** (:mod:`.phrases`): the pattern tagger's noun phrases, kept
   when they are a name or carry a word that is rare in English;
2. **first-person framing** (:mod:`.framing`): the person says it of themselves;
3. **repetition**: a subject said in several sentences and messages of the batch is more
   likely to matter; said again in another conversation (``history``, read from the person's
   earlier messages) it is much more so, and a subject said once that is not a name waits for
   that before it is a card (:data:`ONCE`); a card waiting for it takes the new sentences;
4. **the embedding model** (:mod:`.framing`): how close the sentences are to a life, and the
   subject's category;
5. **dates for events**: a sentence that names a time (:func:`memory.temporal.resolve_when`)
   is held as a dated event on the subject, any other as a fact.

The evidence becomes a confidence (:func:`memory.confidence.confidence`); a subject below
:data:`FLOOR` is not proposed. What is proposed is a ``CandidateProposal`` (so it is always a
card for review, even where automatic capture is on) with the person's sentences held on it.
It goes through the write gate like everything else: suppressions, the identity guard and
folding of near-duplicates apply. Sentences a rule already read, and subjects a rule already
proposed, are left to the rules.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache, lru_cache

from memory.confidence import Evidence, confidence
from memory.extractors import patterns as p
from memory.extractors.asides import not_own, unmeant, withheld, withheld_messages
from memory.extractors.patterns import DIET_LABELS
from memory.extractors.rules.people import RELATIONS
from memory.extractors.subjects.framing import (
    ANIMAL,
    BABY,
    ORG_BEFORE,
    acquainted,
    categories,
    first_person,
    introduced,
    led_by_other_here,
    led_here,
    life_scores,
    mentions_self,
    named_then,
    negated,
    owned,
    self_named,
    serves,
    thing_scores,
    verbless,
)
from memory.extractors.subjects.phrases import (
    NAME_MAX_ZIPF,
    Phrase,
    label_keys,
    lexical_tag,
    needle,
    phrases,
    said_again_key,
    stem,
    topic_key,
    words_of,
    written_plain,
    zipf,
)
from memory.extractors.subjects.standard import (
    CONTRAST,
    one_spelling,
    relabelled,
    unheld,
    unsaid,
    without,
)
from memory.extractors.subjects.typed import typed_names
from memory.keys import canonical_key, fold_key, title_gender
from memory.markup import markup_to_text
from memory.proposals import (
    AnyProposal,
    CandidateProposal,
    EventProposal,
    EvidenceSpan,
    NodeProposal,
    SliceProposal,
)
from memory.temporal import resolve_when
from memory.transcripts import Message
from memory.vocab import Category

FLOOR = 0.5  # below this a subject is not worth a person's look
# A subject heard in one conversation only is a card when its evidence there is this strong (a
# name the person uses of their own life, a specific thing said again and again); weaker ones
# wait, as what was said (recall finds it), until the person brings them up again.
ONCE = 0.8
# A phrase that is not a name must be nearer something in a life than a feeling or a quality
# (framing.thing_scores) by at least this much (a margin for words it hardly knows: "Allotment" is -0.09).
THING_MARGIN = -0.1
MAX_HELD = 4  # passages held on one card from one batch
MAX_PASSAGE = 600
WINDOW = 0  # statements either side of a mention held with it
REASON = "proposed"

# A hedge on an amount hedges the amount, not whether it happened (p.AMOUNT_AFTER).
_SUPPOSED = re.compile(
    r"^\W*(?:if|imagine|imagining|suppose|supposing|what\s+if|i\s+wish)\b|\bmight\b|"
    r"\b(?:maybe|perhaps|possibly|probably)\b" + p.AMOUNT_AFTER + r"|"
    r"\b(?:not\s+sure|i\s+guess|wonder|daydream\w*)\b",
    re.IGNORECASE,
)

# Which of these canonical keys the person already has (a memory or a waiting guess).
Recurring = Callable[[set[str]], set[str]]


@dataclass(frozen=True)
class Heard:
    """What the person said of one subject before this conversation."""

    conversations: int = 0  # earlier conversations in which the person said it
    waiting: str | None = None  # the label of the card already waiting for it, if any


# Per subject (topic key -> a substring its spellings share), what was heard before.
History = Callable[[dict[str, str]], dict[str, Heard]]


@dataclass(frozen=True)
class Said:
    sentence: str
    message_id: str
    ts: datetime | None
    anchor: datetime | None
    before: str  # the word before the phrase, for a name's category
    # The sentence with the person's statements just before and after it in the same message,
    # said in the same breath ("We went to the support group. It was so powerful."): the text
    # held on the card.
    passage: str = ""
    # The sentence before it in the message: a sentence without a subject goes on with that
    # one's ("My sister adopted a whippet. Moved to Leeds in May.": :func:`.first_person`).
    prior: str = ""
    # A line of a list or of "key: value" notes, in a message written in lines that says the
    # speaker somewhere ("I", "my", "we"): without a verb, it is theirs (:func:`noted`).
    listed: bool = False


@dataclass
class Subject:
    phrase: Phrase
    said: list[Said] = field(default_factory=list)
    echoed: int = 0  # the other side's messages that took the subject up
    # Every spelling said of it in the batch ("pottery", "pottery classes"), by how often.
    spellings: dict[str, int] = field(default_factory=dict)
    label: str = ""  # the card's label: the waiting card's, else the spelling said most

    def spelled(self, phrase: Phrase) -> None:
        self.spellings[phrase.label] = self.spellings.get(phrase.label, 0) + 1
        self.label = max(self.spellings, key=lambda k: (self.spellings[k], -len(k.split())))

    @property
    def messages(self) -> int:
        return len({s.message_id for s in self.said}) + self.echoed


def _before(sentence: str, phrase: Phrase) -> str:
    """The word before the phrase, and past an article the word of an organisation before it
    ("at the Vega Climbing Wall": "at"; "to the University of Aberdeen": "the", a place or
    an institution, for the embedding model to tell)."""
    words = p.words(sentence)
    first = phrase.words[0].lower()
    at = words.index(first) if first in words else 0
    if at > 1 and words[at - 1] in ("the", "a", "an") and words[at - 2] in ORG_BEFORE:
        return words[at - 2]
    return words[at - 1] if at > 0 else ""


def _statement(sentence: str) -> str | None:
    """The sentence as a statement of the person's own, else ``None``."""
    rest, _remembered = p.unwrap_remember(p.told(sentence))
    if p.is_smalltalk(rest) or p.asks(rest) or p.asks(p.TOPIC.sub("", rest, count=1)):
        return None
    if _SUPPOSED.search(rest):
        # "If I won the lottery ...", "I might try ...": nothing the person has; but what
        # follows "but" is what is ("if i had more time id learn the cello, but for now im
        # sticking with my pottery class"), and so is what comes before a hedged clause of its
        # own ("we moved to Leeds in May and I might get a dog")
        parts = CONTRAST.split(rest, maxsplit=1)
        if len(parts) == 2 and not _SUPPOSED.search(parts[1]):
            rest = parts[1]
        elif lead := p.before_hedge(rest, _SUPPOSED):
            rest = lead
        else:
            return None
    if not_own(rest):
        return None  # "I'm SUCH a morning person 🙃", "it's my flatmate's, not mine"
    if len(p.words(rest)) < 3:
        return None
    return rest


def _sentences(
    messages: Sequence[Message], source_time: datetime | None, used: Mapping[str, set[str]]
) -> Iterator[tuple[str, str, Message, datetime | None, set[str] | None, str]]:
    """(statement, its neighbours, message, anchor, the labels a rule took from it or
    ``None``, the sentence before it) for each statement of the person's own."""
    withheld_at = withheld(messages)  # by position: two messages may share an id
    for at, message in enumerate(messages):
        if message.role != "user" or not message.content.strip():
            continue
        sentences = p.split_sentences(markup_to_text(message.content))
        if at in withheld_at or (sentences and _hands_over(p.told(sentences[0]))):
            # "Don't save this ...", a message taken back ("scratch that"), or a request whose
            # material follows ("Rewrite this: ..."): nothing in it is the person's to keep.
            continue
        statements = [_statement(s) for s in sentences]
        for index, rest in enumerate(statements):
            if rest is None:
                continue
            # Neighbours only where the person speaks of themselves: "he loves the dinosaur
            # hall" beside "we took him to the museum" is the son's, not the person's.
            start = max(0, index - WINDOW)
            window = statements[start : index + WINDOW + 1]
            around = " ".join(
                s
                for at, s in enumerate(window, start)
                if s and (s == rest or first_person(s, _prior(sentences, at)))
            )
            yield (
                rest,
                around,
                message,
                message.ts or source_time,
                used.get(sentences[index]),
                _prior(sentences, index),
            )


# What a request hands over to work on: "Rewrite this: ...", "translate the following",
# "can you make it shorter?".
_MATERIAL = re.compile(r":|" + p.HANDED_OVER.pattern, re.IGNORECASE)


def _hands_over(first: str) -> bool:
    """Whether a message's first sentence is a request that hands over material ("Rewrite
    this: ...", "Translate the following"): what follows is the material, not the person's
    life. A plea or a question that the person goes on to explain ("HELP my dog ate
    chocolate!!!", "any tips for a first 10k?") hands nothing over."""
    return p.is_request(first) and bool(_MATERIAL.search(first))


def _prior(sentences: Sequence[str], index: int) -> str:
    """The sentence before ``sentences[index]``, or ""."""
    return sentences[index - 1] if index else ""


_TOKEN = re.compile(r"[^\W\d_][^\W\d_'’-]*|\S")


def _folded(text: str) -> str:
    """``text`` in lower case without accents, letter for letter ("Café" -> "cafe")."""
    if text.isascii():  # most text: the same, letter for letter, at C speed
        return text.lower()
    return "".join(map(_folded_letter, text))


@cache
def _folded_letter(ch: str) -> str:
    """One letter of :func:`_folded`, read once per letter of an import, not once per use."""
    return (unicodedata.normalize("NFKD", ch)[:1] or ch).lower()[:1] or ch


def _capitalised(word: str) -> bool:
    """A word written as a name: a capital, then at least one lower-case letter ("Juniper",
    "JavaScript"; not "I", "UK")."""
    return word[:1].isupper() and any(ch.islower() for ch in word[1:])


def written_names(messages: Sequence[Message]) -> dict[str, str]:
    """The names the batch writes capitalised inside a sentence (right after a word in lower
    case: "we took Juniper out", "a shift at Crumb Cafe"), by their lower-case spelling, when
    the other side never writes their words in lower case and none is a word English uses
    every day. A person who types everything in lower case ("my mate maisie") names the same
    thing the listener, or the person elsewhere, writes as a name."""
    runs: dict[str, str] = {}
    lower: set[str] = set()
    for message in messages:
        # No token holds a space or a line break: the text's tokens are its lines' tokens.
        tokens = _TOKEN.findall(markup_to_text(message.content))
        if message.role != "user":
            lower.update(map(_folded, filter(str.islower, set(tokens))))
        # Only a word with a capital first starts a run, and no word of a run can start
        # another (the word before it is capitalised, not lower case): the few words that
        # start with a capital are looked at, not every word of the message.
        for at in [i for i, t in enumerate(tokens) if t[:1].isupper()]:
            before, word = tokens[at - 1], tokens[at]
            if not (at and before.isalpha() and before.islower() and _capitalised(word)):
                continue
            run = [word]
            while at + 1 < len(tokens) and _capitalised(tokens[at + 1]):
                at += 1
                run.append(tokens[at])
            runs.setdefault(_folded(" ".join(run)), " ".join(run))
    # A word English uses every day ("Would", "Bring") capitalised after a lower-case word is
    # a line or a list item that starts without punctuation, not a name.
    return {
        key: name
        for key, name in runs.items()
        if not any(w in lower for w in key.split())
        and all(zipf(w) < NAME_MAX_ZIPF for w in key.split())
    }


def cased(sentence: str, names: dict[str, str]) -> str:
    """``sentence`` with each name of ``names`` it writes in lower case written as the name
    (accents aside: "crumb cafe" is "Crumb Café")."""
    # A name written in takes the place of its letters, one for one, and folds to its key:
    # the sentence folds the same after each, so it is folded once.
    folded = _folded(sentence)
    for key in sorted(names, key=len, reverse=True):
        if key not in folded:
            continue
        pattern = p.compiled(rf"(?<![^\W\d_]){re.escape(key)}(?![^\W\d_])")
        spans = [m.span() for m in pattern.finditer(folded)]
        for start, end in reversed(spans):
            if sentence[start:end].islower():  # as the person typed it, not a name already
                sentence = sentence[:start] + names[key] + sentence[end:]
    return sentence


def gather(
    messages: Sequence[Message],
    *,
    source_time: datetime | None,
    known: set[str],
    used: Mapping[str, set[str]],
) -> dict[str, Subject]:
    """Every possible subject of the batch by topic key (:func:`.phrases.topic_key`: every
    spelling of one subject, never two names), with where it was said. A sentence a rule
    read (``used``: the labels it took from it) is the rule's, but for the names in it that
    are not a piece of the rule's own ("I sing with the Hollowmere Choir" is "Singing" to the
    rule, and the choir is a subject of its own; "Bristol" of "House in Bristol" is not);
    all of it is the person's when the rule took only someone by relation from it
    (:func:`_kin_only`). A name said right after a negation ("never to Lyon") is not the
    person's. A name the person types in lower case is read as the name the batch writes
    elsewhere (:func:`written_names`), or as a name where only a name stands
    (:func:`.typed.typed_names`: "my mate maisie", "felipe is driving")."""
    subjects: dict[str, Subject] = {}
    typed = {_folded(key): name for key, name in typed_names(messages).items()}
    names = typed | written_names(messages)  # the batch's own spelling first
    for sentence, around, message, anchor, ruled, prior in _sentences(messages, source_time, used):
        listed = _listed(message.content, sentence)
        for phrase in phrases(cased(sentence, names)):
            if ruled is not None and (
                _piece(phrase, ruled) if phrase.is_name else not _kin_only(ruled)
            ):
                continue
            if negated(sentence, phrase.words):
                continue
            key = topic_key(phrase)
            if not key or fold_key(canonical_key(phrase.label)) in known:
                continue
            if unmeant(sentence, phrase.words):
                # a line of a book or a film, a place never visited ("I've never been to
                # Europe"), an oath ("God help us"): not a thing of the person's life
                continue
            if canonical_key(phrase.label) in known:
                continue
            if phrase.is_name and self_named(sentence, phrase.words):
                continue  # "I am Desmond": the person whose memory this is
            subject = subjects.setdefault(key, Subject(phrase))
            subject.spelled(phrase)
            if phrase.is_name and not subject.phrase.is_name:
                subject.phrase = phrase
            said = Said(
                sentence,
                message.id,
                message.ts,
                anchor,
                _before(sentence, phrase),
                around,
                prior,
                listed,
            )
            if said.sentence not in {s.sentence for s in subject.said}:
                subject.said.append(said)
    _echoes(messages, subjects)
    return subjects


def _kin_only(labels: set[str]) -> bool:
    """Whether all a rule took from a sentence is someone by relation alone ("Daughter" of "my
    daughter set this up for me ... I have got my hip replacement booked"): the rest of the
    sentence is still the person's to say."""
    return bool(labels) and all(label.lower() in RELATIONS for label in labels)


def _piece(phrase: Phrase, labels: set[str]) -> bool:
    """Whether the phrase is a piece of one of ``labels`` ("Tracker" of "R&D Tracker"), or ends
    with one of them ("GP Rose Baker" for a rule's "Rose Baker"): the rule's subject, said with
    fewer words or with a word before it. A name that only holds a rule's word inside it is
    its own ("Brightwater Yoga Studio" beside a rule's "Yoga")."""
    mine = phrase.label.lower()
    said = p.compiled(rf"(?<!\w){re.escape(mine)}(?!\w)")
    return any(
        said.search(label.lower())
        or p.compiled(rf"(?<!\w){re.escape(label.lower())}$").search(mine)
        for label in labels
        if label
    )


def _echoes(messages: Sequence[Message], subjects: dict[str, Subject]) -> None:
    """Count the other side's messages that name each subject: a topic the listener takes up
    ("How is Biscuit settling in?") is one the conversation is about."""
    others = [p.word_set(m.content) for m in messages if m.role != "user" and m.content]
    for subject in subjects.values():
        words = {w.lower() for w in subject.phrase.words}
        subject.echoed = sum(1 for said in others if words <= said)


# A line of a list ("- ", "* ", "2. ", "3) ") or of notes ("Venue: ...").
_LIST_LINE = re.compile(r"^\s*(?:[-*•–]|\d{1,2}[.)]|[^\W\d_][\w' /&]{0,30}:)\s")


@lru_cache(maxsize=64)
def _list_openings(content: str) -> frozenset[tuple[str, ...]]:
    """The first three words of each line of a list or of "key: value" notes in a message
    written in lines that says the speaker somewhere (with and without the line's marker);
    none in any other message. Read once per message."""
    if "\n" not in content or not mentions_self(content):
        return frozenset()
    out: set[tuple[str, ...]] = set()
    for line in content.splitlines():
        if _LIST_LINE.match(line):
            out.add(tuple(p.words(markup_to_text(line))[:3]))
            out.add(tuple(p.words(markup_to_text(_LIST_LINE.sub("", line, count=1)))[:3]))
    return frozenset(out)


def _listed(content: str, sentence: str) -> bool:
    """Whether ``sentence`` (a statement: three words or more) opens a line of a list or of
    notes in a message written in lines that says the speaker somewhere."""
    openings = _list_openings(content)
    return bool(openings) and tuple(p.words(sentence)[:3]) in openings


def noted(said: Said) -> bool:
    """A line of notes the person writes about their own life: a list item or "key: value"
    line without a verb, in a message that says the speaker elsewhere ("Context: - Wedding:
    Sept 19, Hollyburn Lodge - photographer (Talia Okafor)"), as people set out their plans
    for an assistant; not a fragment of chat ("sorry about the hike")."""
    return said.listed and verbless(said.sentence)


# "sorry to hear about Max", "glad to hear of the new job", "I'm so sorry about Max": what is
# heard of, or condoled, is the other's news, however much the sentence says "I".
def heard_of(sentence: str, words: tuple[str, ...]) -> bool:
    lowered = sentence.lower()
    if "hear" not in lowered and "sorry" not in lowered:
        return False  # most sentences: no pattern built for each name said in them
    name = r"\s+".join(re.escape(w) for w in words)
    return bool(
        re.search(
            r"\b(?:(?:hear|heard|hearing)\s+(?:about|of)|sorry\s+(?:about|for))\s+"
            rf"(?:[\w'’-]+\s+){{0,3}}?{name}\b",
            sentence,
            re.IGNORECASE,
        )
    )


def evidence_of(subject: Subject, life: dict[str, float], sessions: int = 1) -> Evidence:
    framing = [
        0.0
        if heard_of(s.sentence, subject.phrase.words)
        else 1.0
        if first_person(s.sentence, s.prior) or led_here(s.sentence, subject.phrase.words)
        else 0.5
        if mentions_self(s.sentence) or noted(s)
        else 0.0
        for s in subject.said
    ]
    return Evidence(
        mentions=len(subject.said),
        messages=subject.messages,
        sessions=sessions,
        first_person=max(framing),
        name=subject.phrase.is_name,
        specificity=subject.phrase.rarity,
        life=max(life.get(s.sentence, 0.0) for s in subject.said),
    )


def passage(said: Said) -> str:
    """The held text: the sentence with the statements around it (capped), or the sentence."""
    text = (said.passage or said.sentence)[:MAX_PASSAGE].strip().rstrip(".!;:,")
    return text[:1].upper() + text[1:]


def _detail(subject: Subject, label: str, category: str, said: Said, sure: float) -> AnyProposal:
    text = passage(said)
    span = (EvidenceSpan(message_id=said.message_id, quote=said.sentence, ts=said.ts),)
    when = resolve_when(said.sentence, said.anchor)
    if when is None:
        return SliceProposal(on=label, text=text, category=category, confidence=sure, evidence=span)
    return EventProposal(
        on=label,
        text=text,
        category=category,
        happened_at=when.happened_at,
        happened_at_precision=when.precision,
        happened_at_source=when.source,
        confidence=sure,
        evidence=span,
    )


def proposals_for(subject: Subject, category: str, sure: float) -> list[AnyProposal]:
    """The card and the sentences held on it (the person's own first)."""
    label = subject.label or subject.phrase.label
    spans = tuple(
        EvidenceSpan(message_id=s.message_id, quote=s.sentence, ts=s.ts) for s in subject.said
    )
    card = CandidateProposal(
        label=label, category=category, reason=REASON, confidence=sure, evidence=spans
    )
    said = sorted(subject.said, key=lambda s: not first_person(s.sentence, s.prior))[:MAX_HELD]
    # The held passages carry the card's confidence: the gate keeps a card's highest.
    return [card, *(_detail(subject, label, category, s, sure) for s in said)]


def rule_labels(found: Sequence[AnyProposal]) -> set[str]:
    """The labels of the subjects the rules propose."""
    return {p.label for p in found if isinstance(p, (NodeProposal, CandidateProposal)) and p.label}


def known_keys(found: Sequence[AnyProposal]) -> tuple[set[str], dict[str, set[str]]]:
    """The subject keys (plain and folded) the rules already hold, and the evidence sentences
    they read, each with the labels they took from it."""
    keys: set[str] = set()
    used: dict[str, set[str]] = {}
    for proposal in found:
        label = getattr(proposal, "label", None) or getattr(proposal, "on", None)
        if isinstance(label, str) and label:
            key = canonical_key(label)
            # "Mrs Okafor" does not hold every "Okafor": "Mr Okafor" is someone else (the gate
            # folds an untitled "Okafor" into her card, and keeps "Mr Okafor" apart).
            keys |= {key} if title_gender(key) else {key, fold_key(key)}
        if isinstance(proposal, (NodeProposal, SliceProposal, EventProposal, CandidateProposal)):
            for span in proposal.evidence:
                used.setdefault(span.quote, set()).update([label] if isinstance(label, str) else [])
    return keys, used


def relation_only(phrase: Phrase) -> bool:
    """A relation or role word alone ("my GP", "the landlord", "my physio"): it names someone
    only by how they stand to the person, so it is no one's card until they are named."""
    kind = RELATIONS.get(phrase.words[0].lower()) if len(phrase.words) == 1 else None
    return kind is not None and kind != Category.POSSESSION.value  # "my gecko" is owned


# Feelings and qualities are words English says often ("peace" 5.0, "contentment" 3.1); a word
# rarer than this is one the embedding model hardly knows ("mahjong" 2.6, "cribbage" 2.1), and
# its reading of it says nothing: one such word alone is not judged a feeling, unless its
# ending makes it an abstract noun or a plural.
FEELING_MIN_ZIPF = 3.0


# The endings of abstract nouns and of plurals: such a word is judged however rare it is
# ("inclusivity", "motivators").
_ABSTRACT_ENDING = re.compile(r"(?:ity|ness|ment|ion|ism|ance|ence|hood|ship|s)$", re.IGNORECASE)


def judged(label: str) -> bool:
    """Whether the model's reading of ``label`` as a thing or a feeling counts."""
    words = label.split()
    return (
        len(words) > 1
        or zipf(words[0]) >= FEELING_MIN_ZIPF
        or bool(_ABSTRACT_ENDING.search(words[0]))
    )


def things(subjects: dict[str, Subject]) -> dict[str, Subject]:
    """The subjects that are names or things of a life, not feelings or qualities
    ("Encouragement", "Inner Peace"): the embedding model decides, phrase by phrase; and
    not a relation or role word alone (:func:`relation_only`)."""
    subjects = {k: s for k, s in subjects.items() if not relation_only(s.phrase)}
    common = [k for k, s in subjects.items() if not s.phrase.is_name and judged(s.label)]
    scores = thing_scores([subjects[k].label for k in common])
    drop = {k for k, score in zip(common, scores, strict=True) if score < THING_MARGIN}
    return {k: s for k, s in subjects.items() if k not in drop}


def scored(
    messages: Sequence[Message],
    *,
    source_time: datetime | None = None,
    found: Sequence[AnyProposal] = (),
    recurring: Recurring | None = None,
    history: History | None = None,
) -> list[tuple[Evidence, Subject]]:
    """Every possible subject the rules did not hold, with its evidence (before the floor).
    ``history`` says what the person said of each subject in earlier conversations: how many
    of them, and which card waits for it (whose label the subject takes, so it joins it)."""
    known, used = known_keys(found)
    subjects = things(gather(messages, source_time=source_time, known=known, used=used))
    if not subjects:
        return []
    sentences = sorted({s.sentence for subject in subjects.values() for s in subject.said})
    life = dict(zip(sentences, life_scores(sentences), strict=True))
    # A subject the rules hold under a one-word label joins their card ("Pottery" from a rule,
    # "my pottery class teacher" here): one card per subject.
    ruled = {key: label for label in rule_labels(found) for key in label_keys(label)}
    for key, subject in subjects.items():
        if key in ruled:
            subject.label = ruled[key]
    keys = {canonical_key(s.label) for s in subjects.values()}
    again = recurring(keys) if recurring is not None else set()
    # A subject keyed by an everyday word or an adjective is said again only with all its
    # words (:func:`.phrases.said_again_key`); its key still finds the card waiting for it.
    again_keys = {k: said_again_key(s.phrase) for k, s in subjects.items()}
    needles = {k: needle(s.phrase) for k, s in subjects.items()}
    needles |= {a: needles[k] for k, a in again_keys.items() if a}
    heard = history(needles) if history else {}
    out = []
    for key, subject in subjects.items():
        before = heard.get(key, Heard())
        if all_of := again_keys[key]:
            before = Heard(heard.get(all_of, Heard()).conversations, before.waiting)
        if before.waiting:
            subject.label = before.waiting
        sessions = 1 + max(before.conversations, 1 if canonical_key(subject.label) in again else 0)
        out.append((evidence_of(subject, life, sessions), subject))
    return out


def extract(
    messages: Sequence[Message],
    *,
    source_time: datetime | None = None,
    recurring: Recurring | None = None,
    history: History | None = None,
) -> list[AnyProposal]:
    """The offline extractor (``rules``): the rule recognisers (structure), then the subjects
    they did not find.
    Deterministic; ``recurring`` and ``history`` (what the person already has and said before,
    read-only lookups the ingest service passes) are its only outside inputs."""
    from memory.extractors.rules import extract as rules

    found = held(rules(messages, source_time=source_time), history, messages)
    more = propose(
        messages, source_time=source_time, found=found, recurring=recurring, history=history
    )
    spelled, _gone = one_spelling(found + without(more, unheld(more, set())))
    return spelled


def feelings(found: Sequence[AnyProposal]) -> set[str]:
    """The one-word labels of ``found`` written in lower case (not names: "Peace", "Freedom";
    a phrase narrows itself to a thing, "Terminal Theme") that the embedding model reads
    as a feeling or a quality rather than a thing of a life: the proposer's own test
    (:func:`things`)."""
    plain = {
        p.label
        for p in found
        if isinstance(p, (NodeProposal, CandidateProposal))
        and len(p.label.split()) == 1
        and p.label.lower() not in DIET_LABELS
        and judged(p.label)
        and any(written_plain(p.label, span.quote) for span in p.evidence)
    }
    ordered = sorted(plain)
    return {
        label
        for label, score in zip(ordered, thing_scores(ordered), strict=True)
        if score < THING_MARGIN
    }


def joined(found: Sequence[AnyProposal], history: History | None) -> list[AnyProposal]:
    """The rules' subjects written in lower case (not names) under the label of the card
    already waiting for them, as the proposer's own subjects join it (:func:`scored`):
    "Making a Difference" said today joins the "Make a Difference" card of last week."""
    if history is None:
        return list(found)
    keys: dict[str, str] = {}
    needles: dict[str, str] = {}
    for proposal in found:
        if not isinstance(proposal, (NodeProposal, CandidateProposal)):
            continue
        said = next(
            (s.quote for s in proposal.evidence if written_plain(proposal.label, s.quote)), None
        )
        if said is None:
            continue
        word = min(words_of(proposal.label), key=lambda w: (zipf(w), -len(w)))
        key = stem(word)
        # Only by a common noun as written ("painting", "store"): never by a name or an
        # acronym ("LGBTQ" of "LGBTQ Conference"), nor a verb ("improving" of "Improving
        # Education" is not "Improving My Old Area").
        noun = lexical_tag(word).startswith("NN") and p.compiled(rf"\b{re.escape(word)}\b").search(
            said
        )
        if noun and key in label_keys(proposal.label, said):
            keys[proposal.label] = key
            needles[key] = os.path.commonprefix([word, key])
    if not keys:
        return list(found)
    heard = history(needles)
    names = {
        label: waiting
        for label, key in keys.items()
        if (waiting := heard.get(key, Heard()).waiting)
        and canonical_key(waiting) != canonical_key(label)
    }
    return relabelled(found, names)


def held(
    found: Sequence[AnyProposal],
    history: History | None = None,
    messages: Sequence[Message] = (),
) -> list[AnyProposal]:
    """The rules' proposals held to the proposer's standard (:mod:`.standard`): each label cut
    to its subject's clause, one label per spelling (in the batch, and the label of a card
    already waiting for it), and no subject that is only an offer to the listener, said of
    the listener, a feeling or a lone adjective, nor one said only in what is not the
    person's to keep (``messages``: asked not to be kept, taken back, quoted, ironic or
    disowned; :mod:`.asides`)."""
    spelled, gone = one_spelling(found)
    gone |= unsaid(spelled, withheld_messages(messages))
    kept = without(spelled, gone | unheld(spelled, feelings(spelled)))
    return joined(kept, history)


def theirs(subject: Subject) -> bool:
    """The person leads a sentence that says the subject, or names it as theirs ("my ..."),
    never one in which they hear of it (:func:`heard_of`: the other's news) nor in a clause
    someone else leads after them (:func:`.framing.led_by_other_here`: "..., he moved to
    Utrecht"),
    or the subject is someone whose doing reaches them ("Mr Ravi Mensah is doing my taxes"),
    or someone of another person's said in a sentence of the speaker's own life ("my brother
    is marrying his girlfriend of 9 years, Sinéad, and I'm giving a speech")."""
    words = subject.phrase.words
    return any(
        not heard_of(s.sentence, words)
        and not led_by_other_here(s.sentence, words)
        and (
            first_person(s.sentence, s.prior)
            or led_here(s.sentence, words)
            or owned(s.sentence, words)
            or (subject.phrase.is_name and acquainted(s.sentence, words))
            or (subject.phrase.is_name and noted(s))
            or (subject.phrase.is_name and serves(s.sentence, words))
            or (subject.phrase.is_name and named_then(s.sentence, words, s.prior) is not None)
            or (
                subject.phrase.is_name
                and mentions_self(s.sentence)
                and introduced(s.sentence, words)
            )
        )
        for s in subject.said
    )


def known_by_name(subject: Subject) -> bool:
    """Someone the person speaks of by first name as the subject of what they did or said
    (:func:`.framing.acquainted`: "cathal cried (obviously)"), in a sentence without the
    speaker in it: a person in their life all the same."""
    return subject.phrase.is_name and any(
        acquainted(s.sentence, subject.phrase.words) for s in subject.said
    )


def kind_of_thing(subject: Subject) -> bool:
    """A subject only ever said as a plural common noun ("shelters", "national parks", "young
    dancers"): a kind of thing, not one thing of the person's life. Said in several
    conversations it is still a kind, so it is a card only on the evidence a subject said once
    needs (:data:`ONCE`). One said in the singular too is one thing ("my pottery classes",
    "my pottery class teacher")."""
    spellings = subject.spellings or {subject.phrase.label: 1}
    return not subject.phrase.is_name and all(
        lexical_tag(label.split()[-1].lower()) == "NNS" for label in spellings
    )


def propose(
    messages: Sequence[Message],
    *,
    source_time: datetime | None = None,
    found: Sequence[AnyProposal] = (),
    recurring: Recurring | None = None,
    history: History | None = None,
) -> list[AnyProposal]:
    """Subjects the person talks about that ``found`` (the rules' proposals) does not hold.
    ``recurring`` says which subject keys the person already has, ``history`` what they said
    of each in earlier conversations: that is evidence too. One card per subject, with every
    spelling's sentences; a subject heard in this conversation only is a card when its
    evidence is strong (:data:`ONCE`), else it waits to be said again."""
    every = scored(
        messages, source_time=source_time, found=found, recurring=recurring, history=history
    )
    # The person's life: a subject never said with the speaker in the sentence ("Meera's flight
    # is tomorrow", "the reef is the largest living structure") is not proposed, but for
    # someone they speak of by first name as the one who did or said something ("cathal
    # cried (obviously)": :func:`known_by_name`), and for a name given to the person's animal
    # or baby in a sentence of its own ("we got a puppy. she's called Mabel": :func:`_given`).
    # Heard in this conversation only, it must be said in a sentence the person leads ("I",
    # "we", "my garden") or named as theirs ("reminds me of my grandad Wilf"): one in which
    # they are only told of it ("some bloke told me he's cycling to Cornwall") is someone
    # else's news until they say it again.
    kept = [
        (sure, s)
        for sure, s, again in (
            (confidence(e), s, e.sessions > 1 and not kind_of_thing(s))
            for e, s in every
            if e.first_person > 0 or known_by_name(s) or _given(s)[0]
        )
        if sure >= (FLOOR if again else ONCE) and (again or theirs(s))
    ]
    kinds = categories([(s.phrase, s.said[0].before, s.said[0].sentence) for _c, s in kept])
    given = [_given(s) for _c, s in kept]
    kinds = [named or kind for (named, _where), kind in zip(given, kinds, strict=True)]
    # The animal or the baby a name was given to is the named one: "we got a puppy. she's
    # called Mabel" is one card, Mabel.
    named_in = {said for _named, where in given for said in where}
    out: list[AnyProposal] = []
    for (sure, subject), category in zip(kept, kinds, strict=True):
        if named_in and _named_later(subject, named_in):
            continue
        out += proposals_for(subject, category, sure)
    return out


def _given(subject: Subject) -> tuple[str | None, set[str]]:
    """The category of a name given to the person's animal or baby
    (:func:`.framing.named_then`), and the sentences that give it with the ones before them;
    (None, nothing) for any other subject."""
    if not subject.phrase.is_name:
        return None, set()
    kind: str | None = None
    where: set[str] = set()
    for s in subject.said:
        if named := named_then(s.sentence, subject.phrase.words, s.prior):
            kind = kind or named
            where.update(text for text in (s.sentence, s.prior) if text)
    return kind, where


def _named_later(subject: Subject, named_in: set[str]) -> bool:
    """A common noun of an animal or a baby ("Puppy", "Rescue Spaniel") said only where a
    name is given to it: the named one is its card."""
    last = subject.phrase.words[-1]
    return bool(ANIMAL.fullmatch(last) or BABY.fullmatch(last)) and all(
        s.sentence in named_in for s in subject.said
    )
