"""Other people and possessives: "my sister Meera lives in Bangalore", "Meera's birthday is ..."."""

from __future__ import annotations

import re
from dataclasses import replace

from wordfreq import zipf_frequency

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    _I,
    _NOT_NAMES,
    FAMILY,
    IMPORTANT,
    LIFE_SIGNIFICANT,
    ORDINARY,
    OTHER,
    PERSON,
    POSSESSION,
    PROJECT,
    PROJECT_WORDS,
    RELATIONSHIP,
    UPPER,
    Clause,
    Found,
    _capitalised_text,
    _is_date_word,
    _leading_name,
    event,
    node,
    slice_,
)
from memory.extractors.rules.projects import led_project
from memory.extractors.rules.tools import (
    _uses_tail,
)
from memory.temporal import MONTHS, WEEKDAYS
from memory.vocab import EventAction, SliceKind

RELATIONS: dict[str, str] = {}
for _category, _words in (
    (
        FAMILY,
        """mother mom mum mama dad father papa parents sister brother sibling siblings son
        daughter kids children child grandmother grandma granny nana grandfather grandpa granddad
        grandparents grandad gramps nonna nonno abuela abuelo oma opa aunt uncle cousin niece
        nephew mother-in-law father-in-law sister-in-law brother-in-law in-laws stepmom stepdad stepmother stepfather stepson stepdaughter twin
        baby nan gran grandson granddaughter grandchild grandchildren grandkids stepbrother
        stepsister half-brother half-sister godmother godfather godson goddaughter
        great-grandson great-granddaughter great-grandchild great-grandchildren great-grandkids
        great-grandmother great-grandfather great-grandma great-grandpa great-nan great-gran
        great-aunt great-uncle great-niece great-nephew""",
    ),
    (
        POSSESSION,
        """dog cat puppy kitten rabbit bunny hamster gerbil parrot budgie cockatiel horse pony
        tortoise turtle lizard gecko snake ferret goldfish fish chicken chickens pig pup
        greyhound lurcher whippet labrador spaniel terrier collie beagle retriever dachshund
        pug poodle cockapoo labradoodle staffie husky corgi sheepdog alsatian rottweiler
        schnauzer chihuahua dalmatian bulldog tabby moggy kelpie heeler vizsla weimaraner
        sheltie westie yorkie cavapoo cavachon pomeranian samoyed akita shiba mastiff
        ragdoll""",
    ),
    (
        RELATIONSHIP,
        """wife husband partner girlfriend boyfriend fiancé fiancée fiance fiancee spouse ex
        ex-wife ex-husband ex-girlfriend ex-boyfriend bf gf hubby wifey""",
    ),
    (
        PERSON,
        """friend buddy pal manager boss colleague coworker co-worker teammate mentor mentee
        co-treasurer supervisor lead director pastor priest vet physio physiotherapist gp
        counsellor counselor psychiatrist psychologist nurse midwife trainer
        neighbour neighbor roommate flatmate housemate therapist doctor dentist coach teacher
        tutor landlord landlady client cofounder co-founder intern classmate bestie bff
        accountant solicitor lawyer plumber electrician mechanic hairdresser barber babysitter
        nanny childminder carer chef labmate bandmate officemate schoolmate pharmacist
        optician surgeon""",
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


# Chat's short words for a relation, spelled out in a label: "my bf" is the user's boyfriend.
SPELLED_OUT = {
    "bf": "boyfriend",
    "gf": "girlfriend",
    "hubby": "husband",
    "wifey": "wife",
    "bestie": "best friend",
    "bff": "best friend",
}


def _relation_label(mods: str, rel: str) -> str:
    kept = [m for m in mods.lower().split() if m not in _MODS_DROPPED]
    return p.title_case(" ".join([*kept, SPELLED_OUT.get(rel.lower(), rel.lower())]))


_NAME_IS = re.compile(r"^'s\s+name\s+is\s+(?P<name>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,2})$")
_NAME_POSSESSIVE = re.compile(r"^[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,2}'s\s")


def _named_relation(c: Clause, name: str, category: str, relation: str) -> Found:
    """Meera, and that she is the user's sister."""
    return [node(c, name, category)] + slice_(
        c, name, category, SliceKind.OTHER.value, f"The user's {relation.lower()}"
    )[1:]


# "my manager is Sofia Almeida", "my mentor is Dr. Helena Vogt": the relation names a person.
_REL_IS_NAME = re.compile(
    r"^(?:is|was|'s)\s+(?:called\s+|named\s+)?(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof|Professor|Sir|Dame)"
    r"\.?\s+)?(?P<name>[" + UPPER + r"][\w'’\-]*(?:\s+[" + UPPER + r"][\w'’\-]*){0,2})\b,?\s*"
    r"(?P<rest>.*)$"
)
# "my new boss is a woman called Priyanka", "my manager is the CPO, Tunde": the relation is
# described, then named (called or named, or set off by a comma and ending the clause).
_REL_IS_DESCRIBED = re.compile(
    r"^(?:is|was|'s)\s+(?:a|an|the)\s+(?:[\w'’\-]+\s+){0,3}?[\w'’\-]+"
    r"(?:\s+(?:called|named)\s+|\s*,\s*(?=["
    + UPPER
    + r"][\w'’\-]*(?:\s+["
    + UPPER
    + r"][\w'’\-]*){0,2}\s*(?:[.!]|,\s*who\b|$)))"
    r"(?P<name>[" + UPPER + r"][\w'’\-]*(?:\s+[" + UPPER + r"][\w'’\-]*){0,2})\b,?\s*"
    r"(?P<rest>.*)$"
)
# A pet is a possession unless the person says it is family.
_IS_FAMILY = re.compile(r"\b(?:is|are)\s+(?:basically\s+|like\s+|part\s+of\s+(?:the\s+)?)?family\b")
# A pet named with "called"/"named": "a rabbit called Pepper", "a dog named Biscuit".
_PET_NAMED = re.compile(
    rf"\b(?:a|an|our|my)\s+(?:[\w\-]+\s+)?(?P<rel>{_RELATION})\s+(?:called|named)\s+"
    r"(?-i:(?P<name>[" + UPPER + r"][\w'’\-]*))(?P<rest>.*)$",
    re.IGNORECASE,
)


# "I had coffee with my cousin Zoë on Sunday": a named relation inside the clause.
# The name after a relation: a title before it is part of it ("my counsellor Dr Siobhan
# Keegan"), and so is a particle between its words ("my landlord Joost van Dam").
_DATE_WORDS = "(?:" + "|".join(w.capitalize() for w in [*WEEKDAYS, *MONTHS]) + ")"
_INSIDE_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Miss|Prof|Professor|Rev|Revd|Sir|Dame)\.?\s+)?"
_MY_RELATION_INSIDE = re.compile(
    rf"\b(?:my|our)\s+{_MODIFIERS}(?P<rel>{_RELATION})\s+(?-i:(?P<name>{_INSIDE_TITLE}["
    + UPPER
    + r"][\w'’\-]*(?:\s+(?:(?:"
    + "|".join(sorted(p.NAME_PARTICLES))
    + r")\s+)?(?!"
    + _DATE_WORDS
    + r"\b)["
    + UPPER
    + r"][\w'’\-]*)?))",
    re.IGNORECASE,
)


_WORD_ZIPF = 4.5
# The relation said after the name, set off in brackets or between commas: "Noor (my niece)
# starts school", "we're driving Ezra, my great-grandson, to the coast".
_NAME_THEN_RELATION = re.compile(
    rf"(?-i:(?P<name>[{UPPER}][\w'’\-]*(?:\s+[{UPPER}][\w'’\-]*)?))\s*(?:\(|,)\s*"
    rf"(?:my|our)\s+{_MODIFIERS}(?P<rel>{_RELATION})\s*(?:\)|,|$)",
    re.IGNORECASE,
)


# A partner said by what they are to the person, not by a relation word: "I'm engaged to
# Tomasz", "I've been married to Ines for ten years", "I'm dating Marco".
_PARTNERED = re.compile(
    r"\b(?:i['’]m|i\s+am|i['’]ve\s+been|i\s+have\s+been|i\s+got|we\s+got)\s+"
    r"(?:(?:just|now|finally|recently|happily|officially|still)\s+)*"
    r"(?P<how>engaged|married|dating)\s+(?:to\s+)?(?-i:(?P<name>["
    + UPPER
    + r"][\w'’\-]+(?:\s+["
    + UPPER
    + r"][\w'’\-]+)?))\b",
    re.IGNORECASE,
)
_PARTNER_WORD = {"engaged": "fiancé(e)", "married": "spouse", "dating": "partner"}


def _partnered(c: Clause) -> Found:
    match = _PARTNERED.search(c.text)
    if not match or _DENIES.search(c.text[: match.start()]):
        return []
    name = match.group("name")
    if name.split()[0].lower() in _NOT_NAMES or _is_date_word(name) or not p.make_label(name):
        return []
    return _named_relation(c, name, RELATIONSHIP, _PARTNER_WORD[match.group("how").lower()])


_DENIES = re.compile(r"\b(?:not|never|if|when)\b|n['’]t\b", re.IGNORECASE)


def mentioned_relations(c: Clause) -> Found:
    """People named with their relation anywhere in the clause ("... with my sister Dana",
    "Noor (my niece) starts ..."), proposed beside whatever the clause is about."""
    found: Found = []
    for match in _NAME_THEN_RELATION.finditer(c.sentence if c.text in c.sentence else c.text):
        rel, name = match.group("rel").lower(), match.group("name")
        if match.group("name") not in c.text or rel not in RELATIONS:
            continue
        if name.split()[0].lower() in _NOT_NAMES or not p.is_name(name):
            continue
        if not c.sentence[: match.start()].strip() and zipf_frequency(name, "en") >= _WORD_ZIPF:
            continue  # "Thanks, my friend": a word English uses every day, capitalised first
        found += _named_relation(c, name, RELATIONS[rel], _relation_label(match.group("mods"), rel))
    for match in _MY_RELATION_INSIDE.finditer(c.text):
        rel = match.group("rel").lower()
        name = re.sub(r"['’]s$", "", match.group("name"))
        if rel in RELATIONS and name.lower() not in _NOT_NAMES and p.make_label(name):
            found += _named_relation(
                c, name, RELATIONS[rel], _relation_label(match.group("mods"), rel)
            )
    return found + _partnered(c)


def _pet_named(c: Clause) -> Found:
    match = _PET_NAMED.search(c.text)
    if not match or RELATIONS.get(match.group("rel").lower()) != POSSESSION:
        return []
    category = FAMILY if _IS_FAMILY.search(c.text) else POSSESSION
    name = match.group("name")
    rel = match.group("rel").lower()
    found = _named_relation(c, name, category, rel)
    if re.search(r"\b(?:adopted|got|rescued|brought\s+home)\b", c.text, re.IGNORECASE):
        found += event(c, name, category, EventAction.STARTED.value, IMPORTANT, c.detail)[1:]
    return found


# "I just adopted this cute pup from a shelter", "we got a rescue cat in March", "we took in a
# retired greyhound": a pet come home, not named yet. A pet word of the relations or a kind of
# dog people name as the animal; what they call it lovingly is no part of its label.
_PET_KINDS = frozenset({k for k, v in RELATIONS.items() if v == POSSESSION} | {"pups"})
_PET_ADOPTED = re.compile(
    _I + r"(?:adopted|rescued|got|brought\s+home|took\s+in|fostered)\s+(?:a|an|this|our|my|two|"
    r"a\s+pair\s+of)\s+(?P<pet>(?:[a-z-]+\s+){0,2}?(?:" + "|".join(sorted(_PET_KINDS)) + r")s?)\b"
    r"(?!\s+(?:food|bed|toy|toys|lead|collar|insurance|sitter|walker|hair))",
    re.IGNORECASE,
)
_NAMED_IT = re.compile(r"\b(?:named|called|calling|naming)\b", re.IGNORECASE)
_FOND = frozenset("cute sweet lovely little gorgeous beautiful adorable new tiny fluffy".split())


def _pet_adopted(c: Clause) -> Found:
    match = _PET_ADOPTED.search(c.text)
    if not match or _NAMED_IT.search(c.sentence):
        return []  # "... and named her Pepper": the pet is its name's card
    words = [w for w in match.group("pet").split() if w.lower() not in _FOND]
    label = p.make_label(" ".join(words))
    if not label:
        return []
    category = FAMILY if _IS_FAMILY.search(c.text) else POSSESSION
    return event(c, label, category, EventAction.STARTED.value, IMPORTANT)


def other_people(c: Clause) -> Found:
    text = c.text
    match = _MY_RELATION.match(text)
    if match:
        rel = match.group("rel").lower()
        category = RELATIONS[rel]
        if category == POSSESSION and _IS_FAMILY.search(text):
            category = FAMILY
        rest = match.group("rest")
        relation = _relation_label(match.group("mods"), rel)
        is_name = _REL_IS_NAME.match(rest.strip()) or _REL_IS_DESCRIBED.match(rest.strip())
        if is_name and is_name.group("name").split()[0].lower() not in _NOT_NAMES:
            name = is_name.group("name")
            found = _named_relation(c, name, category, relation)
            tail = is_name.group("rest").strip()
            tail = re.sub(r"^(?:and\s+)?(?:she|he|they)\s+", "", tail, flags=re.IGNORECASE)
            found += _person_facts(c, name, category, tail) if tail else []
            return found + led_project(replace(c, text=f"{name} {tail}")) if tail else found
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
        set_off = _NAME_THEN_RELATION.search(c.sentence)
        if set_off and set_off.group("rel").lower() == rel and p.is_name(set_off.group("name")):
            # "Ezra, my great-grandson, he'll be two": the relation named just before
            relation = set_off.group("name")
        if rest.strip():
            return _person_facts(c, relation, category, rest)
        return []
    match = _IS_MY_RELATION.match(text)
    if match and p.is_name(match.group("name")) and match.group("name").lower() not in _NOT_NAMES:
        name, rel = match.group("name"), match.group("rel").lower()
        category = RELATIONS[rel]
        found = _named_relation(c, name, category, _relation_label(match.group("mods"), rel))
        return found + _person_facts(c, name, category, match.group("rest"))
    found = _pet_named(c) or _pet_adopted(c)
    if found:
        return found
    match = _NAME_VERB.match(text)
    if match and p.is_name(match.group("name")):
        name = match.group("name")
        if name.split()[0].lower() not in _NOT_NAMES and p.make_label(name):
            return _person_facts(c, name, PERSON, match.group("rest"))
    return []
