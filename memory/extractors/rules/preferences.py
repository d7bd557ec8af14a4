"""Preferences: "I prefer / like / love / hate X", "my favourite X is Y"."""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.patterns import LIGHT_VERBS
from memory.extractors.rules.base import (
    _CONTEXT,
    _I,
    _NAMED_CONTEXT,
    _PRONOUN_START,
    _RESPONSES,
    _THEME,
    _TIME_WORDS,
    HEALTH,
    INTEREST,
    PREFERENCE,
    Clause,
    Found,
    cut,
    object_label,
    slice_,
)
from memory.vocab import SliceKind

_PREFERS = re.compile(
    _I + r"(?:prefer|like|love|enjoy|adore|hate|dislike|detest|loathe|can't\s+stand|"
    r"cannot\s+stand|can\s+not\s+stand|don't\s+(?:like|enjoy|want)|do\s+not\s+(?:like|enjoy|want)|"
    r"(?:not\s+)?a\s+(?:big\s+|huge\s+)?fan\s+of|allergic\s+to)\s+"
    # how much, said where a learner of English says it: "I like very much to play padel"
    r"(?:(?:very\s+much|so\s+much|a\s+lot)\s+(?=to\s))?(?P<obj>.+)$",
    re.IGNORECASE,
)
_FAVOURITE = re.compile(
    r"^(?:my|our)\s+(?:all-time\s+|absolute\s+)?favou?rite\s+(?P<what>[\w\- ]+?)\s+(?:is|are)\s+"
    r"(?P<obj>.+)$",
    re.IGNORECASE,
)
_TO_VERB = re.compile(r"^to\s+(?P<verb>[a-z]+)\b", re.IGNORECASE)
# "I'm really into bouldering": an interest, not a like.
_INTO = re.compile(
    r"\b(?:i'm|i\s+am|i've\s+been|i\s+have\s+been|i\s+got)\s+(?:(?:really|so|totally|very|"
    r"quite|super|deeply|completely|also|lately|recently|now)\s+)*(?:into|obsessed\s+with|"
    r"hooked\s+on|passionate\s+about)\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
# "My new hobby is bouldering", "our hobbies are hiking and board games": pastimes, each one.
_HOBBY = re.compile(
    r"^(?:my|our)\s+(?:(?:new|newest|latest|current|main|big|only|other|favou?rite)\s+)?"
    r"(?:hobby|hobbies|pastimes?|obsession)\s+(?:(?:at\s+the\s+moment|these\s+days|right\s+now|"
    r"lately)\s+)?(?:is|are|has\s+been|have\s+been)\s+"
    # what it is, not what it is like ("a mess", "so expensive", "kind of dull")
    r"(?!(?:a|an|the|so|very|really|pretty|quite|kind|kinda|sort|too|getting|becoming)\b)"
    r"(?P<obj>.+)$",
    re.IGNORECASE,
)
_LISTED = re.compile(r",\s*(?:and\s+)?|\s+and\s+|\s+&\s+", re.IGNORECASE)
# "I'd rather take the train than fly": the first choice is the preference.
_RATHER = re.compile(
    r"\b(?:i'd|i\s+would|we'd|we\s+would)\s+(?:much\s+)?rather\s+(?:(?:take|have|eat|use|"
    r"drink|go\s+by|go\s+to|watch|read|listen\s+to|play|do)\s+)?(?P<obj>.+?)\s+(?:than|over|"
    r"instead\s+of)\s+",
    re.IGNORECASE,
)
# Where a preference stops: the next clause ("..., so skip those", "... but not ...").
_NEXT_CLAUSE = re.compile(r"\s*(?:[,;]\s*(?:so|but|because|and|which|though)\b|[;(])", re.I)
# One thing chosen over another: "tabs over spaces", "tea rather than coffee".
_CHOICE = re.compile(r"\s(?:over|than|instead\s+of|versus|vs\.?)\s", re.IGNORECASE)
# "don't want X to VERB": what is not wanted is something happening, not X.
_WANTED = re.compile(r"\bwant\s*$", re.IGNORECASE)
_SOMEONE_TO = re.compile(r"^(?!to\b)(?:[\w'’\-]+\s+){1,4}to\s+[a-z]", re.IGNORECASE)
# "Studio Ghibli films": a name followed by the kind of thing it makes is the name.
_NAME_KIND = re.compile(
    r"^(?P<name>(?:[A-Z][\w'’.&\-]*\s+){0,3}[A-Z][\w'’.&\-]*)\s+(?:films?|movies?|books?|"
    r"novels?|songs?|music|albums?|shows?|series|games?|podcasts?|records?|recipes?|food|"
    r"dishes|cuisine)$"
)


# Verbs whose object is the pastime: "to play padel" is padel, "to play the cello" the cello.
_OBJECT_NAMES_IT = frozenset({"play"})

# The subject of a preference whose object names none: a bucket, not a subject.
CATCH_ALL = "Preferences"


def _preference_subject(c: Clause, obj: str) -> str:
    """What is liked: the object of the liking verb. Where or with whom it is liked ("hiking
    with my dog", "driving in the city", "tea with my breakfast") qualifies it; it names the
    subject only when the object names none (a long clause) or is a choice made there ("tabs
    over spaces in Python")."""
    if _THEME.search(obj):
        context = _CONTEXT.search(obj)
        ctx = p.make_label(cut(context.group("ctx"))) if context else None
        return f"{ctx} Theme" if ctx else "Theme"
    if _RESPONSES.search(obj):
        return "Response Style"
    to_verb = _TO_VERB.match(obj)
    if to_verb:
        verb = to_verb.group("verb").lower()
        if verb not in LIGHT_VERBS and verb not in _OBJECT_NAMES_IT:
            return p.title_case(p.gerund(verb))
        # "to use Vim", "to go hiking", "to play padel": a light verb, or one whose object is
        # the pastime, names none; its object does
        obj = obj[to_verb.end() :].strip()
    head = cut(obj)
    where = _context_label(obj)
    if where and _CHOICE.search(obj):
        return where  # "tabs over spaces in Python": a choice made within Python
    if head and len(head.split()) <= 4 and not _PRONOUN_START.match(head):
        label = p.make_label(head)
        if label:
            return label
    return where or CATCH_ALL


def _context_label(obj: str) -> str | None:
    """Where a liking holds, named: "in my editor" (Editor), "in Python" (Python)."""
    for pattern in (_CONTEXT, _NAMED_CONTEXT):
        context = pattern.search(obj)
        if context:
            raw = cut(context.group("ctx"))
            if raw and raw.split()[0].lower() not in _TIME_WORDS and (label := p.make_label(raw)):
                return label
    return None


# How the person eats or drinks, said of themselves: "I went pescatarian last year", "I'm
# vegan now", "I went pescatarian last year", "we keep halal". Not "my sister is vegan".
_DIETS = "|".join(sorted((re.escape(w) for w in p.DIETS), key=len, reverse=True))
_DIET = re.compile(
    r"\b(?:i['’]m|i\s+am|i['’]ve\s+been|i\s+have\s+been|i\s+went|i\s+became|i\s+keep|"
    r"i\s+eat|we\s+keep|i\s+go|i\s+stay)\s+(?:(?:now|still|fully|mostly|strictly|also|a|an|"
    r"completely|totally|pretty\s+much)\s+)*(?P<diet>" + _DIETS + r")\b(?!\s+(?:food|options?|"
    r"recipes?|dish(?:es)?|restaurant|place|friends?|guests?|menu|version|alternatives?))",
    re.IGNORECASE,
)
_DIET_LABELS = {"pescetarian": "Pescatarian", "teetotaller": "Teetotal"}


def diet(c: Clause) -> Found:
    match = _DIET.search(c.text)
    if not match or re.search(r"\b(?:not|never|if)\b|n['’]t\b", c.text[: match.start()], re.I):
        return []
    word = match.group("diet").lower()
    label = _DIET_LABELS.get(word) or p.title_case(word)
    return slice_(c, label, PREFERENCE, SliceKind.PREFERENCE.value, c.detail)


def preference(c: Clause) -> Found:
    match = _INTO.search(c.text)
    if match:
        label = object_label(c, _NEXT_CLAUSE.split(match.group("obj"), maxsplit=1)[0])
        return slice_(c, label, INTEREST, SliceKind.PREFERENCE.value) if label else []
    match = _HOBBY.match(c.text)
    if match:
        found: Found = []
        obj = _NEXT_CLAUSE.split(match.group("obj"), maxsplit=1)[0]
        for item in _LISTED.split(obj)[:4]:
            label = object_label(c, item)
            found += slice_(c, label, INTEREST, SliceKind.PREFERENCE.value) if label else []
        return found
    match = _RATHER.search(c.text)
    if match:
        label = object_label(c, match.group("obj"))
        return slice_(c, label, PREFERENCE, SliceKind.PREFERENCE.value) if label else []
    match = _FAVOURITE.match(c.text)
    if match:
        label = p.make_label(match.group("what"))
        return slice_(c, label, PREFERENCE, SliceKind.PREFERENCE.value) if label else []
    match = _PREFERS.search(c.text)
    if not match:
        return []
    obj = _NEXT_CLAUSE.split(match.group("obj").strip(), maxsplit=1)[0]
    if _WANTED.search(c.text[: match.start("obj")]) and _SOMEONE_TO.match(obj):
        return []  # "I don't want my kids to go through that": a wish about them, not a dislike
    if _PRONOUN_START.match(obj) and not (_RESPONSES.search(obj) or _TO_VERB.match(obj)):
        return []
    if re.search(r"allergic", c.text, re.IGNORECASE):
        label = object_label(c, obj)
        return slice_(c, f"{label} Allergy", HEALTH, SliceKind.OTHER.value) if label else []
    kind = _NAME_KIND.match(cut(obj))
    named = p.make_label(kind.group("name")) if kind else None
    subject = named or _preference_subject(c, obj)
    return slice_(c, subject, PREFERENCE, SliceKind.PREFERENCE.value)
