"""The registry: the families in the order they are tried, and the walk over a sentence."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from memory.extractors import patterns as p
from memory.extractors.asides import not_own, quotations_elided, withheld
from memory.extractors.rules.answers import confirmed_work, in_context
from memory.extractors.rules.base import (
    _NOT_NAMES,
    FAMILY,
    OTHER,
    PERSON,
    POSSESSION,
    PROJECT,
    PROJECT_WORDS,
    RELATIONSHIP,
    UPPER,
    Clause,
    Found,
    event,
)
from memory.extractors.rules.decisions import (
    decision,
)
from memory.extractors.rules.experiences import experience
from memory.extractors.rules.goals import goal
from memory.extractors.rules.health import health
from memory.extractors.rules.hedges import (
    hedged,
)
from memory.extractors.rules.life_events import (
    life_event,
)
from memory.extractors.rules.notes import (
    remembered_note,
    timed_note,
)
from memory.extractors.rules.occasions import occasion
from memory.extractors.rules.people import (
    RELATIONS,
    mentioned_relations,
    other_people,
    possessive,
)
from memory.extractors.rules.preferences import (
    diet,
    preference,
)
from memory.extractors.rules.projects import (
    projects,
)
from memory.extractors.rules.routines import (
    routine,
)
from memory.extractors.rules.skills import skill
from memory.extractors.rules.status import (
    status_change,
)
from memory.extractors.rules.tools import (
    tools,
)
from memory.extractors.rules.work import employer_lead, work
from memory.keys import canonical_key
from memory.markup import markup_to_text
from memory.proposals import (
    AnyProposal,
    EventProposal,
    NodeProposal,
    SliceProposal,
)
from memory.transcripts import Message
from memory.vocab import EventAction

Recogniser = Callable[[Clause], Found]
RECOGNISERS: tuple[Recogniser, ...] = (
    occasion,
    health,
    diet,
    skill,
    other_people,
    work,
    life_event,
    status_change,
    experience,
    projects,
    tools,
    decision,
    preference,
    routine,
    possessive,
    goal,
    timed_note,
)


_UNSURE = re.compile(
    r"\b(?:might|(?:maybe|perhaps|possibly|probably)" + p.AMOUNT_AFTER + r"|not\s+sure|"
    r"i\s+guess|wonder|thinking\s+(?:about|of)|considering|toying)\b",
    re.IGNORECASE,
)


def read_clause(c: Clause) -> Found:
    lead, rest = employer_lead(c)
    if rest is not None:
        return lead + read_clause(rest)
    if p.HEDGE.search(c.text):
        plain = p.before_hedge(c.text, p.HEDGE)
        if plain:  # "I was put on warfarin in May, so perhaps she meant that": the rest is hers
            return read_clause(replace(c, text=plain))
        # A goal the person has set ("I want to ask for a raise") is theirs; a wish hedged
        # with "might", "maybe", "thinking about" stays a hedge.
        found = [] if _UNSURE.search(c.text) else goal(c)
        found = found or hedged(c)  # a hedged clause is never read as a clear statement
        # but who it names with their relation is theirs all the same ("my neighbour Ilse fixes
        # bikes so maybe I'll ask her")
        return found + _new_mentions(found, mentioned_relations(c))
    found = []
    for recognise in RECOGNISERS:
        found = recognise(c)
        if found:
            break
    return found + _new_mentions(found, mentioned_relations(c))


def _new_mentions(found: Found, mentions: Found) -> Found:
    """The mentioned people that ``found`` does not already propose."""
    known = {canonical_key(p.label) for p in found if isinstance(p, NodeProposal)}
    labels = {canonical_key(p.label) for p in mentions if isinstance(p, NodeProposal)} - known
    return [
        p
        for p in mentions
        if canonical_key(p.label if isinstance(p, NodeProposal) else getattr(p, "on", "")) in labels
    ]


def read_sentence(
    sentence: str,
    message_id: str,
    ts: datetime | None,
    anchor: datetime | None,
    quote: str | None = None,
) -> Found:
    """Proposals from one sentence. ``quote`` is what the evidence cites when the sentence was
    rewritten from a short answer (see :mod:`memory.extractors.rules.answers`)."""
    rest, remembered = p.unwrap_remember(sentence)
    if not remembered and p.is_smalltalk(sentence):
        return []
    if not remembered and p.is_request(sentence):
        return _named_in_request(sentence, message_id, ts, anchor, quote)
    if not rest.strip() or p.is_smalltalk(rest):
        return []
    clauses = [
        Clause(p.strip_fillers(text), quote or sentence, message_id, ts, anchor)
        for text in p.split_clauses(rest)
    ]
    clauses = [c for c in clauses if c.text]
    if remembered and rest.rstrip().endswith("?") and p.is_question(rest):
        # A question kept for later states nothing: keep it as a note, never as a fact.
        return remembered_note(Clause(rest.strip(), sentence, message_id, ts, anchor))
    found: Found = []
    for clause in clauses:
        found += read_clause(clause)
    if remembered and not found and clauses:
        found = remembered_note(clauses[0])
    return found


def _named_in_request(
    sentence: str,
    message_id: str,
    ts: datetime | None,
    anchor: datetime | None,
    quote: str | None,
) -> Found:
    """What a question or a request to the assistant still tells: the people it names with
    their relation ("could you add the nursery fees for my daughter Imke", "what should I cook
    for my father-in-law Bogdan?"). Whatever is asked, that Imke is the daughter is said; the
    rest of the request states nothing. A control message ("don't save anything about my
    sister Ana") tells nothing at all."""
    if p.is_control(sentence):
        return []
    found: Found = []
    for text in p.split_clauses(sentence):
        clause = Clause(p.strip_fillers(text), quote or sentence, message_id, ts, anchor)
        if clause.text:
            found += mentioned_relations(clause)
    return found


def _merge_nodes(proposals: Found) -> Found:
    """One node proposal per (key, category), evidence pooled; everything else kept in order."""
    seen: dict[tuple[str, str], int] = {}
    out: Found = []
    for proposal in proposals:
        if isinstance(proposal, NodeProposal):
            key = (canonical_key(proposal.label), proposal.category)
            if key in seen:
                first = out[seen[key]]
                evidence = first.evidence + tuple(
                    e for e in proposal.evidence if e not in first.evidence
                )
                out[seen[key]] = first.model_copy(update={"evidence": evidence})
                continue
            seen[key] = len(out)
        out.append(proposal)
    return out


_PEOPLE = (PERSON, FAMILY, RELATIONSHIP)


# A name given right after an animal or a baby comes: "she's called Mabel", "we named him
# Ezra".
_GIVEN = re.compile(
    r"\b(?:(?:he|she|it|they)(?:'s|’s|s|\s+is|\s+was|\s+are|\s+were)\s+(?:called|named)|"
    r"(?:named|called)\s+(?:him|her|it|them))\s+(?P<name>[" + UPPER + r"][\w'’-]+)\b",
    re.IGNORECASE,
)
# What is named so: the kinds of pet the rules know, and a baby.
_NAMEABLE = frozenset(
    {word for word, kind in RELATIONS.items() if kind == POSSESSION}
    | {"baby", "son", "daughter", "newborn"}
)


def named_after(proposals: Found, sentences: Sequence[str]) -> Found:
    """A pet or a baby a rule proposed by its kind ("Puppy" of "we got a puppy on saturday")
    that the same sentence or the next names ("she's called Mabel"): what was said of it is
    said of the name, one card. Only when one such kind was proposed there."""
    renamed: dict[str, str] = {}
    for at, sentence in enumerate(sentences):
        given = _GIVEN.search(sentence)
        name = p.make_label(given.group("name")) if given else ""
        if not name or name.lower() in _NOT_NAMES:
            continue
        here = {sentence, sentences[at - 1] if at else sentence}
        kinds = {
            canonical_key(x.label)
            for x in proposals
            if isinstance(x, NodeProposal)
            and canonical_key(x.label) in _NAMEABLE
            and any(span.quote in here for span in x.evidence)
        }
        if len(kinds) == 1:
            renamed[kinds.pop()] = name
    if not renamed:
        return proposals
    out: Found = []
    for x in proposals:
        if isinstance(x, NodeProposal) and canonical_key(x.label) in renamed:
            x = x.model_copy(update={"label": renamed[canonical_key(x.label)]})
        elif isinstance(x, (SliceProposal, EventProposal)) and canonical_key(x.on) in renamed:
            x = x.model_copy(update={"on": renamed[canonical_key(x.on)]})
        out.append(x)
    return out


def _one_card_per_person(proposals: Found) -> Found:
    """A person named in one sentence by a part of a longer name that sentence also proposes
    ("Dr Elena" beside "Dr Elena Markovic", "Ms Jane" beside "Ms Jane Porter") is that person:
    the shorter node is dropped and what was said of it goes to the full name, so one card is
    proposed per person. Only within one sentence (the same quote): "my sister Ana" in one
    sentence and "Ana Lopez" in another may be two people."""
    people = [
        (canonical_key(x.label), _quotes(x))
        for x in proposals
        if isinstance(x, NodeProposal) and x.category in _PEOPLE
    ]
    longer: dict[str, str] = {}
    for key, quotes in people:
        for other, theirs in people:
            if other.startswith(key + " ") and quotes & theirs and key not in longer:
                longer[key] = other
    if not longer:
        return proposals
    for key, other in longer.items():
        while other in longer:
            other = longer[other]
        longer[key] = other
    labels = {canonical_key(x.label): x.label for x in proposals if isinstance(x, NodeProposal)}
    out: Found = []
    said: set[tuple[str, str, str]] = set()
    for x in proposals:
        if isinstance(x, NodeProposal) and canonical_key(x.label) in longer:
            continue
        if isinstance(x, (SliceProposal, EventProposal)):
            on = longer.get(canonical_key(x.on), canonical_key(x.on))
            facet = x.kind if isinstance(x, SliceProposal) else x.action
            if (on, facet, canonical_key(x.text)) in said:
                continue  # the full name already says it
            said.add((on, facet, canonical_key(x.text)))
            if on != canonical_key(x.on):
                x = x.model_copy(update={"on": labels[on]})
        out.append(x)
    return out


def _quotes(x: NodeProposal) -> frozenset[tuple[str, str]]:
    return frozenset((e.message_id, e.quote) for e in x.evidence)


def _settle_people(proposals: Found) -> Found:
    """A name the batch knows as family or a partner keeps that category where it was only
    "a person" ("my sister Meera ..." then "Meera's birthday ..."), so one node is proposed."""
    known: dict[str, str] = {}
    for proposal in proposals:
        if isinstance(proposal, NodeProposal) and proposal.category in (FAMILY, RELATIONSHIP):
            known.setdefault(canonical_key(proposal.label), proposal.category)
    out: Found = []
    for proposal in proposals:
        if isinstance(proposal, (NodeProposal, SliceProposal, EventProposal)):
            label = proposal.label if isinstance(proposal, NodeProposal) else proposal.on
            settled = known.get(canonical_key(label))
            if settled and proposal.category == PERSON:
                proposal = proposal.model_copy(update={"category": settled})
        out.append(proposal)
    return out


def _confirmed_work(request: Message, reply: Message, anchor: datetime | None) -> Found:
    """A work request the assistant confirmed as done: an event on the component named."""
    text = markup_to_text(request.content)
    work_done = confirmed_work(text, markup_to_text(reply.content))
    if not work_done:
        return []
    verb, component, done = work_done
    label = p.make_label(component)
    if not label:
        return []
    clause = Clause(done, text, request.id, request.ts, anchor)
    action = (
        EventAction.FIXED.value if verb in ("fix", "repair", "patch") else EventAction.OTHER.value
    )
    category = PROJECT if PROJECT_WORDS.search(component) else OTHER
    return event(clause, label, category, action)


def extract(
    messages: Sequence[Message], *, source_time: datetime | None = None
) -> list[AnyProposal]:
    """Propose what the person's own messages state. Pure and deterministic.

    What is not the person's to keep is not read (:mod:`memory.extractors.asides`): a message
    that asks not to be kept, one that takes back the message before it and the one it takes
    back, a sentence marked as ironic or disowning its thing, and a quoted line (a title or a
    name in quotes is still read)."""
    found: Found = []
    previous: Message | None = None
    not_kept = withheld(messages)
    for index, message in enumerate(messages):
        if message.role != "user" or not message.content.strip() or index in not_kept:
            previous = message
            continue
        reply = messages[index + 1] if index + 1 < len(messages) else None
        if reply is not None and reply.role == "assistant":
            found += _confirmed_work(message, reply, message.ts or source_time)
        anchor = message.ts or source_time
        text = markup_to_text(message.content)
        asked = previous.content if previous is not None and previous.role != "user" else ""
        sentences = p.split_sentences(text)
        # The reply's first sentence is read with the question it answers; the rest as said.
        sentences = [quotations_elided(s) for s in sentences if not not_own(s)]
        statement = in_context(markup_to_text(asked), sentences[0]) if asked and sentences else None
        said_here: Found = []
        if statement:
            said_here += read_sentence(
                statement, message.id, message.ts, anchor, quote=sentences[0]
            )
        for sentence in sentences[1:] if statement else sentences:
            # what the person told before the question they go on to ask ("my husband Oren
            # is driving us, any packing tips?"); the evidence quotes the whole sentence
            said = p.told(sentence)
            quote = sentence if said != sentence else None
            said_here += read_sentence(said, message.id, message.ts, anchor, quote=quote)
            if quote is not None and said in sentence:  # and who the ask names
                asked = sentence.replace(said, " ", 1)
                said_here += _named_in_request(asked, message.id, message.ts, anchor, quote)
        found += named_after(said_here, sentences)
        previous = message
    return _merge_nodes(_settle_people(_one_card_per_person(found)))
