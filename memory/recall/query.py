"""The query gate: is a question about the person at all, and if so what is its subject.
Pure: no ORM. :func:`parse_query` is the one entry point."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory.keys import canonical_key

REASON_EMPTY = "empty_query"
REASON_SMALLTALK = "smalltalk"
REASON_UTILITY = "utility_query"
REASON_NO_MATCH = "no_match"
REASON_MATCHED = "matched"
REASON_PROFILE = "broad_profile"
# Something matched, but too weakly to offer (memory.recall.confidence.gate).
REASON_NOTHING_CLOSE = "nothing_close"


# Words of a broad profile question and the categories they stand for.
PROFILE_WORDS: dict[str, tuple[str, ...]] = {
    "project": ("project",),
    "projects": ("project",),
    "work": ("project", "organization"),
    "health": ("health",),
    "medical": ("health",),
    "conditions": ("health",),
    "family": ("family",),
    "relatives": ("family",),
    "friends": ("person", "relationship"),
    "people": ("person", "family", "relationship"),
    "relationships": ("relationship",),
    "hobbies": ("interest", "habit", "skill"),
    "interests": ("interest",),
    "skills": ("skill",),
    "habits": ("habit",),
    "routines": ("habit",),
    "goals": ("goal",),
    "plans": ("goal",),
    "preferences": ("preference",),
    "likes": ("preference",),
    "tools": ("tool", "system"),
    "stack": ("tool", "system"),
    "systems": ("system",),
    "places": ("place",),
    "organizations": ("organization",),
    "organisations": ("organization",),
    "companies": ("organization",),
    "possessions": ("possession",),
    "belongings": ("possession",),
    "events": ("life_event",),
    "milestones": ("life_event",),
    "identity": ("identity",),
}
_EVERYTHING = frozenset({"me", "myself", "everything", "about me", "who am i", "my profile"})
_PROFILE_FILLER = frozenset(
    "what are is list show me all of my tell about the current which do i have give and "
    "everything you know".split()
)

_SMALLTALK_WORDS = frozenset(
    """
    hi hello hey hiya yo howdy greetings thanks thank you thx ty cheers ok okay k kk cool nice
    great awesome good morning afternoon evening night bye goodbye see ya later sure yes yeah
    yep yup no nope nah lol haha hahaha perfect alright right got it sounds fine wonderful
    amazing brilliant excellent much so very lovely there welcome np noted understood a lot
    lots for that this the help all again
    """.split()
)
_SMALLTALK_PHRASES = frozenset(
    {"how are you", "how are you doing", "what s up", "whats up", "how s it going", "sup"}
)
_ARITHMETIC = re.compile(
    r"^\s*(?:what\s+is|what's|whats|calculate|compute|solve)?\s*"
    r"[-+*/x×÷^%().\d\s=]*\d\s*[-+*/x×÷^%]\s*[-+*/x×÷^%().\d\s]*[=?]?\s*$",
    re.IGNORECASE,
)

_LEAD = re.compile(r"^(?:(?:hey|hi|hello|ok|okay|so|please|um|well|and|also)\s+)+")
_RECALL_PHRASES = [
    re.compile(p)
    for p in (
        r"^(?:can|could|would|will) you (?:please )?(?:recall|remember|tell me|remind me)"
        r"(?: what| everything| anything| all)?(?: i (?:said|told you|mentioned|wrote)"
        r"| you (?:know|remember|have))?(?: about| regarding| of| on)?\b",
        r"^what (?:else )?(?:do|did|can) you (?:remember|recall|know|have)"
        r"(?: stored| saved| noted)?(?: about| regarding| of| on)?\b",
        r"^what (?:did|have|had) i (?:tell you|told you|say|said|mention|mentioned|share|shared)"
        r"(?: to you)?(?: about| regarding| of| on)?\b",
        r"^(?:tell|remind|show|give) me(?: everything| anything| all| what| more| something)?"
        r"(?: you (?:know|remember|recall|have)| i (?:said|told you|mentioned))?"
        r"(?: about| regarding| of| on)?\b",
        r"^(?:do|did) you (?:still )?(?:remember|recall|know)(?: anything| everything| what)?"
        r"(?: i (?:said|told you|mentioned))?(?: about| regarding| of| on)?\b",
        r"^(?:anything|everything|something) (?:about|regarding|on)\b",
        r"^(?:(?:who|what) (?:is|are|was|were|s)|whats|whos)\b",
        r"^(?:recall|remember)(?: about)?\b",
        # "what is the name of my dentist": the question's frame, not its subject
        r"^(?:the )?(?:full |first |last )?names? of\b",
    )
]
_RECALL_INTENT = re.compile(
    r"\b(?:remember|recall|remind me|you know|i told you|i said|i mentioned)\b"
)
# Self-contained requests: how-to, conversions, definitions, writing and jokes. "How did I
# ...", "what did I ..." and "when did I ..." ask about the person's own past: not here.
_UTILITY_PREFIX = re.compile(
    r"^(?:how (?:do|can|should|would|does) (?:i|you|we|one)|how did (?:you|one)|how to|"
    r"tell me (?:a|an)(?! (?:bit|little|lot|few)\b)|"
    r"translate|convert|calculate|compute|define|explain|summari[sz]e|spell|write (?:me )?(?:a|an)|"
    r"give me (?:a|an)|can you (?:explain|help|write|translate|convert|calculate|fix|debug)|"
    r"what time is it|what is the (?:weather|time|date|capital|meaning|definition|difference)|"
    r"what s the (?:weather|time|date|capital|meaning|definition|difference))\b"
)
_SUBJECT_QUESTION = re.compile(r"^(?:what|who)(?:'s|’s| is| are| was| were)\s+(.+)$", re.I)
_PAST_QUESTION = re.compile(r"^(?:what|who)\s+(?:was|were)\b", re.I)
_PERSONAL = frozenset({"i", "my", "me", "mine", "myself", "we", "our", "ours", "us"})
_ARTICLES = frozenset({"a", "an", "the", "some", "this", "that"})
_POSSESSIVE = re.compile(r"\w['’]s$")


@dataclass(frozen=True)
class Parsed:
    """A query after the gate: the subject words, or why there is nothing to recall."""

    subject: tuple[str, ...] = ()
    reason: str = ""  # set when the answer is "no recall"
    needs_name: bool = False  # a "what is X" question: recall only if X names a memory
    profile: tuple[str, ...] = ()  # categories of a broad profile question
    everything: bool = False
    # The words of the question's frame ("long" and "end" in "how long did Bea end up
    # staying"): not its subject, but words an answer may echo ("ended up £260").
    frame: tuple[str, ...] = ()


def _is_smalltalk(key: str) -> bool:
    if key in _SMALLTALK_PHRASES:
        return True
    words = key.split()
    return bool(words) and all(w in _SMALLTALK_WORDS for w in words)


def _strip_phrasing(key: str) -> tuple[str, bool]:
    """The subject left after removing recall phrasing, and whether any was removed."""
    stripped = False
    while True:
        before = key
        key = _LEAD.sub("", key)
        for pattern in _RECALL_PHRASES:
            key = pattern.sub("", key, count=1).strip()
        if key == before:
            return key, stripped
        stripped = True


# The frame of a question, not its subject: "how long did Bea end up staying" asks about Bea
# staying. Removed from the subject so that no lane looks for "long", "end" or "take".
_FRAMES = [
    re.compile(p)
    for p in (
        r"^how (?:long|much|many|often|far|soon)\b",
        r"\b(?:end|ends|ended|ending) up\b",
        r"\b(?:did|does|do|will|would|should) it take\b",
    )
]


def _strip_frames(subject: str) -> tuple[str, tuple[str, ...]]:
    """The subject without its frames, and the words those frames had."""
    said: list[str] = []
    for frame in _FRAMES:
        said += [w for match in frame.findall(subject) for w in match.split()]
        subject = frame.sub(" ", subject)
    return " ".join(subject.split()), tuple(said)


def _bare_possessive(said: Sequence[str]) -> bool:
    """Whether ``said`` has a possessive not led by an article: "priya's pay", "mum's
    birthday" name someone of the person's, typed in lower case as often as not ("the
    earth's ..." and "a cat's ..." stay general)."""
    for i, word in enumerate(said):
        if _POSSESSIVE.search(word) and (i == 0 or said[i - 1].lower() not in _ARTICLES):
            return True
    return False


def _profile_categories(words: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    rest = [w for w in words if w not in _PROFILE_FILLER or w in PROFILE_WORDS]
    if "my" not in words and "me" not in words and "i" not in words:
        return (), False
    if not rest:
        # "tell me about me", "what do you know about me", "who am I"
        return (), any(w in ("me", "myself", "i") for w in words)
    cats: list[str] = []
    for word in rest:
        mapped = PROFILE_WORDS.get(word)
        if mapped is None:
            return (), False
        cats += [c for c in mapped if c not in cats]
    return tuple(cats), False


def parse_query(query: str) -> Parsed:
    """Pure: decide whether ``query`` asks for memory and, if so, what its subject is."""
    raw = " ".join(query.split())
    key = canonical_key(raw)
    if not key:
        return Parsed(reason=REASON_EMPTY)
    if _is_smalltalk(key):
        return Parsed(reason=REASON_SMALLTALK)
    if _ARITHMETIC.match(raw):
        return Parsed(reason=REASON_UTILITY)
    subject, phrased = _strip_phrasing(key)
    intent = phrased and bool(_RECALL_INTENT.search(key))
    stripped, frame = _strip_frames(subject)
    words = tuple(stripped.split())
    if not words:
        words, frame = tuple(subject.split()), ()
    if not words:
        return Parsed(reason=REASON_EMPTY)
    if key in _EVERYTHING or subject in _EVERYTHING and intent:
        return Parsed(subject=words, frame=frame, everything=True)
    cats, everything = _profile_categories(words)
    if cats or everything:
        return Parsed(subject=words, frame=frame, profile=cats, everything=everything)
    if intent:
        return Parsed(subject=words, frame=frame)
    utility = _UTILITY_PREFIX.match(key)
    if utility:
        remainder = key[utility.end() :].split()
        if not _PERSONAL & set(remainder):
            return Parsed(reason=REASON_UTILITY)
        return Parsed(subject=words, frame=frame)
    question = _SUBJECT_QUESTION.match(raw.rstrip("?!. "))
    if question:
        said = question.group(1).split()
        if _PERSONAL & set(words):
            return Parsed(subject=words, frame=frame)
        # "Who is Rahul?", "what is Atlas?", "what is the score in Finn's match?": a
        # capitalised name is a recall question, and so is "who is working nights" (people
        # are what memory knows) and a question about the past ("what was wrong with the
        # boiler?"). "What is a monad?" and "who is the president?" are recall questions only
        # if memory has that exact name.
        article = said[0].lower() in _ARTICLES
        named = any(w[:1].isupper() for w in said[1:] if article) or (
            not article and any(w[:1].isupper() for w in said)
        )
        past = bool(_PAST_QUESTION.match(raw))
        if named or past or _bare_possessive(said) or (not article and raw[:3].lower() == "who"):
            return Parsed(subject=words, frame=frame)
        return Parsed(subject=words, frame=frame, needs_name=True)
    return Parsed(subject=words, frame=frame)
