"""Someone's occasion coming up, labelled as people say it: a birthday, a wedding.

"My brother Cathal is getting married on the 27th" is "Cathal's Wedding", "Elsie turns 7 on
the 16th" is "Elsie's 7th Birthday", "it's Dad's retirement do on Friday" is "Dad's
Retirement". The occasion is a life event of its own, and the one whose occasion it is (a
name) is a person the person knows. Only an occasion still to come is read: "we went to my
cousin's wedding" is over. A birthday said as a date ("my husband's birthday falls on 9
October") is a fact of theirs, read by the people rules, and a visit ("my cousin Lena is
visiting next week") is not an event of the person's life.
"""

from __future__ import annotations

import re

from wordfreq import zipf_frequency

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    HEALTH,
    IMPORTANT,
    LIFE_EVENT,
    PERSON,
    Clause,
    Found,
    event,
    node,
)
from memory.extractors.rules.people import RELATIONS
from memory.temporal import MONTHS, WEEKDAYS
from memory.vocab import Category, EventAction

# Whose occasion: "my brother Cathal", "my mum", "Elsie", "our Rhys".
_WHO = (
    r"(?:(?P<own>my|our)\s+(?:(?:best|old|little|big|older|younger|eldest|oldest|youngest)\s+)?"
    r"(?P<rel>[a-z][a-z-]+)(?:\s+(?P<relname>[^\W\d_][\w'’-]*))?"
    r"|(?P<name>[^\W\d_][\w’-]*))"
)
_LEAD = r"(?:^|[,;(]\s*|\b(?:and|but|so|that)\s+)"
_TURNS = re.compile(rf"{_LEAD}{_WHO}\s+turns\s+(?P<age>\d{{1,3}})\b", re.IGNORECASE)
_MARRIES = re.compile(
    rf"{_LEAD}{_WHO}(?:(?:\s+is|['’]s)\s+getting|\s+gets)\s+married\b", re.IGNORECASE
)
# A birthday said this way is a date of theirs, which the people rules keep ("my husband's
# birthday falls on 9 October"); an age they turn is the occasion.
_OCCASIONS = "wedding graduation retirement funeral christening".split()
_NAMED_OCCASION = re.compile(
    rf"\b{_WHO}['’]s\s+(?P<what>{'|'.join(_OCCASIONS)})\b(?P<rest>.*)$", re.IGNORECASE
)
# An occasion said as past: it is over.
_PAST = re.compile(
    r"\b(?:last|ago|yesterday|was|were|had|did|went|took|celebrated|missed)\b", re.IGNORECASE
)
# Words that stand where a name would and are none.
_NOT_WHO = frozenset(
    "i you he she it we they this that there who what which the a an her his their its your "
    "everyone someone somebody nobody".split()
)
_RARE_ZIPF = 4.0  # a lower-case word rarer than this in English may be a name ("felipe")


def _ordinal(number: int) -> str:
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


def _named(word: str) -> bool:
    """A word that is a name as written: a capital, or lower case and rare in English."""
    if word.lower() in _NOT_WHO or word.lower() in RELATIONS:
        return False
    return word[:1].isupper() or zipf_frequency(word, "en") < _RARE_ZIPF


def _whose(match: re.Match[str]) -> tuple[str, str] | None:
    """(the name that goes before "'s", the person's own name or "") of the occasion."""
    if match.group("own") and match.group("rel").lower() not in RELATIONS:
        rel = match.group("rel")  # "our Rhys": a name said as theirs
        if match.group("relname") or not rel[:1].isupper() or not _named(rel):
            return None
        return rel, rel
    if match.group("own"):
        rel = match.group("rel").lower()
        if RELATIONS.get(rel) in (None, Category.POSSESSION.value):
            return None
        name = match.group("relname") or ""
        if name and _named(name):
            # "my brother Cathal": the relation rules read Cathal as theirs
            return name[:1].upper() + name[1:], ""
        return rel.capitalize(), ""
    name = match.group("name") or ""
    if RELATIONS.get(name.lower()) not in (None, Category.POSSESSION.value):
        return name.capitalize(), ""  # "Mum's birthday", "Dad is visiting"
    if not _named(name):
        return None
    return name[:1].upper() + name[1:], name[:1].upper() + name[1:]


def _past(c: Clause) -> bool:
    """The clause tells of the occasion as over ("we celebrated", "last year")."""
    return bool(_PAST.search(c.text))


def _found(c: Clause, who: tuple[str, str], label: str) -> Found:
    found = event(c, label, LIFE_EVENT, EventAction.OTHER.value, IMPORTANT)
    name = who[1]
    return found + [node(c, name, PERSON)] if name else found


def occasion(c: Clause) -> Found:
    """Someone's birthday (an age they turn), wedding or other occasion, still to come."""
    text = c.text
    match = _TURNS.search(text)
    who = _whose(match) if match else None
    if match and who:
        return _found(c, who, f"{who[0]}'s {_ordinal(int(match.group('age')))} Birthday")
    match = _MARRIES.search(text)
    who = _whose(match) if match else None
    if match and who:
        return _found(c, who, f"{who[0]}'s Wedding")
    match = _NAMED_OCCASION.search(text)
    who = _whose(match) if match else None
    if match and who and not _past(c):
        return _found(c, who, f"{who[0]}'s {match.group('what').capitalize()}")
    return _own_occasion(c)


# The person's own occasion, dated: "my graduation is on the 3rd of July", "our wedding is
# booked for June", or said as chat says it, without "my" ("graduation is on the 3rd!!!").
# "The wedding" is theirs only when it is being arranged ("the wedding is booked for May").
_OWN_OCCASION = re.compile(
    rf"^(?:(?:my|our)\s+|the\s+(?=(?:{'|'.join(_OCCASIONS)})\s+(?:is|['’]s)\s+"
    r"(?:booked|planned|set|arranged|fixed)\b))?"
    rf"(?P<what>{'|'.join(_OCCASIONS)})\s+(?:is|['’]s)\s+(?:\w+\s+)?"
    r"(?:on|in|at|for|this|next|booked|planned|set|arranged|fixed)\b",
    re.IGNORECASE,
)


# When it is, said of a day to come: a month, a weekday, a day of the month, a year, "next".
_DATED = re.compile(
    rf"\b(?:{'|'.join(MONTHS)}|{'|'.join(WEEKDAYS)}|\d{{1,2}}(?:st|nd|rd|th)|(?:19|20)\d{{2}}|"
    r"next|tomorrow|weekend)\b",
    re.IGNORECASE,
)


def _own_occasion(c: Clause) -> Found:
    match = _OWN_OCCASION.match(c.text)
    if not match or _past(c) or not _DATED.search(c.text[match.end() :]):
        return _dated_event(c)
    label = match.group("what").capitalize()
    return event(c, label, LIFE_EVENT, EventAction.OTHER.value, IMPORTANT)


# What a day in a life is kept for, by the word that ends its name: "the theory test", "his
# school recital", "her confirmation", "my knee surgery", "the citizenship interview", "a half
# marathon".
EVENT_HEADS = frozenset(
    """test exam exams interview surgery operation scan biopsy transplant replacement recital
    concert play performance gig match final tournament race marathon half-marathon triathlon
    tri duathlon sportive communion confirmation christening baptism mitzvah funeral
    party reunion conference presentation defence defense viva audition exhibition competition
    championship championships trial hearing ceremony retreat pilgrimage expedition""".split()
)
_WHAT = r"(?P<what>(?:[\w'’-]+\s+){0,3}?(?:" + "|".join(sorted(EVENT_HEADS)) + r"))"
# Said as arranged ("the theory test is booked!!", "my surgery's scheduled for the 18th"), as
# dated ("my viva is on 3 March"), as had on a day ("I've got my B1 exam in May", "our
# son has his school recital on the 3rd") or as signed up for ("signed up for the Bath
# half marathon, 15 March").
_ARRANGED = r"(?:booked|scheduled|set|planned|arranged|confirmed|fixed)"
_WHEN = r"(?=(?:on|in|this|next|tomorrow)\b)"
_DATED_EVENTS = (
    re.compile(
        r"^(?:my|our|the)\s+" + _WHAT + r"(?:\s+is|['’]s)\s+"
        r"(?:(?P<arranged>" + _ARRANGED + r")\b|" + _WHEN + ")",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:ha(?:s|ve)|['’]ve\s+got|['’]s\s+got|got)\s+"
        r"(?:(?:my|our|his|her|their|a|an|the)\s+)?"
        + _WHAT
        + r"\s+(?:(?P<arranged>"
        + _ARRANGED
        + r")\b|"
        + _WHEN
        + ")",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?P<arranged>signed\s+up|registered|entered)\s+(?:for\s+)?"
        r"(?:(?:my|our|a|an|the)\s+)?" + _WHAT + r"\b",
        re.IGNORECASE,
    ),
)
# Determiners and how it is said that are no part of its name.
_NOT_OF_NAME = frozenset("a an the my our his her their this that big first-ever".split())


def _dated_event(c: Clause) -> Found:
    """The person's (or their family's) day to come, named by what it is (:data:`EVENT_HEADS`)
    and said as arranged, dated or signed up for; not one said as over."""
    match = next((m for m in (x.search(c.text) for x in _DATED_EVENTS) if m), None)
    if not match or _past(c) or _someone_elses(c.text[: match.start()]):
        return []
    if match.group("arranged") is None and not _DATED.search(c.text[match.end() :]):
        return []
    words = [w for w in match.group("what").split() if w.lower() not in _NOT_OF_NAME]
    if not words or (len(words) == 1 and words[0].lower() in _GENERIC_ALONE):
        return []
    label = p.make_label(" ".join(words))
    if not label:
        return []
    category = HEALTH if words[-1].lower() in _MEDICAL else LIFE_EVENT
    return event(c, label, category, EventAction.OTHER.value, IMPORTANT)


# Who has a day that is not the person's to keep: "she has a job interview on Monday", "my
# colleague has his hearing in May" (the person's family's days are theirs too: "my daughter
# has her recital on Friday").
_THEIRS = re.compile(
    r"\b(?:he|she|they|it|(?:my|our)\s+(?P<rel>[a-z-]+)(?:\s+[^\W\d_][\w'’-]*)?)\s*$",
    re.IGNORECASE,
)


def _someone_elses(before: str) -> bool:
    """``before`` (the words before "has ...") ends with someone else than the person and
    their family: a pronoun, or a friend, a colleague, a neighbour ... by their relation."""
    match = _THEIRS.search(before)
    if not match:
        return False
    rel = (match.group("rel") or "").lower()
    return not rel or RELATIONS.get(rel) == PERSON


# What is done to the body: "my knee replacement", "the biopsy": the person's health.
_MEDICAL = frozenset("surgery operation scan biopsy transplant replacement".split())
# Heads too general alone to be a card ("the test is on Monday", "a party next week"): only
# with a word that says which.
_GENERIC_ALONE = frozenset("test exam exams party match final play race trial hearing".split())
