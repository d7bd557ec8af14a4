"""Status changes: started, stopped, quit, gave up, paused, resumed, finished, launched; a
language said as the person's own ("my dutch is not so good yet") is a skill."""

from __future__ import annotations

import re

from wordfreq import zipf_frequency

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    _I,
    HABIT,
    PROJECT,
    PROJECT_WORDS,
    SKILL,
    TOOL,
    Clause,
    Found,
    cut,
    event,
    object_label,
    slice_,
    time_phrase,
)
from memory.temporal import MONTHS, WEEKDAYS, recurrence
from memory.vocab import EventAction, SliceKind

STATUS_VERBS: tuple[tuple[str, str], ...] = (
    (
        r"started|began|start|starting|took\s+up|taking\s+up|taken\s+up|picked\s+up|got\s+into|"
        r"getting\s+into",
        EventAction.STARTED.value,
    ),
    (
        r"stopped|stopping|quit|quitting|gave\s+up|giving\s+up|given\s+up|dropped|ditched|"
        r"abandoned|cancelled|canceled|shut\s+down|killed|packed\s+in|jacked\s+in|"
        # a sport or a pastime retired from ("retired from netball"), not a job ("from the bank")
        r"retired\s+from(?!\s+(?:the|my|our|a|an|his|her|their|work|teaching|nursing)\b)",
        EventAction.STOPPED.value,
    ),
    (r"paused|pausing|shelved|shelving", EventAction.PAUSED.value),
    (
        r"resumed|resuming|restarted|got\s+back\s+into|went\s+back\s+to|returned\s+to|am\s+back\s+to|"
        r"'m\s+back\s+to",
        EventAction.RESUMED.value,
    ),
    (
        r"finished|finishing|completed|wrapped\s+up|am\s+done\s+with|'m\s+done\s+with",
        EventAction.COMPLETED.value,
    ),
    (
        r"launched|launching|shipped|released|published|went\s+live\s+with",
        EventAction.LAUNCHED.value,
    ),
)
_STATUS = tuple(
    (re.compile(_I + rf"(?P<verb>{verbs})\s+(?P<obj>.+)", re.IGNORECASE), action)
    for verbs, action in STATUS_VERBS
)
# Taking up a pastime is "got into running"; with an article the object is a thing or a
# situation one got into ("the accident", "an argument", "a taxi").
_STARTED_A = re.compile(r"^(?:a|an|my|our|my\s+own|our\s+own)\s", re.IGNORECASE)
_INTO_SOMETHING = re.compile(r"^(?:got|getting)\s+into$", re.IGNORECASE)
_DETERMINED = re.compile(r"^(?:a|an|the|this|that|some)\s", re.IGNORECASE)
_ON_HOLD = re.compile(
    _I + r"(?:put|putting)\s+(?P<obj>.+?)\s+on\s+(?:hold|ice|pause|the\s+back\s+burner)",
    re.IGNORECASE,
)
_BACK_UP = re.compile(_I + r"picked\s+(?P<obj>.+?)\s+back\s+up\b", re.IGNORECASE)
_SKILL_WORDS = re.compile(
    r"\b(?:learn|learning|studying|study|lessons?|class|classes|course|courses|training|"
    r"practis|practic)\w*",
    re.IGNORECASE,
)
HABITS = frozenset(
    """running jogging walking cycling swimming yoga pilates meditation meditating journaling
    smoking vaping drinking alcohol coffee caffeine sugar gym fasting stretching reading
    gaming social media twitter tiktok instagram reddit netflix snacking dieting diet sleep
    napping cold showers workouts working out lifting weightlifting cardio walks""".split()
)
# Activities that are done, not learned: a habit even without a stated schedule.
_ROUTINE_GERUNDS = frozenset(
    """volunteering commuting gardening walking jogging journaling meditating praying fasting
    babysitting caregiving dog-walking""".split()
)
_OBJECT_LEADS: tuple[tuple[re.Pattern[str], str | None], ...] = (
    # (prefix to drop, category it implies)
    (
        re.compile(
            r"^(?:learning|studying|to\s+learn|lessons\s+in|classes\s+in)\s+(?:how\s+to\s+)?"
            r"(?:play\s+|speak\s+)?(?:the\s+)?",
            re.I,
        ),
        SKILL,
    ),
    (re.compile(r"^(?:playing|to\s+play)\s+(?:the\s+)?", re.I), SKILL),
    (re.compile(r"^(?:working\s+on|building|developing)\s+", re.I), PROJECT),
    (re.compile(r"^(?:using|to\s+use)\s+", re.I), TOOL),
    (
        re.compile(
            r"^(?:going\s+to|attending|doing|taking|having|eating|drinking)\s+(?:the\s+)?", re.I
        ),
        None,
    ),
)
_NOT_ACTIVITIES = re.compile(
    r"^(?:to\s+|feeling|thinking|wondering|getting|being|seeing|looking|trying|noticing|"
    r"realizing|realising|worrying|caring|talking|saying|asking|wanting|needing|having\s+"
    r"(?:a|an|the)\b|crying|laughing|a\s+conversation|the\s+conversation|the\s+chat|over\b|"
    r"with\b|on\b|at\b|for\b|in\b|by\b|from\b|out\b|up\b|again\b|yet\b)",
    re.IGNORECASE,
)


def _normalise_object(obj: str) -> str:
    text = obj.strip()
    for pattern, _category in _OBJECT_LEADS:
        text = pattern.sub("", text, count=1)
    return text


# "the Atlas beta", "the Orion launch": a proper name, then the piece of work it names.
_NAMED_WORK = re.compile(
    r"^(?:(?:the|my|our|a|an|this)\s+)?(?P<name>[A-Z][\w.+#\-]*(?:\s+[A-Z][\w.+#\-]*)*)\s+"
    r"(?P<head>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)$"
)
# Capitalised, yet not the name of a piece of work: "French cooking", "Thai boxing".
_DEMONYMS = frozenset(
    """english french spanish german italian portuguese japanese chinese mandarin cantonese
    korean thai vietnamese indian hindi tamil arabic greek turkish russian polish dutch swedish
    brazilian mexican latin irish scottish welsh american british african persian""".split()
)


def _is_named_work(phrase: str) -> bool:
    match = _NAMED_WORK.match(phrase)
    if not match or match.group("head").split()[0].endswith("ing"):
        return False
    name = match.group("name").lower().split()
    return not (name[0] in _DEMONYMS or name[0] in MONTHS or name[0] in WEEKDAYS or name == ["i"])


def status_category(action: str, raw_object: str, clause: str) -> str:
    """Project, skill or habit, by the rule in the module docstring."""
    lowered = raw_object.lower()
    for pattern, category in _OBJECT_LEADS:
        if category and pattern.match(raw_object):
            return category
    if PROJECT_WORDS.search(cut(raw_object)) or action == EventAction.LAUNCHED.value:
        return PROJECT  # read in the object only: "climbing at a wall near work" is no project
    if _SKILL_WORDS.search(clause):
        return SKILL
    first = lowered.split()[0] if lowered.split() else ""
    if first in HABITS or lowered in HABITS:
        return HABIT
    if _is_named_work(cut(raw_object)):
        return PROJECT
    stopping = action == EventAction.STOPPED.value
    if p.is_name(cut(raw_object)) and not stopping:
        return PROJECT
    if first.endswith("ing"):
        # "volunteering on Saturdays", "surfing, I go every Sunday": a routine is a habit.
        return HABIT if recurrence(clause) or first in _ROUTINE_GERUNDS else SKILL
    if action == EventAction.COMPLETED.value:
        return PROJECT  # one finishes a piece of work, not an everyday habit
    if (
        action == EventAction.STARTED.value
        and _STARTED_A.match(raw_object)
        and not set(cut(raw_object).lower().split()) & HABITS
    ):
        # "I'm starting a bakery", "we started a community garden": something founded; "a
        # new diet" is still a habit
        return PROJECT
    return HABIT


def status_change(c: Clause) -> Found:
    for pattern, action in (
        (_ON_HOLD, EventAction.PAUSED.value),
        (_BACK_UP, EventAction.RESUMED.value),
        *_STATUS,
    ):
        match = pattern.search(c.text)
        if not match or _NOT_ACTIVITIES.match(match.group("obj")):
            continue
        raw = match.group("obj")
        verb = match.groupdict().get("verb") or ""
        if _INTO_SOMETHING.match(verb) and _DETERMINED.match(raw):
            continue  # "we got into the accident", "got into an argument": no pastime taken up
        if re.match(r"^working\s+(?:at|for)\b", raw, re.I):
            return []  # a new job: the joined recogniser reads it
        # "quit drinking coffee" is coffee; "quit drinking last year" is drinking
        label = object_label(c, _normalise_object(raw)) or object_label(c, raw)
        if not label:
            continue
        category = status_category(action, raw, c.sentence)
        return event(c, label, category, action)
    match = _GOT_ME_INTO.search(c.text)
    taken = match and not _DETERMINED.match(match.group("obj"))
    if match and taken and (label := object_label(c, match.group("obj"))):
        category = status_category("", match.group("obj"), c.sentence)
        return event(c, label, category, EventAction.STARTED.value)
    match = _LEARNING.search(c.text)
    if match and not _NOT_ACTIVITIES.match(match.group("obj")):
        label = object_label(c, _normalise_object(match.group("obj")))
        if label:
            return slice_(c, label, SKILL, SliceKind.PROGRESS.value)
    match = _MY_LANGUAGE.search(c.text)
    if match:
        return slice_(c, match.group("lang").capitalize(), SKILL, SliceKind.PROGRESS.value)
    return doing(c)


# "I've been taking a poetry class lately", "we're doing a first-aid course", "I'm doing
# kickboxing": what the person is doing these days, with no start stated. A course of any
# kind; or one word that names an activity: a habit's word, or a rarer noun or gerund ("doing
# kickboxing", not "doing the dishes", "doing research" or "doing great").
_DOING = re.compile(
    r"(?:^|\b)(?:i|we)(?:['’]m|['’]re|m|\s+am|\s+are|(?:['’]ve|\s+have)?\s+been)\s+"
    r"(?:(?:also|still|now|currently|really|just)\s+)*(?:off\s+to\s+)?"
    r"(?P<verb>doing|taking|attending|do)\s+"
    r"(?:(?:a|an|some|my|our)\s+)?(?P<obj>.+)$",
    re.IGNORECASE,
)
_LATELY = re.compile(r"\s+(?:lately|nowadays|these\s+days|at\s+the\s+moment|right\s+now)$", re.I)
_ACTIVITY_MAX_ZIPF = 4.0  # "kickboxing" 2.9, "pilates" 3.0, "karate" 3.6; "homework" 4.1


def doing(c: Clause) -> Found:
    # the tagger's lexicon lives with the proposer, which imports the rules
    from memory.extractors.subjects.phrases import lexical_tag

    match = _DOING.search(c.text)
    if not match or _NOT_ACTIVITIES.match(match.group("obj")):
        return []
    head = _LATELY.sub("", cut(match.group("obj"), time_phrase(match.group("obj"), c.anchor)))
    words = head.split()
    if not words or len(words) > 4:
        return []
    course = len(words) >= 2 and words[-1].lower() in p.COURSES
    lone = words[0].lower()
    activity = (
        len(words) == 1
        and match.group("verb").lower() in ("doing", "do")
        and lone.isalpha()
        and (lone in HABITS or zipf_frequency(lone, "en") < _ACTIVITY_MAX_ZIPF)
        # a noun or gerund; one the lexicon lacks ("pilates", "taekwondo") unless an adverb
        and (lexical_tag(lone) in ("NN", "VBG") or not (lexical_tag(lone) or lone.endswith("ly")))
        and lone not in p.LIGHT_VERBS
    )
    label = p.make_label(head) if course or activity else None
    if not label:
        return []
    return slice_(c, label, status_category("", head, c.sentence), SliceKind.PROGRESS.value)


# "my dutch is not so good yet", "my Spanish grammar is rusty": a language the person speaks
# or learns, said as theirs; not someone of theirs ("my French teacher", "my Italian nonna").
LANGUAGES = (
    "english french spanish german dutch italian portuguese japanese chinese mandarin cantonese "
    "korean arabic russian polish hindi urdu bengali punjabi swedish norwegian danish finnish "
    "greek turkish welsh irish gaelic hebrew persian farsi swahili vietnamese thai indonesian "
    "tagalog czech hungarian romanian ukrainian catalan basque latin esperanto"
)
_MY_LANGUAGE = re.compile(
    rf"\bmy\s+(?P<lang>{'|'.join(LANGUAGES.split())})\b(?=\s*(?:$|[,.;:!?)]|(?:is|isn['’]?t|was|"
    r"has|needs|sucks|still|really|got|getting|improv\w*|skills?|level|grammar|vocab\w*|"
    r"accent|pronunciation|writing|speaking|reading|listening)\b))",
    re.IGNORECASE,
)


# "the dads from school got me into sea swimming": taken up, by another's doing ("got me into
# trouble" is no pastime).
_GOT_ME_INTO = re.compile(
    r"\bgot\s+(?:me|us)\s+(?:really\s+)?into\s+(?!(?:trouble|debt|bother|mischief)\b)(?P<obj>.+)$",
    re.IGNORECASE,
)
# "I've been learning Kotlin for three months": an ongoing skill, no start stated.
_LEARNING = re.compile(
    _I + r"(?:been\s+)?(?:learning|studying|practi[sc]ing|teaching\s+myself)\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
