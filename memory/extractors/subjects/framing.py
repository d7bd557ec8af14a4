"""Whose life a sentence is about, and what kind of thing a subject is, without templates.

- **First person**: the speaker is in the sentence ("I", "my", "we", "our", "me", "us"). A
  sentence about the world at large ("Rotterdam is a port city") is not a memory of the person.
- **About the person's life**: the local embedding model (wordllama, the one recall uses; its
  weights ship in its wheel) scores how close the sentence is to short descriptions of a life
  (family, home, work, health, pets, hobbies, plans) against talk about the conversation itself
  (the assistant, code, the answer). A number, used as evidence, never a rule.
- **Category**: a name is a place after "in/to/from/near", an organisation after "at/for/with
  ... at", a person when English knows it as a given name; anything else is filed by the
  category description its phrase (read with its sentence) is closest to.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from memory.extractors.patterns import compiled
from memory.extractors.rules.people import RELATIONS
from memory.extractors.subjects.given_names import world_given_name, world_names
from memory.extractors.subjects.phrases import Phrase, tag
from memory.keys import canonical_key, is_honorific, titled_name
from memory.recall.embed import embed
from memory.tombstones import _given_name
from memory.vocab import Category

# "im" and "ive" as people type them without the apostrophe.
_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself|we|we're|we've|us|our|ours)\b", re.I
)

# What a life is made of, and what a conversation with an assistant is made of besides it.
_LIFE = (
    "my family, my kids, my partner, my friends and the people I love",
    "my home, where I live, moving house, my neighbourhood and my city",
    "my job, my work, my career, my boss, my studies and my school",
    "my health, an illness, my doctor, an injury, therapy and my body",
    "my dog, my cat, my pets and the animals I keep",
    "my hobbies: painting, music, sport, running, reading, cooking, pottery, gardening",
    "a trip I took, a holiday, a concert, an event I went to, a race I ran",
    "my plans, my goals, my dreams and what I hope to do next year",
    "how I feel, what I believe, what matters to me and what I went through",
)
_NOT_LIFE = (
    "the assistant's answer, the code, the output, this chat and the prompt",
    "a general fact about the world, the weather, the news, a definition",
    "small talk: thanks, that's great, sounds good, nice to hear",
)
_CATEGORIES: dict[str, str] = {
    Category.FAMILY.value: "family: my mother, father, sister, brother, kids, son, daughter, husband, wife",
    Category.HEALTH.value: "health: illness, injury, doctor, medication, therapy, symptoms, surgery",
    Category.HABIT.value: "a hobby or habit: painting, running, pottery, yoga, reading, camping, cooking",
    Category.PLACE.value: "a place: a city, a country, a town, a beach, a park, a mountain, a lake",
    Category.ORGANIZATION.value: "an organisation: a company, a school, a university, a charity, a club, a shelter",
    Category.POSSESSION.value: "something I own: a car, a house, a bike, a guitar, a pet dog or cat",
    Category.LIFE_EVENT.value: "a life event: a wedding, a birth, a funeral, graduation, moving, a divorce, adoption",
    Category.GOAL.value: "a goal or plan: a dream, a career goal, something I want to achieve",
    Category.IDENTITY.value: "who I am: my job title, my role, my identity, my background",
    Category.INTEREST.value: "an interest: a cause, a topic, a book, a film, a kind of music, art",
    Category.SKILL.value: "a skill I am learning: a language, an instrument, a course, a class",
}
# What a subject of a life is (someone, somewhere, something done or owned) and what it is
# not: a feeling, a quality, encouragement, an abstract idea. Kept apart from _LIFE, which
# reads whole sentences; these read a phrase alone.
_THINGS = (
    "a person: a friend, a relative, a partner, a child, a colleague",
    "a pet or an animal: a dog, a cat, a horse, a guinea pig",
    "a place: a city, a country, a town, a beach, a park, a house, a garden, a farm",
    "an organisation: a company, a school, a shelter, a club, a charity, a store, a team",
    "an activity or hobby: painting, pottery, camping, dancing, running, a class, a course",
    "an event: a concert, a conference, a parade, a trip, a race, a wedding, an exam",
    "an object: a car, a guitar, a bike, a book, a necklace, a painting",
    "work and study: a job, a business, an internship, a degree, a project",
    "health: an illness, an injury, therapy, a doctor, medication",
)
_NOT_THINGS = (
    "a feeling or emotion: joy, awe, peace, fulfillment, gratitude, happiness",
    "a quality or virtue: courage, kindness, strength, resilience, compassion, dedication",
    "encouragement, support, appreciation, reminders, motivation, inspiration",
    "an abstract idea: freedom, dreams, moments, memories, connections, challenges, vibes",
)
# What a name that is not a person's can be.
_NAMED_KINDS = (
    Category.FAMILY.value,
    Category.PLACE.value,
    Category.ORGANIZATION.value,
    Category.POSSESSION.value,
    Category.INTEREST.value,
    Category.LIFE_EVENT.value,
    Category.HEALTH.value,
)
_PLACE_BEFORE = frozenset(
    """in to from near around visit visited visiting across above below outside beyond via
    towards toward""".split()
)
# "to" before a name makes it a place ("moved to Leeds", "a holiday we had to Crete") but
# after a word of saying or giving, where a single name is someone ("goodbye to Max", "a
# letter to Priya").
_SAID_TO = frozenset(
    """talk talked talking spoke speak speaking said say says saying wrote write writing
    letter letters message messages text texted note card gave give giving sent send sending
    goodbye bye hello hi introduced introduce married engaged explained explain apologised
    apologized listen listened lent showed show read sang waved reached replied reply
    proposed""".split()
)
ORG_BEFORE = frozenset("at for joined join with".split())


# "My friend ...", "my sister's ...": the sentence is about someone else (the rules read
# relations, and chat's words for a friend); "my dog", "my garden" are still the person's own
# life. So is what someone who serves the person says or does for them ("my vet said Biscuit
# needs a dental", "my pastor asked me to lead the choir at St Mary's"), and "our baby is due
# in April" (a baby's life is the parents' at that age).
_SERVING = frozenset(
    "coach counsellor counselor dentist director doctor gp landlady landlord lead midwife "
    "nurse pastor physio physiotherapist priest psychiatrist psychologist supervisor "
    "therapist trainer tutor vet baby".split()
)
_OTHERS = {
    w for w, category in RELATIONS.items() if category != Category.POSSESSION
} - _SERVING | set("mate mates bestie bff friends kid family sis bro".split())
_OTHER_PERSON = re.compile(
    r"\b(?:my|our)\s+(?:(?:best|old|close|new|little|big|older|younger|eldest|oldest|"
    r"youngest|baby|twin)\s+)?(?:"
    + "|".join(re.escape(w) for w in sorted(_OTHERS, key=len, reverse=True))
    + r")\b",
    re.IGNORECASE,
)


def _head(text: str) -> list[str]:
    """The words of the first clause before its first verb: where its subject is."""
    sentences = tag(text)
    tokens = sentences[0] if sentences else []
    head: list[str] = []
    for word, pos, _chunk in tokens:
        if pos.startswith(("VB", "MD")) and head and word.lower() not in ("i'm", "'m"):
            break
        head.append(word)
    return head


# Where a clause of its own may start inside a sentence: after a comma, a semicolon, a colon
# or a dash, or a coordinating conjunction.
_CLAUSE_BREAK = frozenset({",", ";", ":", "-", "--", "and", "but", "so", "then"})


# "and I think she loves it": the speaker's opinion of someone else's clause, not their own.
_OPINION = frozenset(
    "think thought guess know knew reckon suppose believe hope feel mean wonder".split()
)


# What a clause ends with when the next one starts with "I" and no stop between them.
_RUN_ON_END = frozenset({"NN", "NNS", "NNP", "NNPS", "CD"})


def _clause_led(tokens: list[tuple[str, str, str]]) -> bool:
    """A later clause of the sentence has the speaker as its subject: "I" or "we" right after
    a clause break and followed by its verb ("a group called the Saltdean Dippers, we go on
    Tuesdays", "the new hip is in and I am walking with one stick")."""
    for at in range(1, len(tokens) - 1):
        # after a clause break, or, in speech typed without stops, right after a noun or a
        # number that ends the clause before ("... I am Desmond I drove the number 4 bus")
        run_on = tokens[at - 1][1] in _RUN_ON_END and tokens[at][0] == "I"
        if tokens[at - 1][0].lower() not in _CLAUSE_BREAK and not run_on:
            continue
        # After "I"/"we" the next word is its verb (or an adverb before it), whatever the
        # tagger says ("we train": it reads "train" as a noun).
        word, pos, _chunk = tokens[at + 1]
        led = tokens[at][0].lower() in ("i", "we") and pos.startswith(("VB", "MD", "NN", "RB"))
        if led and word.lower() not in _OPINION:
            return True
    return False


# Adverbs a diary-style sentence may open with before its verb: "just got back", "finally
# booked it".
_OPENERS = frozenset("just finally still also really literally only recently".split())
# Verbs of the speaker's own wants and feelings, which chat opens with in the present ("want
# to go sea kayaking this summer", "love my new bike"); never a request to the listener.
_STANCE = frozenset("want wanna need love hate miss wish hope".split())
# A verb with one of these after it had someone else as its subject: "made me laugh",
# "reminded us of home" (it did).
_OBJECTS = frozenset("me us myself".split())


def _elided(tokens: list[tuple[str, str, str]]) -> bool:
    """The sentence leaves out its subject, as people type a diary or a chat: it opens with
    a verb in the past ("got an interview at ...", "called her Pudding", "just been diagnosed
    with ..."), a verb of wanting or feeling ("want to learn the cello") or a gerund that is
    not itself the subject ("playing chess online every night", "heading to Ljubljana in may",
    not "quilting has taken over the spare room"), and the verb does not reach the speaker
    ("made me laugh": it did)."""
    at = 0
    while at < len(tokens) and tokens[at][0].lower() in _OPENERS:
        at += 1
    if at >= len(tokens):
        return False
    word, pos, _chunk = tokens[at]
    after = [w.lower() for w, _p, _c in tokens[at + 1 : at + 3]]
    if after[:1] and after[0] in _OBJECTS:
        return False
    if pos in ("VBD", "VBN") or word.lower() in _STANCE:
        return True
    following = tokens[at + 1][1] if at + 1 < len(tokens) else ""
    if pos == "NN" and word.lower().endswith("ing") and following in ("DT", "PRP$", "TO"):
        return True  # "heading to Ljubljana in may": a gerund the tagger read as a noun
    return pos == "VBG" and not following.startswith(("VBZ", "VBD", "VBP", "MD"))


def first_person(sentence: str, before: str = "") -> bool:
    """The speaker says it of themselves: "I"/"we"/"my ..." leads the sentence, before its
    verb, and is not "my friend"/"my sister" (then it is about them); or "I"/"we" leads a
    clause of its own later in it (a run-on sentence or a comma splice: "the physio says I'm
    ahead of schedule and I am walking with one stick"); or the sentence leaves its subject
    out, as chat does ("got an interview at Airbus next week": :func:`_elided`), but for
    right after ``before`` (the sentence before it in the message) when that one is about
    someone else, whose subject a sentence without one goes on with ("My sister adopted a
    whippet. Moved to Leeds with him in May.": the sister moved). "My partner and I ..." is
    the speaker's too."""
    text = sentence.replace("’", "'")
    head = " ".join(_head(text))
    if _OTHER_PERSON.search(head):
        return bool(_SPEAKER.search(head))  # "my partner and I are moving": both of them
    if _FIRST_PERSON.search(head):
        return True
    sentences = tag(text)
    if not sentences:
        return False
    if _clause_led(sentences[0]):
        return True
    return _elided(sentences[0]) and not (before and led_by_another(before))


# Who a sentence is about when it starts with them: "she", "they", ...
_THIRD_PERSON = frozenset("he she they he's she's they're he'd she'd they'd".split())
_SPEAKER = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|we|we're|we've|us)\b", re.I)


def led_by_another(sentence: str) -> bool:
    """The sentence is about someone other than the speaker: its subject, before its first
    verb, is someone of theirs ("my sister", "our neighbour") or a third person ("she",
    "they"), and not the speaker too ("my sister and I ...")."""
    head = _head(sentence.replace("’", "'"))
    said = " ".join(head)
    if not head or _SPEAKER.search(said):
        return False
    return bool(_OTHER_PERSON.search(said)) or head[0].lower() in _THIRD_PERSON


def owned(sentence: str, words: tuple[str, ...]) -> bool:
    """The sentence names the phrase as the speaker's: "my"/"our" and up to three words
    before it ("reminds me of my grandad Wilf", "our old caravan", "my great-grandfather,
    William Trevenna"), right after it ("Glenys my wife", "Ravi, our accountant") or in
    brackets after it ("Oskar (bf)")."""
    if not words:
        return False
    text = sentence.replace("’", "'")
    before = r"\b(?:my|our)\s+(?:[\w'-]+,?\s+){0,3}?" + re.escape(words[0]) + r"\b"
    after = r"\b" + re.escape(words[-1]) + r"\s*,?\s+(?:my|our)\s+\w"
    return bool(
        compiled(before, re.IGNORECASE).search(text)
        or compiled(after, re.IGNORECASE).search(text)
        or _bracketed(words, text) is not None
    )


# What a name is to the speaker said in brackets right after it, as people type notes:
# "Wren (my physio)", "Oskar (bf)", "Quillpad (my side project)".
_BRACKETED = r"\s*\(\s*(?:my\s+|our\s+)?((?:[\w'’-]+\s*){1,3})\)"


def _bracketed(words: tuple[str, ...], sentence: str) -> str | None:
    """The category of a relation, a kind of work or a kind of place said in brackets right
    after the name (:data:`_BRACKETED`), else None."""
    if not words:
        return None
    found = compiled(r"\b" + re.escape(words[-1]) + _BRACKETED, re.IGNORECASE).search(sentence)
    return _kind_said(found.group(1)) if found else None


# Who does what in a run-on sentence: the nearest subject before a phrase says whose it is.
_SPEAKER_SUBJECT = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|i'll|we|we're|we've|we'll)\b", re.I)
# Where the speaker is, said of a place right after it, with no one else's subject before.
_WHERE_I_AM = re.compile(r"\b(here|back|home)\s+in\s+$", re.I)
_OTHER_SUBJECT = re.compile(r"\b(?:he|she|they|he's|she's|they're|they've|who)\b", re.I)


def _ahead(sentence: str, words: tuple[str, ...]) -> str | None:
    """What the sentence says before the phrase first comes (apostrophes made plain), or None
    when it does not say it."""
    if not words:
        return None
    text = sentence.replace("’", "'")
    found = compiled(r"\b" + re.escape(words[0]) + r"\b", re.IGNORECASE).search(text)
    return None if found is None else text[: found.start()]


def led_here(sentence: str, words: tuple[str, ...]) -> bool:
    """The nearest subject before the phrase is the speaker's "I" or "we": in a sentence that
    someone else opens and the speaker goes on in without a stop ("my daughter set this up
    for me so here goes I drove the number 4 bus in Swansea for thirty years"), the part
    after "I" is the speaker's; not so "my sister moved to Leeds and I helped" (Leeds comes
    before "I") or "I think my brother loves Lisbon" (his subject is nearer). So is a place
    said as where the speaker is: "here in ..." ("it's 9pm here in montreal", whoever else
    the sentence speaks of), "back in ..." or "home in ..." when no one else's subject comes
    before it ("back in portland!!", not "my sister is back in Portland")."""
    ahead = _ahead(sentence, words)
    if ahead is None:
        return False
    others = [m.end() for m in _OTHER_SUBJECT.finditer(ahead)]
    others += [m.end() for m in _OTHER_PERSON.finditer(ahead)]
    where = _WHERE_I_AM.search(ahead)
    if where is not None and (where.group(1).lower() == "here" or not others):
        return True  # "its 9:30pm here in montreal" ("here" is the speaker's), "back in portland!!"
    mine = [m.end() for m in _SPEAKER_SUBJECT.finditer(ahead)]
    return bool(mine) and mine[-1] > max(others, default=-1)


# Someone else leading a clause: "he", "she" or "they" first in it, then the clause goes on
# ("..., he moved to ...", "and she flew to ...").
_OTHER_LEADS = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|but|so|then|because|cos|since|now)\s+)(?:he|she|they)\s+\w",
    re.IGNORECASE,
)


def led_by_other_here(sentence: str, words: tuple[str, ...]) -> bool:
    """The phrase is in a clause someone else leads after the speaker led one: "i dont share
    with Bram any more, he moved to Utrecht" (Utrecht is where he went), not "he moved out so
    I took the flat in Leith" nor a sentence someone else opens ("My son ... He wears a
    Libre sensor now and we are learning to count carbs": whose it is, the sentence does not
    say by its order)."""
    ahead = _ahead(sentence, words)
    if ahead is None:
        return False
    others = [m.end() for m in _OTHER_LEADS.finditer(ahead)]
    mine = [m.end() for m in _SPEAKER_SUBJECT.finditer(ahead)]
    return bool(others and mine) and others[-1] > mine[-1]


_SELF_AFTER = re.compile(r"\b(?:me|my|us|our)\b", re.IGNORECASE)
# What someone tells the person is their news, not something they do in the person's life.
_TOLD = re.compile(
    r"(?:\w+\s+){0,2}?(?:told|tells|tell|said|says|say|texted|texts|messaged|mentioned|"
    r"emailed|rang|called|wrote|announced|posted|reckons|thinks|thought|heard)\b",
    re.IGNORECASE,
)


def serves(sentence: str, words: tuple[str, ...]) -> bool:
    """The phrase, a person's name ("Mr Ravi Mensah", "Ravi Mensah"), leads the sentence and
    what it does reaches the speaker ("... is doing my taxes", "... taught me to swim"):
    someone in the person's life, said of them as plainly as "my accountant Ravi". A name
    said of its own news ("Meera's flight is tomorrow") does not reach them."""
    text = sentence.replace("’", "'")
    if not words or not _person(words, text):
        return False
    head = _head(text)
    said = " ".join(head)
    if _FIRST_PERSON.search(said) or not compiled(
        r"\b" + r"\s+".join(re.escape(w) for w in words) + r"\b"
    ).search(said):
        return False
    sentences = tag(text)
    rest = " ".join(word for word, _pos, _chunk in (sentences[0] if sentences else [])[len(head) :])
    if _TOLD.match(rest) or _OTHER_PERSON.search(rest):
        return False  # "... told me he's moving", "... fixed my sister's car": their news
    return bool(_SELF_AFTER.search(rest))


# What may come before a name that leads a clause: the start of the sentence, a clause break,
# or a word chat opens with ("so", "also", "anyway", "and then").
_LEADS_IN = _CLAUSE_BREAK | frozenset("also anyway plus oh well ok okay yeah".split())


# Verbs only a person does (speaks, thinks, feels, cries): a word of a name that leads them is
# someone ("Cathal cried", "Zuzia says"), not a place or a company.
_PEOPLE_DO = frozenset(
    """say tell ask think reckon believe want cry laugh smile feel agree insist promise
    complain admit refuse decide hope worry text ring call email message moan joke swear
    whisper shout scream yell sob giggle blush apologise apologize""".split()
)


def _base(verb: str) -> str:
    """The base form of a verb as typed, as far as the verbs of :data:`_PEOPLE_DO` need it
    ("says", "cried", "laughed", "told", "thought")."""
    irregular = {
        "said": "say",
        "told": "tell",
        "thought": "think",
        "rang": "ring",
        "swore": "swear",
    }
    if verb in irregular:
        return irregular[verb]
    for ending, base in (("ies", "y"), ("ied", "y"), ("es", ""), ("ed", ""), ("s", ""), ("d", "")):
        if verb.endswith(ending) and verb[: -len(ending)] + base in _PEOPLE_DO:
            return verb[: -len(ending)] + base
    return verb


_ASIDE_MAX = 16  # tokens of an aside between a name and its verb


def _past_aside(tokens: list[tuple[str, str, str]], at: int) -> int:
    """The index of the first token after an aside that opens at ``at`` (a bracket, or a
    comma closed by another comma before a verb), or ``at`` when none opens there."""
    if at >= len(tokens) or tokens[at][0] not in ("(", ","):
        return min(at, len(tokens) - 1)
    close = ")" if tokens[at][0] == "(" else ","
    for end in range(at + 1, min(len(tokens), at + _ASIDE_MAX)):
        word, pos, _chunk = tokens[end]
        if close == "," and pos.startswith(("VB", "MD")):
            break  # "Tom, said Ana, ...": a clause, not an aside
        if word == close:
            return min(end + 1, len(tokens) - 1)
    return at


@lru_cache(maxsize=4096)
def acquainted(sentence: str, words: tuple[str, ...]) -> bool:
    """A given name alone leads a clause of the sentence and its verb comes next ("Jo says
    I've become insufferable", "cathal cried (obviously)", "so Zuzia say the bath is like
    porridge"): someone the speaker knows by first name, the way people speak of family and
    friends to someone who knows them. Not a name before its own news ("Meera's flight is
    tomorrow"), a full name ("Ed Sheeran played ..."), a name asked about ("did Jo call?")
    nor a word of a name the given-name lists do not know before a verb a place or a company
    may do ("Quillbridge raised a round"): that one must speak, think or feel
    (:data:`_PEOPLE_DO`: "Cathal cried"), nor one joined to the listener ("you and Max had a
    great time": who the listener was with is the listener's news)."""
    if len(words) != 1:
        return False
    given = given_name(words[0])
    text = sentence.replace("’", "'").strip()
    if text.endswith("?"):
        return False
    for tokens in tag(text):
        for at, (word, _pos, _chunk) in enumerate(tokens[:-1]):
            if word.lower() != words[0].lower():
                continue
            before = [w.lower() for w, _p, _c in tokens[:at]]
            if before and not (
                before[-1] in _CLAUSE_BREAK or (len(before) == 1 and before[0] in _LEADS_IN)
            ):
                continue
            if before[-2:] in (["you", "and"], ["u", "and"], ["you", "&"]):
                continue  # "sounds like you and Max had a great time": the listener's company
            # its verb, in any person ("Zuzia say ...", as a learner of English types it); a
            # name the lists do not know ("Cathal", "Zuzia") by a verb only a person does;
            # after what is said of the name in brackets or between commas ("bola (the new
            # mechanic, started last week) said", "Tom, my neighbour, says")
            verb, pos, _chunk = tokens[_past_aside(tokens, at + 1)]
            if pos in ("VB", "VBZ", "VBD", "VBP", "MD") and (
                given or _base(verb.lower()) in _PEOPLE_DO
            ):
                return True
    return False


def _titled(words: tuple[str, ...]) -> bool:
    """A title before a name: "Mr Ravi Mensah", "Dr. Boateng", "Mme Gagnon"."""
    return len(words) > 1 and is_honorific(words[0].lower().rstrip("."))


def given_name(word: str) -> bool:
    """A given name: one the nickname lists know ("Dan", "Kate"), or one of the world's that
    English does not know as a word (:mod:`.given_names`: "Priya", "Siobhan")."""
    return _given_name(word.lower()) or world_given_name(word)


def _person(words: tuple[str, ...], sentence: str) -> bool:
    """A person's name: a title before a name, a given name first, or a name the sentence
    goes on to say "who" of ("Ravi Mensah, who keeps my books")."""
    if _titled(words) or given_name(words[0]):
        return True
    return bool(compiled(rf"\b{re.escape(words[-1])}\s*,\s*who\b").search(sentence))


# A name right after a negation, across a preposition or an article and the verbs of going
# and meeting: "but never to Lyon", "rather than VS Code", "not Tom", "haven't met Ana".
_NEGATED = re.compile(
    r"(?:\bnever|\bnot|\bno|\bnor|n['’]t|\brather\s+than|\binstead\s+of|\bexcept)\s+"
    r"(?:(?:to|in|at|on|with|for|of|from|the|a|an|been|gone|visited|seen|met|used|using)\s+)"
    r"{0,3}$",
    re.IGNORECASE,
)


# A thing turned down right after it is named, as people answer a suggestion: "Reforge no, ...",
# "ice hotel no way", "raised beds no thank you", "dessert table nah". Not "no longer", "no
# more" (a change of theirs), "no idea", nor a "no" after a comma ("..., no regrets").
_DECLINED = re.compile(
    r"^\s*\??\s*(?:no|nah|nope)\b(?!\s+(?:longer|more|less|matter|doubt|idea|problem|one|"
    r"time|need|way\s+(?:to|that|of)\b))",
    re.IGNORECASE,
)


# A thing turned down at the end of the sentence that names it, the way the refusal trails
# off: "Zurich is so pricey, I'd never", "a cruise on the Aurora, not for me", "Flybe once,
# never again". Only as its last words: "I would never leave Leith" is no refusal.
_REFUSED = re.compile(
    r"(?:^|[,;:.!]|\s(?:so|and|but|tbh|honestly))\s*(?:(?:i|we)(?:\s+would|['’]d|\s+will|['’]ll)"
    r"\s+never|not\s+for\s+(?:me|us)|never\s+again)[\s.!…]*[^\w\s]*\s*$",
    re.IGNORECASE,
)


def negated(sentence: str, words: tuple[str, ...]) -> bool:
    """The sentence says the phrase is not the person's: it comes right after a negation
    ("I've been to Paris but never to Lyon", "I use Zed rather than VS Code"), or it is
    turned down right after it is named ("Reforge no, I'm sick of courses") or at the
    sentence's end ("Zurich is so pricey, I'd never")."""
    if not words:
        return False
    found = compiled(r"(?<!\w)" + r"\W+".join(re.escape(w) for w in words) + r"(?!\w)").search(
        sentence
    )
    if not found:
        return False
    return bool(
        _NEGATED.search(sentence[: found.start()])
        or _DECLINED.match(sentence[found.end() :])
        or _REFUSED.search(sentence[found.end() :])
    )


# What every way of giving one's own name below holds, whatever the name: a sentence without
# it is not read name by name.
_SELF_LEAD = re.compile(
    r"(?:^|[\s,;:(])(?:i\s+am|i'm|im|my\s+name\s+is|my\s+name's|me\s*[:=])\s|"
    r"\s(?:again|here|speaking)\b",
    re.IGNORECASE,
)


def self_named(sentence: str, words: tuple[str, ...]) -> bool:
    """The sentence gives ``words`` as the speaker's own name ("I am Desmond", "my name's
    Ana", "Me: Mei, fiancé: Arjun", "hello it's Desmond again", "Jo here"): the person whose
    memory it is, not a subject of their life."""
    text = sentence.replace("’", "'")
    if not words or not _SELF_LEAD.search(text):
        return False
    name = r"\s+".join(re.escape(w) for w in words)
    patterns = (
        rf"(?:^|[\s,;:(])(?:i\s+am|i'm|im|my\s+name\s+is|my\s+name's|me\s*[:=])\s+{name}"
        rf"(?=\s*(?:[,.;:!?)]|$)|\s+(?:again|here|and|i|from|btw)\b)",
        rf"\b(?:it's|its|it\s+is|this\s+is)\s+{name}\s+(?:again|here|speaking)\b",
        rf"^\W*(?:\w+\W+)?{name}\s+here\b",
    )
    return any(compiled(pattern, re.IGNORECASE).search(text) for pattern in patterns)


# The rules' relation words (the rules read the same words), as alternatives of a pattern:
# people's ("wife", "stepson") and pets' ("dog", "gecko"). Built once, not for every name.
_PEOPLE_WORDS = "|".join(
    re.escape(word) for word, kind in RELATIONS.items() if kind != Category.POSSESSION.value
)
_PET_WORDS = "|".join(
    re.escape(word) for word, kind in RELATIONS.items() if kind == Category.POSSESSION.value
)


# An animal or a baby that comes home, then is named: "our rescue spaniel came home on
# saturday, shes called Clementine", "we got a puppy on thursday, she's called Juno", "named her Wren".
ANIMAL = compiled(
    rf"\b(?:{_PET_WORDS}|rescue|greyhound|whippet|spaniel|labrador|terrier|collie|poodle|"
    r"retriever|beagle|dachshund|pug|husky|tabby)s?\b",
    re.IGNORECASE,
)
BABY = compiled(
    r"\b(?:baby|newborn|son|daughter|boy|girl|twins|grandson|granddaughter)\b", re.IGNORECASE
)
_NAMED_AS = (
    r"\b(?:(?:he|she|it|they)(?:'s|’s|s|\s+is|\s+was|\s+are|\s+were)\s+(?:called|named)|"
    r"(?:named|called)\s+(?:him|her|it|them))\s+"
)


_OURS = compiled(
    rf"\b(?:my|our)\s+(?:(?![\w-]*'s\b)[\w'-]+\s+){{0,2}}?(?:{ANIMAL.pattern}|{BABY.pattern})",
    re.IGNORECASE,
)


def named_then(sentence: str, words: tuple[str, ...], prior: str = "") -> str | None:
    """The category of a name given to an animal or a baby of the person's, said right
    before in the same sentence or in the one before (``prior``): "we got a puppy on
    saturday, she's called Mabel" (a possession: a pet), "our son was born on friday. we
    named him Ezra" (family); None when the name is not given so, or what was named is
    not the person's."""
    if not words:
        return None
    name = r"\s+".join(re.escape(w) for w in words)
    found = compiled(_NAMED_AS + name + r"\b", re.IGNORECASE).search(sentence.replace("’", "'"))
    if found is None:
        return None
    told = sentence[: found.start()]
    context = told if ANIMAL.search(told) or BABY.search(told) else prior
    if not (first_person(context) or _OURS.search(context)):
        return None  # "my brother got a kitten, she's called Tofu": the sister's
    if ANIMAL.search(context):
        return Category.POSSESSION.value
    if BABY.search(context):
        return Category.FAMILY.value
    return None


def introduced(sentence: str, words: tuple[str, ...]) -> bool:
    """The name is said as someone of another person's in the speaker's life, right after
    the relation ("his girlfriend of 9 years, Sinéad", "her husband Tomasz") or as a newborn
    ("baby Malia"): a person by how the sentence names them, not a place or a thing. A pet
    of someone else's ("her dog Max") is not."""
    if not words:
        return False
    name = r"\W+".join(re.escape(w) for w in words)
    lead = (
        rf"(?:\b(?:his|her|their)\s+(?:[\w'-]+\s+){{0,3}}?(?:{_PEOPLE_WORDS})s?"
        rf"(?:\s+of\s+(?:[\w'-]+\s+){{0,3}}?[\w'-]+)?|\bbaby)\s*,?\s+{name}(?!\w)"
    )
    return bool(compiled(lead, re.IGNORECASE).search(sentence.replace("’", "'")))


def verbless(sentence: str) -> bool:
    """The sentence has no verb: a line of notes ("photographer (Talia Okafor)", "Wedding:
    Sept 19, Hollyburn Lodge"), not a clause."""
    return not any(
        pos.startswith(("VB", "MD")) for tokens in tag(sentence) for _w, pos, _c in tokens
    )


def mentions_self(sentence: str) -> bool:
    """The speaker appears anywhere in the sentence ("... with my kids")."""
    return bool(_FIRST_PERSON.search(sentence.replace("’", "'")))


@lru_cache(maxsize=1)
def _things() -> tuple[np.ndarray, np.ndarray]:
    return embed(_THINGS), embed(_NOT_THINGS)


def thing_scores(labels: list[str]) -> list[float]:
    """Per label, how much closer it is to something in a life (someone, somewhere,
    something done or owned) than to a feeling, a quality or an abstract idea; below zero it
    is more the second ("Encouragement", "Joyful Moments") than the first ("Clothing Store")."""
    if not labels:
        return []
    things, feelings = _things()
    vectors = embed(labels)
    return [float(x) for x in (vectors @ things.T).max(axis=1) - (vectors @ feelings.T).max(axis=1)]


@lru_cache(maxsize=1)
def _prototypes() -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[str, ...]]:
    names = tuple(_CATEGORIES)
    return embed(_LIFE), embed(_NOT_LIFE), embed([_CATEGORIES[n] for n in names]), names


def life_scores(sentences: list[str]) -> list[float]:
    """Per sentence, 0..1: how much closer it is to a life than to talk about the chat."""
    if not sentences:
        return []
    life, not_life, _cats, _names = _prototypes()
    vectors = embed(sentences)
    near = (vectors @ life.T).max(axis=1)
    far = (vectors @ not_life.T).max(axis=1)
    return [float(x) for x in np.clip(0.5 + (near - far), 0.0, 1.0)]


_KIN = frozenset(
    """aunt uncle grandma grandpa granny nan cousin mum mom dad sister brother auntie""".split()
)


# "from" before a name makes it a place ("back from Lisbon") but after a word of hearing or
# of what is sent, where a single name is someone ("heard back from Priya", "a text from Max").
_SAID_FROM = frozenset(
    """heard hear hearing letter letters message messages text texts call calls email
    emails card cards gift gifts present presents note notes news reply postcard parcel
    visit""".split()
)


def _said_to(words: tuple[str, ...], sentence: str, before: str = "to") -> bool:
    """Whether the name ``words`` follows "to" after a word of saying or giving ("wrote to
    Priya"), or "from" after one of hearing or of what is sent ("heard back from Priya")."""
    name = r"\s+".join(re.escape(w) for w in words)
    found = compiled(rf"(?:([\w'’-]+)\s+)?([\w'’-]+)\s+{before}\s+{name}\b", re.IGNORECASE).search(
        sentence
    )
    if found is None:
        return False
    first, word = (found.group(1) or "").lower(), found.group(2).lower()
    if before == "to":
        return word in _SAID_TO
    return word in _SAID_FROM or (word == "back" and first in ("heard", "hear", "hearing"))


# The kinds of work and of place a name is given to, and the category each makes of it: said
# right after the name ("Tidepool, my side project"; here) or before "is" and the name ("day
# job is fernhill"; :func:`.typed.typed_names`).
KIND_OF = {
    **dict.fromkeys(
        "project app website site game startup thing hustle book podcast newsletter".split(),
        Category.PROJECT.value,
    ),
    **dict.fromkeys(
        """company firm employer business shop store cafe restaurant bar gym club team band
        school college uni university academy course bootcamp studio charity church clinic
        hospital practice surgery office job work""".split(),
        Category.ORGANIZATION.value,
    ),
}
# The kinds of place a person calls theirs, set off beside its name: "my old area, West
# County", "Ashwell, our village".
_PLACE_KINDS = frozenset(
    """area town city village country hometown neighbourhood neighborhood county island region
    suburb street estate""".split()
)
_SAID_AS = re.compile(r"\s*,?\s+(?:my|our)\s+((?:[\w'’-]+\s*){1,3})", re.IGNORECASE)
# The same said before the name: "my old area, West County", "my wife, Glenys".
_SAID_BEFORE = r"\b(?:my|our)\s+((?:[\w'’-]+\s+){0,2}[\w'’-]+)\s*,\s+"


def _kind_said(said: str) -> str | None:
    for word in said.lower().split():
        if word.endswith(("'s", "’s")):
            return None  # "Ravi, my dad's accountant": someone else's
        if word in RELATIONS:
            return RELATIONS[word]
        if word in KIND_OF:
            return KIND_OF[word]
        if word in _PLACE_KINDS:
            return Category.PLACE.value
    return None


def _said_as(words: tuple[str, ...], sentence: str) -> str | None:
    """The category of what a name is said to be to the speaker right beside it: a relation
    ("Glenys, my wife", "Oskar (bf)"), a pet ("Pickle, our cat"), a kind of work or place
    ("Tidepool, my side project", "Fernhill, our new office", "my old area, West County"), or
    None."""
    found = compiled(r"\b" + re.escape(words[-1]) + _SAID_AS.pattern, re.IGNORECASE).search(
        sentence
    )
    if found:
        return _kind_said(found.group(1))
    name = r"\s+".join(re.escape(w) for w in words)
    found = compiled(_SAID_BEFORE + name + r"\b", re.IGNORECASE).search(sentence)
    if found:
        return _kind_said(found.group(1).split()[-1])
    return _bracketed(words, sentence)


# The last word of a name that makes it a place on a map: "Queens Road", "Main St", "Bondi
# Beach", "Loch Ness" is led by its kind.
_MAP_HEADS = frozenset(
    """road rd street st lane ln avenue ave drive dr close crescent terrace square sq place
    row way hill park beach bay lake loch river valley island isle mountain mount estate
    gardens green common heath moor forest wood woods harbour harbor quay pier bridge""".split()
)


def _on_a_map(words: tuple[str, ...]) -> bool:
    """A name whose last word is a kind of place on a map, led by no given name ("Maya Hill",
    "Tom Park" are people)."""
    first = words[0].lower()
    return (
        len(words) > 1
        and words[-1].lower().rstrip(".") in _MAP_HEADS
        and not (_given_name(first) or first in world_names())
    )


# Words said of an animal's care and body, not of a person's: a name said with one is a pet's,
# however many people share it ("took Maisie to the vet", "we had Hugo neutered"). "a vet" is a
# person's job ("my sister is a vet"), not the vet's surgery.
_PET_CARE = re.compile(
    r"(?<!\ba\s)(?<!\ban\s)\bvets?\b(?!\s+(?:nurse|student|tech)s?\b)|\bvet's\b|\bveterinary\b|"
    r"\bkennels?\b|\bkibble\b|\blitter\s+(?:tray|box)\b|\bgroomers?\b|\b(?:neutered|spayed)\b|"
    r"\bfleas?\b|\bwormer\b|\bmicrochip(?:ped)?\b|\bwalkies\b|\bleash\b|\bpaws?\b|"
    r"\bpurr(?:s|ed|ing)?\b|\bmeow(?:s|ed|ing)?\b|\bwagg(?:ed|ing)\b",
    re.IGNORECASE,
)
# Someone else's animal said beside the name ("his spaniel", "Tom's dog"): the name is its
# owner's. And a name met or spoken with is a person's.
_OTHERS_ANIMAL = re.compile(
    rf"\b(?:his|her|their)\s+(?:[\w'-]+\s+)?(?:{_PET_WORDS}|spaniel|labrador|terrier|collie)s?\b",
    re.IGNORECASE,
)
_MET_BEFORE = frozenset("met meet meeting with told asked called texted messaged and".split())


def _pet_by_care(words: tuple[str, ...], before: str, sentence: str) -> bool:
    """A one-word name said with an animal's care or body ("took Maisie to the vet"), not
    met or spoken with, not the owner of an animal the sentence names as theirs."""
    if len(words) != 1 or before in _MET_BEFORE or not _PET_CARE.search(sentence):
        return False
    owner = compiled(rf"\b{re.escape(words[0])}(?:'s|’s)\s+(?:[\w'-]+\s+)?(?:{_PET_WORDS})\b")
    return not _OTHERS_ANIMAL.search(sentence) and not owner.search(sentence)


# A kind of thing said right after a name, which says what the name is: "the Zepp app", "my
# Dell laptop" (a tool), "the Murugan temple" (a body of people, as "church" is). A place of
# worship is that however the label ends ("Sri Murugan Mandir"). Never a word that is also
# a verb after a name ("Tom watch", "Ana phone").
_WORSHIP = frozenset(
    "temple mandir mosque masjid church chapel synagogue gurdwara cathedral parish".split()
)
_KIND_AFTER = {
    **dict.fromkeys(
        """app apps tracker software program programme platform website plugin extension tool
        laptop tablet""".split(),
        Category.TOOL.value,
    ),
    **dict.fromkeys(_WORSHIP, Category.ORGANIZATION.value),
}


def _kind_after(words: tuple[str, ...], sentence: str) -> str | None:
    """The category of a kind said right after the name ("the Zepp app": a tool), or None."""
    if len(words) > 1 and words[-1].lower() in _WORSHIP:
        return Category.ORGANIZATION.value
    name = r"\s+".join(re.escape(w) for w in words)
    found = compiled(r"\b" + name + r"\s+([a-z]+)\b", re.IGNORECASE).search(sentence)
    return _KIND_AFTER.get(found.group(1).lower()) if found else None


# Kinds of business a person runs or works in, beside :data:`KIND_OF`'s.
_BUSINESS_KINDS = frozenset(
    """salon bakery garage workshop farm brewery pub hotel nursery agency surgery shop
    takeaway restaurant cafe café bistro boutique salon barbers stall kitchen""".split()
)


def _kind_called(words: tuple[str, ...], sentence: str) -> str | None:
    """The category of a kind of thing said to be called by the name: "my salon is called
    Sable Lane", "a bakery named Crumbwell", "our band's name is Saltmarsh", "shop name
    Crumbwell"; None when no kind is said there."""
    name = r"\s+".join(re.escape(w) for w in words)
    found = compiled(
        r"\b([\w'’-]+?)(?:['’]s)?\s+(?:is\s+|was\s+)?(?:called|named|name\s+is|name)\s+"
        + name
        + r"\b",
        re.IGNORECASE,
    ).search(sentence)
    if not found:
        return None
    kind = found.group(1).lower()
    if kind in _BUSINESS_KINDS:
        return Category.ORGANIZATION.value
    return _kind_said(kind)


def _name_category(phrase: Phrase, before: str, sentence: str) -> str | None:
    if phrase.words[0].lower() in _KIN:
        return Category.FAMILY.value  # "Aunt Rosa"
    if _titled(phrase.words) or titled_name(canonical_key(phrase.label)):
        return Category.PERSON.value  # "Mr Mensah", "Chef Benedetta Rinaldi": whatever before
    if _on_a_map(phrase.words):
        return Category.PLACE.value  # "Queens Road", "Main St", "Saunton Beach"
    if before in RELATIONS:
        return RELATIONS[before]  # "my mum's best friend Folake Adeyemi", "our dog Biscuit"
    said = _said_as(phrase.words, sentence)
    if said:
        return said  # "Tidepool, my side project", "Glenys, my wife"
    kind = _kind_after(phrase.words, sentence) or _kind_called(phrase.words, sentence)
    if kind:
        return kind  # "I count my steps with the Zepp app", "my salon is called Sable Lane"
    one = len(phrase.words) == 1
    if before in ("to", "from") and one and _said_to(phrase.words, sentence, before):
        return Category.PERSON.value  # "a letter to Priya", "heard back from Priya"
    if _pet_by_care(phrase.words, before, sentence):
        return Category.POSSESSION.value  # "took Maisie to the vet": a pet, as "our dog Biscuit"
    if before in _PLACE_BEFORE:
        return Category.PLACE.value
    if before in ORG_BEFORE and len(phrase.words) > 1:
        return Category.ORGANIZATION.value
    if _person(phrase.words, sentence):
        return Category.PERSON.value
    return None


def categories(items: list[tuple[Phrase, str, str]]) -> list[str]:
    """A category per (phrase, the word before it, its sentence)."""
    if not items:
        return []
    _life, _not, cats, names = _prototypes()
    texts = [f"{phrase.label}. {phrase.label} in: {sentence}" for phrase, _b, sentence in items]
    scores = embed(texts) @ cats.T
    out = []
    for (phrase, before, sentence), row in zip(items, scores, strict=True):
        named = _name_category(phrase, before, sentence) if phrase.is_name else None
        if named is None and phrase.is_name:
            # a name is someone's, somewhere, a body or a thing, never a habit, a skill or a
            # goal in itself ("Quillbridge", "Saltdean Dippers", "Omnipod 5")
            row = np.where(np.isin(names, _NAMED_KINDS), row, -np.inf)
        out.append(named or names[int(np.argmax(row))])
    return out
