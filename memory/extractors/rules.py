"""The rules extractor: deterministic, offline, the default path every transcript takes.

Only the person's own turns are read. Each message is split into sentences, and each sentence
into clauses (a new clause starts where a new "I"/"my ..." subject takes over). A sentence that
is small talk, a question or a request to the assistant ("can you ...", "retry", "save this
conversation") is skipped whole. A "remember that ..." / "note:" / "don't forget ..." wrapper
is dropped and the rest is read like any statement.

Each clause is offered to the recognisers below, in order; the first that understands it wins:

1. hedges ("I might try tennis", "thinking about learning Rust") -> a ``CandidateProposal``
   (reason ``hedged``, confidence 0.6), nothing more;
2. other people: "my sister Meera lives in Bangalore" is about **Meera** (a node, the relation
   as a slice, and the durable rest as a slice or event on her); also "Meera is my sister",
   "my sister's name is Meera" and "Rahul joined my team" (a capitalised name followed by a
   verb we know). A tail about the same person ("... and she is visiting in December", "...
   and is a nurse") is read as its own fact, so it never swallows the one before it. A plan
   ("is visiting", "will ...") is kept as a slice, never a dated event, and only when it names
   a time that stays meaningful (a month, season, holiday, year or date); "next week",
   "tomorrow", "soon" go stale at once and are dropped;
3. life events: moved (an event on the place), married, born, diagnosed (on the condition),
   injured ("my knee" -> "Knee Injury"), recovered, broke up, joined/left an organisation;
4. status changes: started, stopped, quit, gave up, paused, resumed, finished, launched, took
   up, started learning. The subject is a project when the object says project/app/site/tool/
   system/... or names it ("I launched Atlas"), or is a proper name with the piece of work it
   names ("the Atlas beta", "the Orion launch": the whole phrase is the label, so finishing the
   beta does not complete Atlas; "French cooking" is no such name); a skill for learning or a
   gerund ("boxing"); a habit for everyday activities ("running", "coffee"); a project again
   for anything else that is *finished* ("the quarterly report"), else a habit. A schedule
   ("on Sunday mornings", "twice a week") is never part of the label nor a date: the event
   has no ``happened_at`` unless the clause also states one, and keeps the schedule in its text;
5. projects: "my next project is X", "Atlas is my invoicing app", "I'm building X on Y";
6. tools: "X uses Y", "X runs on Y and stores data in Z", "I use Y for Z" -> a tool node for Y,
   an edge X -uses-> Y when X is named, else a slice on Y;
7. decisions: "let's go with X", "I switched to X", "we chose X" -> a decision slice on X;
8. preferences: "I prefer / like / love / hate / can't stand / don't like X", "my favourite
   X is Y" -> a preference slice. The subject rule: a theme ("dark mode") is "<Context> Theme"
   ("in my editor" -> "Editor Theme"); else an explicit context ("in Python" -> "Python");
   else talk about the assistant's answers -> "Response Style"; else the liked thing itself
   ("I love sushi" -> "Sushi", so a later "I hate sushi now" supersedes it); else
   "Preferences";
9. routines: a schedule for an activity the clause names -> a ``progress`` slice on the
   activity (so a new schedule supersedes the old one): "I train boxing three days a week" ->
   "Trains boxing three days a week" on Boxing; the verb may be the activity ("I row four
   mornings a week" -> Rowing) or carry it ("I go to the gym ...", "I do yoga ..."), or the
   activity leads ("Boxing three days a week now"). A schedule whose activity is not in the
   clause ("I train three days a week") is not guessed from earlier messages: nothing;
10. possessives: "<Name>'s <thing> is/are/falls ..." -> a slice on <Name> ("Meera's birthday
   is on 14 January" -> "Birthday is on 14 January" on Meera). A relation word names the
   relation node ("my sister's birthday", "Mom's birthday" -> Sister, Mom); "my sister
   Meera's ..." is Meera. The owner is a person for personal things (birthday, job, husband),
   a project for pieces of work (beta, backend), else ``other``; weekdays and "today" own
   nothing.

A remembered sentence that no recogniser understood still becomes a note: a short subject from
its clause (the named thing, the subject before "is", or the object after "I <verb>") and the
clause as an ``other`` slice. Every event carries the date of its clause from
:func:`memory.temporal.resolve_when`, anchored on the message's time or ``source_time``.

Every subject gets a ``NodeProposal`` beside its event or slice; the gate converges repeated
subjects by canonical key. A name the batch knows as family or a partner keeps that category
where another sentence only showed "a person" ("Meera's birthday ..."). Clear statements have
confidence 0.85.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from memory.extractors import patterns as p
from memory.extractors import user_messages
from memory.keys import canonical_key
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
from memory.transcripts import Message
from memory.vocab import Category, EventAction, Importance, SliceKind

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
    r"regularly|full-time|part-time)\b",
    re.IGNORECASE,
)
_PRONOUN_START = re.compile(
    r"^(?:it|this|that|these|those|them|him|her|you|me|us|myself|something|anything|"
    r"everything|nothing|stuff|things|how|what|when|where|why|which|who|whether|if|there|"
    r"here|one|some|more|less|lots|a\s+lot|so|too|very|to)\b",
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


def object_label(c: Clause, phrase: str) -> str | None:
    """The label of an object phrase; a schedule ("on Sunday mornings") is never part of it."""
    schedule = recurrence(phrase)
    if schedule:
        phrase = phrase[: phrase.find(schedule)]
    when = resolve_when(c.text, c.anchor)
    raw = cut(phrase, when.phrase if when else None)
    if not raw or _PRONOUN_START.match(raw):
        return None
    return p.make_label(raw)


# --- 1. hedges ----------------------------------------------------------------------------

_HEDGE_VERB = (
    r"(?P<verb>try(?:ing)?|start(?:ing)?|tak(?:e|ing)\s+up|learn(?:ing)?|pick(?:ing)?\s+up|"
    r"get(?:ting)?\s+into|join(?:ing)?|switch(?:ing)?\s+to|mov(?:e|ing)\s+to|quit(?:ting)?|"
    r"stop(?:ping)?|giv(?:e|ing)\s+up|build(?:ing)?|launch(?:ing)?|do(?:ing)?|buy(?:ing)?|"
    r"get(?:ting)?|go(?:ing)?\s+back\s+to|adopt(?:ing)?|us(?:e|ing))"
)
_HEDGES = (
    re.compile(
        r"\b(?:might|may|could|maybe|perhaps|probably)\s+(?:(?:i|we)(?:'ll|\s+will|\s+should)?\s+)?"
        + _HEDGE_VERB
        + r"\s+(?P<obj>.+)",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:thinking\s+(?:about|of)|considering|toying\s+with\s+the\s+idea\s+of)\s+"
        + _HEDGE_VERB
        + r"?\s*(?P<obj>.+)",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:want|wanna|would\s+like|'d\s+like|hope|hoping|plan|planning|intend|"
        r"intending)\s+(?:to\s+)?" + _HEDGE_VERB + r"\s+(?P<obj>.+)",
        re.IGNORECASE,
    ),
)


def _hedge_category(verb: str, obj: str) -> str:
    verb = verb.lower()
    if verb.startswith("learn"):
        return SKILL
    if verb.startswith("mov"):
        return PLACE
    if verb.startswith("join"):
        return ORGANIZATION
    if verb.startswith(("build", "launch")):
        return PROJECT
    if verb.startswith(("switch", "us", "adopt", "buy", "get")) and not verb.startswith("get into"):
        return TOOL if p.is_name(obj) else OTHER
    return status_category("started", obj, obj)


def hedged(c: Clause) -> Found:
    """Only called for clauses with a hedge word; a hedge it cannot read gives nothing."""
    for pattern in _HEDGES:
        match = pattern.search(c.text)
        if match:
            verb = match.group("verb") or "try"
            raw = _normalise_object(match.group("obj"))
            label = object_label(c, raw)
            if label:
                return [candidate(c, label, _hedge_category(verb, raw))]
    return []


# --- 2. other people ----------------------------------------------------------------------

RELATIONS: dict[str, str] = {}
for _category, _words in (
    (
        FAMILY,
        """mother mom mum mama dad father papa parents sister brother sibling siblings son
        daughter kids children child grandmother grandma granny nana grandfather grandpa granddad
        grandparents aunt uncle cousin niece nephew mother-in-law father-in-law sister-in-law
        brother-in-law in-laws stepmom stepdad stepmother stepfather stepson stepdaughter twin
        baby dog cat puppy kitten""",
    ),
    (
        RELATIONSHIP,
        """wife husband partner girlfriend boyfriend fiancé fiancée fiance fiancee spouse ex
        ex-wife ex-husband ex-girlfriend ex-boyfriend""",
    ),
    (
        PERSON,
        """friend buddy pal manager boss colleague coworker co-worker teammate mentor mentee
        neighbour neighbor roommate flatmate housemate therapist doctor dentist coach teacher
        tutor landlord landlady client cofounder co-founder intern classmate""",
    ),
):
    for _word in _words.split():
        RELATIONS[_word] = _category

_RELATION = "|".join(sorted((re.escape(w) for w in RELATIONS), key=len, reverse=True))
_MODIFIERS = r"(?P<mods>(?:(?:best|older|younger|little|big|elder|eldest|youngest|oldest|late|dear|new|old)\s+)*)"
_MY_RELATION = re.compile(
    rf"^(?:my|our)\s+{_MODIFIERS}(?P<rel>{_RELATION})\b,?\s*(?P<rest>.*)$", re.IGNORECASE
)
_IS_MY_RELATION = re.compile(
    rf"^(?P<name>[^\W\d_][\w'\-]*(?:\s+[^\W\d_][\w'\-]*){{0,2}}),?\s+(?:is|was)\s+my\s+"
    rf"{_MODIFIERS}(?P<rel>{_RELATION})\b[,.]?\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_NAME_VERB = re.compile(
    r"^(?P<name>[^\W\d_][\w'\-]*(?:\s+[^\W\d_][\w'\-]*){0,2}?)\s+(?P<rest>(?:(?:just|recently|"
    r"finally|also|has|had|was|is|got)\s+)*(?:joined|prefers|likes|loves|hates|enjoys|moved|"
    r"lives|works|passed\s+away|died|was\s+diagnosed|got\s+married|married|started|quit|left|"
    r"studies|teaches|retired|graduated|broke|recovered|is\s+allergic)\b.*)$"
)
_NOT_NAMES = frozenset(
    """the this that it my our i we you he she they there today yesterday also but and so then
    last next everyone someone nobody everybody people mom dad""".split()
)
_MODS_DROPPED = frozenset({"late", "dear", "new", "old"})
_PERSON_EVENTS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (
        re.compile(r"\b(?:passed\s+away|passed|died|is\s+no\s+longer\s+with\s+us)\b", re.I),
        EventAction.PASSED_AWAY.value,
        LIFE_SIGNIFICANT,
    ),
    (re.compile(r"\bdiagnosed\s+with\b", re.I), EventAction.DIAGNOSED.value, LIFE_SIGNIFICANT),
    (
        re.compile(r"\b(?:got\s+married|married|wed)\b", re.I),
        EventAction.MARRIED.value,
        LIFE_SIGNIFICANT,
    ),
    (re.compile(r"\bwas\s+born\b", re.I), EventAction.BORN.value, LIFE_SIGNIFICANT),
    (re.compile(r"\b(?:moved|relocated)\b", re.I), EventAction.MOVED.value, IMPORTANT),
    (
        re.compile(r"\b(?:broke|sprained|injured|hurt|tore)\s+(?:his|her|their|a|an)\b", re.I),
        EventAction.INJURED.value,
        IMPORTANT,
    ),
    (re.compile(r"\brecovered\b", re.I), EventAction.RECOVERED.value, IMPORTANT),
    (re.compile(r"\bgraduated\b", re.I), EventAction.ACHIEVED.value, IMPORTANT),
    (re.compile(r"\bjoined\b", re.I), EventAction.JOINED.value, ORDINARY),
    (re.compile(r"\b(?:left|retired)\b", re.I), EventAction.LEFT.value, IMPORTANT),
    (re.compile(r"\b(?:started|took\s+up|began)\b", re.I), EventAction.STARTED.value, ORDINARY),
    (re.compile(r"\b(?:quit|stopped|gave\s+up)\b", re.I), EventAction.STOPPED.value, ORDINARY),
    (re.compile(r"\bbroke\s+up\b", re.I), EventAction.BROKE_UP.value, IMPORTANT),
)
_PERSON_PREFERENCE = re.compile(
    r"^(?:really\s+)?(?:prefers|likes|loves|hates|enjoys|dislikes|can't\s+stand|"
    r"doesn't\s+like|is\s+allergic\s+to)\b",
    re.IGNORECASE,
)


def _leading_name(rest: str) -> tuple[str, str]:
    """Split "Meera lives in Bangalore" into ("Meera", "lives in Bangalore")."""
    tokens = rest.replace(",", " , ").split()
    name: list[str] = []
    for token in tokens:
        if token == "," or not token[0].isupper() or len(name) == 3:
            break
        if token.lower() in _NOT_NAMES:
            break
        name.append(token)
    remainder = " ".join(tokens[len(name) :]).lstrip(", ").replace(" , ", ", ")
    label = " ".join(name)
    return re.sub(r"['’]s$", "", label), remainder


# A plan that goes stale at once: "next week", "tomorrow", "soon", "in two weeks".
_DEICTIC_FUTURE = re.compile(
    r"\b(?:next\s+(?:week|weekend|month|year|time)|tomorrow|tonight|soon|later|"
    r"this\s+(?:week|weekend|coming|morning|afternoon|evening)|"
    r"in\s+(?:a|an|\d+|one|two|three|four|five|a\s+few|a\s+couple\s+of)\s+"
    r"(?:days?|weeks?|months?))\b",
    re.IGNORECASE,
)
_MONTH_NAMES = "|".join(MONTHS)
# A time a plan can be kept against: a month, a season or holiday, a year, a date.
_NAMED_TIME = re.compile(
    rf"\b(?:(?:in|on|for|over|around|by|until|this|next|at)\s+(?:(?:early|mid|late)\s+)?"
    rf"(?:the\s+)?(?:{_MONTH_NAMES}|christmas|easter|diwali|eid|new\s+year|thanksgiving|"
    rf"spring|summer|autumn|fall|winter|(?:19|20)\d\d)|"
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH_NAMES}))\b",
    re.IGNORECASE,
)
_PLANNED = re.compile(
    r"^(?:is|are)\s+(?:getting|flying|moving|coming|visiting|going|starting|leaving|"
    r"travell?ing|arriving|staying)\b",
    re.IGNORECASE,
)
_PERSON_STATE = re.compile(
    r"^(?:is|are|was|were|has|have|had|lives|live|works|work|studies|study|teaches|teach|runs|"
    r"owns|own|speaks|speak|plays|play)\b",
    re.IGNORECASE,
)


def _capitalised_text(text: str) -> str:
    text = text.strip().rstrip(" .!;:,")
    return text[:1].upper() + text[1:]


def _about_person(c: Clause, label: str, category: str, predicate: str) -> Found:
    predicate = re.sub(r"^(?:who|,)\s*", "", predicate.strip()).rstrip(" .!")
    if not predicate or p.HEDGE.search(predicate):
        return []
    if p.FUTURE.search(predicate) or _PLANNED.match(predicate):
        # A plan is kept, as a slice and never as a dated event, only when it names a time
        # that stays meaningful ("in December"); "next week" or "tomorrow" goes stale at once.
        if _NAMED_TIME.search(predicate) and not _DEICTIC_FUTURE.search(predicate):
            return slice_(c, label, category, SliceKind.OTHER.value, _capitalised_text(predicate))
        return []
    if _PERSON_PREFERENCE.match(predicate):
        return slice_(c, label, category, SliceKind.PREFERENCE.value, c.detail)
    for pattern, action, importance in _PERSON_EVENTS:
        if pattern.search(predicate):
            return event(c, label, category, action, importance)
    if re.match(r"^(?:(?:now|also|still|mainly)\s+)*(?:uses|is\s+using)\b", predicate, re.I):
        return [node(c, label, category), *_uses_tail(c, label, predicate)]
    if _PERSON_STATE.match(predicate):
        return slice_(c, label, category, SliceKind.OTHER.value, _capitalised_text(predicate))
    return []


# "... and she is visiting in December", "... but he's moving", "... and is a nurse": a new
# clause about the same person. Each part is read on its own, so a plan in the tail never
# swallows the fact before it.
_SAME_PERSON_TAIL = re.compile(
    r",?\s+(?:and|but)\s+(?:(?:she|he|they)(?:(?='(?:s|re|ll|d)\s)|\s+)|"
    r"(?=(?:is|was|will|has|had)\s))",
    re.IGNORECASE,
)
_CONTRACTIONS = (("'s ", "is "), ("'re ", "are "), ("'ll ", "will "), ("'d ", "had "))


def _person_facts(c: Clause, label: str, category: str, predicate: str) -> Found:
    """What a clause says about one person, split at "and she/he/they ..." tails."""
    head, *tails = _SAME_PERSON_TAIL.split(" " + predicate)
    head_clause = replace(c, text=_SAME_PERSON_TAIL.split(c.text, maxsplit=1)[0])
    found = _about_person(head_clause, label, category, head) if head.strip() else []
    for tail in tails:
        tail = tail.strip()
        for short, full in _CONTRACTIONS:
            if tail.startswith(short):
                tail = full + tail[len(short) :]
        found += _about_person(replace(c, text=f"{label} {tail}"), label, category, tail)
    return found


# --- possessives: "Meera's birthday is on 14 January", "my sister's birthday is ..." -------

_POSSESSED = re.compile(
    r"^(?P<thing>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)\s+(?P<verb>is|are|was|were|has|have|"
    r"had|falls|starts|ends|lives|works|expires|costs)\b\s*(?P<tail>.+)$"
)
_POSSESSIVE = re.compile(r"^(?P<name>[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,2})'s\s+(?P<predicate>.+)$")
_PERSONAL_THINGS = frozenset(
    """birthday anniversary name surname nickname age job role work office school college
    university employer phone number email address flight wedding graduation surgery
    appointment exam diet allergy allergies favourite favorite hobby hobbies health
    condition car house flat apartment home bike visa passport""".split()
)
_WORK_THINGS = frozenset(
    """beta launch release deadline roadmap version demo sprint rollout stack database domain
    pricing users codebase backend frontend""".split()
)


def _possessed(predicate: str) -> tuple[str, str] | None:
    """("birthday", "Birthday is on 14 January") from "birthday is on 14 January"."""
    match = _POSSESSED.match(predicate.strip().rstrip(" .!"))
    if not match or p.HEDGE.search(predicate) or _DEICTIC_FUTURE.search(predicate):
        return None
    return match.group("thing"), _capitalised_text(match.group(0))


def _possessor_category(thing: str) -> str:
    """Whose thing is it? A person's (birthday, job, husband), a project's (beta), or unknown."""
    parts = thing.lower().split()
    if any(w in _PERSONAL_THINGS or w in RELATIONS for w in parts):
        return PERSON
    if PROJECT_WORDS.search(thing) or any(w in _WORK_THINGS for w in parts):
        return PROJECT
    return OTHER


def possessive(c: Clause) -> Found:
    """ "<Name>'s <thing> is ...": a slice on <Name> ("Mom's ..." is the relation node)."""
    match = _POSSESSIVE.match(c.text)
    if not match:
        return []
    possessed = _possessed(match.group("predicate"))
    if not possessed:
        return []
    thing, text = possessed
    name = match.group("name")
    if name.lower() in RELATIONS:
        category = RELATIONS[name.lower()]
        return slice_(c, _relation_label("", name), category, SliceKind.OTHER.value, text)
    if name.split()[0].lower() in _NOT_NAMES or _is_date_word(name) or name == "I":
        return []
    label = p.make_label(name)
    if not label:
        return []
    return slice_(c, label, _possessor_category(thing), SliceKind.OTHER.value, text)


def _relation_label(mods: str, rel: str) -> str:
    kept = [m for m in mods.lower().split() if m not in _MODS_DROPPED]
    return p.title_case(" ".join([*kept, rel.lower()]))


_NAME_IS = re.compile(r"^'s\s+name\s+is\s+(?P<name>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,2})$")
_NAME_POSSESSIVE = re.compile(r"^[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,2}'s\s")


def _named_relation(c: Clause, name: str, category: str, relation: str) -> Found:
    """Meera, and that she is the user's sister."""
    return [node(c, name, category)] + slice_(
        c, name, category, SliceKind.OTHER.value, f"The user's {relation.lower()}"
    )[1:]


def other_people(c: Clause) -> Found:
    text = c.text
    match = _MY_RELATION.match(text)
    if match:
        rel = match.group("rel").lower()
        category = RELATIONS[rel]
        rest = match.group("rest")
        relation = _relation_label(match.group("mods"), rel)
        named = _NAME_IS.match(rest.rstrip(" .!"))
        if named and p.make_label(named.group("name")):  # "my sister's name is Meera"
            return _named_relation(c, named.group("name"), category, relation)
        if rest.startswith("'s "):  # "my sister's birthday is ...": the relation's own thing
            possessed = _possessed(rest[3:])
            if not possessed:
                return []
            return slice_(c, relation, category, SliceKind.OTHER.value, possessed[1])
        name, predicate = _leading_name(rest)
        if name and p.make_label(name):
            found = _named_relation(c, name, category, relation)
            if _NAME_POSSESSIVE.match(rest):  # "my sister Meera's birthday is ..."
                possessed = _possessed(predicate)
                if possessed:
                    found += slice_(c, name, category, SliceKind.OTHER.value, possessed[1])[1:]
                return found
            return found + _person_facts(c, name, category, predicate)
        if rest.strip():
            return _person_facts(c, relation, category, rest)
        return []
    match = _IS_MY_RELATION.match(text)
    if match and p.is_name(match.group("name")) and match.group("name").lower() not in _NOT_NAMES:
        name, rel = match.group("name"), match.group("rel").lower()
        category = RELATIONS[rel]
        found = _named_relation(c, name, category, _relation_label(match.group("mods"), rel))
        return found + _person_facts(c, name, category, match.group("rest"))
    match = _NAME_VERB.match(text)
    if match and p.is_name(match.group("name")):
        name = match.group("name")
        if name.split()[0].lower() not in _NOT_NAMES and p.make_label(name):
            return _person_facts(c, name, PERSON, match.group("rest"))
    return []


# --- 3. life events -----------------------------------------------------------------------

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
_DIAGNOSED = re.compile(
    r"\b(?:i|i've|i'm)(?:\s+(?:was|got|have\s+been|had\s+been|been|just|recently|finally|"
    r"officially))*\s+diagnosed\s+with\s+(?P<obj>.+)",
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


def _is_date_word(text: str) -> bool:
    first = text.split()[0].lower()
    return first in MONTHS or first in WEEKDAYS


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
        _married,
        _moved,
        _broke_up,
        _joined_or_left,
    ):
        found = recognise(c)
        if found:
            return found
    return []


# --- 4. status changes --------------------------------------------------------------------

_STATUS_VERBS: tuple[tuple[str, str], ...] = (
    (
        r"started|began|start|starting|took\s+up|taking\s+up|picked\s+up|got\s+into|getting\s+into",
        EventAction.STARTED.value,
    ),
    (
        r"stopped|stopping|quit|quitting|gave\s+up|giving\s+up|dropped|ditched|abandoned|cancelled|"
        r"canceled|shut\s+down|killed",
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
    for verbs, action in _STATUS_VERBS
)
_ON_HOLD = re.compile(
    _I + r"(?:put|putting)\s+(?P<obj>.+?)\s+on\s+(?:hold|ice|pause|the\s+back\s+burner)",
    re.IGNORECASE,
)
_BACK_UP = re.compile(_I + r"picked\s+(?P<obj>.+?)\s+back\s+up\b", re.IGNORECASE)
PROJECT_WORDS = re.compile(
    r"\b(?:project|app|application|site|website|tool|system|product|startup|service|api|"
    r"library|plugin|extension|bot|game|repo|repository|platform|feature|migration|refactor|"
    r"rewrite|prototype|mvp|pipeline|module|newsletter|podcast|blog|channel|book|novel|"
    r"thesis|work|redesign|integration|dashboard|backend|frontend)s?\b",
    re.IGNORECASE,
)
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
        return SKILL
    if action == EventAction.COMPLETED.value:
        return PROJECT  # one finishes a piece of work, not an everyday habit
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
        if re.match(r"^working\s+(?:at|for)\b", raw, re.I):
            return []  # a new job: the joined recogniser reads it
        label = object_label(c, _normalise_object(raw))
        if not label:
            continue
        category = status_category(action, raw, c.text)
        return event(c, label, category, action)
    return []


# --- 5. projects --------------------------------------------------------------------------

_PROJECT_KINDS = (
    r"project|app|startup|product|business|side\s+project|website|site|tool|game|book|novel|"
    r"company|idea|newsletter|podcast|thesis"
)
_MY_PROJECT_IS = re.compile(
    r"^(?:one\s+of\s+)?(?:my|our)\s+(?:(?:future|next|new|side|current|main|pet|personal|big|"
    r"latest|first|dream|upcoming|\w+ing)\s+)*(?P<kind>" + _PROJECT_KINDS + r")s?\s+"
    r"(?:is|are|will\s+be|'s|was)\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_NAME_IS_MY_PROJECT = re.compile(
    r"^(?P<name>.+?)\s+is\s+(?:my|our)\s+(?:[\w\-]+\s+){0,3}?(?P<kind>" + _PROJECT_KINDS + r")\b"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)
_WORKING_ON = re.compile(
    _I + r"(?:building|developing|working\s+on|debugging|fixing|coding|designing|prototyping|"
    r"refactoring|rewriting|migrating|writing|making|creating)\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_BUILT_ON = re.compile(
    r"\s(?:on|with|in|using)\s+(?P<tool>[A-Z][\w.+#\-]*(?:\s+[A-Z][\w.+#\-]*){0,2})"
)


def _project_category(kind: str) -> str:
    return ORGANIZATION if kind.lower() in {"company", "business", "startup"} else PROJECT


def projects(c: Clause) -> Found:
    match = _MY_PROJECT_IS.match(c.text)
    if match:
        label = p.make_label(cut(match.group("obj")))
        if label:
            return slice_(c, label, _project_category(match.group("kind")), SliceKind.OTHER.value)
    match = _NAME_IS_MY_PROJECT.match(c.text)
    if match and p.is_name(match.group("name")):
        label = p.make_label(match.group("name"))
        if label:
            found = slice_(c, label, _project_category(match.group("kind")), SliceKind.OTHER.value)
            return found + _uses_tail(c, label, match.group("rest"))
    match = _WORKING_ON.search(c.text)
    if match:
        obj = match.group("obj")
        verb_is_loose = re.search(r"\b(?:writing|making|creating)\s", c.text, re.I)
        if verb_is_loose and not (PROJECT_WORDS.search(obj) or p.is_name(cut(obj))):
            return []
        label = object_label(c, obj)
        if not label:
            return []
        found = slice_(c, label, PROJECT, SliceKind.PROGRESS.value)
        tool = _BUILT_ON.search(" " + obj)
        tool_label = p.make_label(tool.group("tool")) if tool else None
        if tool_label and canonical_key(tool_label) != canonical_key(label):
            found += [node(c, tool_label, TOOL), edge(c, label, tool_label)]
        return found
    return []


# --- 6. tools -----------------------------------------------------------------------------

_USES_VERB = (
    r"(?P<verb>uses|is\s+using|runs\s+on|is\s+running\s+on|is\s+built\s+(?:with|on)|"
    r"is\s+written\s+in|stores\s+(?:its\s+|all\s+its\s+)?(?:data|everything|files|state)\s+in|"
    r"depends\s+on|relies\s+on|is\s+hosted\s+on|is\s+deployed\s+(?:on|to)|is\s+powered\s+by|"
    r"talks\s+to|syncs\s+(?:to|with))"
)
_X_USES = re.compile(
    r"^(?P<x>.+?)\s+(?:(?:now|also|still|currently|mainly|mostly)\s+)*"
    + _USES_VERB
    + r"\s+(?P<y>.+)$"
)
_TAIL_USES = re.compile(
    r"^\s*(?:,\s*)?(?:and\s+)?(?:it\s+)?(?:(?:now|also|still)\s+)*" + _USES_VERB + r"\s+(?P<y>.+)$",
    re.IGNORECASE,
)
_NEXT_VERB = re.compile(
    r"\s+and\s+(?:it\s+)?(?:also\s+)?(?=(?:uses|is\s|runs|stores|depends|relies|talks|syncs)\b)",
    re.IGNORECASE,
)
_I_USE = re.compile(
    _I + r"(?:use|am\s+using|'m\s+using|have\s+been\s+using|'ve\s+been\s+using|rely\s+on|"
    r"started\s+using)\s+(?P<y>.+)$",
    re.IGNORECASE,
)
_PURPOSE = re.compile(r"\s+(?:for|to)\s+(?P<purpose>.+)$", re.IGNORECASE)


def _tool_labels(phrase: str) -> list[str]:
    head = _NEXT_VERB.split(phrase, maxsplit=1)[0]
    head = re.split(r"\s+(?:rather\s+than|instead\s+of|over|not|but)\s+", head, maxsplit=1)[0]
    labels = []
    for part in re.split(r",\s*|\s+and\s+|\s*&\s*", head):
        label = p.make_label(cut(part)) if not _PRONOUN_START.match(part.strip()) else None
        if label and label not in labels:
            labels.append(label)
    return labels


def _edge_kind(verb: str) -> str:
    return "depends_on" if verb.lower().startswith(("depends", "relies")) else "uses"


def _uses_tail(c: Clause, subject: str, rest: str) -> Found:
    """Edges from ``subject`` in "... and (it) runs on Y and stores data in Z"."""
    found: Found = []
    while rest:
        match = _TAIL_USES.match(rest) or _TAIL_USES.match(_NEXT_VERB.split(rest, 1)[-1])
        if not match:
            break
        for label in _tool_labels(match.group("y")):
            if canonical_key(label) != canonical_key(subject):
                found += [
                    node(c, label, TOOL),
                    edge(c, subject, label, _edge_kind(match.group("verb"))),
                ]
        parts = _NEXT_VERB.split(match.group("y"), maxsplit=1)
        rest = "and " + parts[1] if len(parts) > 1 else ""
    return found


def _subject_label(phrase: str) -> tuple[str, str] | None:
    """A named subject of "X uses Y": a proper name, or "my/our <thing>"."""
    text = phrase.strip()
    if re.match(r"^(?:my|our)\s+\w", text, re.IGNORECASE):
        label = p.make_label(text)
        category = PROJECT if PROJECT_WORDS.search(text) or label and p.is_name(label) else OTHER
        return (label, category) if label else None
    words = text.split()
    if p.is_name(text) and words[0].lower() not in _NOT_NAMES:
        label = p.make_label(text)
        return (label, PROJECT) if label else None
    return None


def _theme(c: Clause, kind: str) -> Found:
    context = _CONTEXT.search(c.text)
    ctx = p.make_label(cut(context.group("ctx"))) if context else None
    label = f"{ctx} Theme" if ctx and not ctx.endswith("Theme") else (ctx or "Theme")
    return slice_(c, label, PREFERENCE, kind)


def tools(c: Clause) -> Found:
    match = _X_USES.match(c.text)
    if match and not re.search(r"\b(?:i|we|you)\b", match.group("x"), re.IGNORECASE):
        subject = _subject_label(match.group("x"))
        named_tool = p.is_name(cut(match.group("y"))) or re.search(r"[A-Z\d]", match.group("y"))
        if subject and (named_tool or match.group("x").lower().startswith(("my ", "our "))):
            label, category = subject
            found: Found = [node(c, label, category)]
            return found + _uses_tail(c, label, c.text[match.start("verb") :])
    match = _I_USE.search(c.text)
    if not match or re.search(r"\bused\s+to\b", c.text, re.IGNORECASE):
        return []
    y = match.group("y")
    if _THEME.match(y):
        return _theme(c, SliceKind.PREFERENCE.value)
    purpose = _PURPOSE.search(y)
    labels = _tool_labels(y[: purpose.start()] if purpose else y)
    found = []
    for label in labels:
        found += slice_(c, label, TOOL, SliceKind.OTHER.value)
        target = cut(purpose.group("purpose")) if purpose else ""
        if target and p.is_name(target) and (name := p.make_label(target)):
            found += [node(c, name, PROJECT), edge(c, name, label)]
    return found


# --- 7. decisions -------------------------------------------------------------------------

_DECISION = re.compile(
    r"^(?:(?:i|we)(?:'ll|'ve|'re|'m|\s+will|\s+have|\s+are|\s+am)?(?:\s+(?:just|finally|now|"
    r"also))*\s+(?:decided\s+(?:to\s+(?:go\s+with|use|switch\s+to|stick\s+with)|on)|"
    r"going\s+with|went\s+with|go\s+with|chose|picked|settled\s+on|switched\s+to|"
    r"switching\s+to|opted\s+for|sticking\s+with|moved\s+over\s+to)|"
    r"let'?s\s+(?:go\s+with|use|stick\s+with|pick|do))\s+(?P<y>.+)$",
    re.IGNORECASE,
)


def decision(c: Clause) -> Found:
    match = _DECISION.match(c.text)
    if not match:
        return []
    if _THEME.match(match.group("y")):
        return _theme(c, SliceKind.PREFERENCE.value)
    label = object_label(c, match.group("y"))
    if not label:
        return []
    category = TOOL if p.is_name(cut(match.group("y"))) else OTHER
    return slice_(c, label, category, SliceKind.DECISION.value)


# --- 8. preferences -----------------------------------------------------------------------

_PREFERS = re.compile(
    _I + r"(?:prefer|like|love|enjoy|adore|hate|dislike|detest|loathe|can't\s+stand|"
    r"cannot\s+stand|can\s+not\s+stand|don't\s+(?:like|enjoy|want)|do\s+not\s+(?:like|enjoy|want)|"
    r"(?:not\s+)?a\s+(?:big\s+|huge\s+)?fan\s+of|allergic\s+to)\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_FAVOURITE = re.compile(
    r"^(?:my|our)\s+(?:all-time\s+|absolute\s+)?favou?rite\s+(?P<what>[\w\- ]+?)\s+(?:is|are)\s+"
    r"(?P<obj>.+)$",
    re.IGNORECASE,
)
_TO_VERB = re.compile(r"^to\s+(?P<verb>[a-z]+)\b", re.IGNORECASE)


def _preference_subject(c: Clause, obj: str) -> str:
    if _THEME.search(obj):
        context = _CONTEXT.search(obj)
        ctx = p.make_label(cut(context.group("ctx"))) if context else None
        return f"{ctx} Theme" if ctx else "Theme"
    for pattern in (_CONTEXT, _NAMED_CONTEXT):
        context = pattern.search(obj)
        if context:
            raw = cut(context.group("ctx"))
            if raw and raw.split()[0].lower() not in _TIME_WORDS and (label := p.make_label(raw)):
                return label
    if _RESPONSES.search(obj):
        return "Response Style"
    to_verb = _TO_VERB.match(obj)
    if to_verb:
        return p.title_case(p.gerund(to_verb.group("verb")))
    head = cut(obj)
    if head and len(head.split()) <= 4 and not _PRONOUN_START.match(head):
        label = p.make_label(head)
        if label:
            return label
    return "Preferences"


def preference(c: Clause) -> Found:
    match = _FAVOURITE.match(c.text)
    if match:
        label = p.make_label(match.group("what"))
        return slice_(c, label, PREFERENCE, SliceKind.PREFERENCE.value) if label else []
    match = _PREFERS.search(c.text)
    if not match:
        return []
    obj = match.group("obj").strip()
    if _PRONOUN_START.match(obj) and not (_RESPONSES.search(obj) or _TO_VERB.match(obj)):
        return []
    if re.search(r"allergic", c.text, re.IGNORECASE):
        label = object_label(c, obj)
        return slice_(c, f"{label} Allergy", HEALTH, SliceKind.OTHER.value) if label else []
    return slice_(c, _preference_subject(c, obj), PREFERENCE, SliceKind.PREFERENCE.value)


# --- 9. routines -------------------------------------------------------------------------

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
    read = _i_routine(c, before) or _leading_activity(c, before, after)
    if not read:
        return []
    activity, label, text = read
    category = status_category(EventAction.STARTED.value, activity, activity)
    return slice_(c, label, category, SliceKind.PROGRESS.value, text)


# --- remembered notes ---------------------------------------------------------------------

_COPULA_SUBJECT = re.compile(
    r"^(?P<subject>.+?)\s+(?:is|are|was|were|has|have|needs|goes|starts|ends|opens|closes|"
    r"expires|lives|works|happens|costs)\b",
    re.IGNORECASE,
)
_I_VERB_OBJECT = re.compile(
    r"^(?:i|we)(?:'ve|'m|'d|'ll)?\s+(?:\w+\s+){0,2}?(?P<obj>(?:a|an|the|my|our)\s+.+)$",
    re.IGNORECASE,
)
_NAME_RUN = re.compile(r"(?<!^)\b(?P<name>[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)*)")


def _note_subject(text: str) -> str | None:
    """A short subject for a remembered clause no recogniser understood."""
    names = [
        m.group("name")
        for m in _NAME_RUN.finditer(text)
        if m.group("name") != "I" and not _is_date_word(m.group("name"))
    ]
    if names:
        return p.make_label(names[0])
    match = _COPULA_SUBJECT.match(text)
    if match and not _PRONOUN_START.match(match.group("subject")):
        label = p.make_label(match.group("subject"))
        if label and not label.lower().startswith(("i ", "we ")) and label not in {"I", "We"}:
            return label
    match = _I_VERB_OBJECT.match(text)
    if match:
        return p.make_label(cut(match.group("obj")))
    if not re.match(r"^(?:i|we)\b", text, re.IGNORECASE):
        return p.make_label(cut(text))
    return None


def remembered_note(c: Clause) -> Found:
    label = _note_subject(c.text)
    if not label:
        return []
    return slice_(c, label, OTHER, SliceKind.OTHER.value)


# --- the walk -----------------------------------------------------------------------------

Recogniser = Callable[[Clause], Found]
RECOGNISERS: tuple[Recogniser, ...] = (
    other_people,
    life_event,
    status_change,
    projects,
    tools,
    decision,
    preference,
    routine,
    possessive,
)


def read_clause(c: Clause) -> Found:
    if p.HEDGE.search(c.text):
        return hedged(c)  # a hedged clause is never read as a clear statement
    for recognise in RECOGNISERS:
        found = recognise(c)
        if found:
            return found
    return []


def read_sentence(
    sentence: str, message_id: str, ts: datetime | None, anchor: datetime | None
) -> Found:
    rest, remembered = p.unwrap_remember(sentence)
    if not remembered and (p.is_smalltalk(sentence) or p.is_request(sentence)):
        return []
    if not rest.strip() or p.is_smalltalk(rest):
        return []
    clauses = [
        Clause(p.strip_fillers(text), sentence, message_id, ts, anchor)
        for text in p.split_clauses(rest)
    ]
    clauses = [c for c in clauses if c.text]
    if remembered and rest.rstrip().endswith("?") and p.is_question(rest):
        # A question kept for later states nothing: keep it as a note, never as a fact.
        return remembered_note(Clause(rest.strip(), sentence, message_id, ts, anchor))
    found: Found = []
    for clause in clauses:
        found += read_clause(clause)
    if remembered and not found and clauses:
        found = remembered_note(clauses[0])
    return found


def _merge_nodes(proposals: Found) -> Found:
    """One node proposal per (key, category), evidence pooled; everything else kept in order."""
    seen: dict[tuple[str, str], int] = {}
    out: Found = []
    for proposal in proposals:
        if isinstance(proposal, NodeProposal):
            key = (canonical_key(proposal.label), proposal.category)
            if key in seen:
                first = out[seen[key]]
                evidence = first.evidence + tuple(
                    e for e in proposal.evidence if e not in first.evidence
                )
                out[seen[key]] = first.model_copy(update={"evidence": evidence})
                continue
            seen[key] = len(out)
        out.append(proposal)
    return out


def _settle_people(proposals: Found) -> Found:
    """A name the batch knows as family or a partner keeps that category where it was only
    "a person" ("my sister Meera ..." then "Meera's birthday ..."), so one node is proposed."""
    known: dict[str, str] = {}
    for proposal in proposals:
        if isinstance(proposal, NodeProposal) and proposal.category in (FAMILY, RELATIONSHIP):
            known.setdefault(canonical_key(proposal.label), proposal.category)
    out: Found = []
    for proposal in proposals:
        if isinstance(proposal, (NodeProposal, SliceProposal, EventProposal)):
            label = proposal.label if isinstance(proposal, NodeProposal) else proposal.on
            settled = known.get(canonical_key(label))
            if settled and proposal.category == PERSON:
                proposal = proposal.model_copy(update={"category": settled})
        out.append(proposal)
    return out


def extract(
    messages: Sequence[Message], *, source_time: datetime | None = None
) -> list[AnyProposal]:
    """Propose what the person's own messages state. Pure and deterministic."""
    found: Found = []
    for message in user_messages(messages):
        anchor = message.ts or source_time
        for sentence in p.split_sentences(message.content):
            found += read_sentence(sentence, message.id, message.ts, anchor)
    return _merge_nodes(_settle_people(found))
