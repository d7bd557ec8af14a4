"""Work: roles, employers and start dates.

"I'm a data engineer at Brightline Logistics", "I work as a backend developer at Kestrel &
Finch", "I started a new job as a night nurse at St. Brigid's Hospital two weeks ago", "I got
promoted to team lead yesterday", "I've been freelancing as a translator", "I'm the treasurer of
the Riverside Allotment Society", "I graduated from the University of Porto in 2019", "I'm
applying to Nordwind Energy". A role is an ``identity`` node, an employer an ``organization``;
a start ("joined", "started", "since") is a dated event, else the clause is kept as a slice.
"I joined in March 2024" without an object joins the employer its sentence named.
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    _I,
    IDENTITY,
    IMPORTANT,
    LIFE_EVENT,
    ORGANIZATION,
    Clause,
    Found,
    event,
    leading_name,
    slice_,
    time_phrase,
)
from memory.vocab import EventAction, SliceKind

ROLE_NOUNS = frozenset(
    """nurse doctor chef lead head clerk engineer developer designer analyst researcher teacher
    manager director officer assistant technician editor founder cofounder co-founder owner
    administrator specialist coordinator programmer scientist architect accountant lawyer
    consultant intern student translator treasurer secretary chair chairperson president
    writer journalist photographer paramedic pharmacist therapist physiotherapist dentist
    surgeon vet veterinarian electrician plumber carpenter mechanic driver cleaner barista
    waiter waitress bartender librarian tutor lecturer professor postdoc volunteer coach
    trainer principal recruiter marketer strategist artist musician actor producer""".split()
)
_ROLE_SUFFIX = re.compile(r"(?:er|or|ist|ian|ant|ent)$")
_NOT_ROLES = frozenset(
    """member fan user customer beginner lover person people parent patient resident regular
    mess wreck sucker believer follower reader listener viewer owner-occupier other mother
    father brother sister daughter son partner number letter order paper winter summer
    chapter quarter center centre corner matter""".split()
)
_ROLE = r"(?P<role>(?:[a-z][a-z\-]*|[A-Z]{2,5})(?:\s+(?:[a-z][a-z\-]*|[A-Z]{2,5})){0,3}?)"
_ARTICLE = r"(?:(?:a|an|the)\s+)?"
_ORG = r"(?-i:(?P<org>(?:the\s+)?[A-Z].*))"
_AT = r"\s+(?:at|for|with|of|in)\s+"
# Where a role phrase ends when no employer follows: the end, a comma, a connective.
_END = (
    r"(?=\s*(?:$|[,;(]|\s+(?:and|but|so|because|since|which|who|mostly|mainly|now|currently|"
    r"these\s+days|too|again|here|there|full-time|part-time|next|tomorrow|from)\b|"
    # an employer said in lower case ("a mentor for a local school"): the role is still said
    r"\s+(?:at|for|with|in|of)\s+(?:a|an|the|my|our|this|one)\s+[a-z]|"
    # where the work was done ("an engineer on North Sea platforms", "a nurse on a ward")
    r"\s+on\s+(?:a|an|the)?\s*[A-Za-z]))"
)

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (  # "I started a new job as a night nurse at ..."
        re.compile(
            _I + r"(?:started|began|got|landed|accepted|took|have|got)\s+(?:a|my|the)?\s*"
            r"(?:new\s+)?(?:job|position|role|post)\s+as\s+"
            + _ARTICLE
            + _ROLE
            + rf"(?:{_AT}{_ORG}|{_END})",
            re.IGNORECASE,
        ),
        EventAction.STARTED.value,
    ),
    (  # "i start at Marrowgate Bank as a security engineer next month"
        re.compile(
            _I
            + r"(?:(?:start|starting|started|begin|beginning|began|(?:will|'ll)\s+(?:start|begin))"
            r"\s+(?:at|with)|join|joining|joined|(?:will|'ll)\s+join)\s+"
            r"(?-i:(?P<org>(?:the\s+)?[A-Z][\w&'’.\-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w&'’.\-]*){0,4}))"
            r"\s+as\s+" + _ARTICLE + _ROLE + _END,
            re.IGNORECASE,
        ),
        EventAction.STARTED.value,
    ),
    (  # "I got promoted to team lead yesterday"
        re.compile(
            _I
            + r"(?:got\s+|was\s+|been\s+)?promoted\s+to\s+"
            + _ARTICLE
            + _ROLE
            + rf"(?:{_AT}{_ORG}|{_END})",
            re.IGNORECASE,
        ),
        EventAction.ACHIEVED.value,
    ),
    (  # "I work as a backend developer at ...", "I've been freelancing as a translator"
        re.compile(
            _I + r"(?:work|worked|working|freelanc(?:e|ed|ing)|contract(?:ed|ing)?|started|"
            r"began|volunteer(?:ed|ing)?|(?:go|going|gone|went)\s+freelance)\s+as\s+"
            + _ARTICLE
            + _ROLE
            + rf"(?:{_AT}{_ORG}|{_END})",
            re.IGNORECASE,
        ),
        "",
    ),
    (  # "spent forty years as a structural engineer", "I've spent a decade working as a nurse"
        re.compile(
            r"(?:^|\b(?:i|we)(?:'ve)?\s+(?:have\s+)?|,\s*)spent\s+(?:[\w-]+\s+){1,3}?"
            r"(?:years?|decades?)\s+(?:working\s+)?as\s+"
            + _ARTICLE
            + _ROLE
            + rf"(?:{_AT}{_ORG}|{_END})",
            re.IGNORECASE,
        ),
        "",
    ),
    (  # "I'm a data engineer at ...", "I'm the treasurer of ..."
        re.compile(
            r"(?:^|\b)(?:i'm|i\s+am|i\s+was|i've\s+been|i\s+have\s+been)\s+(?:(?:still|now|"
            r"currently|also|just|officially|actually|basically)\s+)*"
            + _ARTICLE
            + _ROLE
            + rf"(?:{_AT}{_ORG}|{_END})",
            re.IGNORECASE,
        ),
        "",
    ),
)
# "I joined a new team at Calder Analytics two weeks ago as a product manager"
_JOINED_TEAM_AT = re.compile(
    _I + r"(?:joined|started\s+(?:on|in|with))\s+(?:a|the|my)?\s*(?:new\s+)?(?:team|department|"
    r"group|squad|unit|company|firm|startup|office)\s+(?:at|in|of|with)\s+" + _ORG,
    re.IGNORECASE,
)
_AS_ROLE = re.compile(r"\bas\s+" + _ARTICLE + _ROLE + _END, re.IGNORECASE)
_WORK_AT = re.compile(_I + r"(?:work|worked|working)\s+(?:at|for)\s+" + _ORG + "$", re.IGNORECASE)
# "At AT&T I mostly write C++": the employer leads the sentence.
_AT_ORG_LEAD = re.compile(r"^At\s+(?P<org>[A-Z][^,]*?),?\s+(?:I|we)\s+(?!was\b|had\b)")
_GRADUATED = re.compile(_I + r"graduated\s+from\s+" + _ORG + "$", re.IGNORECASE)
_GRADUATED_BARE = re.compile(_I + r"(?:finally\s+|just\s+)*graduated\b", re.IGNORECASE)
_APPLYING = re.compile(
    _I + r"(?:applying|applied|interviewing|interviewed)\s+(?:to|for|at|with)\s+" + _ORG,
    re.IGNORECASE,
)
_JOINED_BARE = re.compile(
    _I + r"(?:joined|started)(?:\s+(?:there|them|the\s+company|the\s+team))?\s+"
    r"(?:in|on|last|back\s+in|since|\d|a\s|two|three|four|five|six)",
    re.IGNORECASE,
)
# "I lost my job as a banker yesterday", "got laid off from Halvorsen Marine", "I was made
# redundant in March": a job that ended, not by choice. A clipped sentence says it too ("Lost
# my job as a banker yesterday").
_LOST_JOB = re.compile(
    r"(?:^|" + _I + r")(?:lost\s+(?:my|our)\s+(?:job|jobs|role|position)|(?:got|was|were|been)\s+"
    r"(?:laid\s+off|fired(?!\s+up\b)|sacked|let\s+go|made\s+redundant))\b(?P<rest>.*)$",
    re.IGNORECASE,
)
_LOST_AS = re.compile(
    r"^\s*as\s+" + _ARTICLE + _ROLE + r"(?:(?=\s+(?:at|from|with|for|by)\s)|" + _END + ")",
    re.IGNORECASE,
)
_LOST_FROM = re.compile(r"^\s*(?:at|from|with|for|by)\s+" + _ORG, re.IGNORECASE)
_EMPLOYER_IN_SENTENCE = re.compile(r"\b(?:at|for|with|joined)\s+(?-i:(?P<org>(?:the\s+)?[A-Z].*))")


# Words a role's name never has inside it: an article or someone's ("knitting a jumper",
# "baking my sister a cake").
_INSIDE_NO_ROLE = frozenset("a an the my our your his her their this that".split())


def _role_label(phrase: str) -> str | None:
    words = phrase.split()
    if not words:
        return None
    last = words[-1].lower()
    if last in _NOT_ROLES or words[0].lower() in {"huge", "big", "bit", "little", "lot"}:
        return None
    if any(w.lower() in _INSIDE_NO_ROLE for w in words[1:]):
        return None  # "I'm knitting a jumper for ...": a thing being made, no job
    if last not in ROLE_NOUNS and not _ROLE_SUFFIX.search(last):
        return None
    return p.make_label(phrase)


def _org_label(c: Clause, phrase: str | None) -> str | None:
    if not phrase:
        return None
    when = time_phrase(phrase, c.anchor)
    if when:
        phrase = phrase.replace(when, " ")
    name = leading_name(phrase.strip())
    return p.make_label(name) if name else None


def _role_and_org(c: Clause, role: str | None, org: str | None, action: str) -> Found:
    found: Found = []
    dated = time_phrase(c.text, c.anchor) is not None
    if role:
        if action and dated:
            found += event(c, role, IDENTITY, action, IMPORTANT)
        else:
            found += slice_(c, role, IDENTITY, SliceKind.OTHER.value)
    if org:
        if dated or action == EventAction.STARTED.value:
            found += event(c, org, ORGANIZATION, EventAction.JOINED.value, IMPORTANT)
        else:
            found += slice_(c, org, ORGANIZATION, SliceKind.OTHER.value)
    return found


def employer_lead(c: Clause) -> tuple[Found, Clause | None]:
    """ "At AT&T I mostly write C++" -> (the employer, the clause "I mostly write C++") so the
    rest is read like any clause; (``[]``, ``None``) when no employer leads."""
    match = _AT_ORG_LEAD.search(c.text)
    org = _org_label(c, match.group("org")) if match else None
    if not match or not org:
        return [], None
    rest = replace(c, text=c.text[match.end("org") :].lstrip(" ,"))
    return slice_(c, org, ORGANIZATION, SliceKind.OTHER.value), rest


def lost_job(c: Clause) -> Found:
    """A job lost, on the role and the employer where they are named, else on the job itself
    (as leaving it is: :mod:`.life_events`)."""
    match = _LOST_JOB.search(c.text)
    if not match:
        return []
    rest = match.group("rest")
    if when := time_phrase(rest, c.anchor):
        rest = rest.replace(when, " ")
    as_role = _LOST_AS.match(rest)
    role = _role_label(as_role.group("role")) if as_role else None
    if as_role:
        rest = rest[as_role.end() :]
    org = _LOST_FROM.match(rest)
    employer = _org_label(c, org.group("org")) if org else None
    found: Found = []
    if role:
        found += event(c, role, IDENTITY, EventAction.LEFT.value, IMPORTANT)
    if employer or not role:
        found += event(c, employer or "Job", ORGANIZATION, EventAction.LEFT.value, IMPORTANT)
    return found


def work(c: Clause) -> Found:
    if found := lost_job(c):
        return found
    for pattern, action in _PATTERNS:
        match = pattern.search(c.text)
        if not match:
            continue
        raw_role = match.group("role")
        when = time_phrase(raw_role, c.anchor)
        if when:
            raw_role = raw_role.replace(when, " ").strip()
        role = _role_label(raw_role)
        org = _org_label(c, match.group("org"))
        if role or (org and action):
            return _role_and_org(c, role, org, action)
    match = _JOINED_TEAM_AT.search(c.text)
    if match and (org := _org_label(c, match.group("org"))):
        as_role = _AS_ROLE.search(c.text)
        role = _role_label(as_role.group("role")) if as_role else None
        return _role_and_org(c, role, org, EventAction.STARTED.value)
    match = _WORK_AT.search(c.text)
    if match:
        org = _org_label(c, match.group("org"))
        return _role_and_org(c, None, org, "") if org else []
    match = _GRADUATED.search(c.text)
    if match:
        org = _org_label(c, match.group("org"))
        return event(c, org, ORGANIZATION, EventAction.ACHIEVED.value, IMPORTANT) if org else []
    if _GRADUATED_BARE.search(c.text):
        # "I graduated last week!", "we graduated from college in May": no school named
        return event(c, "Graduation", LIFE_EVENT, EventAction.ACHIEVED.value, IMPORTANT)
    match = _APPLYING.search(c.text)
    if match:
        org = _org_label(c, match.group("org"))
        return slice_(c, org, ORGANIZATION, SliceKind.PROGRESS.value) if org else []
    at = c.sentence.find(c.text)
    if at > 0 and _JOINED_BARE.search(c.text):
        employer = _EMPLOYER_IN_SENTENCE.search(c.sentence[:at])
        org = _org_label(c, employer.group("org")) if employer else None
        if org:
            return event(c, org, ORGANIZATION, EventAction.JOINED.value, IMPORTANT)
    return []
