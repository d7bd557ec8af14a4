"""Skills said as what the person is good at or speaks: "I'm good at chess", "I'm fluent in
Portuguese", "I am good with Excel and Python", "I speak Welsh and a bit of Dutch"."""

from __future__ import annotations

import re

from memory.extractors.rules.base import (
    _I,
    SKILL,
    Clause,
    Found,
    object_label,
    slice_,
)
from memory.extractors.rules.status import STATUS_VERBS
from memory.vocab import SliceKind

_GOOD_AT = re.compile(
    r"(?:^|\b)(?:i'm|i\s+am|i've\s+always\s+been|i've\s+been|we're|we\s+are)\s+"
    r"(?:(?:really|quite|pretty|very|fairly|reasonably|actually|also|now)\s+)*"
    r"(?:(?:good|great|decent|handy|competent)\s+(?:at|with)|"
    r"(?:fluent|proficient|experienced|skilled)\s+(?:at|with|in))\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
# A language is spoken: "I speak Welsh", "I can speak Polish and a bit of Dutch".
_SPEAKS = re.compile(
    _I + r"(?:speak|can\s+speak|also\s+speak)\s+(?P<obj>(?-i:[A-Z]).+)$", re.IGNORECASE
)
_LISTED = re.compile(r",\s*(?:and\s+)?|\s+and\s+|\s+&\s+", re.IGNORECASE)
# What is said of the amount before a listed skill: "a bit of Dutch", "some French".
_AMOUNT = re.compile(r"^(?:a\s+(?:bit|little)\s+of|some|basic|a\s+few\s+words\s+of)\s+", re.I)
# Not a skill: "good at this", "good with kids" is about people, not a skill.
_NOT_SKILLS = frozenset(
    """it this that them him her people kids children animals money names faces time
    everything anything nothing something home work school night weekends""".split()
)


# A list goes on only while its items are things: "terrible at baking" says something else.
_ANOTHER_PREDICATE = re.compile(r"\s(?:at|with|in)\s", re.IGNORECASE)
# "good at the moment" is how the person is, now.
_NOT_NOW = re.compile(r"^the\s+(?:moment|minute|mo)\b", re.IGNORECASE)


# Instruments a person plays, teaches or learns: "I play the cello in an orchestra", "now I
# only play the accordion at home", "I've played guitar for twenty years", "I teach violin".
INSTRUMENTS = frozenset(
    """piano guitar violin viola cello double-bass bass drums flute clarinet saxophone sax
    trumpet trombone tuba oboe bassoon harp ukulele uke banjo mandolin accordion bandoneon
    bandoneón harmonica organ keyboard keyboards fiddle sitar tabla oud bagpipes recorder
    harpsichord marimba xylophone bouzouki balalaika erhu koto shamisen djembe cajon""".split()
)
_PLAYS = re.compile(
    _I
    + r"(?:(?:also|only|still|now|mostly|just|really|used\s+to)\s+)*"
    + r"(?:play(?:ed|s)?|teach(?:es)?|taught|learning|learn|"
    + r"have\s+played|'ve\s+played|have\s+been\s+playing|'ve\s+been\s+playing)\s+"
    + r"(?:the\s+)?(?P<what>[a-zó-]+)\b",
    re.IGNORECASE,
)


# A change of state is the status recogniser's, with its date: "I started learning the cello
# in January", "I gave up the violin". Its own verbs say which.
_CHANGE = re.compile(
    r"\b(?:" + "|".join(verbs for verbs, _action in STATUS_VERBS) + r")\b", re.IGNORECASE
)


def instrument(c: Clause) -> Found:
    """The instrument the person plays, teaches or is learning (never "play the game"); a
    start, a stop or a pause of it is left to the status recogniser."""
    if _CHANGE.search(c.text):
        return []
    match = _PLAYS.search(c.text)
    if not match or match.group("what").lower() not in INSTRUMENTS:
        return []
    label = object_label(c, match.group("what"))
    return slice_(c, label, SKILL, SliceKind.OTHER.value) if label else []


def skill(c: Clause) -> Found:
    match = _GOOD_AT.search(c.text) or _SPEAKS.search(c.text)
    if not match:
        return instrument(c)
    found: Found = []
    for item in _LISTED.split(match.group("obj"))[:4]:
        item = _AMOUNT.sub("", item.strip())
        if _ANOTHER_PREDICATE.search(item):
            break  # "good at knitting, terrible at baking": the list ended
        if not item or _NOT_NOW.match(item) or item.split()[0].lower() in _NOT_SKILLS:
            continue
        label = object_label(c, item)
        if label:
            found += slice_(c, label, SKILL, SliceKind.OTHER.value)
    return found
