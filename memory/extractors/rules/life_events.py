"""Life events: moved, married, born, a baby on the way, diagnosed, injured, recovered, broke up,
joined or left."""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    _I,
    HEALTH,
    IDENTITY,
    IMPORTANT,
    LIFE_EVENT,
    LIFE_SIGNIFICANT,
    ORGANIZATION,
    PLACE,
    POSSESSION,
    RELATIONSHIP,
    Clause,
    Found,
    _is_date_word,
    _leading_name,
    cut,
    event,
    object_label,
)
from memory.vocab import EventAction

BODY_PARTS = frozenset(
    """knee knees ankle ankles wrist wrists back shoulder shoulders neck hip hips arm arms leg
    legs foot feet hand hands finger fingers toe toes elbow elbows hamstring hamstrings calf
    calves achilles rib ribs collarbone nose jaw tooth teeth spine thumb groin quad quads acl
    meniscus rotator head""".split()
)
_MOVED = re.compile(
    _I + r"(?:moved|relocated|emigrated)\s+(?:back\s+|over\s+|out\s+|house\s+)?(?:to|into)\s+"
    r"(?P<obj>.+)",
    re.IGNORECASE,
)
_PLACE_IN = re.compile(r"\bin\s+(?P<place>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,2})")
_MARRIED = re.compile(
    _I + r"(?:got\s+married|married|wed)\b(?:\s+(?:to\s+)?(?P<obj>.+))?", re.IGNORECASE
)
_BORN = re.compile(r"\bi\s+was\s+born\b(?P<rest>.*)$", re.IGNORECASE)
# "we're expecting our second baby in November", "I'm pregnant with twins", "we're having a
# baby!": a birth on its way, dated by when it is due.
_EXPECTING = re.compile(
    r"\b(?:i'm|i\s+am|we're|we\s+are|were)\s+(?:(?:so|finally|officially|now|also)\s+)*"
    r"(?:expecting|having)\s+(?:a|an|our|my)?\s*(?:first|second|third|fourth|fifth|new|"
    r"little)?\s*(?P<what>baby|babies|child|twins|little\s+one)\b|"
    r"\b(?:i'm|i\s+am)\s+(?:(?:so|finally|officially|now|also)\s+)*pregnant\b",
    re.IGNORECASE,
)
# "I was diagnosed with ...", "I was only diagnosed with ... at 34", and the doctor's doing:
# "the GP diagnosed me with ...", "they've diagnosed me with ...".
_DIAGNOSED = re.compile(
    r"(?:\b(?:i|i've|i'm)(?:\s+(?:was|got|have\s+been|had\s+been|been|just|recently|finally|"
    r"officially|only|eventually|formally|now|also|actually|properly|initially|originally))*"
    r"\s+diagnosed|\bdiagnosed\s+me)\s+with\s+(?P<obj>.+)",
    re.IGNORECASE,
)
_INJURED = re.compile(
    _I + r"(?:injured|hurt|sprained|broke|broken|tore|torn|twisted|strained|pulled|dislocated|"
    r"fractured|busted|bruised|messed\s+up)\s+(?:my\s+)?(?:(?:left|right|lower|upper)\s+)?"
    r"(?P<part>[a-z]+)",
    re.IGNORECASE,
)
_GOT_INJURED = re.compile(_I + r"(?:got|was|am|'m)\s+(?:badly\s+)?injured\b", re.IGNORECASE)
_RECOVERED = re.compile(
    _I + r"(?:recovered|healed|got\s+over|am\s+over|'m\s+over|bounced\s+back)\s+"
    r"(?:fully\s+|completely\s+)?(?:from\s+)?(?P<obj>.+)",
    re.IGNORECASE,
)
_BROKE_UP = re.compile(_I + r"broke\s+up\s+with\s+(?P<obj>.+)", re.IGNORECASE)
_JOINED = re.compile(
    _I
    + r"(?:joined|(?:started|began)\s+(?:a\s+new\s+job|working|work|my\s+new\s+job)\s+(?:at|for|with)|"
    r"(?:got\s+)?hired\s+(?:at|by)|got\s+a\s+job\s+at|started\s+at)\s+(?P<obj>.+)",
    re.IGNORECASE,
)
_LEFT_JOB = re.compile(
    _I + r"(?:left|quit|resigned\s+from)\s+(?:my\s+(?:job|role|position)(?:\s+(?:at|with)\s+"
    r"(?P<org>.+))?|(?-i:(?P<org2>[A-Z][\w&'\-]*(?:\s+[A-Z][\w&'\-]*){0,3})))",
    re.IGNORECASE,
)


# "my car broke down on the way to work", "our van got stolen": a vehicle or the house's
# heating failing or taken is an event of the person's life; a phone that "died" is not.
_BROKE_DOWN = re.compile(
    r"\b(?:my|our)\s+(?:(?:old|new|trusty|poor)\s+)?(?P<thing>car|van|motorbike|motorcycle|"
    r"bike|scooter|camper(?:van)?|truck|boiler)\s+(?P<what>broke\s+down|has\s+broken\s+down|"
    r"packed\s+up|died|(?:got|was|has\s+been)\s+(?:stolen|written\s+off|towed|broken\s+into))\b",
    re.IGNORECASE,
)


def _broke_down(c: Clause) -> Found:
    match = _BROKE_DOWN.search(c.text)
    if not match:
        return []
    label = p.make_label(match.group("thing")) or ""
    return event(c, label, POSSESSION, EventAction.OTHER.value, IMPORTANT)


def _moved(c: Clause) -> Found:
    match = _MOVED.search(c.text)
    if not match:
        return []
    label = object_label(c, match.group("obj"))
    place = _PLACE_IN.search(match.group("obj"))
    if place and not p.is_name(cut(match.group("obj"))) and not _is_date_word(place.group(1)):
        label = p.make_label(place.group("place")) or label  # "a flat in Leeds" -> "Leeds"
    if not label:
        return []
    return event(c, label, PLACE, EventAction.MOVED.value, IMPORTANT)


def _married(c: Clause) -> Found:
    match = _MARRIED.search(c.text)
    if not match:
        return []
    name, _ = _leading_name(match.group("obj") or "")
    if name and p.make_label(name):
        return event(c, name, RELATIONSHIP, EventAction.MARRIED.value, LIFE_SIGNIFICANT)
    return event(c, "Marriage", LIFE_EVENT, EventAction.MARRIED.value, LIFE_SIGNIFICANT)


def _born(c: Clause) -> Found:
    match = _BORN.search(c.text)
    if not match:
        return []
    place = _PLACE_IN.search(match.group("rest"))
    if place and p.make_label(place.group("place")) and not _is_date_word(place.group(1)):
        label = p.make_label(place.group("place")) or ""
        return event(c, label, PLACE, EventAction.BORN.value, LIFE_SIGNIFICANT)
    return event(c, "Birthday", IDENTITY, EventAction.BORN.value, LIFE_SIGNIFICANT)


def _expecting(c: Clause) -> Found:
    match = _EXPECTING.search(c.text)
    if not match:
        return []
    label = "Twins on the Way" if match.group("what") == "twins" else "Baby on the Way"
    return event(c, label, LIFE_EVENT, EventAction.BORN.value, LIFE_SIGNIFICANT)


def _diagnosed(c: Clause) -> Found:
    match = _DIAGNOSED.search(c.text)
    label = object_label(c, match.group("obj")) if match else None
    if not label:
        return []
    return event(c, label, HEALTH, EventAction.DIAGNOSED.value, LIFE_SIGNIFICANT)


def _injured(c: Clause) -> Found:
    match = _INJURED.search(c.text)
    if match and match.group("part").lower() in BODY_PARTS:
        part = match.group("part").lower()
        label = f"{'ACL' if part == 'acl' else part.capitalize()} Injury"
        return event(c, label, HEALTH, EventAction.INJURED.value, IMPORTANT)
    if _GOT_INJURED.search(c.text):
        return event(c, "Injury", HEALTH, EventAction.INJURED.value, IMPORTANT)
    return []


def _recovered(c: Clause) -> Found:
    match = _RECOVERED.search(c.text)
    label = object_label(c, match.group("obj")) if match else None
    if not label:
        return []
    return event(c, label, HEALTH, EventAction.RECOVERED.value, IMPORTANT)


def _broke_up(c: Clause) -> Found:
    match = _BROKE_UP.search(c.text)
    if not match:
        return []
    name, _ = _leading_name(match.group("obj"))
    label = p.make_label(name) if name else object_label(c, match.group("obj"))
    if not label:
        return []
    return event(c, label, RELATIONSHIP, EventAction.BROKE_UP.value, IMPORTANT)


def _joined_or_left(c: Clause) -> Found:
    match = _JOINED.search(c.text)
    if match:
        label = object_label(c, match.group("obj"))
        return event(c, label, ORGANIZATION, EventAction.JOINED.value, IMPORTANT) if label else []
    match = _LEFT_JOB.search(c.text)
    if match:
        org = match.group("org") or match.group("org2")
        label = object_label(c, org) if org else "Job"
        if label:
            return event(c, label, ORGANIZATION, EventAction.LEFT.value, IMPORTANT)
    return []


def life_event(c: Clause) -> Found:
    for recognise in (
        _diagnosed,
        _injured,
        _recovered,
        _born,
        _expecting,
        _married,
        _moved,
        _broke_up,
        _joined_or_left,
        _broke_down,
    ):
        found = recognise(c)
        if found:
            return found
    return []
