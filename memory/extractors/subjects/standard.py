"""The rules' guesses held to the subject proposer's standard, and one card per spelling.

The rules read a sentence's shape, so they take a subject from shapes that say nothing of the
person's life: an offer to the listener ("I'd love to help" -> "Helping"), a reply about the
listener ("I love that you chose pottery for your art" -> "Art"), a quality ("I want to live
authentically", "Wish I was that resilient") or a feeling ("Peace"). The subject proposer
never proposes those; with it, the rules' subjects meet the same standard (:func:`hold`):

- **about the person**: a subject whose every sentence is an offer or a wish said to the
  listener (:func:`offered`) or is said of the listener (:func:`about_listener`) is not a card;
- **a thing of a life**: a subject that is not a name must be nearer someone, somewhere or
  something done or owned than a feeling or a quality (the proposer's
  :func:`~memory.extractors.subjects.framing.thing_scores` and margin), and a single word
  English uses as an adjective or adverb ("Safe", "Younger", "Authentically") is not one.

A label keeps only the clause about its subject (:func:`clause_label`: "Volunteering Here" is
"Volunteering", "Dance Studio Cause I'm Passionate" is "Dance Studio"), and the spellings of
one subject in a batch ("Make a Difference", "Making a Difference") take one label
(:func:`spelling_key`), so the gate folds them into one card. Pure: no database.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from memory.extractors import patterns as p
from memory.extractors.asides import not_own, unmeant
from memory.extractors.patterns import DIET_LABELS
from memory.extractors.rules.preferences import CATCH_ALL
from memory.extractors.rules.work import ROLE_NOUNS
from memory.extractors.subjects.forms import fault
from memory.extractors.subjects.framing import owned
from memory.extractors.subjects.phrases import (
    BARE_CONTRACTIONS,
    CLIPPED,
    lexical_tag,
    stem,
    tag,
    words_of,
    written_plain,
    zipf,
)
from memory.extractors.subjects.phrases import meant as phrases_meant
from memory.keys import canonical_key, gendered_title
from memory.proposals import (
    AnyProposal,
    CandidateProposal,
    EdgeProposal,
    EventProposal,
    NodeProposal,
    SliceProposal,
)

# An offer or a wish said to the listener: "I'd love to help", "I would like to see it",
# "I'd be happy to join", "let me know". What the person would do for the listener, not
# something of their own life.
_OFFER = re.compile(
    r"^\W*(?:\w+\W+){0,3}?i(?:'d|\s+would)\s+(?:really\s+)?(?:love|like|be\s+(?:happy|glad))"
    r"\s+to\b|\blet\s+me\s+know\b",
    re.IGNORECASE,
)
_SECOND = frozenset({"you", "your", "yours", "yourself", "you're", "you've", "you'd", "you'll"})
_FIRST = frozenset({"i", "i'm", "i've", "i'd", "my", "me", "we", "our", "us", "mine", "myself"})
# "you" as a filler, not the listener: "you know", "thank you", "see you".
_FILLER_YOU = re.compile(r"\b(?:you\s+know|thank\s+you|see\s+you|you\s+see|mind\s+you)\b", re.I)
# Where a label stops being its subject: a clause word ("Dance Studio Cause I'm Passionate"),
# a dash ("Max- Here a Pic of Him"), or an adverb of time or place at its end ("Volunteering
# Here", "Dance Routines Lately").
_CLAUSE = frozenset(
    "cause because when that which who whose so since while if is are was were am be been".split()
) | frozenset(BARE_CONTRACTIONS)  # "im", "shes", "hasnt": a clause typed without apostrophes
# Someone else's, or a thing unnamed: a label with one of these in it is a piece of a
# sentence ("Experience It", "Make Their Lives Better", "Part of Running Your Own Studio").
_OTHERS = frozenset(
    "it its they them their theirs you your yours something anything everything someone".split()
)
_TRAILING = frozenset(
    "lately here there together now again too anymore already today tonight soon yet ever then"
    " lol".split()
)
_FUNCTION = frozenset(
    "a an the and or but of to in on at for with from by as than before after".split()
)
_NOT_A_THING = ("JJ", "RB", "VBN", "DT", "PDT", "CD")
_LEADS = ("DT", "PDT", "RB", "JJR", "JJS")


def _quotes(proposal: AnyProposal) -> list[str]:
    return [span.quote for span in proposal.evidence if span.quote]


# Where a sentence turns from what might be to what is: ", but ...".
CONTRAST = re.compile(r"[,;]\s*but\s+", re.IGNORECASE)
# A sentence that opens on what is not so: "If I won the lottery ...", "Imagine ...", not a
# condition that may well be met ("if it rains tomorrow", "if my sister Ana visits").
_COUNTERFACTUAL = re.compile(
    r"^\W*(?:if\s+(?:i|we)\s+(?:had|won|were|was|could|did|lived|got|only)\b|imagine|suppose|"
    r"what\s+if|i\s+wish|in\s+an\s+ideal\s+world)\b",
    re.IGNORECASE,
)


def supposed(sentence: str, label: str) -> bool:
    """The sentence opens on what is not so and says the label before it turns to what is
    ("If I won the lottery I'd buy a farm in Wales"; not "if i had more time id learn the
    cello, but for now im sticking with my pottery class at Clayworks" for Clayworks)."""
    text = sentence.replace("’", "'")
    if not _COUNTERFACTUAL.search(text) or owned(text, tuple(label.split())):
        return False  # someone of theirs is theirs whatever is supposed ("my friend Kate's")
    return _spells(CONTRAST.split(text, maxsplit=1)[0], label)


def offered(sentence: str) -> bool:
    """An offer or a wish said to the listener ("I'd love to check them out")."""
    return bool(_OFFER.search(sentence.replace("’", "'")))


def about_listener(sentence: str, label: str) -> bool:
    """The sentence says ``label`` of the listener, not of the speaker: the subject comes
    after "you"/"your" with no "my"/"our" between ("I love that you chose pottery for your
    art", "I'm glad you're finding fulfillment there"). A label the sentence does not spell
    is about the listener when nothing of the speaker's follows the "you"."""
    text = _FILLER_YOU.sub(" ", sentence.replace("’", "'"))
    words = [w.strip(".'") for w in re.findall(r"[a-z0-9][a-z0-9'.-]*", text.lower())]
    second = next((i for i, w in enumerate(words) if w in _SECOND), None)
    if second is None or not any(w in _FIRST for w in words[:second]):
        return False  # no reaction of the speaker's to it ("Could you fix ...", a question)
    stems = {stem(w) for w in words_of(label)} - {stem(w) for w in _FUNCTION}
    at = [i for i, w in enumerate(words) if stem(w) in stems]
    if at and min(at) < second:
        return False  # "I love my pottery, you should try it": the speaker's own
    end = min(at) if at else len(words)
    return not any(w in _FIRST for w in words[second:end])


# "go camping", "went hiking": the going is no part of the activity.
_GO = frozenset("go goes going went gone".split())


def _activity(words: list[str]) -> bool:
    """``words`` are a form of "go" and a gerund ("Going Camping"): the gerund is the
    subject."""
    return (
        len(words) == 2
        and words[0].lower() in _GO
        and len(words[1]) > 4
        and words[1].lower().endswith("ing")
        and lexical_tag(words[1].lower()) in ("VBG", "NN", "")  # "kayaking": unknown, still -ing
    )


# A slip is corrected in a label only towards a word in everyday use ("buying"), not towards a
# rarer one a lower-case name may be one slip from ("halloway", "hallway").
_EVERYDAY = 4.0


def _typed_lower(word: str, written: str) -> bool:
    """Whether ``word`` appears in ``written`` in lower case (not a name the person
    capitalised)."""
    return (
        p.compiled(rf"(?<![A-Za-z]){re.escape(word.lower())}(?![A-Za-z])").search(written)
        is not None
    )


def _stance(word: str, written: str) -> bool:
    """An adverb in -ly the person wrote in lower case after the subject ("i quit parcelwise
    last week actually", "I love my job honestly"): it comments on the sentence, it is no part
    of a name."""
    lower = word.lower()
    return (
        len(lower) > 4
        and lower.endswith("ly")
        and lexical_tag(lower).startswith("RB")
        and _typed_lower(lower, written)
    )


def clause_label(label: str, written: str = "") -> str | None:
    """The label less what is not its subject: cut at a clause word or a dash, less trailing
    adverbs (of time or place, or an -ly adverb written in lower case: "Parcelwise Actually")
    and function words. ``None`` when nothing of it is left."""
    head = re.split(r"\s*-\s+|\s+-\s*", label, maxsplit=1)[0]
    if _OTHERS & set(words_of(head)):
        return None
    kept: list[str] = []
    for word in head.split():
        if word.lower().strip("'’") in _CLAUSE:
            break
        # A slip in a word the person wrote in lower case ("buiyng an electric car") is the
        # word meant, and a clipped word the word it stands for; a capitalised word may be a
        # name ("Halloway") and is left as written.
        typed = _typed_lower(word, written)
        meant = phrases_meant(word.lower()) if typed else word.lower()
        if typed and word.lower() in CLIPPED:
            word = CLIPPED[word.lower()].capitalize()
        elif meant != word.lower() and zipf(meant) >= _EVERYDAY:
            word = meant.capitalize()
        kept.append(word)
    if _activity(kept):
        kept = kept[1:]
    while kept and (kept[-1].lower() in _TRAILING | _FUNCTION or _stance(kept[-1], written)):
        kept.pop()
    if not kept:
        return None
    if kept == label.split():
        return label
    if len(kept) == 1 and lexical_tag(kept[0]).startswith("VB") and not kept[0].endswith("ing"):
        return None  # "Make That Happen" is no subject "Make"
    cut = " ".join(kept)  # the label's own words, already cased as a label
    return None if p.label_rejection(cut) else cut


def spelling_key(label: str) -> str:
    """One key per spelling of a subject: its words' stems, articles dropped ("Making a
    Difference" and "Make a Difference" are "make differ"); a title of a man or a woman is
    kept as written ("Mrs Okafor" and "Mr Okafor" are two people, though "mrs" stems to
    "mr")."""
    words = [w for w in words_of(label) if w not in ("a", "an", "the", "my", "our")]
    return " ".join(w if gendered_title(w) else stem(w) for w in words)


def _label_of(proposal: AnyProposal) -> str | None:
    if isinstance(proposal, (NodeProposal, CandidateProposal)):
        return proposal.label
    if isinstance(proposal, (SliceProposal, EventProposal)):
        return proposal.on
    return None


def _relabelled(proposal: AnyProposal, names: dict[str, str]) -> AnyProposal:
    if isinstance(proposal, (NodeProposal, CandidateProposal)) and proposal.label in names:
        return proposal.model_copy(update={"label": names[proposal.label]})
    if isinstance(proposal, (SliceProposal, EventProposal)) and proposal.on in names:
        return proposal.model_copy(update={"on": names[proposal.on]})
    if isinstance(proposal, EdgeProposal):
        update = {
            field: names[value]
            for field, value in (
                ("from_label", proposal.from_label),
                ("to_label", proposal.to_label),
            )
            if value in names
        }
        return proposal.model_copy(update=update) if update else proposal
    return proposal


def one_spelling(found: Sequence[AnyProposal]) -> tuple[list[AnyProposal], set[str]]:
    """Every label cut to its subject's clause and every spelling of a subject under one
    label (the one said most, then the shortest); and the labels that keep no subject."""
    labels = [label for label in (_label_of(x) for x in found) if label]
    written: dict[str, list[str]] = {}
    for proposal in found:
        written.setdefault(_label_of(proposal) or "", []).extend(_quotes(proposal))
    names: dict[str, str] = {}
    gone: set[str] = set()
    for label in set(labels):
        cut = clause_label(label, " ".join(written.get(label, [])))
        if cut is None:
            gone.add(label)
        elif cut != label:
            names[label] = cut
    said: Counter[str] = Counter(names.get(label, label) for label in labels if label not in gone)
    by_key: dict[str, list[str]] = {}
    for label in said:
        by_key.setdefault(spelling_key(label), []).append(label)
    for spellings in by_key.values():
        best = min(spellings, key=lambda s: (-said[s], len(s), s))
        for spelling in spellings:
            for old in [k for k, v in names.items() if v == spelling] + [spelling]:
                if old != best:
                    names[old] = best
    return relabelled(found, names), gone


def relabelled(found: Sequence[AnyProposal], names: dict[str, str]) -> list[AnyProposal]:
    """``found`` with each label in ``names`` renamed (labels, targets and link ends)."""
    return [_relabelled(x, names) for x in found] if names else list(found)


def _spells(sentence: str, label: str) -> bool:
    """Whether ``sentence`` says one of the label's words (by stem)."""
    said = {stem(w.removesuffix("'s")) for w in words_of(sentence)}
    return any(stem(w) in said for w in words_of(label) if w not in _FUNCTION)


def _head_tag(label: str, quotes: Iterable[str]) -> str:
    """The part of speech of the label's last word as the person used it (the tagger on the
    first sentence that says it: "key" is a noun in "the spare key"), else out of context."""
    head = label.split()[-1].lower()
    for quote in quotes:
        for sentence in tag(quote):
            for word, pos, _chunk in sentence:
                if word.lower() == head:
                    return pos
    return lexical_tag(head)


def _not_a_thing(label: str, quotes: Sequence[str]) -> bool:
    """A word English uses here as an adjective, adverb or determiner, or a phrase of them led
    by a quantifier or a comparative, written in lower case ("a safe home", "younger", "more
    excited than ever", "both classical"): a quality, not a subject. A gerund ("Volunteering"),
    a word the tagger's lexicon does not know, whatever it guesses from its ending
    ("Transitioning", a name typed in lower case: "cathal cried"), or a capitalised word as
    written ("Safe Haven") may be one."""
    words = label.split()
    if len(words) > 1 and not lexical_tag(words[0]).startswith(_LEADS):
        return False  # "Spare Key": a phrase is a thing unless a quantifier leads it
    if label.lower() in ROLE_NOUNS:
        return False  # "I'm principal of a school": a role, whatever the tagger reads
    if label.lower() in DIET_LABELS:
        return False  # "I went pescatarian last year": a way of eating
    head = _head_tag(label, quotes)
    if not head.startswith(_NOT_A_THING):
        return False
    if len(words) == 1 and head.startswith("JJ") and not lexical_tag(words[0].lower()):
        # the tagger's guess by its ending at a word it does not know ("cathal cried": a
        # name); an adverb's ending is a slip's as often ("definately")
        return False
    return any(written_plain(label, quote) for quote in quotes)


def unheld(found: Sequence[AnyProposal], feelings: set[str]) -> set[str]:
    """The subjects of ``found`` below the standard: every sentence an offer to the listener,
    said of the listener or of what is not so (:func:`supposed`), a feeling or quality
    (``feelings``: the labels the embedding model reads as one), a lone adjective or adverb, or words that cannot name a thing
    (:func:`.forms.fault`: "Making a Difference", "Kids a Loving Home", "Tues")."""
    quotes: dict[str, list[str]] = {}
    texts: dict[str, list[str]] = {}
    for proposal in found:
        label = _label_of(proposal)
        if label:
            quotes.setdefault(label, []).extend(_quotes(proposal))
            texts.setdefault(label, [])
        if label and isinstance(proposal, (SliceProposal, EventProposal)):
            texts[label].append(proposal.text)
    out = set()
    for label, said in quotes.items():
        if not said:
            continue
        if all(offered(q) or about_listener(q, label) or supposed(q, label) for q in said):
            out.add(label)
        elif not any(_spells(t, label) or _FIRST & set(words_of(t)) for t in said + texts[label]):
            # A reply the rules could not read ("Are so excited about summer break" to "How
            # are the kids?"): neither it nor what is held names the subject or the speaker.
            out.add(label)
        elif label in feelings or label == CATCH_ALL or _not_a_thing(label, said):
            # The rules' bucket for a liking with no subject ("I love being a mom") is no
            # subject either: the proposer reads the sentence for one.
            out.add(label)
        elif fault(label, said):
            # Words that cannot name a thing: a verb phrase, a piece of a clause, a lone
            # verb or plural, a weekday (:mod:`.forms`).
            out.add(label)
    return out


def without(found: Sequence[AnyProposal], labels: set[str]) -> list[AnyProposal]:
    """``found`` less every proposal on one of ``labels`` (and the links to them)."""
    keys = {canonical_key(label) for label in labels}
    out = []
    for proposal in found:
        label = _label_of(proposal)
        if label is not None and canonical_key(label) in keys:
            continue
        if isinstance(proposal, EdgeProposal) and (
            canonical_key(proposal.from_label) in keys or canonical_key(proposal.to_label) in keys
        ):
            continue
        out.append(proposal)
    return out


def unsaid(found: Sequence[AnyProposal], withheld: set[str]) -> set[str]:
    """The labels of ``found`` said only where the person did not say them of their own life:
    in a message that is not theirs to keep (``withheld``: its id), in a sentence that is
    ironic or disowns the thing, inside a quotation or an exclamation, or after a negated
    experience ("I've never been to the UK") (:mod:`.asides`)."""
    spans: dict[str, list[tuple[str, str]]] = {}
    for proposal in found:
        label = _label_of(proposal)
        if label:
            spans.setdefault(label, []).extend(
                (span.message_id, span.quote) for span in proposal.evidence
            )
    out = set()
    for label, said in spans.items():
        if said and all(
            message_id in withheld or not_own(quote) or unmeant(quote, label.split())
            for message_id, quote in said
        ):
            out.add(label)
    return out
