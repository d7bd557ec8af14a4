"""Health: conditions, medications with dose and start, allergies and intolerances, measures.

"I'm lactose intolerant" -> Lactose Intolerance; "I'm allergic to peanuts" -> Peanut Allergy;
"my blood pressure is high" -> High Blood Pressure; "I have asthma", "I suffer from
migraines", "I've had eczema for years", "my asthma is playing up" -> the condition (not "my
dad's arthritis"); "my doctor put me on Lisinopril 10mg in February", "I started taking
sertraline 50mg last month" -> the medication (its dose kept in the slice, its start a
dated event). Everything here is ``health``; a condition is recognised by its form (a
medical suffix, "... disease/syndrome/disorder") or a short list of common ones, never
guessed from "I have a ...".
"""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    _I,
    HEALTH,
    IMPORTANT,
    Clause,
    Found,
    cut,
    event,
    slice_,
    time_phrase,
)
from memory.extractors.rules.life_events import BODY_PARTS
from memory.extractors.rules.people import RELATIONS
from memory.vocab import EventAction, SliceKind

_INTOLERANT = re.compile(
    r"\b(?:i'm|i\s+am|i've\s+become|i\s+became)\s+(?:(?:very|severely|mildly|quite|a\s+bit|"
    r"slightly|also)\s+)*(?P<what>[a-z]+)\s+intolerant\b",
    re.IGNORECASE,
)
_ALLERGIC = re.compile(
    r"\b(?:i'm|i\s+am|i\s+have\s+always\s+been|i've\s+always\s+been)\s+(?:(?:very|severely|"
    r"mildly|quite|really|properly|deathly|badly|also|super)\s+)*allergic\s+to\s+(?P<what>.+)$",
    re.IGNORECASE,
)
_HAVE_ALLERGY = re.compile(
    _I + r"(?:have|'ve\s+got|have\s+got)\s+(?:a|an)\s+(?P<what>[a-z]+)\s+"
    r"(?P<kind>allergy|intolerance)\b",
    re.IGNORECASE,
)
_MEASURE = re.compile(
    r"\bmy\s+(?P<measure>blood\s+pressure|cholesterol|blood\s+sugar|iron(?:\s+levels?)?|"
    r"vitamin\s+d(?:\s+levels?)?|heart\s+rate|a1c|thyroid\s+levels?|sugar\s+levels?)\s+"
    r"(?:is|are|was|were|has\s+been|have\s+been|'s)\s+(?:(?:very|a\s+bit|quite|too|really|"
    r"still|pretty|slightly|way|kind\s+of|dangerously)\s+)*(?P<level>high|low|elevated|raised)\b",
    re.IGNORECASE,
)
_CONDITION_VERB = re.compile(
    _I + r"(?:have|'ve\s+got|have\s+got|got|'ve\s+had|have\s+had|had|live\s+with|suffer\s+from|"
    r"struggle\s+with|deal\s+with|"
    r"get|am\s+living\s+with|'m\s+living\s+with)\s+(?P<what>.+)$",
    re.IGNORECASE,
)
_CONDITIONS = frozenset(
    """asthma diabetes migraine migraines eczema psoriasis adhd autism anxiety depression
    insomnia epilepsy arthritis hypertension ibs crohn's coeliac celiac endometriosis pcos
    fibromyalgia sciatica tinnitus vertigo anaemia anemia gout lupus scoliosis dyslexia ptsd
    ocd copd hay-fever hayfever fibrillation angina dementia glaucoma cataracts shingles hernia
    gallstones narcolepsy rosacea acne emphysema hypothyroidism hyperthyroidism parkinson's
    alzheimer's""".split()
)
_CONDITION_FORM = re.compile(
    r"(?:itis|osis|emia|aemia|algia|pathy|plegia|trophy)$|^(?:.+\s)?(?:disease|syndrome|"
    r"disorder|deficiency|infection|cancer|diabetes|fever|apnea|apnoea)$",
    re.IGNORECASE,
)
# The endings of a condition's name that say what it is alone ("fasciitis", "endometriosis",
# "neuralgia"), beside the words of :data:`_CONDITION_FORM` that only say a kind ("disease").
_CONDITION_ENDING = re.compile(r"(?:itis|osis|emia|aemia|algia|pathy|plegia|trophy)$", re.I)
_CONDITION_HEADS = frozenset("diabetes apnea apnoea".split())


def condition_word(word: str) -> bool:
    """Whether ``word`` names a condition on its own, as people go on to say it for the whole
    name ("my diabetes" of a "Type 2 Diabetes", "the migraines" of a "Vestibular Migraine"):
    one the list knows, a head the rules read as one, or a word of a medical ending with a
    root before it ("fasciitis"; not "trophy"); never a word that only says a kind
    ("disease", "syndrome", "disorder") nor one that is also a passing feeling ("anxiety")."""
    w = word.lower()
    if w in _ALSO_FEELINGS:
        return False
    if w in _CONDITIONS or w in _CONDITION_HEADS:
        return True
    ending = _CONDITION_ENDING.search(w)
    return ending is not None and ending.start() >= 3


# A condition said as the person's own: "my asthma is playing up", "my type 1 diabetes".
# Not another's: "my dad's arthritis", "my son's asthma".
_MY = re.compile(r"\bmy\s+(?P<rest>(?:[^\s,.;:!?]+\s*){1,4})", re.IGNORECASE)
_DOSE = r"\d+(?:\.\d+)?\s?(?:mg|mcg|µg|g|ml|iu|units?)\b"
# The second word of a drug's name, its salt or its acid: "ferrous sulphate", "folic acid",
# "sodium valproate" is named by its first word alone.
_SALT = (
    r"(?:sulphate|sulfate|fumarate|gluconate|citrate|hydrochloride|carbonate|phosphate|"
    r"succinate|tartrate|maleate|besylate|bromide|chloride|oxide|glycinate|acid)\b"
)
_MEDICATION = re.compile(
    r"\b(?:(?:put|placed|kept|switched|moved|changed)\s+me\s+(?:on|onto|to)|"
    r"(?:has|have|had)\s+me\s+on|prescribed\s+(?:me\s+)?|started\s+(?:me\s+on|taking|on)|"
    r"(?:i'm|i\s+am|i've\s+been|i\s+have\s+been|i\s+been)\s+(?:now\s+|still\s+)?(?:taking|on)|"
    r"i\s+(?:take|took|stopped\s+taking|quit\s+taking)|"
    # as chat leaves the speaker out: "been on lamotrigine since 2023", "taking omeprazole"
    r"^\W*(?:(?:just\s+|now\s+)?(?:been|started)\s+(?:taking|on)|(?:now\s+)?taking))"
    r"\s+(?:(?P<before>"
    + _DOSE
    + r")\s+(?:of\s+)?)?(?P<med>vitamin\s+[A-Za-z]\d{0,2}\b|[A-Za-z][\w\-]+(?:\s+"
    + _SALT
    + r")?)"
    r"(?P<dose>\s+" + _DOSE + r")?",
    re.IGNORECASE,
)
# Endings of common drug names (without a dose or a prescription, only these count).
_DRUG_FORM = re.compile(
    r"(?:pril|olol|sartan|statin|azole|mab|dipine|oxetine|aline|cillin|cycline|mycin|profen|"
    r"formin|prazole|tidine|lukast|zepam|zolam|triptan|parin|xaban|thyroxine|amol|tonin|sone|apine|"
    r"pram|afil|insulin|vir|azine|etamine)$",
    re.IGNORECASE,
)
# Another drug named before a dose: "on lamotrigine and on sertraline, 50mg".
_ANOTHER_DRUG = re.compile(r"\b(?:on|taking|take|takes)\s+[A-Za-z][\w\-]+", re.IGNORECASE)
_NOT_DRUGS = frozenset(
    """a an the it my this that holiday vacation leave board track time medication medicine
    pills meds antibiotics something nothing""".split()
)
_STOPPED = re.compile(r"\b(?:stopped|quit|came\s+off|went\s+off)\b", re.IGNORECASE)


def _singular(word: str) -> str:
    lower = word.lower()
    if lower.endswith("ies") and len(lower) > 4:
        return word[:-3] + "y"
    if lower.endswith("s") and not lower.endswith(("ss", "us", "is", "sh")) and len(lower) > 3:
        return word[:-1]
    return word


def _allergen(phrase: str) -> str | None:
    head = cut(phrase)
    words = head.split()
    if not words or len(words) > 3:
        return None
    words[-1] = _singular(words[-1])
    return p.make_label(" ".join(words))


def _condition(c: Clause, phrase: str) -> str | None:
    head = cut(phrase, time_phrase(phrase, c.anchor))
    head = re.sub(
        r"^(?:(?:a|an|the|mild|severe|chronic|bad|really\s+bad)\s+)+", "", head, flags=re.I
    )
    words = head.split()
    if not words or len(words) > 4:
        return None
    last = words[-1].lower()
    if last not in _CONDITIONS and not _CONDITION_FORM.search(head):
        return None
    return p.make_label(head)


def _medication(c: Clause) -> Found:
    match = _MEDICATION.search(c.text)
    if not match:
        return []
    med = match.group("med")
    if med.lower() in _NOT_DRUGS:
        return []
    # its dose right after it, or later in the sentence ("been on lamotrigine since 2023,
    # 200mg"): only its own, in a sentence that names no other drug
    after = c.sentence[c.sentence.find(med) + len(med) :] if med in c.sentence else ""
    later = re.search(_DOSE, after, re.IGNORECASE)
    if later and _ANOTHER_DRUG.search(after[: later.start()]):
        later = None
    dose = match.group("dose") or match.group("before") or (later.group(0) if later else "")
    dose = dose.strip()
    if (
        not dose
        and not _DRUG_FORM.search(med)
        and not re.search(r"prescri|(?:put|placed)\s+me\s+on", c.text, re.I)
    ):
        return []
    label = p.make_label(med)
    if not label:
        return []
    stopped = _STOPPED.search(c.text[: match.end()])
    started = re.search(
        r"\b(?:(?:put|placed|switched|moved|changed)\s+me\s+(?:on|onto|to)|prescribed|started)\b",
        c.text,
        re.IGNORECASE,
    )
    found = slice_(c, label, HEALTH, SliceKind.OTHER.value, f"Takes {label} {dose}".strip())
    if stopped:
        found += event(c, label, HEALTH, EventAction.STOPPED.value, IMPORTANT)[1:]
    elif started or time_phrase(c.text, c.anchor):
        found += event(c, label, HEALTH, EventAction.STARTED.value, IMPORTANT)[1:]
    return found


# The words said before a condition that keep it the person's own ("my type 1 diabetes",
# "my chronic migraines"); any other ("my little brother's asthma", "my partner
# Sam's diabetes") may make it someone else's.
_OWN_MODIFIERS = frozenset("type 1 2 i ii chronic seasonal severe mild coeliac celiac".split())
# After "my" a medical suffix alone says too little ("my trophy", "my diagnosis", "my
# sympathy"): a condition is one the list knows, or one named as such ("my coeliac disease").
_NAMED_CONDITION = re.compile(
    r"\s(?:disease|syndrome|disorder|deficiency|cancer|diabetes)$", re.IGNORECASE
)
# A condition's name that is also a passing feeling: "my anxiety about the exam".
_ALSO_FEELINGS = frozenset({"anxiety"})
_DENIED = re.compile(r"\b(?:not|never|no\s+longer|without)\b|n['’]t\b", re.IGNORECASE)


# A condition of the person's said back or flaring, with "the" as chat says it: "the gout's
# back", "the eczema has flared up again".
_THE_FLARES = re.compile(
    r"\bthe\s+(?P<what>[A-Za-z'’-]+(?:\s+[A-Za-z'’-]+)?)(?:['’]s|\s+is|\s+has)\s+"
    r"(?:(?:come\s+)?back|flared|flaring|playing\s+up|acting\s+up|kicking\s+off)\b",
    re.IGNORECASE,
)


def _own_condition(c: Clause) -> str | None:
    """The condition said right after "my" ("my asthma", "my type 1 diabetes"), the longest
    reading of up to four words; none in a clause that denies something ("my asthma is not
    the problem"). An operation ("my hip replacement is booked") is not read: said of one
    to come, it is no event yet."""
    if _DENIED.search(c.text):
        return None
    flares = _THE_FLARES.search(c.text)
    if flares and condition_word(flares.group("what").split()[-1]):
        return p.make_label(flares.group("what"))
    for match in _MY.finditer(c.text):
        words = re.findall(r"[A-Za-z0-9'’-]+", match.group("rest"))[:4]
        for end in range(len(words), 0, -1):
            head = " ".join(words[:end])
            if any(w.lower() not in _OWN_MODIFIERS for w in words[: end - 1]):
                continue  # "my dad's arthritis", "my son asthma": someone else's
            last = words[end - 1].lower()
            if (last in _CONDITIONS and last not in _ALSO_FEELINGS) or (
                end > 1 and _NAMED_CONDITION.search(head)
            ):
                return p.make_label(head)
    return None


# A procedure the person has had on a part of their body: "I had knee surgery in March", "I've
# had a hip replacement". One to come ("my hip replacement is booked") is no event yet, and
# said with "my" it is as often a plan as a past.
_PROCEDURES = r"replacement|surgery|operation|op|reconstruction|transplant|arthroscopy|fusion"
_PROCEDURE = re.compile(
    r"\bi(?:\s+had|\s+have\s+had|['’]ve\s+had|\s+just\s+had|\s+finally\s+had)\s+"
    r"(?:(?:a|an|the|my|new|left|right|full|partial|total|keyhole|emergency|second|first)\s+)*"
    r"(?P<part>[a-z]+)\s+(?P<what>" + _PROCEDURES + r")\b",
    re.IGNORECASE,
)


def _procedure(c: Clause) -> Found:
    match = _PROCEDURE.search(c.text)
    if not match or match.group("part").lower() not in BODY_PARTS:
        return []
    part = match.group("part").lower()
    what = match.group("what").lower()
    what = "operation" if what == "op" else what
    label = p.title_case(f"{'ACL' if part == 'acl' else part} {what}")
    if time_phrase(c.text, c.anchor):
        return event(c, label, HEALTH, EventAction.OTHER.value, IMPORTANT)
    return slice_(c, label, HEALTH, SliceKind.OTHER.value)


# Conditions of more than one word whose last word names none alone.
_CONDITION_PHRASES = re.compile(
    r"\b(?:(?:herniated|slipped|bulging|prolapsed)\s+discs?|frozen\s+shoulder|tennis\s+elbow|"
    r"golfer['’]?s\s+elbow|shin\s+splints|restless\s+legs|high\s+cholesterol|"
    r"(?:it|itb)\s+band\s+syndrome|pre[\s-]?diabetes|prediabetes)\b",
    re.IGNORECASE,
)
# A word that says which condition ("rheumatoid arthritis", "ulcerative colitis", "type 1
# diabetes"), said before it; not one that only says how bad.
_CONDITION_MODIFIER = re.compile(r"^(?:[a-z]{3,}(?:al|ar|ic|oid|ous|ary|ile|ial)|type|[12])$", re.I)
_NOT_MODIFIERS = frozenset(
    """real general total usual actual typical terrible horrible awful critical medical
    physical mental chronic clinical regular similar familiar particular special several
    various original""".split()
)
# The person's own: someone who says "I", "me" or "my" in the clause, or a clause that names
# nobody and says since when ("bursitis in my right hip since the spring", "slipped disc
# since last year"), or what a doctor says it is ("the rheumatologist reckons it's lupus").
_FIRST_PERSON = re.compile(r"\b(?:i|me|my|i['’](?:m|ve|d|ll))\b", re.IGNORECASE)
_SINCE = re.compile(
    r"\bsince\b|\bfor\s+(?:\d+|a|an|two|three|four|five|six|many)\s+"
    r"(?:years?|months?|weeks?|yrs?)\b",
    re.IGNORECASE,
)
_DOCTOR_SAYS = re.compile(
    r"\b(?:doctor|doc|dr|gp|physio|physiotherapist|consultant|specialist|nurse|dermatologist|"
    r"cardiologist|neurologist|rheumatologist|optician|dentist|surgeon)\s+(?:says?|said|thinks|"
    r"reckons|told\s+me|confirmed|diagnosed)\b",
    re.IGNORECASE,
)
# Someone else's: "his", "her", "their", a name's "'s", "he", "she", "they", "my brother ..."
_RELATION_WORD = "|".join(
    sorted((re.escape(w) for w in RELATIONS if len(w) > 2), key=len, reverse=True)
)
_ANOTHERS = re.compile(
    r"\b(?:his|her|their|he|she|they|he['’]s|she['’]s|they['’](?:re|ve))\b|"
    r"\b(?!(?:it|that|what|there|here|let|who|where|how)['’]s\b)[a-z]+['’]s\s+(?=[a-z])|"
    r"\b(?:my|our)\s+(?:[a-z]+\s+)?(?:" + _RELATION_WORD + r")\b",
    re.IGNORECASE,
)
# What the condition names when a noun follows it: a cause, a place, a job ("cancer research",
# "the dementia ward", "a diabetes nurse"); not a treatment ("the eczema cream").
_NOT_OWN_AFTER = frozenset(
    """research charity awareness ward clinic nurse nurses society foundation trust uk
    association patients patient unit month week day run walk fundraiser appeal team
    specialist specialists service services support group book documentary article
    podcast study studies""".split()
)
# "Tietze syndrome", "Sjogren's syndrome", "Addison's disease": the kind said after what it is.
_NAMED_KIND = re.compile(
    r"\b(?P<which>(?:[A-Za-z][\w'’-]*\s+){0,1}[A-Za-z][\w'’-]*)\s+(?:syndrome|disease|disorder)\b"
)
_NOT_WHICH = frozenset(
    """it's its it the a an my his her their this that what which have has had with got
    some no any of is was be been rare weird strange""".split()
)
_ABOUT = re.compile(r"\b(?:about|on|regarding)\s+(?:(?:the|a|an)\s+)?$", re.IGNORECASE)


def _condition_at(text: str) -> tuple[str, int] | None:
    """The first condition ``text`` names anywhere, with where it starts: a phrase the list
    knows, or a condition word with the words before it that say which."""
    found = _CONDITION_PHRASES.search(text)
    if found:
        return found.group(0), found.start()
    named = _NAMED_KIND.search(text)
    if named:
        which = named.group("which").split()
        while which and which[0].lower() in _NOT_WHICH:
            which = which[1:]
        if which:
            start = named.start() + named.group(0).index(which[0])
            return text[start : named.end()], start
    words = list(re.finditer(r"[A-Za-z][A-Za-z'’-]*|\d", text))
    for i, word in enumerate(words):
        w = word.group(0).lower()
        if not condition_word(w) or w in _ALSO_FEELINGS:
            continue
        start = i
        while (
            start > 0
            and i - start < 2
            and _CONDITION_MODIFIER.match(words[start - 1].group(0))
            and words[start - 1].group(0).lower() not in _NOT_MODIFIERS
        ):
            start -= 1
        return text[words[start].start() : word.end()], words[start].start()
    return None


# What the life events read of a condition: its diagnosis, recovery or injury.
_LIFE_EVENT = re.compile(
    r"\b(?:diagnos\w*|recover\w*|got\s+over|cured|in\s+remission|injur\w*|broke|tore|"
    r"sprained)\b",
    re.IGNORECASE,
)


def _mentioned_condition(c: Clause) -> str | None:
    """A condition named anywhere in a clause that is the person's own, as chat says it with
    no "I have": "bursitis in my right hip since the spring", "the GP put me on allopurinol
    for gout", "I still use the psoriasis cream", "the rheumatologist reckons it's frozen
    shoulder". Not another's ("my uncle had the same angina", "her psoriasis"), not a topic ("a
    podcast about dementia", "cancer research"), not denied and not a question."""
    text = c.text
    if _DENIED.search(text) or text.rstrip().endswith("?") or p.is_question(text):
        return None
    if _LIFE_EVENT.search(text):
        return None  # "I was diagnosed with ...", "I've recovered from ...": a life event's
    at = _condition_at(text)
    if at is None:
        return None
    phrase, start = at
    before = text[:start]
    following = re.match(r"\s+([a-z]+)", text[start + len(phrase) :], re.I)
    if following and following.group(1).lower() in _NOT_OWN_AFTER:
        return None
    if _ANOTHERS.search(before) or _ABOUT.search(before):
        return None
    if not (_FIRST_PERSON.search(text) or _SINCE.search(text) or _DOCTOR_SAYS.search(before)):
        return None
    phrase = re.sub(r"^pre[\s-]+diabetes$", "prediabetes", " ".join(phrase.split()), flags=re.I)
    return p.make_label(phrase)


def health(c: Clause) -> Found:
    found: Found = _procedure(c)
    if found:
        return found
    match = _INTOLERANT.search(c.text)
    if match and (what := p.make_label(match.group("what"))):
        found += slice_(c, f"{what} Intolerance", HEALTH, SliceKind.OTHER.value)
    match = _ALLERGIC.search(c.text)
    if match and (what := _allergen(match.group("what"))):
        found += slice_(c, f"{what} Allergy", HEALTH, SliceKind.OTHER.value)
    match = _HAVE_ALLERGY.search(c.text)
    if match and (what := p.make_label(match.group("what"))):
        kind = match.group("kind").title()
        found += slice_(c, f"{what} {kind}", HEALTH, SliceKind.OTHER.value)
    match = _MEASURE.search(c.text)
    if match:
        level = "High" if match.group("level").lower() != "low" else "Low"
        measure = p.title_case(" ".join(match.group("measure").split()))
        found += slice_(c, f"{level} {measure}", HEALTH, SliceKind.OTHER.value)
    medication = _medication(c)
    found += medication
    if medication and (label := _mentioned_condition(c)):  # "put me on it for angina"
        found += slice_(c, label, HEALTH, SliceKind.OTHER.value)
    if not found:
        # the first verb that names a condition: "I got told last week I have restless legs
        # syndrome" ("got" names none)
        at = 0
        while match := _CONDITION_VERB.search(c.text, at):
            if label := _condition(c, match.group("what")):
                found += slice_(c, label, HEALTH, SliceKind.OTHER.value)
                break
            at = match.start() + 1
    if not found and (label := _own_condition(c) or _mentioned_condition(c)):
        found += slice_(c, label, HEALTH, SliceKind.OTHER.value)
    return found
