"""Routines: a schedule for an activity ("I train boxing three days a week")."""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    _PRONOUN_START,
    _TIME_WORDS,
    Clause,
    Found,
    _capitalised_text,
    cut,
    slice_,
)
from memory.extractors.rules.status import (
    HABITS,
    _normalise_object,
    status_category,
)
from memory.temporal import recurrence
from memory.vocab import EventAction, SliceKind

# Verbs that are the activity ("I run ...") and verbs that carry one ("I train boxing ...").
_ACTIVITY_VERBS = frozenset(
    """run jog walk swim cycle bike box climb row lift hike ski skate surf dance paint draw
    read meditate journal stretch cook bake sing smoke""".split()
)
_CARRIER_VERBS = frozenset(
    "train practise practice play do go attend take study learn teach drink".split()
)
_ROUTINE_ADVERBS = (
    r"(?:(?:usually|normally|generally|typically|now|currently|still|also|only|mostly)\s+)*"
)
_I_ROUTINE = re.compile(
    rf"^(?:i|we)\s+(?P<adv>{_ROUTINE_ADVERBS})(?P<verb>[a-z]+)\b\s*(?P<obj>.*)$", re.IGNORECASE
)
_ROUTINE_OBJECT_LEAD = re.compile(r"^(?:(?:to|for)\s+)?(?:(?:the|a|an|some)\s+)?", re.I)
# Where the activity ends before a place: "the gym near work".
_ROUTINE_PLACE = re.compile(r"\s+(?:near|next\s+to|by|around|close\s+to)\b.*$", re.I)
# What may follow a schedule when the activity leads the clause: "Boxing twice a week now".
_ROUTINE_TAIL = re.compile(
    r"^(?:now|for\s+now|lately|these\s+days|at\s+the\s+moment|again|so\s+far)?$", re.I
)
_NOT_ROUTINE_OBJECTS = frozenset("work school bed church office home sleep class it that".split())
_GENERIC_GERUNDS = frozenset(
    """training working going doing practising practicing nothing something everything
    anything thing morning evening""".split()
)


# The carrying verbs said as gerunds at a clause's start, chat's way of leaving out "I".
_CARRIER_GERUNDS = {
    "doing": "do",
    "playing": "play",
    "practising": "practise",
    "practicing": "practice",
    "attending": "attend",
    "learning": "learn",
}


def third_person(verb: str) -> str:
    """The present tense after "she": "train" -> "trains", "box" -> "boxes", "do" -> "does"."""
    verb = verb.lower()
    if verb in ("do", "go"):
        return verb + "es"
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in tuple("aeiou"):
        return verb[:-1] + "ies"
    return verb + "s"


def _routine_activity(verb: str, obj: str) -> str | None:
    """The activity a routine is about, named in the clause, or ``None`` (never guessed)."""
    if verb in _ACTIVITY_VERBS:
        return p.gerund(verb)
    if verb not in _CARRIER_VERBS or not obj:
        return None
    if re.match(r"^(?:at|in|on|near|with|from|by)\b", obj, re.I):
        return None  # "I train at the gym": a place, not the activity
    raw = _ROUTINE_PLACE.sub("", cut(_ROUTINE_OBJECT_LEAD.sub("", obj, count=1)))
    if not raw or _PRONOUN_START.match(raw) or re.match(r"^(?:my|our|his|her|their)\b", raw, re.I):
        return None
    if raw.lower() in _NOT_ROUTINE_OBJECTS:
        return None
    if raw.lower() in _ACTIVITY_VERBS:  # "go for a run"
        return p.gerund(raw)
    return _normalise_object(raw)


# "I've been swimming twice a week": the activity is the gerund itself.
_BEEN_GERUND = re.compile(
    r"^(?:i|we)(?:'ve|\s+have)?\s+(?:also\s+|mostly\s+)?been\s+(?P<gerund>[a-z]{3,}ing)\b",
    re.IGNORECASE,
)


def _been_doing(c: Clause, before: str) -> tuple[str, str, str] | None:
    match = _BEEN_GERUND.match(before)
    label = p.make_label(match.group("gerund")) if match else None
    if not match or not label or match.group("gerund").lower() in _GENERIC_GERUNDS:
        return None
    return match.group("gerund"), label, c.detail


def _i_routine(c: Clause, before: str) -> tuple[str, str, str] | None:
    """(activity, label, text) of "I <verb> [<activity>] <schedule>", or ``None``."""
    match = _I_ROUTINE.match(before)
    if not match:
        return None
    verb = match.group("verb").lower()
    activity = _routine_activity(verb, match.group("obj").strip())
    label = p.make_label(activity) if activity else None
    if not activity or not label:
        return None
    rest = c.text[match.start("verb") + len(verb) :].strip()
    return activity, label, _capitalised_text(f"{match.group('adv')}{third_person(verb)} {rest}")


def _leading_activity(c: Clause, before: str, after: str) -> tuple[str, str, str] | None:
    """(activity, label, text) of "Boxing three days a week now", or ``None``."""
    if not _ROUTINE_TAIL.match(after.strip(" ,")):
        return None  # "Running twice a week is my goal" says something else
    words = before.lower().split()
    if not 0 < len(words) <= 3 or words[0] in ("i", "we", "my", "our"):
        return None
    first = words[0]
    carried = _CARRIER_GERUNDS.get(first)
    if (
        carried and len(words) > 1
    ):  # "doing aqua aerobics most Tuesdays", "playing darts on Fridays"
        activity = _routine_activity(carried, " ".join(before.split()[1:]))
        label = p.make_label(activity) if activity else None
        return (activity, label, c.detail) if activity and label else None
    is_gerund = first.endswith("ing") and first not in _GENERIC_GERUNDS
    if not (first in HABITS or is_gerund) or first in _TIME_WORDS:
        return None
    label = p.make_label(before)
    if not label:
        return None
    # Capitalised only as the sentence's start, so it is no proper name.
    return before[:1].lower() + before[1:], label, c.detail


def routine(c: Clause) -> Found:
    """A schedule for a named activity: a progress slice ("Trains boxing three days a week")."""
    schedule = recurrence(c.text)
    if not schedule or p.FUTURE.search(c.text):
        return []
    at = c.text.find(schedule)
    before, after = c.text[:at].strip(" ,"), c.text[at + len(schedule) :]
    read = _i_routine(c, before) or _been_doing(c, before) or _leading_activity(c, before, after)
    if not read:
        return []
    activity, label, text = read
    category = status_category(EventAction.STARTED.value, activity, activity)
    return slice_(c, label, category, SliceKind.PROGRESS.value, text)
