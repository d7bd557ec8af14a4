"""The one definition of a canonical key. The gate, aliases, suppressions, recall and the evals
all call :func:`canonical_key`; nothing else normalises labels. :func:`core_key` folds a key
further, to what every spelling of one name shares ("Project Moonbeam", "Moonbeam"), for
suppressions only."""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

from wordfreq import zipf_frequency

from memory.markup import TAG

# Letters that NFKD does not decompose into a base letter plus marks.
_FOLD = str.maketrans(
    {
        "ø": "o",
        "Ø": "o",
        "đ": "d",
        "Đ": "d",
        "ł": "l",
        "Ł": "l",
        "ħ": "h",
        "ı": "i",
        "æ": "ae",
        "Æ": "ae",
        "œ": "oe",
        "Œ": "oe",
        "þ": "th",
        "ð": "d",
    }
)
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


#: Keys of texts up to this long are cached (labels, aliases, short facts), so the cache stays
#: small (at most 8,192 of them, about 2 MB) whatever a save holds: cleanup reads every
#: label of a large memory once, and a worker keeps its cache between requests.
CACHED_KEY_CHARS = 200


def canonical_key(text: str) -> str:
    """Fold ``text`` to the key two labels share when they name the same thing.

    Unicode-aware: compatibility-decomposed (NFKD), combining marks dropped, case-folded,
    every run of punctuation, symbols or whitespace collapsed to one space. So "Zoë" and "Zoe"
    share a key, "Dr. Kowalski" becomes "dr kowalski", and letters of any script survive.
    HTML tags are dropped and entities decoded first, so a label and its marked-up spelling
    ("<b>Figma</b>", "R&amp;D") share a key, and so does a suppression of either.

    Pure, so the keys of short texts are cached (a save asks for the same labels' keys many
    times: the extractor, the policy, the gate and the recall index each fold them). ASCII
    text takes a shorter path with the same result: NFKD, the combining marks and the
    folding table change nothing in it, and casefold is lower (``tests/memory/test_keys.py``
    checks that both paths agree).
    """
    if not text:
        return ""
    if len(text) <= CACHED_KEY_CHARS:
        return _cached_key(text)
    return _key(text)


@lru_cache(maxsize=1 << 13)
def _cached_key(text: str) -> str:
    return _key(text)


def _key(text: str) -> str:
    if "<" in text:
        text = TAG.sub(" ", text)
    if "&" in text:
        text = html.unescape(text)
    if text.isascii():
        return _NON_WORD.sub(" ", text.lower()).strip()
    return _unicode_key(text)


def _unicode_key(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    folded = stripped.casefold().translate(_FOLD)
    return _NON_WORD.sub(" ", folded).strip()


def key_tokens(text: str) -> list[str]:
    """The words of the canonical key, in order."""
    key = canonical_key(text)
    return key.split() if key else []


# Words a name is said with but that are not the name: articles and possessives, the kind of
# thing ("Project Moonbeam"), a title ("Ms Vane") or a relation ("my colleague Harriet"). The
# extractors drop them ("I'm working on Project Moonbeam" proposes "Moonbeam"), so a label
# with them and one without name the same thing. Relations are the ones said before a name.
_LEADING = frozenset(
    """
    the a an my our his her their your this that
    project projects dr doctor mr mrs ms miss mx prof professor sir dame lady lord
    aunt auntie uncle cousin sister brother mum mom dad grandma grandpa granny nana
    wife husband partner girlfriend boyfriend fiance fiancee friend colleague coworker
    manager boss mentor teammate neighbour neighbor roommate flatmate client
    """.split()
)
# ... and words said after it: "the Moonbeam project", "Apple the company", "Acme Inc".
_TRAILING = frozenset("the project company app inc ltd llc corp".split())
# Endings that look plural but are not: "glass", "campus", "Chris", "Lucas", "Carlos".
_NOT_PLURAL = ("ss", "us", "is", "as", "os")


def _singular(word: str) -> str:
    if len(word) < 5 or not word.isalpha():
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(_NOT_PLURAL):
        return word[:-1]
    return word


def name_words(key: str) -> list[str]:
    """The words of the canonical ``key`` that are the name itself: the words it is said with
    ("project", a title, a relation, an article) dropped from either end, never all of them
    ("project moonbeam" -> ["moonbeam"], "ms harriet vane" -> ["harriet", "vane"])."""
    words = key.split()
    while len(words) > 1 and words[0] in _LEADING:
        words = words[1:]
    while len(words) > 1 and words[-1] in _TRAILING:
        words = words[:-1]
    return words


@lru_cache(maxsize=1 << 13)
def core_key(key: str) -> str:
    """The canonical ``key`` less the words a name is said with, its last word singular.

    "project moonbeam", "the moonbeam project" and "moonbeam" share "moonbeam"; "ms vane" and
    "vane" share "vane"; "bean counters" and "bean counter" share "bean counter". Never
    empty when ``key`` is not: a key that is only such words is kept ("project"). Two labels
    whose core keys are equal name the same thing as far as a suppression is concerned: what
    was deleted or forgotten as one is refused as the other (:mod:`memory.gate`,
    :func:`memory.selectors.suppression_blocking`). Pure and cached.
    """
    words = name_words(key)
    if words:
        words[-1] = _singular(words[-1])
    return " ".join(words)


# Words said before a person's name that are not the name, beyond :data:`_LEADING`: titles of
# religion, rank or trade ("Father Brennan", "Rev Ogilvy", "Coach Rooke", "Nurse Ormond", "PC
# Brannigan", "Sarge Dwyer"), family forms said as titles ("Nonna Rosa", "Gramps"), and the
# relations and roles the people extractor reads before a name ("my GP Dr Stroud", "my
# godmother Liz", "my father-in-law Bill"). Only people's names are read with them
# (:func:`person_name_words`): a "Coach Trip" or a "Father's Day" keeps its first word as a name.
PERSON_LEADING = _LEADING | frozenset(
    """
    rev revd reverend pastor father fr vicar rabbi imam canon bishop deacon chaplain sr
    coach nurse judge captain capt sgt sergeant officer detective inspector constable
    councillor cllr senator mayor chef matron headteacher principal
    gp dentist therapist physio physiotherapist vet counsellor counselor psychiatrist
    psychologist midwife trainer teacher tutor landlord landlady director supervisor lead
    intern classmate housemate buddy pal mentee spouse ex
    godmother godfather godson goddaughter stepdad stepmom stepmum stepmother stepfather
    stepson stepdaughter stepbrother stepsister niece nephew grandmother grandfather granddad
    grandad gran nan nanna nanny grandson granddaughter mother father son daughter twin
    in law
    herr frau senor senora senorita senhor senhora monsieur madame mme mlle signor signora
    lieutenant lt major colonel general admiral commander cmdr corporal cpl private pte sarge
    chief superintendent supt pc dc dci deputy sheriff ranger agent
    doc sensei elder sis bro mister missus madam
    mama mamma papa pop nonna nonno gramps grampa granda oma opa abuela abuelo bubbe zayde
    bibi babu mzee bwana seu dona ustadh ustadha ustaz sheikh shaykh haji hajji hajja
    lola lolo tita tito kuya amma appa nani dadi
    """.split()
)
# Titles other languages say after a person's name: "Osman Bey", "Ayse Hanim", "Tanaka-san",
# "Sharma-ji". Not a name word either: "Osman Bey" is the Osman of an "Osman Kaplan".
PERSON_TRAILING = frozenset("bey hanim efendi san sama kun ji sahib saheb".split())


def person_name_words(key: str) -> list[str]:
    """The words of the canonical ``key`` that are a person's name: :func:`name_words` less
    the titles, relations and roles said before a name (:data:`PERSON_LEADING`), never all of
    them ("rev thomas ogilvy" -> ["thomas", "ogilvy"], "my father in law bill" -> ["bill"],
    "father brennan" -> ["brennan"])."""
    words = name_words(key)
    while len(words) > 1 and words[0] in PERSON_LEADING:
        words = words[1:]
    while len(words) > 1 and words[-1] in PERSON_TRAILING:
        words = words[:-1]
    return words


# A word this common in English (Zipf, wordfreq's small list) after a title is a word, not a
# name: "captain america shield" is no one.
_COMMON_NAME_WORD = 3.5
# Words said before a name that say whose or which, not who: "the plantar fasciitis", "my
# project moonbeam".
_NOT_TITLES = frozenset("the a an my our his her their your this that project projects".split())


def titled_name(key: str) -> bool:
    """Whether the canonical ``key`` is a person's name said with a title, a relation or a
    role before it, whatever category a card was given: two name words or more after it,
    none of them a common English word ("chef benedetta rinaldi", "auntie folake adeyemi";
    never a "coach trip" or a "father christmas", one word after the title, nor a "captain
    america shield", whose words English knows)."""
    words = key.split()
    rest = person_name_words(key)
    before = words[: len(words) - len(rest)]
    if len(rest) < 2 or not any(is_person_title(w) and w not in _NOT_TITLES for w in before):
        return False
    return not any(zipf_frequency(w, "en", wordlist="small") >= _COMMON_NAME_WORD for w in rest)


def is_person_title(word: str) -> bool:
    """Whether ``word`` (lower case) is said before a person's name without being one: a
    title, a relation or a role (:data:`PERSON_LEADING`)."""
    return word in PERSON_LEADING


# Titles that say a person is a man or a woman. "Mr Okafor" and "Mrs Okafor" are two people
# of one family, never one name; "Dr Okafor" or "Okafor" may be either of them.
_MEN = frozenset("mr mister sir lord master herr senor senhor monsieur signor".split())
_WOMEN = frozenset(
    "mrs missus ms miss dame lady madam frau senora senorita senhora madame mme mlle signora".split()
)


# Titles said only before a person's name, of a man, a woman or either.
_HONORIFICS = _MEN | _WOMEN | frozenset("dr doctor prof professor mx rev revd reverend".split())


def is_honorific(word: str) -> bool:
    """Whether ``word`` (lower case, without a full stop) is a title said only before a
    person's name ("mr", "mrs", "dr", "prof", "mme"), not a relation or a role."""
    return word in _HONORIFICS


def gendered_title(word: str) -> str:
    """ "m" or "f" when ``word`` (lower case) is a title of a man or a woman ("mr", "mrs"),
    else ""."""
    return "m" if word in _MEN else "f" if word in _WOMEN else ""


def title_gender(key: str) -> str:
    """ "m" or "f" when the canonical ``key`` starts (after an article or a relation) with a
    title that says a man or a woman ("mr okafor", "my neighbour mrs okafor"), else ""."""
    for word in key.split()[:-1]:
        if gendered_title(word):
            return gendered_title(word)
        if word not in PERSON_LEADING:
            return ""
    return ""


def titles_differ(key: str, other: str) -> bool:
    """Whether two canonical keys carry titles of a man and of a woman: two people."""
    mine, theirs = title_gender(key), title_gender(other)
    return bool(mine and theirs and mine != theirs)


# Words that say which one of several people or things a name is: a relation or a title.
# "my sister Ana" and "Ana" fold together; "my sister Ana" and "my colleague Ana" do not.
_DISTINGUISHING = _LEADING - frozenset(
    "the a an my our his her their your this that project projects".split()
)
# The kind of activity a subject is done as, said after it: "pottery class", "pottery classes"
# and "pottery" are one subject on the review queue ("UML College Society" is not "UML":
# "society" names a thing of its own, and is not here).
_ACTIVITY = frozenset("class lesson course session practice workshop".split())


# The short forms of the words that end a street's name ("Gallowtree Rd", "Tern Ave"): the
# same street as its full form. Read in a message only where no other word is written so
# ("rd", not "st", which is also "Saint", nor "pl" or "sq").
STREET_SHORT = {
    "rd": "road",
    "ave": "avenue",
    "av": "avenue",
    "ln": "lane",
    "cres": "crescent",
    "blvd": "boulevard",
    "hwy": "highway",
    "gdns": "gardens",
}
_LAST_STREET_SHORT = STREET_SHORT | {"st": "street", "sq": "square", "pl": "place"}


def street_words(words: list[str]) -> list[str]:
    """``words`` (of a key or a message) with each short street word after a word of the
    street's name said in full ("gallowtree rd" -> "gallowtree road")."""
    return [
        STREET_SHORT.get(w, w)
        if i and words[i - 1].isalpha() and words[i - 1] not in STREET_SHORT
        else w
        for i, w in enumerate(words)
    ]


@lru_cache(maxsize=1 << 13)
def fold_key(key: str) -> str:
    """The canonical ``key`` as the review queue folds it: its core key
    (:func:`core_key`), each word spelled one way where British and American English spell it
    two (:func:`one_spelling`: "colour theory society" -> "color theory society"), a slip of
    the fingers corrected in a key of two words or more (:func:`mistyped`: "elcetric car" ->
    "electric car"), less a trailing activity word ("pottery classes" -> "pottery"), a street
    word said short at its end said in full ("gallowtree rd" -> "gallowtree road").
    Two pending guesses whose fold keys are equal and whose relations agree
    (:func:`same_subject`) are one card. Never empty when ``key`` is not. Pure and cached."""
    words = [one_spelling(w) for w in core_key(key).split()]
    if len(words) > 1:
        words = [mistyped(w) for w in words]
    if len(words) > 1 and words[-1] in _ACTIVITY:
        words = words[:-1]
    if len(words) > 1:
        words[-1] = _LAST_STREET_SHORT.get(words[-1], words[-1])
    return " ".join(words)


# How British English spells a word that American English spells another way, by the regular
# patterns: "-ise" and "-yse" for "-ize" and "-yze" ("organised", "analyse"), "-our" for
# "-or" after a consonant ("colour", "neighbours"), "-ogue" for "-og", "-ence" for "-ense"
# ("licence"), a doubled "l" before an ending ("travelling", "counselling"). Each is only a
# candidate: the other spelling must be a word English knows (wordfreq's large list), about
# as common as this one or more (American spellings dominate the text wordfreq counts), so
# "pouring" never becomes "poring". "-re" for "-er" and "ae" or "oe" for "e" are as often
# French, Spanish or a surname ("entre", "Fabre", "Kraemer"), so they are read only in the
# words that spell them so in English: the endings and roots below.
_BRITISH = (
    (re.compile(r"^(.{4,})is(e|ed|es|ing|ation|ations|er|ers)$"), r"\1iz\2"),
    (re.compile(r"^(.{3,})ys(e|ed|es|ing)$"), r"\1yz\2"),
    (
        re.compile(r"^(.*[aeiouy].*[b-df-hj-np-tv-z])our(s|ed|ing|ite|ites|ful|able|er|ers)?$"),
        r"\1or\2",
    ),
    (re.compile(r"^(.{4,})ogue(s)?$"), r"\1og\2"),
    (re.compile(r"^(.{3,})ence(s)?$"), r"\1ense\2"),
    (re.compile(r"^(.*[aeiouy].*[b-df-hj-np-tv-z][aeiou])ll(ed|ing|er|ers)$"), r"\1l\2"),
    (
        re.compile(
            r"^(.*(?:cent|met|lit|fib|theat|calib|lust|sab|somb|spect|scept|goit|mit|tit))"
            r"re(s|d)?$"
        ),
        r"\1er\2",
    ),
)
_GREEK_LATIN = re.compile(
    r"anaem|anaes|haem|paed|palae|gynaec|cyclopaed|aetiol|mediaev|leukaem|ischaem|glycaem"
    r"|natraem|thalassaem|synaesth|kinaesth|oedem|oesoph|oestr|apnoe|dyspnoe|rrhoe|lymphoed"
)
# Words whose two spellings no pattern makes. Not "grey": Grey and Gray are two families.
_BRITISH_WORDS = {
    "jewellery": "jewelry",
    "pyjamas": "pajamas",
    "aluminium": "aluminum",
    "programme": "program",
    "programmes": "programs",
    "plough": "plow",
    "mould": "mold",
    "mouldy": "moldy",
    "moustache": "mustache",
    "ageing": "aging",
    "judgement": "judgment",
    "sceptic": "skeptic",
    "sceptical": "skeptical",
    "manoeuvre": "maneuver",
    "manoeuvres": "maneuvers",
    "doughnut": "donut",
    "doughnuts": "donuts",
    "cosy": "cozy",
    "enrolment": "enrollment",
    "fulfilment": "fulfillment",
    "skilful": "skillful",
    "instalment": "installment",
    "artefact": "artifact",
    "artefacts": "artifacts",
    "paediatrician": "pediatrician",
    "paediatric": "pediatric",
    "haemorrhoids": "hemorrhoids",
    "orthopaedic": "orthopedic",
    "foetus": "fetus",
    "foetal": "fetal",
}
# The other spelling must be at least this common (Zipf, large list), and at most this much
# rarer than the word as written.
_SPELLING_ZIPF = 2.0
_SPELLING_RARER = 0.5


@lru_cache(maxsize=65536)
def one_spelling(word: str) -> str:
    """``word`` (lower case) as American English spells it where British English spells it
    another way ("colour" -> "color", "generalised" -> "generalized", "anaemia" -> "anemia",
    "jewellery" -> "jewelry"), else ``word`` itself: so that a thing said in either spelling
    folds to one card and is one thing to forget. Pure and cached."""
    if word in _BRITISH_WORDS:
        return _BRITISH_WORDS[word]
    if len(word) < 5 or not word.isalpha() or not word.isascii():
        return word
    candidates = [pattern.sub(american, word) for pattern, american in _BRITISH]
    if _GREEK_LATIN.search(word):
        candidates.append(word.replace("ae", "e").replace("oe", "e"))
    for other in candidates:
        if other != word:
            theirs = zipf_frequency(other, "en", wordlist="large")
            if theirs >= _SPELLING_ZIPF and theirs >= (
                zipf_frequency(word, "en", wordlist="large") - _SPELLING_RARER
            ):
                return other
    return word


# A slip of the fingers is corrected only in a word this long or longer (a short one is too
# often a name, an acronym or another word one letter away), and only to a word at least this
# common in English (Zipf frequency in wordfreq's small list, shipped in the package).
_TYPO_MIN_LETTERS = 6
_TYPO_TO_ZIPF = 3.5
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@lru_cache(maxsize=1)
def _english() -> dict[str, float]:
    from wordfreq import get_frequency_dict

    return get_frequency_dict("en", wordlist="small")


def _one_slip(word: str) -> set[str]:
    """The words one slip away from ``word``: two neighbouring letters swapped, one letter
    dropped, doubled or added, or one struck for another."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    swapped = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    dropped = {a + b[1:] for a, b in splits if b}
    struck = {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    added = {a + c + b for a, b in splits for c in _LETTERS}
    return (swapped | dropped | struck | added) - {word}


@lru_cache(maxsize=65536)
def mistyped(word: str) -> str:
    """``word`` with a slip of the fingers corrected ("elcetric" -> "electric", "seciton" ->
    "section"), else ``word`` itself. Only a word English does not know, of six letters or
    more, that one slip makes from exactly one common word: a name ("annika", "pinewise") or
    a word with two readings is left as it is. Used inside a label of two words or more
    (:func:`fold_key`), so that "Electirc car" and "Electric car" are one card; a one-word
    label is left alone (it is as likely a name as a slip)."""
    english = _english()
    if len(word) < _TYPO_MIN_LETTERS or not word.isalpha() or not word.isascii():
        return word
    if word in english:
        return word
    floor = 10 ** (_TYPO_TO_ZIPF - 9)  # a Zipf frequency, as a share of words
    found = [w for w in _one_slip(word) if english.get(w, 0.0) >= floor]
    return found[0] if len(found) == 1 else word


@lru_cache(maxsize=65536)
def likeliest_meant(word: str) -> str:
    """The commonest word one slip from ``word`` ("waknig" -> "waking", though "walking" is
    one slip away too), else ``word``. Unlike :func:`mistyped`, a slip with two readings
    still gets one: for judging a word English does not know at all (a misspelling is not a
    rare word), never for folding two labels together."""
    english = _english()
    if len(word) < _TYPO_MIN_LETTERS or not word.isalpha() or not word.isascii():
        return word
    if word in english:
        return word
    floor = 10 ** (_TYPO_TO_ZIPF - 9)
    found = [w for w in _one_slip(word) if english.get(w, 0.0) >= floor]
    return max(found, key=lambda w: (english[w], w)) if found else word


def _relations(key: str) -> frozenset[str]:
    words = key.split()
    said = set()
    while len(words) > 1 and words[0] in _LEADING:
        if words[0] in _DISTINGUISHING:
            said.add(words[0])
        words = words[1:]
    return frozenset(said)


def same_subject(key: str, other: str) -> bool:
    """Whether two canonical keys are one subject on the review queue: equal fold keys, and
    no two different relations or titles ("my sister Ana" is "Ana", never "my colleague
    Ana"; "Ana" is never "Ana Lopez", whose fold key differs)."""
    if key == other:
        return True
    if fold_key(key) != fold_key(other):
        return False
    mine, theirs = _relations(key), _relations(other)
    return not mine or not theirs or mine == theirs
