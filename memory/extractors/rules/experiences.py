"""Experiences: what the person did or went through, with its time.

"I went to a grief support group yesterday" -> an event on Grief Support Group; "I ran a
charity race last Saturday", "I ran my first half marathon" -> Charity Race, Half Marathon
(achieved); "I've been to Paris twice" -> Paris (a place), "I visited my grandma in Kraków two
weeks ago" -> Kraków; "we saw a tribute band at the Roundhouse on Friday" -> Roundhouse; "my
first solo hike up Ben Nevis on Saturday" -> Ben Nevis; "I took a pottery workshop" -> Pottery
Workshop (taking is going only for a class: not "took a walk" or "took the bus"). A named place is a ``place``; an
unnamed thing done is a ``life_event``. Every event is dated from its clause when a time is
stated ("yesterday", "last Saturday", "two weeks ago"), anchored on the message's time.
"""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.patterns import EXPERIENCE_NEEDS_KIND, EXPERIENCE_NOUNS
from memory.extractors.rules.base import (
    _I,
    _TIME_WORDS,
    LIFE_EVENT,
    ORDINARY,
    PLACE,
    UPPER,
    Clause,
    Found,
    _is_date_word,
    cut,
    event,
    leading_name,
    slice_,
    time_phrase,
    without_time,
)
from memory.temporal import ANY_MONTH, recurrence, resolve_when
from memory.vocab import EventAction, SliceKind

_ORDINALS = r"(?:(?:my|our|a|an|the|his|her)\s+)?(?:(?:very\s+)?(?:first|second|third|last|fifth|tenth|\d+(?:st|nd|rd|th))\s+)?(?:(?:ever|solo|own|big|little|proper|real)\s+)*"
_DID = re.compile(
    _I + r"(?P<verb>ran|completed|finished|did|took\s+part\s+in|participated\s+in|competed\s+in|"
    r"walked|cycled|rode|swam|hiked|climbed|entered|won|passed|organi[sz]ed|set\s+up|hosted|"
    r"threw)\s+" + _ORDINALS + r"(?P<obj>.+)$",
    re.IGNORECASE,
)
_WENT = re.compile(
    _I + r"(?P<verb>went\s+to|go\s+to|attended|visited|saw|watched|had|celebrated|took|"
    r"(?:got|came|am|'m)\s+back\s+from|returned\s+from|"
    r"went\s+on|was\s+at|were\s+at)\s+" + _ORDINALS + r"(?P<obj>.+)$",
    re.IGNORECASE,
)
_BEEN_TO = re.compile(
    r"\b(?:i|we)(?:'ve|\s+have)\s+(?:(?:already|never|also|once|twice)\s+)?been\s+to\s+"
    r"(?-i:(?P<place>[A-Z][^,;]*))",
    re.IGNORECASE,
)
# "... at the Roundhouse", "... up Ben Nevis", "... in Kraków": a named place in the clause.
_PLACE_IN = re.compile(
    r"\b(?:at|in|up|to|on|near|around)\s+(?:the\s+)?(?P<place>["
    + UPPER
    + r"][\w'’\-]*(?:\s+["
    + UPPER
    + r"][\w'’\-]*){0,3})"
)
_ROUTINE_PLACES = frozenset(
    """work school bed church office home sleep class gym store shop shops supermarket doctor
    dentist bathroom toilet it that this there lunch dinner breakfast coffee""".split()
)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)
_NOT_EVENT_WORDS = frozenset("time day week look go chat talk think feeling idea".split())


# How it was done, after what: "a convention together", "the parade alone" ("again", "too"
# and "as well" end the phrase already: :func:`cut`).
_HOW = re.compile(r"\s+(?:together|alone)$", re.IGNORECASE)


def _thing_done(c: Clause, phrase: str) -> str | None:
    head = _HOW.sub("", cut(phrase, time_phrase(phrase, c.anchor)))
    words = head.split()
    if not words or len(words) > 5:
        return None
    last = words[-1].lower().rstrip("s")
    if last not in EXPERIENCE_NOUNS and words[-1].lower() not in EXPERIENCE_NOUNS:
        return None
    if last in EXPERIENCE_NEEDS_KIND and len(_ARTICLE.sub("", head).split()) < 2:
        return None  # "a meeting", "the test": of what, it does not say
    return p.make_label(head)


def _name_phrase(head: str, name: str) -> str | None:
    """``head`` when ``name`` leads it and at most two lower-case nouns follow ("Bondi beach",
    "LGBTQ+ film night"), else None."""
    words = _ARTICLE.sub("", head).split()
    named = name.split()
    rest = words[len(named) :]
    if words[: len(named)] != named or not 1 <= len(rest) <= 2:
        return None
    return " ".join(words) if all(w.isalpha() and w.islower() for w in rest) else None


def _named_place(text: str) -> str | None:
    for match in _PLACE_IN.finditer(text):
        name = leading_name(match.group("place"))
        label = p.make_label(name) if name else None
        if label and not _is_date_word(label):
            return label
    return None


def _course_taken(thing: str | None) -> bool:
    """One takes a course as one goes to it: "a creative writing class" (:data:`p.COURSES`)."""
    words = (thing or "").lower().split()
    return len(words) >= 2 and words[-1] in p.COURSES


# "dublin marathon is oct 25", "my inburgering exam for speaking is 14 may", "our housewarming
# party was on Saturday": an occasion of the person's, said with its date. The person's own
# ("my", "our") or said bare, as one says a name; "the", "his", "their" occasion is not read.
_DATED = re.compile(
    r"^(?:(?:my|our)\s+)?(?P<what>(?:[\w'’-]+\s+){1,5}?)(?:is|was|are|were)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_NOT_OWN = frozenset("the a an this that his her their your its these those".split())
_MONTH = rf"(?:{ANY_MONTH})\.?"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_WEEKDAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?"
# A day to come or gone, as people say it: "14 may", "oct 25", "the 3rd of June", "next
# Tuesday", "tomorrow", "this weekend".
_DATE_LIKE = re.compile(
    rf"^(?:on\s+|in\s+)?(?:the\s+)?(?:{_DAY}(?:\s+of)?\s+{_MONTH}|{_MONTH}\s+{_DAY}|"
    rf"(?:next|this|last)\s+(?:week(?:end)?|month|year|{_WEEKDAY})|tomorrow|today|tonight|"
    rf"{_WEEKDAY}|{_DAY}(?=\s*(?:$|[,.!;])))\b",
    re.IGNORECASE,
)


def _dated_occasion(c: Clause) -> Found:
    match = _DATED.match(c.text.strip())
    if not match or match.group("what").split()[0].lower() in _NOT_OWN:
        return []
    what = match.group("what").lower()
    if re.search(r"['’]s\b", what) or re.search(r"\b(?:birthday|anniversary)\b", what):
        return []  # someone's ("Meera's birthday is on 14 January"), or a date of theirs
    rest = match.group("rest").strip()
    when = resolve_when(rest, c.anchor)
    stated = when is not None and rest.lower().startswith(("on ", "in ", when.phrase.lower()))
    if not (stated or _DATE_LIKE.match(rest)):
        return []  # the date is what it is: "is on Saturday", "was 14 May", "is oct 25"
    thing = _thing_done(c, cut(match.group("what")))
    if not thing or len(thing.split()) < 2:
        return []  # "my exam is tomorrow": which, it does not say
    return event(c, thing, LIFE_EVENT, EventAction.OTHER.value, ORDINARY)


def experience(c: Clause) -> Found:
    if recurrence(c.text):
        return []  # "I run 5k every morning" is a routine, not something that happened once
    if found := _dated_occasion(c):
        return found
    match = _BEEN_TO.search(c.text)
    if match:
        name = leading_name(match.group("place"))
        label = p.make_label(name) if name else None
        if label:
            return slice_(c, label, PLACE, SliceKind.OTHER.value)
    for pattern, action in ((_DID, EventAction.ACHIEVED.value), (_WENT, EventAction.OTHER.value)):
        match = pattern.search(c.text)
        if not match:
            continue
        obj = without_time(match.group("obj"), time_phrase(match.group("obj"), c.anchor))
        thing = _thing_done(c, obj)
        place = _named_place(obj)
        verb = match.group("verb").lower()
        if verb == "had" and (not thing or thing.split()[-1].lower() in EXPERIENCE_NEEDS_KIND):
            continue  # "I had coffee with ...", "I had a team meeting": no experience of note
        if verb == "took" and not _course_taken(thing):
            continue  # "took a pottery workshop"; not "took a walk", "took a trip to Rome"
        if place and (not thing or verb in ("visited", "went to", "was at", "were at")):
            return event(c, place, PLACE, action, ORDINARY)
        if thing:
            return event(c, thing, LIFE_EVENT, action, ORDINARY)
        if verb in ("went to", "visited", "attended") and (name := leading_name(obj.strip())):
            first = cut(obj).split()
            if first and first[0].lower() not in _ROUTINE_PLACES:
                # "Bondi beach", "an LGBTQ+ film night": the name leads a phrase that goes on in
                # lower case, and the whole phrase is where they went
                whole = _name_phrase(cut(obj), name)
                if label := p.make_label(whole or name):
                    # "a Pixar film night" happened; "Bondi beach" is a place
                    timed = whole and whole.split()[-1].lower() in _TIME_WORDS
                    return event(c, label, LIFE_EVENT if timed else PLACE, action, ORDINARY)
    return []
