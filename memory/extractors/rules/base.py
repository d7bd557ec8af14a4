"""What every family of recognisers shares: the clause, proposal builders, phrases."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from memory.extractors import patterns as p
from memory.proposals import (
    AnyProposal,
    CandidateProposal,
    EdgeProposal,
    EventProposal,
    EvidenceSpan,
    NodeProposal,
    SliceProposal,
)
from memory.temporal import MONTHS, WEEKDAYS, recurrence, resolve_when
from memory.vocab import Category, Importance

CLEAR = 0.85
HEDGED = 0.6

PERSON = Category.PERSON.value
FAMILY = Category.FAMILY.value
RELATIONSHIP = Category.RELATIONSHIP.value
PROJECT = Category.PROJECT.value
TOOL = Category.TOOL.value
SKILL = Category.SKILL.value
HABIT = Category.HABIT.value
HEALTH = Category.HEALTH.value
PREFERENCE = Category.PREFERENCE.value
PLACE = Category.PLACE.value
ORGANIZATION = Category.ORGANIZATION.value
LIFE_EVENT = Category.LIFE_EVENT.value
IDENTITY = Category.IDENTITY.value
GOAL = Category.GOAL.value
OTHER = Category.OTHER.value

ORDINARY = Importance.ORDINARY.value
IMPORTANT = Importance.IMPORTANT.value
LIFE_SIGNIFICANT = Importance.LIFE_SIGNIFICANT.value


@dataclass(frozen=True)
class Clause:
    """One clause of a user message, with what every proposal from it needs."""

    text: str
    sentence: str
    message_id: str
    ts: datetime | None
    anchor: datetime | None

    @property
    def evidence(self) -> tuple[EvidenceSpan, ...]:
        return (EvidenceSpan(message_id=self.message_id, quote=self.sentence, ts=self.ts),)

    @property
    def detail(self) -> str:
        """The clause as stored text: first letter capitalised, end punctuation dropped."""
        text = self.text.strip().rstrip(".!;:,")
        return text[:1].upper() + text[1:]


Found = list[AnyProposal]

# --- building proposals -------------------------------------------------------------------


def node(c: Clause, label: str, category: str, confidence: float = CLEAR) -> NodeProposal:
    return NodeProposal(label=label, category=category, confidence=confidence, evidence=c.evidence)


def event(
    c: Clause,
    label: str,
    category: str,
    action: str,
    importance: str = ORDINARY,
    text: str | None = None,
) -> Found:
    when = resolve_when(c.text, c.anchor)
    proposal = EventProposal(
        on=label,
        action=action,
        text=text or c.detail,
        importance=importance,
        category=category,
        happened_at=when.happened_at if when else None,
        happened_at_precision=when.precision if when else "",
        happened_at_source=when.source if when else "unknown",
        confidence=CLEAR,
        evidence=c.evidence,
    )
    return [node(c, label, category), proposal]


def slice_(c: Clause, label: str, category: str, kind: str, text: str | None = None) -> Found:
    proposal = SliceProposal(
        on=label,
        text=text or c.detail,
        kind=kind,
        category=category,
        confidence=CLEAR,
        evidence=c.evidence,
    )
    return [node(c, label, category), proposal]


def edge(c: Clause, source: str, dest: str, kind: str = "uses") -> EdgeProposal:
    return EdgeProposal.model_validate(
        {"from": source, "to": dest, "type": kind, "confidence": CLEAR, "evidence": c.evidence}
    )


def candidate(c: Clause, label: str, category: str) -> CandidateProposal:
    return CandidateProposal(
        label=label, category=category, reason="hedged", confidence=HEDGED, evidence=c.evidence
    )


# --- phrases ------------------------------------------------------------------------------

# The speaker as subject, with the adverbs and auxiliaries that may sit before the verb.
_I = (
    r"(?:^|\b)(?:i|we)(?:'ve|'m|'d|'re)?(?:\s+(?:have|had|am|are|was|were|just|recently|finally|"
    r"also|then|eventually|officially|actually|now|already|completely|fully|got|been|really|"
    r"kind\s+of|sort\s+of|basically|sadly|unfortunately|successfully|formally|totally|mostly|"
    r"mainly|still|only|always|usually|normally|currently|decided\s+to|truly|absolutely|"
    r"definitely|do|did|much|rather))*\s+"
)
# Where an object phrase ends.
_STOP = re.compile(
    r"\s*(?:[,;:()!?\"“”]|\.(?:\s|$)|\s[-–—]\s)|\s+(?:and|but|because|since|so|after|before|until|"
    r"till|when|while|as|at|with|for|from|on|in|into|to|last|this|next|yesterday|today|tonight|"
    r"ago|again|now|anymore|any\s+more|recently|finally|every|each|already|yet|which|who|where|"
    r"rather|instead|than|over|during|by|due|thanks|if|about|like|though|although|cause|or|"
    r"for\s+good|these|those|back|earlier|this|once|twice|whenever|properly|seriously|"
    r"regularly|full-time|part-time|too|as\s+well|either|daily|weekly|monthly|nightly|"
    r"everyday|a\s+lot|all\s+the\s+time)\b",
    re.IGNORECASE,
)
_PRONOUN_START = re.compile(
    r"^(?:it|this|that|these|those|them|him|her|you|me|us|myself|something|anything|"
    r"everything|nothing|stuff|things|how|what|when|where|why|which|who|whether|if|there|"
    r"here|one|some(?=\s+(?:of|more|time|while)\b|\s*$)|more|less|lots|a\s+lot|so|too|very|to)\b",
    re.IGNORECASE,
)
_THEME = re.compile(
    r"\b(?:dark|light|night)\s+(?:mode|theme)s?\b|\b(?:colou?r\s+scheme|theme|font|"
    r"high\s+contrast)\b",
    re.IGNORECASE,
)
_CONTEXT = re.compile(
    r"\b(?:in|for|with|on|when\s+using|inside)\s+(?:my|the|our|your)\s+(?P<ctx>[^\W\d_][\w\- ]*)",
    re.IGNORECASE,
)
_NAMED_CONTEXT = re.compile(r"\b(?:in|for|with|when\s+using)\s+(?P<ctx>[A-Z][\w.+#\-]*)")
_TIME_WORDS = frozenset(
    """morning mornings evening evenings night nights afternoon afternoons weekend weekends day
    days week weeks month months year years summer winter spring autumn fall time
    monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays
    saturday saturdays sunday sundays""".split()
)
_RESPONSES = re.compile(
    r"\b(?:you|your|answers?|responses?|replies|reply|explanations?|bullet\s+points?|emojis?|"
    r"concise|verbose|short\s+answers|long\s+answers|tone|formatting)\b",
    re.IGNORECASE,
)


def cut(phrase: str, when_phrase: str | None = None) -> str:
    """An object phrase up to where it stops: a date, a connective, punctuation."""
    text = phrase.strip()
    if when_phrase:
        text = text.replace(when_phrase, " ").strip()
    match = _STOP.search(text)
    return (text[: match.start()] if match else text).strip()


# Any representable moment: where a time phrase stands in a sentence does not depend on when
# it was said, so a sentence without a usable anchor (none given, or year 1 where "two weeks
# ago" has no date) still has its phrase found and cut from the label.
_PHRASE_PROBE = datetime(2000, 6, 15, tzinfo=UTC)


def time_phrase(text: str, anchor: datetime | None) -> str | None:
    """The words of ``text`` that say when ("two weeks ago", "in March 2024"), or None."""
    when = resolve_when(text, anchor) or resolve_when(text, _PHRASE_PROBE)
    return when.phrase if when else None


def object_label(c: Clause, phrase: str) -> str | None:
    """The label of an object phrase; a schedule ("on Sunday mornings") is never part of it."""
    schedule = recurrence(phrase)
    if schedule:
        phrase = phrase[: phrase.find(schedule)]
    raw = cut(phrase, time_phrase(c.text, c.anchor))
    if not raw or _PRONOUN_START.match(raw):
        return None
    return p.make_label(raw)


# --- shared by several families -----------------------------------------------------

_NOT_NAMES = frozenset(
    """the this that it my our i we you he she they there today yesterday also but and so then
    last next everyone someone nobody everybody people mom dad""".split()
)


def _leading_name(rest: str) -> tuple[str, str]:
    """Split "Meera lives in Bangalore" into ("Meera", "lives in Bangalore"); a particle
    between two words of a name is in it ("Joost van Dam is ...")."""
    tokens = rest.replace(",", " , ").split()
    name: list[str] = []
    for at, token in enumerate(tokens):
        after = tokens[at + 1] if at + 1 < len(tokens) else ""
        if name and token in p.NAME_PARTICLES and after[:1].isupper():
            name.append(token)
            continue
        if token == "," or not token[0].isupper() or sum(w[0].isupper() for w in name) == 3:
            break
        if token.lower() in _NOT_NAMES:
            break
        name.append(token)
    remainder = " ".join(tokens[len(name) :]).lstrip(", ").replace(" , ", ", ")
    label = " ".join(name)
    return re.sub(r"['’]s$", "", label), remainder


def _capitalised_text(text: str) -> str:
    text = text.strip().rstrip(" .!;:,")
    return text[:1].upper() + text[1:]


def _is_date_word(text: str) -> bool:
    first = text.split()[0].lower()
    return first in MONTHS or first in WEEKDAYS


PROJECT_WORDS = re.compile(
    r"\b(?:project|app|application|site|website|tool|system|product|startup|service|api|"
    r"library|plugin|extension|bot|game|repo|repository|platform|feature|migration|refactor|"
    r"rewrite|prototype|mvp|pipeline|module|newsletter|podcast|blog|channel|book|novel|"
    r"thesis|work|redesign|integration|dashboard|backend|frontend)s?\b",
    re.IGNORECASE,
)


POSSESSION = Category.POSSESSION.value
INTEREST = Category.INTEREST.value

# A proper name as written in running text: capitalised words, joined by "&", "of", "and",
# "de"... ("Kestrel & Finch", "University of Porto", "St. Brigid's Hospital", "AT&T").
# An upper-case letter, accented ones included ("Émile", "Łukasz", "Ørsted").
UPPER = "A-ZÀ-ÖØ-ÞĀĂĄĆČĎĐĒĘĚĞĢĪĮİĶĹĻĽŁŃŅŇŌŐŒŔŘŚŞŠŢŤŪŮŰŲŹŻŽ"
_NAME_WORD = rf"(?:[{UPPER}][\w&'’.+\-]*|&)"
_NAME_JOIN = r"(?:\s+(?:&|of|and|de|da|do|du|van|von|der|la|le|for|upon)\b)?"
NAME_RUN = re.compile(
    rf"(?<![\w&])(?:the\s+)?(?P<name>{_NAME_WORD}(?:{_NAME_JOIN}\s+{_NAME_WORD}){{0,5}})"
)


def leading_name(text: str) -> str | None:
    """The proper name at the start of ``text``, trailing "." and "'s" dropped, or None."""
    match = NAME_RUN.match(text.strip())
    if not match:
        return None
    name = match.group("name")
    words = name.split()
    while words and (
        words[-1].lower() in _NOT_NAMES
        or words[-1] in {"&", "I"}
        or words[-1].lower() in MONTHS
        or words[-1].lower() in WEEKDAYS
        or words[-1].lower() in {"of", "and", "for", "de", "da", "van", "von", "upon"}
    ):
        words.pop()
    name = " ".join(words)
    if name.endswith(".") and not re.search(r"\b(?:St|Co|Inc|Ltd|Jr|Sr)\.$", name):
        name = name[:-1]
    name = re.sub(r"['’]s$", "", name).strip()
    return name if name and name[0].isupper() else None


def without_time(phrase: str, when_phrase: str | None) -> str:
    """``phrase`` with a stated time and the preposition before it removed ("a trip to Japan in
    April 2027" -> "a trip to Japan")."""
    if not when_phrase:
        return phrase
    pattern = (
        rf"(?:\s+(?:in|on|at|by|from|until|till|for|since|around))?\s*{re.escape(when_phrase)}"
    )
    return re.sub(pattern, " ", phrase, flags=re.IGNORECASE).strip()
