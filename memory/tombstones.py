"""What identifies a forgotten thing, and whether a name or a message speaks of it. Pure: no ORM.

A suppression (:class:`memory.models.Suppression`) keeps, beside its canonical key, a
*signature* of what it forgets (:func:`sign`):

- ``names``: the canonical keys of every name it was known by (its label and aliases);
- ``keys``: the keys the extractor makes of each name: canonical, core and fold keys
  (:mod:`memory.keys`: "project moonbeam", "moonbeam", "the moonbeam project" share one);
- ``words``: the words that pick it out: the distinctive words of its names, by English word
  frequency ("vane" for "Harriet Vane", never "apple" or "going"), and every word of a person's
  name ("dan"); never the words the extractor adds to say what kind of thing it is
  ("allergy" in "Penicillin Allergy", "project");
- ``variants``: the nicknames and full forms of a person's given names, from the ``nicknames``
  package's hand-curated list ("daniel", "danny" for "Dan"; "theodore" for "Theo");
- its meaning: the local embedding model's vector of its name (:mod:`memory.recall.embed`),
  stored with the model's name. Only words English knows have one: a coined name
  ("Moonbeam") is read by the model as pieces of its spelling, and a person's name means
  nothing, it names someone (their nicknames and words stand for it).

What a label or a message is compared with is read from the names when a suppression is read
(:func:`tombstone`): a person's full names as their parts (:class:`FullName`), another name's
subject words to weigh (``groups``), so every suppression, old or new, follows the same rules.

:func:`resemblance` compares a label with the tombstones in force:

- **the same name** (``exact``): the label's canonical, core or fold key is one of a
  tombstone's keys. Refused, as suppressions always did.
- **looks like it**: the label may name the same person (:func:`names_person`: a full name's
  given name or a nickname of it with its surname, or either alone, and no other name word;
  "Peter Vane" shares only a surname with "Harriet Vane" and is someone else), is a one-word
  person's name, a nickname or spelling of it (a letter doubled or not: "Anna" for "Ana"),
  carries enough of a name's distinctive words (:func:`shares_name`, weighed by how rare
  they are: "Harbour Rowing Club" is no "Harbour Bakery"), or its name is close in meaning
  (cosine at least ``floor``) once the words both share are set aside: "Apple Crumble" is
  compared with a forgotten "Apple Pie" as "crumble" with "pie", "Cat Allergy" with
  "Penicillin Allergy" as "cat" with "penicillin", so a shared common word never makes two
  things one. Held for the person to decide, never written or proposed silently.

:func:`hidden` says which messages speak of a forgotten thing, for recall's episode lane: by a
name, a word or a variant as above, or by a word close in meaning to its name ("cigarettes"
for a forgotten "Smoking"). The floors are chosen on ``eval_forgetting`` (see
``docs/architecture.md``, "Tombstones").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

import numpy as np
from wordfreq import zipf_frequency

from memory.extractors.rules.health import condition_word
from memory.keys import (
    PERSON_TRAILING,
    canonical_key,
    core_key,
    fold_key,
    is_person_title,
    name_words,
    one_spelling,
    person_name_words,
    street_words,
    title_gender,
    titled_name,
)
from memory.recall.embed import DIM, MODEL_NAME, SCALE, embed, quantize
from memory.recall.text import STOP_WORDS, is_distinctive
from memory.recall.text import stem as porter_stem


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of ``word`` spelled one way (:func:`memory.keys.one_spelling`), so that
    a forgotten "Colour Theory Society" is named by "color theory" and a forgotten
    "generalised anxiety" by "generalized anxiety": every word a tombstone compares, of its
    names and of what is said, is stemmed here."""
    return porter_stem(one_spelling(word))


#: Categories whose labels are people's names: every word of such a name picks the person
#: out, and their given names have nicknames and spellings.
PEOPLE = frozenset({"person", "family", "relationship"})

# Words a label carries to say what kind of thing it is, not which one: those the rules
# extractors put after a subject ("Penicillin Allergy", "Lactose Intolerance", "Knee Injury",
# "Dark Theme") and those :mod:`memory.keys` already sets aside for names and review cards.
_KIND = frozenset(
    """
    project projects company app inc ltd llc corp class classes lesson lessons course courses
    session sessions practice workshop allergy allergies intolerance injury theme
    """.split()
)

# The head words that say what kind of place or group a name is ("Riverside Chess Club",
# "Riverside Chess Society"): two names that differ only in such a word name one thing, so a
# difference in them is no evidence of another thing (see :func:`_another_thing`).
_GROUP = frozenset(
    """
    club clubs society societies group groups team teams association collective centre center
    studio studios clinic surgery school academy institute league circle network community
    guild guilds crew crowd gang
    """.split()
)
# Below this cosine, what two names say beside the words they share is unlike: "Brightwater
# Yoga Studio" (yoga) beside a forgotten "Brightwater Dental" (dental) is another place. Chosen
# on the forgetting eval (resurrections and over-blocking at each value in docs/architecture.md).
DIFFER = 0.3

SIGNATURE_VERSION = 1


def _undoubled(word: str) -> str:
    """``word`` with every run of one letter made single: "anna" -> "ana", "phillip" -> "philip"."""
    out: list[str] = []
    for ch in word:
        if not out or out[-1] != ch:
            out.append(ch)
    return "".join(out)


def subject_words(key: str) -> list[str]:
    """The words of the canonical ``key`` that name its subject: :func:`memory.keys.name_words`
    less the words that say its kind ("penicillin allergy" -> ["penicillin"]); the name words
    themselves when nothing else is left ("project" -> ["project"])."""
    words = name_words(key)
    kept = [w for w in words if w not in _KIND]
    return kept or words


def _picking_words(key: str, person: bool) -> set[str]:
    """The words of ``key`` that pick its subject out: its distinctive words, and in a
    person's name also a common word that is a given name the nicknames list knows ("dan",
    "anna"), never a common word that is not ("Apple" named as a person stays "apple"). A
    person's titles and relations ("father" in "Father Brennan") pick no one out."""
    words = person_words(key) if person else subject_words(key)
    picked = {w for w in words if is_distinctive(w)}
    if person:
        picked |= {w for w in words if w not in STOP_WORDS and _given_name(w)}
    return picked


def person_words(key: str) -> list[str]:
    """The words of a person's name ``key`` (canonical) that are the name: its subject words
    less the titles, relations and roles said before it (:func:`memory.keys.
    person_name_words`: "rev thomas ogilvy" -> ["thomas", "ogilvy"])."""
    words = person_name_words(key)
    kept = [w for w in words if w not in _KIND]
    return kept or words


# Given names and their pet forms that the ``nicknames`` package's list lacks. Its list was
# drawn from American genealogical records, so the forms said in Britain, Ireland and Europe
# are missing ("Liam" for William, "Pippa" for Philippa, "Sasha" for Alexander, "Evie" for
# Evelyn), and so are the pet forms of other languages, which no rule of syllables makes
# ("Kasia" for Katarzyna, "Misha" for Mikhail, "Paco" for Francisco, "Beppe" for Giuseppe).
# Full name -> its pet forms; read both ways, like the package's list.
MORE_NICKNAMES: dict[str, tuple[str, ...]] = {
    "william": ("liam",),
    "philippa": ("pippa", "pip", "pippy"),
    "alexander": ("sasha", "sacha", "xander"),
    "alexandra": ("sasha", "lexi", "lexie", "xandra"),
    "imogen": ("immy", "imo"),
    "katherine": ("kitty", "kat"),
    "francesca": ("frankie", "fran", "cesca"),
    "theodora": ("teddy", "dora"),
    "caroline": ("caz", "caro", "carrie"),
    "felicity": ("fliss", "flick"),
    "evelyn": ("evie", "eve"),
    "alfred": ("alfie",),
    "isabel": ("izzy", "issy", "bel"),
    "isabella": ("izzy", "issy"),
    "margaret": ("mags", "maisie"),
    "eleanor": ("nell", "nora"),
    "helen": ("nell",),
    "natalie": ("nat",),
    "natalia": ("nat", "tasha"),
    "ekaterina": ("katya", "katia"),
    "anastasia": ("nastya", "stacey"),
    "penelope": ("pen",),
    "henrietta": ("hetty", "etta"),
    "hugh": ("hughie",),
    "ruairi": ("rory",),
    "alistair": ("ali", "al"),
    "alasdair": ("ali", "al"),
    "alastair": ("ali", "al"),
    "siobhan": ("shiv",),
    "olivia": ("liv", "livvy"),
    "millicent": ("millie",),
    "camilla": ("millie", "milly", "cammy"),
    "georgina": ("georgie", "gina"),
    "rosalind": ("ros", "rosie"),
    "susannah": ("sukie", "suzie"),
    "clementine": ("clemmie", "clem"),
    "annabel": ("bel", "belle"),
    "jemima": ("mima", "jem"),
    "araminta": ("minty",),
    "benedict": ("ben", "benny"),
    "sebastian": ("seb", "bas"),
    "dominic": ("dom",),
    "archibald": ("archie", "baldie"),
    "rebecca": ("becca", "bex"),
    "jessica": ("jess", "jessie"),
    "bartholomew": ("bart", "barty"),
    "cornelius": ("neil", "con"),
    "christopher": ("kit", "topher"),
    "harriet": ("hattie", "hatty"),
    "matilda": ("tilly", "tillie"),
    # Polish: the pet forms friends use, and the English name a Grzegorz or a Krzysztof goes
    # by abroad.
    "grzegorz": ("grzesiek", "greg"),
    "katarzyna": ("kasia", "kaska"),
    "malgorzata": ("gosia", "malgosia"),
    "wojciech": ("wojtek",),
    "przemyslaw": ("przemek",),
    "magdalena": ("magda",),
    "tomasz": ("tomek",),
    "jakub": ("kuba",),
    "piotr": ("piotrek",),
    "krzysztof": ("krzys", "krzysiek", "chris"),
    "lukasz": ("lukas",),
    "agnieszka": ("agnes",),
    # Russian and Ukrainian, as written in Latin letters.
    "dmitri": ("dima",),
    "dmitry": ("dima",),
    "mikhail": ("misha",),
    "vladimir": ("vova", "volodya"),
    "nikolai": ("kolya",),
    "yekaterina": ("katya", "katia"),
    "tatiana": ("tanya",),
    "tatyana": ("tanya",),
    "svetlana": ("sveta",),
    "natalya": ("natasha",),
    "olga": ("olya",),
    "aleksandr": ("sasha", "shura"),
    "ivan": ("vanya",),
    "yevgeny": ("zhenya",),
    "evgeny": ("zhenya",),
    "lyudmila": ("lyuda", "mila"),
    "anatoly": ("tolya",),
    "sergei": ("seryozha",),
    "alexei": ("lyosha", "alyosha"),
    "aleksei": ("lyosha", "alyosha"),
    "maria": ("masha",),
    "pavel": ("pasha",),
    "konstantin": ("kostya",),
    "valentina": ("valya",),
    # Italian.
    "giuseppe": ("beppe", "peppe"),
    "giovanni": ("gianni", "nanni"),
    "francesco": ("checco",),
    "salvatore": ("turi", "toto"),
    "vincenzo": ("enzo",),
    "alessandro": ("sandro",),
    "domenico": ("mimmo",),
    "antonio": ("tonino",),
    # Spanish and Portuguese.
    "francisco": ("paco", "pancho", "curro"),
    "jose": ("pepe",),
    "ignacio": ("nacho",),
    "eduardo": ("lalo",),
    "roberto": ("beto",),
    "alberto": ("beto",),
    "dolores": ("lola",),
    "concepcion": ("conchita",),
    "mercedes": ("merche",),
    "rosario": ("charo",),
    "manuel": ("manolo", "manu"),
    "guadalupe": ("lupe", "lupita"),
    "luis": ("lucho",),
    # German.
    "friedrich": ("fritz",),
    "heinrich": ("heinz",),
    "joachim": ("jochen",),
    "margarethe": ("grete", "gretchen"),
    "wilhelm": ("willi",),
    # Irish and Greek.
    "padraig": ("paddy",),
    "konstantinos": ("kostas",),
    "dimitrios": ("dimitris", "mitsos"),
    "panagiotis": ("panos", "takis"),
}


@lru_cache(maxsize=1)
def _more_names() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """:data:`MORE_NICKNAMES` as two lookups: full name -> pet forms, pet form -> full names."""
    nicks: dict[str, set[str]] = {}
    fulls: dict[str, set[str]] = {}
    for full, pets in MORE_NICKNAMES.items():
        for pet in pets:
            nicks.setdefault(full, set()).add(pet)
            fulls.setdefault(pet, set()).add(full)
    return (
        {k: frozenset(v) for k, v in nicks.items()},
        {k: frozenset(v) for k, v in fulls.items()},
    )


@lru_cache(maxsize=1)
def _nicknamer() -> Any:
    from nicknames import NickNamer

    return NickNamer()


def _nicknames_of(name: str) -> set[str]:
    return set(_nicknamer().nicknames_of(name)) | set(_more_names()[0].get(name, ()))


def _canonicals_of(name: str) -> set[str]:
    return set(_nicknamer().canonicals_of(name)) | set(_more_names()[1].get(name, ()))


_HARD_C = re.compile(r"c(?=[aoulrk]|$)")
_SOFT_C = re.compile(r"c(?=[eiy])")
_INNER_Y = re.compile(r"(?<=.)y")
_INNER_Z = re.compile(r"(?<=.)z")


@lru_cache(maxsize=65536)
def spelling(word: str) -> str:
    """How the given name ``word`` (lower case) sounds, roughly, so that two spellings of one
    name meet: "ph" as "f", a hard "c" as "k" and a soft one (before "e", "i" or "y") as "s",
    "z" after the first letter as "s" ("roz" for a "ros", "suzanne" and "susanne"; a "Zara"
    is no "Sara"), "th" as "t", "y" inside as "i", letters undoubled, a pet ending "-ie", "-ey" or "-y" as
    "i", a final silent "e" dropped. "catherine" and "katherine" -> "katerin", "philippa" and
    "phillipa" -> "filipa", "robbie" and "robby" -> "robi", "percy" -> "persi" (the "pers"
    of a "Persephone"); "jane" and "jan" stay apart ("jane" -> "jan" only past four letters:
    "jane" keeps its "e")."""
    w = word.replace("ph", "f").replace("th", "t").replace("ck", "k")
    if len(w) > 3 and w.endswith(("ie", "ey")):
        w = w[:-2] + "i"
    w = _INNER_Z.sub("s", _INNER_Y.sub("i", _SOFT_C.sub("s", _HARD_C.sub("k", w))))
    w = _undoubled(w)
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    return w


@lru_cache(maxsize=4096)
def _sounds(names: frozenset[str]) -> frozenset[str]:
    """The :func:`spelling` of each of ``names``."""
    return frozenset(spelling(n) for n in names)


def _name_like(word: str) -> bool:
    """Whether ``word`` may be a given name said another way: a name the lists know, or a word
    English does not ("tea" sounds like "Thea" and is tea)."""
    return _given_name(word) or not _common(word)


@lru_cache(maxsize=65536)
def end_clipped(short: str, name: str) -> bool:
    """Whether the given name ``short`` is the end of ``name``, four letters or more, as
    people shorten names from the front ("lena" for "elena", "liam" for "william", "bella"
    for "isabella"): a name the lists know, or a word English does not ("stance" is no
    "constance")."""
    if len(short) < 4 or len(name) <= len(short) or not name.endswith(short):
        return False
    return short.isalpha() and _name_like(short)


@lru_cache(maxsize=1)
def _spellings() -> dict[str, frozenset[str]]:
    """Every name the lists know, by :func:`spelling`: the names spelled another way."""
    namer = _nicknamer()
    known = set(namer.nickname_lookup) | set(namer.canonical_lookup)
    known |= set(MORE_NICKNAMES) | set(_more_names()[1])
    out: dict[str, set[str]] = {}
    for name in known:
        if name.isalpha():
            out.setdefault(spelling(name), set()).add(name)
    return {k: frozenset(v) for k, v in out.items()}


def _spelled_as(word: str) -> set[str]:
    """``word`` and the names the lists know that are spelled like it ("catherine" ->
    {"catherine", "katherine"})."""
    return {word, *_spellings().get(spelling(word), ())}


@lru_cache(maxsize=4096)
def _given_name(word: str) -> bool:
    return bool(word.isalpha() and (_nicknames_of(word) or _canonicals_of(word)))


@lru_cache(maxsize=4096)
def name_variants(word: str) -> frozenset[str]:
    """The nicknames and full forms of the given name ``word`` (lower case), and theirs in
    turn, from the ``nicknames`` package's list and :data:`MORE_NICKNAMES`, through every
    spelling of each (:func:`spelling`): "dan" -> daniel, danny, dann...; "theodore" -> theo,
    ted, teddy; "catherine" -> kate (the list has it under "katherine"). Empty for a word the
    lists do not know as a name."""
    full: set[str] = set()
    for alike in _spelled_as(word):
        full |= _canonicals_of(alike) | {alike}
    full = {spelled for name in full for spelled in _spelled_as(name)}
    related = set(full)
    for name in full:
        related |= _nicknames_of(name)
    related.discard(word)
    return frozenset(w for w in related if w.isalpha())


# The endings a pet form puts on the start of a name ("Immy" for Imogen, "Evie" for Evelyn).
_PET_ENDINGS = ("ie", "ey", "y", "i", "o")
# And the "-s" British English puts on a name's first syllable ("Mags", "Babs", "Toms"), on a
# root of three letters or more: two and an "s" ("ems", "abs") say too little.
_PET_S = "s"
_PET_S_ROOT = 3
# A word this common in English (Zipf frequency in wordfreq's small list) is a word, not a pet
# form: "berry" is no Bernadette, while "immy" (0) or "georgie" (3.0) are names.
_COMMON_WORD = 3.5


@lru_cache(maxsize=65536)
def _common(word: str) -> bool:
    return zipf_frequency(word, "en", wordlist="small") >= _COMMON_WORD


def _pet_root(short: str) -> str:
    """The :func:`spelling` of ``short`` less its pet ending ("bronnie" -> "bron", "tommo" ->
    "tom", "percy" -> "pers": the ending's letter says how the one before it sounds; "toms"
    -> "tom", "peps" -> "pep": an "-s" after three letters or more, as in "Mags" and "Babs"),
    "" when it has none."""
    sound = spelling(short)
    if short.endswith(_PET_ENDINGS):
        return sound[:-1] if len(sound) > 1 and sound.endswith(("i", "o")) else ""
    if short.endswith(_PET_S) and not short.endswith("ss") and len(sound) > _PET_S_ROOT:
        return sound[:-1]
    return ""


def _built_on(root: str, whole: str) -> bool:
    """Whether a pet form's ``root`` is a syllable ``whole`` (a name's :func:`spelling`) is built
    from: its start of two letters or more ("imm" of "imogen"), or its end of three or more
    ("bert" of "cuthbert": "Bertie"), with at least two letters of the name left over."""
    if len(whole) < len(root) + 2:
        return False
    return (len(root) >= 2 and whole.startswith(root)) or (len(root) >= 3 and whole.endswith(root))


def _pet_of_others(short: str) -> frozenset[str]:
    """The full names the lists give ``short`` as a pet form of, less its own spellings
    ("tammy" -> {"tamarra"}, "kelly" -> {}: "kelley" is Kelly spelled another way)."""
    own = spelling(short)
    return frozenset(n for n in _canonicals_of(short) if spelling(n) != own)


@lru_cache(maxsize=65536)
def pet_form(short: str, name: str, *, named: bool = False, called: bool = False) -> bool:
    """Whether the given name ``short`` is a pet form of ``name`` that no list holds, made as
    people make them: a syllable of the name, its start (two letters or more) or its end
    (three or more), its last letter often doubled, then "-ie", "-y", "-i" or "-o" ("immy"
    for "imogen", "tommo" for "thomas", "bronnie" for "bronwen", "bertie" for "cuthbert"),
    or its start and an "-s" ("toms"), each read as it sounds (:func:`spelling`).
    A word the lists know as a name is a pet form only as they make it: a pet form of other
    names that hold the same syllable ("tammy", which the lists give for a Tamara, for a
    Tamsin; "bertie", given for an Alberta, for a Cuthbert); a name of its own is judged by
    the lists alone ("kelly" is not "kelvin"). A common English word is neither a pet form
    ("berry" for "bernadette") nor a name with pet forms ("important" has no "immy"), with
    two exceptions: a listed name that English also says as a word ("sandy", "percy") is a
    pet form when it was ``named`` (said as a name: a label, a capitalised word), and a
    name ``called`` (a forgotten thing's one-word name: "Pepper", a cat) has pet forms
    whatever English says of the word ("Peps")."""
    if not (short.isalpha() and name.isalpha()) or len(short) < 3 or short == name:
        return False
    if _common(short) and not (named and _given_name(short)):
        return False
    if _common(name) and not (called or _given_name(name)):
        return False
    root = _pet_root(short)
    if not root or not _built_on(root, spelling(name)):
        return False
    if not _given_name(short):
        return True
    # Known as a name: only as the lists' pet form of names that hold the same syllable.
    return any(root in spelling(full) for full in _pet_of_others(short))


@lru_cache(maxsize=65536)
def cut_short(short: str, name: str, *, given: bool = False, thing: bool = False) -> bool:
    """Whether ``short`` is ``name`` cut to its first syllable, as people say a name no list
    shortens ("bron" for "bronwen", "lorc" for "lorcan", "uke" for "ukulele"), read as it
    sounds (:func:`spelling`, a silent "e" closing the syllable dropped): three letters or
    more, two or more of the name left over, and neither a name of its own the lists know
    ("dan" is short for "daniel", never "dante") nor a common English word. A thing's name
    (``thing``) is cut to one syllable: a word of two is a word of its own ("Zephyr Bakery" is
    no "Zephyrine"), where a person's may be cut to two ("Fola" for a Folake). Only a given
    name or a thing's name is cut so: a surname's start is another family's name ("Sokol"
    is no "Sokolow"), so callers pass no surname. ``given``: a given name the lists know may
    be the cut too, as of a thing whose name English does not know, said as a name ("Zeph"
    for a project called Zephyrine)."""
    if len(short) < 3 or len(name) < len(short) + 2 or short == name:
        return False
    if not (short.isalpha() and name.isalpha()) or _common(short):
        return False
    if _given_name(short) and not given:
        return False
    syllable = spelling(short[:-1] if short.endswith("e") else short)
    if thing and len(_VOWELS.findall(syllable)) > 1:
        return False  # two syllables or more make a word of their own ("zephyr" of "zephyrine")
    return len(syllable) >= 2 and spelling(name).startswith(syllable)


_VOWELS = re.compile(r"[aeiouy]+")


@lru_cache(maxsize=65536)
def _front_of(short: str, name: str) -> bool:
    """Whether the given name ``short`` that the lists know is the front of the forgotten
    person's given name ``name``, three letters or more with two or more left over: "Leo"
    for a Leopold (the lists give "leo" for a Leonard only). Said of a forgotten full name
    only, never the other way: a forgotten "Dan" is never a "Dante"."""
    return (
        len(short) >= 3
        and len(name) >= len(short) + 2
        and name.startswith(short)
        and _given_name(short)
    )


@lru_cache(maxsize=65536)
def clipped(short: str, name: str) -> bool:
    """Whether the given name ``short`` is ``name`` cut short, as people shorten names the
    nicknames list does not hold: "greg" for "gregor" (the list knows "greg" as short for
    "gregory", and "gregor" shares more than "greg" with it). A name that only starts alike
    is another name: "dan" is short for "daniel", and "dante" shares just "dan" with it."""
    if len(short) < 3 or len(name) <= len(short) or not name.startswith(short):
        return False
    if not (short.isalpha() and name.isalpha()):
        return False
    return any(_common_prefix(full, name) > len(short) for full in _canonicals_of(short))


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _clipped_either(word: str, names: Iterable[str], *, named: bool = False) -> bool:
    """Whether ``word`` is one of ``names`` cut short (at either end) or a pet form of it, or
    the other way; ``named`` when the word was said as a name (:func:`pet_form`), as the
    forgotten ``names`` were. A forgotten name that is the end of a word one letter longer is
    another name ("Helena" for a forgotten "Elena"), while "William" is a forgotten "Liam"'s."""
    return any(
        clipped(word, name)
        or clipped(name, word)
        or pet_form(word, name, named=named)
        or pet_form(name, word, named=True)
        or end_clipped(word, name)
        or (end_clipped(name, word) and len(word) - len(name) >= 2)
        for name in names
    )


@lru_cache(maxsize=65536)
def _english(word: str) -> bool:
    """Whether English knows the lower-case ``word`` (wordfreq's small list). Only such words
    have a meaning the model can compare: a coined name ("Moonbeam", "Okafor") is read by
    the model as pieces of its spelling, so "Moonlight" would look like "Moonbeam"."""
    return zipf_frequency(word, "en", wordlist="small") > 0


def _meaningful(words: Sequence[str]) -> bool:
    """Words whose meaning the model can compare: all known to English, and not only stop
    words (a fragment such as "going" names nothing)."""
    return (
        bool(words) and all(_english(w) for w in words) and not all(w in STOP_WORDS for w in words)
    )


def _text_of(words: Iterable[str]) -> str:
    return " ".join(words)


def _vector_of(words: Sequence[str]) -> np.ndarray:
    return embed([_text_of(words)])[0]


def sign(label: str, *, aliases: Iterable[str] = (), category: str = "") -> dict[str, Any]:
    """What a new suppression of ``label`` stores beside its key: ``signature`` (names, keys,
    words, variants, whether it names a person), ``vector`` (int8 bytes of its name's meaning)
    and ``vector_model``. ``aliases`` are its other names; ``category`` what it was (a
    person's name gets every word and the nicknames of its given names)."""
    key = canonical_key(label)
    names = list(dict.fromkeys(k for k in [key, *map(canonical_key, aliases)] if k))
    person = category in PEOPLE or titled_name(key)
    keys: set[str] = set()
    words: set[str] = set()
    variants: set[str] = set()
    for name in names:
        keys |= {name, core_key(name), fold_key(name)}
        picked = _picking_words(name, person)
        words |= picked
        if person:
            for word in picked:
                variants |= name_variants(word)
    subject = subject_words(key) if key else []
    meaningful = _meaningful(subject) and not person
    vector = quantize(_vector_of(subject)[None, :])[0] if meaningful else None
    return {
        "signature": {
            "v": SIGNATURE_VERSION,
            "names": names,
            "keys": sorted(keys - {""}),
            "words": sorted(words),
            "variants": sorted(variants - words),
            "person": person,
        },
        "vector": vector,
        "vector_model": MODEL_NAME if vector is not None else "",
    }


@dataclass(frozen=True)
class FullName:
    """A forgotten person's name of two words or more, as its parts: the given names with
    their nicknames and spellings (``given``, letters undoubled) and the surname (undoubled).
    What picks the person out is the two together: a surname alone is shared by a family,
    a given name alone by many people."""

    given: frozenset[str]
    surname: str
    # The given names as said (not undoubled), for names cut short ("greg" for "gregor").
    said: frozenset[str] = frozenset()
    # "m" or "f" when the name was said with a title that says which ("Mr Gregor Halloway"):
    # the same surname after a title of the other ("Mrs Halloway") is someone else.
    gender: str = ""
    # The particles said before the surname ("o" of "O'Neill", "van der" of "van der Berg"):
    # parts of the surname, not given names.
    particles: frozenset[str] = frozenset()

    def given_hit(self, word: str, *, named: bool = False) -> bool:
        """Whether ``word`` may be one of the given names; ``named`` when it was said as a
        name (a label's word, a capitalised word in a message)."""
        return (
            _undoubled(word) in self.given
            or (spelling(word) in _sounds(self.given) and _name_like(word))
            or _clipped_either(word, self.said, named=named)
            or any(cut_short(word, name) or _front_of(word, name) for name in self.said)
            or any(transliterated(word, name) for name in self.said)
        )

    def whole_hit(self, word: str) -> bool:
        """Whether ``word`` is one of the given names whole, in any spelling or alphabet's
        transliteration; not a name cut short nor one that begins with another's."""
        return _undoubled(word) in self.given or any(
            transliterated(word, name) for name in self.said
        )

    def initial(self, word: str) -> bool:
        """Whether the single letter ``word`` is the initial of a given name as said."""
        return len(word) == 1 and any(name.startswith(word) for name in self.said)

    def surname_hit(self, word: str) -> bool:
        return _undoubled(word) == self.surname or stem(word) == stem(self.surname)


_VOWELS_AND_H = re.compile(r"[aeiouyh]")


def transliterated(word: str, name: str) -> bool:
    """Whether the given names ``word`` and ``name`` are one name written from another alphabet
    in two ways, which differ in their vowels ("abdulkarim" and "abdelkarim", "mohammed"
    and "muhammad" do not: four consonants say too little): the same first letter and the
    same four consonants or more after it, in order, letters undoubled."""
    if word == name or word[:1] != name[:1]:
        return False
    mine = _undoubled(_VOWELS_AND_H.sub("", word[1:]))
    theirs = _undoubled(_VOWELS_AND_H.sub("", name[1:]))
    return len(mine) >= 4 and mine == theirs


def full_name(key: str) -> FullName | None:
    """The parts of a person's name ``key`` (canonical) when it has two words or more:
    "harriet vane" -> given {harriet, hattie}, surname "vane"; None for one word ("dan").
    Titles, relations and roles before it are not its parts ("rev thomas ogilvy")."""
    words = [w for w in person_words(key) if w not in STOP_WORDS]
    if len(words) < 2:
        return None
    particles: list[str] = []
    while len(words) > 1 and words[-2] in SURNAME_PARTICLES:
        particles.append(words.pop(-2))
    if len(words) < 2:
        return None  # a surname alone with its particles ("Mrs O'Neill"): one name
    given: set[str] = set()
    for word in words[:-1]:
        given |= {word, *name_variants(word)}
    # a given name of two words is also written as one ("Abdul Karim", "Abdulkarim")
    said = {*words[:-1], *("".join(pair) for pair in zip(words[:-2], words[1:-1], strict=True))}
    return FullName(
        frozenset(_undoubled(w) for w in given | said),
        _undoubled(words[-1]),
        frozenset(said),
        title_gender(key),
        frozenset(particles),
    )


#: Words said before a surname as part of it: "O'Neill" (canonical "o neill"), "McAllister"
#: said "Mc Allister", "van der Berg", "de la Cruz", "St John".
SURNAME_PARTICLES = frozenset(
    "o mc mac van von de der den da di du del della le la st ter ten dos das ap".split()
)


def names_person(words: Sequence[str], name: FullName) -> bool:
    """Whether a label's subject ``words`` can name the person ``name`` forgets: its given name
    (or a nickname) and surname, its given name alone or its surname alone ("Harriet", "Ms
    Vane", "Hattie Vane" for "Harriet Vane"), and no other name word. Another given name before
    the surname ("Peter Vane") or another surname after the given name ("Harriet Jones") is
    someone else who shares a name with them. A title, relation or role is no name word
    ("Father Ogilvy", "Coach Rooke", "my GP Stroud"). A single letter is an initial: of their
    given name it is that name ("J Castellan" for "John Castellan"), after their given name a
    middle name's ("John F Castellan"); of another name alone, someone else ("P Castellan")."""
    if _other_gender(title_gender(" ".join(words)), name.gender):
        return False
    surname = [w for w in words if name.surname_hit(w)]
    given = [
        w for w in words if w not in surname and (name.given_hit(w, named=True) or name.initial(w))
    ]
    for first, second in zip(words, words[1:], strict=False):
        # a given name written as one said as two ("Abdul Karim" for an "Abdelkarim")
        if {first, second}.isdisjoint(surname) and name.whole_hit(first + second):
            given += [w for w in (first, second) if w not in given]
    if not surname and not given:
        return False
    rest = [w for w in words if w not in surname and w not in given and w not in name.particles]
    middle = any(len(w) > 1 for w in given)
    return all(
        w in STOP_WORDS
        or is_person_title(w)
        or w in PERSON_TRAILING
        or (middle and len(w) == 1 and w.isalpha())
        for w in rest
    )


@lru_cache(maxsize=65536)
def weight(word: str) -> float:
    """How much ``word`` says about which thing a name names: the rarer in English, the more
    (8 less its Zipf frequency in wordfreq's small list; a word the list lacks weighs 8);
    nothing for a stop word."""
    if word in STOP_WORDS:
        return 0.0
    return max(0.0, 8.0 - zipf_frequency(word, "en", wordlist="small"))


#: The share of the weight of a name's distinctive words (not a person's name) a label or a
#: message must carry to speak of it: "Harbour Swim Club" shares with a forgotten "Harbour
#: Bakery" only "harbour", less than half of what tells the bakery apart, so it is not the
#: bakery; "Porto" is all there is to tell a "Porto Trip" apart ("trip" is a common word).
SHARE_FLOOR = 0.6


def shares_name(stems: Iterable[str], name: Sequence[str]) -> str:
    """The distinctive word of the name's subject ``name`` that a label or a message with
    ``stems`` shares, when the distinctive words it shares (:func:`memory.recall.text.
    is_distinctive`) carry at least :data:`SHARE_FLOOR` of the :func:`weight` of all of the
    name's; "" when they do not (one shared word of several never makes two things one) or
    the name has none (a common word picks nothing out)."""
    have = set(stems)
    distinctive = [w for w in name if is_distinctive(w)]
    shared = [w for w in distinctive if stem(w) in have]
    total = sum(weight(w) for w in distinctive)
    if not shared or not total:
        return ""
    return shared[0] if sum(weight(w) for w in shared) / total >= SHARE_FLOOR else ""


#: How rare a thing's head word must be to name it alone (:func:`rare_head`): a word
#: wordfreq's small list lacks (the :func:`weight` of a word the list does not hold).
RARE_HEAD = 8.0


@lru_cache(maxsize=4096)
def rare_head(name: tuple[str, ...]) -> str:
    """The stem of the last word of a thing's name of two words or more (its head: what it
    is) when no everyday English word is spelled so (:data:`RARE_HEAD`), or when it names a
    condition on its own (:func:`memory.extractors.rules.health.condition_word`): people go
    on to say that word alone for the thing ("my fasciitis" of a "Plantar Fasciitis", "the
    diabetes" of a "Type 2 Diabetes"), while a word before it only says which one ("plantar"
    is as rare, and a "Plantar Wart" is another thing); "" for a one-word name or another
    head in everyday use ("bakery")."""
    from memory.extractors.rules.health import condition_word  # the rules' own vocabulary

    if len(name) < 2:
        return ""
    if condition_word(name[-1]):
        return stem(name[-1])
    if not is_distinctive(name[-1]) or weight(name[-1]) < RARE_HEAD:
        return ""
    return stem(name[-1])


def part_of_name(words: Sequence[str], name: Sequence[str]) -> str:
    """A distinctive word of the name's subject ``name`` when a label's subject ``words`` are
    only words of that name, cut short or not, and words for a group ("Chess Club" of a
    forgotten "Riverside Chess Club", "Leeds Uni" of a "Leeds University": a part of the name,
    and nothing of its own that would make it something else); "" otherwise."""
    mine = {stem(w) for w in name}
    own = [w for w in words if w not in STOP_WORDS and w not in _GROUP]
    if not own or any(stem(w) not in mine and not _cut_of(w, name) for w in own):
        return ""
    return next((w for w in own if is_distinctive(w) and stem(w) in mine), "")


def _cut_of(word: str, name: Sequence[str]) -> bool:
    """Whether ``word`` is a word of ``name`` cut short, as people clip a long word ("minis" of
    "miniatures", "uni" of "university"): three letters or more, a plural "s" aside, with
    two or more of the word left over."""
    cut = word[:-1] if word.endswith("s") and len(word) > 4 else word
    return len(cut) >= 3 and any(w.startswith(cut) and len(w) >= len(cut) + 2 for w in name)


@dataclass(frozen=True)
class Tombstone:
    """A suppression in force, as the gate and recall compare with it."""

    id: int
    label: str
    names: tuple[str, ...]
    keys: frozenset[str]
    words: frozenset[str]
    variants: frozenset[str]
    person: bool
    subject: tuple[str, ...]
    vector: np.ndarray | None = field(default=None, compare=False)
    exceptions: frozenset[str] = frozenset()
    stems: frozenset[str] = frozenset()
    full_names: tuple[FullName, ...] = ()
    groups: tuple[tuple[str, ...], ...] = ()
    # "m" or "f" when its name was said with a title that says which ("Mr Okafor"): a name
    # with a title of the other ("Mrs Okafor") is another person, never this one.
    gender: str = ""
    # The initials of its names of three words or more ("rls" for "Restless Legs
    # Syndrome"): what people write for the name once they know it (see acronym_of).
    initials: frozenset[str] = frozenset()
    # A person's one-word names said alone, with no title before them ("Lorc", never the
    # "Sokolow" of a "Rabbi Sokolow"): given names, which people cut short (cut_short).
    bare: frozenset[str] = frozenset()
    # A person's initials, two or three letters ("jl" for "Jean-Luc Fabre", "tg" for "Tamsin
    # Greaves"), or a condition's two ("af" for "Atrial Fibrillation"): a name only where
    # written in capitals (see monograms_of, condition_letters).
    monograms: frozenset[str] = frozenset()


def tombstone(
    *,
    id: int,
    label: str,
    key: str,
    signature: dict[str, Any] | None,
    vector: bytes | memoryview | None,
    vector_model: str = "",
    exceptions: Iterable[str] = (),
    exact_only: bool = False,
) -> Tombstone:
    """A stored suppression as a :class:`Tombstone`. A row from before signatures (an empty
    ``signature``) is signed from its label now, without aliases or category; a vector that is
    missing or from another model is embedded again (never mixed). With ``exact_only`` (a junk
    label cleanup suppressed: it binds its own name, nothing like it) only its keys count."""
    if exact_only:
        keys = frozenset({key, core_key(key), fold_key(key)} - {""})
        return Tombstone(id, label, (key,), keys, frozenset(), frozenset(), False, ())
    if not signature or signature.get("v") != SIGNATURE_VERSION:
        signed = sign(label or key)
        signature = signed["signature"]
        if signature["names"] and signature["names"][0] != key and key:
            signature["names"] = [key, *signature["names"]]
            signature["keys"] = sorted({*signature["keys"], key, core_key(key), fold_key(key)})
        vector, vector_model = signed["vector"], signed["vector_model"]
    names = tuple(signature.get("names") or [key])
    subject = tuple(subject_words(names[0]))
    unit: np.ndarray | None = None
    if vector is not None and vector_model == MODEL_NAME and len(vector) == DIM:
        unit = np.frombuffer(bytes(vector), dtype=np.int8).astype(np.float32) / SCALE
    elif _meaningful(subject) and not signature.get("person"):
        unit = _vector_of(subject)
    if unit is not None:
        norm = float(np.linalg.norm(unit))
        unit = unit / norm if norm else None
    person = bool(signature.get("person"))
    words, variants, full_names = _person_parts(names) if person else (frozenset(), frozenset(), ())
    return Tombstone(
        id=id,
        label=label,
        names=names,
        # Each stored key folded again as keys are folded now: a signature keeps the fold keys
        # of when it was made, before a spelling was read one way.
        keys=frozenset(
            k for stored in signature.get("keys") or (key,) for k in (stored, fold_key(stored))
        ),
        words=words,
        variants=variants,
        person=person,
        subject=subject,
        vector=unit,
        exceptions=frozenset(exceptions),
        stems=frozenset(stem(w) for name in names for w in subject_words(name)),
        full_names=full_names,
        groups=() if person else tuple(tuple(subject_words(n)) for n in names),
        gender=_gender_of(names),
        initials=frozenset()
        if person
        else frozenset(initials for n in names for initials in _initials(n)),
        bare=_bare(names, person),
        monograms=frozenset(m for n in names if person for m in monograms_of(n))
        | frozenset(m for n in names if not person for m in condition_letters(n)),
    )


def _bare(names: Sequence[str], person: bool) -> frozenset[str]:
    """The one-word names of ``names`` that people cut short (:func:`cut_short`): a person's
    said with no title before it (a given name: "lorc", never the "sokolow" of a "rabbi
    sokolow"), a thing's distinctive one ("ukulele", said "uke")."""
    if person:
        return frozenset(w for n in names if len(n.split()) == 1 for w in _picking_words(n, True))
    subjects = [subject_words(n) for n in names]
    return frozenset(s[0] for s in subjects if len(s) == 1 and is_distinctive(s[0]))


def initials_of(key: str) -> str:
    """The initials of a name of three words or more, stop words left out ("restless legs
    syndrome" -> "rls", "department of work and pensions" -> "dwp"); "" for a shorter name."""
    words = [w for w in name_words(key) if w not in STOP_WORDS and w.isalpha()]
    return "".join(w[0] for w in words) if len(words) >= 3 else ""


#: A word of a name is read as two words run together when each part is at least this common
#: in English (Zipf, small list) and three letters or more: "Northwind" as "north wind".
_COMPOUND_PART = 3.5


# The combining forms medicine builds words from, each read as a word of its own in initials.
_COMBINING_FORMS = (
    "poly",
    "hyper",
    "hypo",
    "osteo",
    "neuro",
    "cardio",
    "gastro",
    "peri",
    "endo",
    "multi",
    "micro",
)


@lru_cache(maxsize=65536)
def compound_parts(word: str) -> tuple[str, ...]:
    """``word`` as the two English words it runs together, when it is one no common English
    word is and exactly one split makes two common words ("northwind" -> ("north", "wind"),
    "moonbeam" -> ("moon", "beam")); else ``(word,)`` ("notebook" is a common word of its
    own); or a medical word as its combining form and the rest, as medicine writes its
    initials ("polycystic" -> ("poly", "cystic"): "PCOS" for a polycystic ovary syndrome). Read
    only for a name's initials, which count only where written in capitals."""
    if len(word) < 7 or not word.isalpha() or _common(word):
        return (word,)
    for form in _COMBINING_FORMS:
        if word.startswith(form) and len(word) - len(form) >= 4:
            return (form, word[len(form) :])
    splits = [
        (word[:i], word[i:])
        for i in range(3, len(word) - 2)
        if zipf_frequency(word[:i], "en", wordlist="small") >= _COMPOUND_PART
        and zipf_frequency(word[i:], "en", wordlist="small") >= _COMPOUND_PART
    ]
    return splits[0] if len(splits) == 1 else (word,)


def _initials(key: str) -> set[str]:
    """The initials of a name (:func:`initials_of`), with and without the words that say its
    kind: "brazilian jiu jitsu classes" is written "BJJ" as often as "BJJC"; with a word
    that runs two together read as both ("Northwind Games" is written "NWG"), with the
    "the" it starts with ("The Glass Orchard" is written "TGO" as often as "GO")."""
    subject = " ".join(subject_words(key))
    found = {initials_of(key), initials_of(subject)}
    split = " ".join(part for w in key.split() for part in compound_parts(w))
    if split != key:
        found.add(initials_of(split))
    if key.startswith("the "):
        rest = [w for w in name_words(key) if w not in STOP_WORDS and w.isalpha()]
        if len(rest) >= 2:
            found.add("t" + "".join(w[0] for w in rest))
    return {i for i in found if i}


def condition_letters(key: str) -> set[str]:
    """A condition of two words by its two letters, as medicine writes it ("af" of "atrial
    fibrillation", "uc" of "ulcerative colitis"): a name's letters only where written in
    capitals, like a person's (:func:`monograms`)."""
    words = key.split()
    if len(words) == 2 and all(w.isalpha() for w in words) and condition_word(words[1]):
        return {words[0][0] + words[1][0]}
    return set()


#: A two-letter word at least this common in English (Zipf) is an abbreviation people write
#: in capitals ("TV", "UK", "HR", "GP", "DJ"), never taken for a person's initials.
_MONOGRAM_WORD = 3.8


def monograms_of(key: str) -> set[str]:
    """A person's initials as people write them for a name of two words or more: each given
    name's first letter (a hyphenated one's parts each: "jean luc fabre" -> "jl"), with the
    surname's ("jlf"); two or three letters, and never an abbreviation English uses
    ("TV", "HR"). Empty for a one-word name."""
    parts = full_name(key)
    if parts is None:
        return set()
    words = [w for w in person_words(key) if w not in STOP_WORDS and w not in parts.particles]
    if len(words) < 2:
        return set()
    given = "".join(w[0] for w in words[:-1])
    found = {given + words[-1][0]}
    if len(given) >= 2:
        found.add(given)
    return {
        m
        for m in found
        if 2 <= len(m) <= 3 and zipf_frequency(m, "en", wordlist="small") < _MONOGRAM_WORD
    }


_MONOGRAM = re.compile(r"\b[A-Z]{2,3}\b")


def monograms(text: str) -> set[str]:
    """The words of ``text`` written as two or three capitals ("JL"), lower case."""
    return {m.lower() for m in _MONOGRAM.findall(text)}


_CAPITALS = re.compile(r"\b[A-Z]{3,}(?=s?\b)")


_ACRONYM_LABEL = re.compile(r"^[A-Z]{3,5}$")


def spelled_out(text: str) -> set[str]:
    """The initials of every run of three to five words of ``text`` that are not stop words,
    next to each other or with one stop word between ("irritable bowel syndrome" -> "ibs",
    "department of work and pensions" -> "dwp"): what a name written as an acronym is when
    it is said in full. Lower case."""
    words = re.findall(r"[a-z]+", text.lower())
    content = [(i, w) for i, w in enumerate(words) if w not in STOP_WORDS]
    found: set[str] = set()
    for start in range(len(content)):
        for end in range(start + 3, min(start + 5, len(content)) + 1):
            run = content[start:end]
            if any(b[0] - a[0] > 2 for a, b in zip(run, run[1:], strict=False)):
                break
            found.add("".join(w[0] for _i, w in run))
    return found


def acronyms(text: str) -> set[str]:
    """The words of ``text`` written in capitals, three letters or more ("RLS", "IBS"), lower
    case: in a message, a name's initials are an acronym only when written so."""
    return {m.lower() for m in _CAPITALS.findall(text)}


def _written(label: str, key: str) -> frozenset[str]:
    """The words ``label`` writes in capitals that may be initials (:func:`acronyms`,
    :func:`monograms`): a word English knows ("CAT") only inside a longer label ("NBC Climbing
    Group"), where the capitals say it is written for a name; alone, it is that word."""
    alone = len(key.split()) == 1
    return frozenset(
        w for w in acronyms(label) | monograms(label) if not (alone and len(w) == 3 and _english(w))
    )


def acronym_of(key: str, t: Tombstone) -> bool:
    """Whether a label's canonical ``key`` is the initials of one of ``t``'s names: four
    letters or more, or three that English does not know as a word (a label's key has lost
    its capitals: "rls" is the syndrome's, "cat" is a cat)."""
    return key in t.initials and (len(key) >= 4 or not _english(key))


def _gender_of(names: Sequence[str]) -> str:
    """The one gender the titles of ``names`` say ("mr okafor"), "" when none or both."""
    said = {title_gender(name) for name in names} - {""}
    return said.pop() if len(said) == 1 else ""


def _other_gender(mine: str, theirs: str) -> bool:
    return bool(mine and theirs and mine != theirs)


def other_person(key: str, t: Tombstone) -> bool:
    """Whether the canonical ``key`` is said with a title of the other gender than ``t``'s
    name ("mrs okafor" against a forgotten "Mr Okafor"): two people of one family."""
    return _other_gender(title_gender(key), t.gender)


def _person_parts(
    names: Sequence[str],
) -> tuple[frozenset[str], frozenset[str], tuple[FullName, ...]]:
    """A forgotten person's names as what picks them out: the words and nicknames of their
    one-word names ("dan": any "Danny" may be him), and their names of two words or more as
    :class:`FullName` parts (a shared surname or given name alone is not them)."""
    words: set[str] = set()
    variants: set[str] = set()
    full: list[FullName] = []
    for name in names:
        parts = full_name(name)
        if parts is not None:
            full.append(parts)
            continue
        picked = _picking_words(name, True)
        words |= picked
        for word in picked:
            variants |= name_variants(word)
    return frozenset(words), frozenset(variants - words), tuple(full)


@dataclass(frozen=True)
class Resemblance:
    """A label against the tombstone it resembles: ``exact`` (the same name: refused) or not
    (it looks like it: held), and why, as the person reads it."""

    tombstone: Tombstone
    exact: bool
    why: str
    score: float = 1.0


#: Letters two different words must share in one run to be read as spelled alike.
SPELLED_ALIKE = 5


def spelled_alike(word: str, others: Iterable[str]) -> bool:
    """Whether ``word`` shares a run of :data:`SPELLED_ALIKE` letters or more with one of
    ``others`` without being the same word ("kickboxing" and "boxing", "amoxicillin" and
    "penicillin"). The model reads such words by the pieces of their spelling, so their
    closeness says they are spelled alike, often two kinds of one thing, not that they are
    one thing: meaning never decides between them."""
    for other in others:
        if stem(other) == stem(word):
            continue
        match = SequenceMatcher(None, word, other, autojunk=False).find_longest_match()
        if match.size >= SPELLED_ALIKE:
            return True
    return False


def _meaning(words: Sequence[str], t: Tombstone, mine: np.ndarray | None) -> float:
    """The cosine of the label's subject and the tombstone's, the words both share set aside
    (nothing left on either side, or a word left spelled like one of theirs: no evidence,
    0)."""
    if t.vector is None or any(spelled_alike(w, t.subject) for w in words):
        return 0.0
    shared = {stem(w) for w in words} & {stem(w) for w in t.subject}
    if not shared:
        return float(mine @ t.vector) if mine is not None and _meaningful(words) else 0.0
    rest = [w for w in words if stem(w) not in shared]
    theirs = [w for w in t.subject if stem(w) not in shared]
    if not _meaningful(rest) or not _meaningful(theirs):
        return 0.0
    a, b = embed([_text_of(rest), _text_of(theirs)])
    return float(a @ b)


def called(t: Tombstone) -> tuple[str, ...]:
    """The names of ``t``'s forgotten thing (not a person) that are one word as said ("pepper"
    for a cat called Pepper, "persephone" for a dinghy; never the "penicillin" of a
    "Penicillin Allergy"): names that people call by pet forms."""
    if t.person:
        return ()
    # A word said in the plural names a kind of thing, not one thing that has a name
    # ("Sambucas", "Proseccos"): a kind has no pet forms ("Sammy" is a friend).
    return tuple(n for n in t.names if len(name_words(n)) == 1 and n.isalpha() and not _plural(n))


def _plural(word: str) -> bool:
    """A word of six letters or more that ends as English plurals do ("sambucas"; not
    "atlas", "boris", "octopus", "moss")."""
    return len(word) >= 6 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _variant_of(word: str, t: Tombstone, *, named: bool = False) -> bool:
    """Whether ``word`` is another form of one of ``t``'s names: a listed variant, a spelling,
    a name cut short or a pet form; ``named`` when it was said as a name (a label of that
    word, a capitalised word in a message). A thing's one-word name has pet forms only said
    as a name ("Peps rang the bell" for a cat called Pepper; "peppy" is a word), and a listed
    given name is one of them only for a name English does not know ("Percy" for a dinghy
    called Persephone, never "Penny" for a "Penicillin")."""
    if word in t.variants:
        return True
    if not t.person:
        if any(cut_short(word, w, given=named and not _english(w), thing=True) for w in t.bare):
            return True
        return named and any(
            pet_form(word, w, named=not _english(w), called=True) for w in called(t)
        )
    if len(word) > 2 and spelling(word) in _sounds(t.variants | t.words) and _name_like(word):
        return True
    if any(_undoubled(word) == _undoubled(w) for w in t.words):
        return True
    if _clipped_either(word, t.words, named=named):
        return True
    return any(cut_short(word, w) or cut_short(w, word) for w in t.bare)


def _near(
    key: str,
    t: Tombstone,
    floor: float,
    mine: np.ndarray | None,
    written: frozenset[str] = frozenset(),
) -> Resemblance | None:
    """How the label with the canonical ``key`` looks like ``t``, if it does; ``written`` are
    the words the label writes in capitals (:func:`acronyms`, :func:`monograms`)."""
    if other_person(key, t):
        return None
    caps = sorted(written & (t.initials | t.monograms))
    if acronym_of(key, t) or caps:
        said = caps[0] if caps else key
        return Resemblance(t, False, f"“{said.upper()}” is what “{t.label}” is written as")
    if not t.person and _ACRONYM_LABEL.match(t.label) and t.label.lower() in _initials(key):
        # "Irritable Bowel Syndrome" of a forgotten "IBS": the acronym said in full
        return Resemblance(t, False, f"“{t.label}” is what it is written as")
    spoken = [one_spelling(w) for w in key.split()]
    if any(
        len(name.split()) > 1 and _phrase_in(spoken, [one_spelling(w) for w in name.split()])
        for name in t.names
    ):
        # "Ingrid Vasquez Coaches": the whole forgotten name, whatever is said beside it, in
        # either English spelling ("Color Theory Society Meeting" of a "Colour Theory Society")
        return Resemblance(t, False, f"says the name “{t.label}”")
    words = subject_words(key)
    stems = {stem(w) for w in words}
    shared = sorted(w for w in t.words if stem(w) in stems)
    shared += [w for n in t.groups for w in (shares_name(stems, n), part_of_name(words, n)) if w]
    if shared and not _another_thing(words, t):
        return Resemblance(t, False, f"shares the word “{shared[0]}”")
    if any(names_person(words, name) for name in t.full_names):
        return Resemblance(t, False, f"may name the same person as “{t.label}”")
    # A label is a name: a person's words each, a thing's pet form only as the whole label.
    named = t.person or len(words) == 1
    for word in words:
        if _variant_of(word, t, named=named):
            return Resemblance(t, False, f"“{word}” is another form of the name “{t.label}”")
    score = _meaning(words, t, mine)
    if score >= floor:
        return Resemblance(t, False, f"close in meaning to “{t.label}”", score)
    return None


def _another_thing(words: Sequence[str], t: Tombstone) -> bool:
    """Whether a label with the subject ``words``, sharing a word with ``t``'s name (not a
    person's), names something else: each says a word of its own beside the shared ones, and
    what they say there is unlike in meaning ("Brightwater Yoga Studio" beside a forgotten
    "Brightwater Dental"; "Vestibular Rehab Exercises" beside "Vestibular Migraine"). A label
    that says all of the forgotten name ("Vestibular Migraine Disorder"), or only part of it
    ("Brightwater"), or differs only in the kind of group it is ("Riverside Chess Society" for
    a "Riverside Chess Club"), or whose own words the model cannot compare, is not."""
    if t.person:
        return False
    theirs = {stem(w) for w in t.subject}
    mine = {stem(w) for w in words}
    own = [w for w in words if stem(w) not in theirs and w not in _GROUP]
    missing = [w for w in t.subject if stem(w) not in mine and w not in _GROUP]
    if not missing and len(t.subject) == 1 and not set(words) & set(t.subject):
        # The one word of the forgotten name said in another form, inside a longer name
        # ("Boulder Ridge Holiday Cottages" beside a forgotten "Bouldering"): what the rest says.
        # Two words of its own or more that the model reads make a name of something else
        # when the model cannot read the forgotten word ("bouldering").
        missing = list(t.subject)
        if len(own) >= 2 and _meaningful(own) and not _meaningful(missing):
            return True
    if not own or not missing or not _meaningful(own) or not _meaningful(missing):
        return False
    a, b = embed([_text_of(own), _text_of(missing)])
    return float(a @ b) < DIFFER


# The last words that make a name a place or a body people gather in, named after someone or
# something ("Shri Ganesh Mandir", "Marigold Crescent", "St Brigid's Church").
_NAMED_PLACE_HEADS = frozenset(
    """road street lane avenue crescent close drive terrace square place way row gardens grove
    estate park hill ward hall hospital school temple mandir mosque masjid church chapel
    synagogue gurdwara cathedral parish""".split()
)


def _person_in_a_name(words: Sequence[str], t: Tombstone) -> bool:
    """Whether a person's one-word name (the label was proposed as a person, a relative or a
    partner) is only a word before the kind of place or body a forgotten thing's name ends
    in ("Murugan", a teammate, beside a forgotten "Sri Murugan Mandir"; "Florence" beside a
    forgotten "Florence Nightingale Ward"): someone, not that place. A firm or a band is
    called by its first word ("Copperhead" for a "Copperhead Parade", "Mr Harrow" for a
    "Harrow & Sons"), so a name not ending in such a kind is left to :func:`_near`; the
    same word alone as the forgotten thing's whole name is the thing (``same_name`` decides
    first)."""
    if t.person or len(words) != 1:
        return False
    named = name_words(t.names[0]) if t.names else []
    return (
        len(named) > 1
        and named[-1] in _NAMED_PLACE_HEADS
        and words[0] in named[:-1]
        and _name_like(words[0])
    )


def same_name(key: str, tombstones: Sequence[Tombstone]) -> Tombstone | None:
    """The first of ``tombstones`` the canonical ``key`` names: its canonical, core or fold key
    is one of the tombstone's keys."""
    if not key:
        return None
    probes = {key, core_key(key), fold_key(key)}
    return next((t for t in tombstones if probes & t.keys and not other_person(key, t)), None)


def resemblance(
    label: str, tombstones: Sequence[Tombstone], *, floor: float, category: str = ""
) -> Resemblance | None:
    """The tombstone ``label`` names exactly (the first by order of ``tombstones``), else the
    one it looks most like: a shared word or a name's variant first, then the closest in
    meaning at ``floor`` or above. None when it resembles none. A label a person kept as an
    exception of a tombstone (its key in ``exceptions``) does not resemble that one.
    ``category`` is what the label was proposed as, when known (:func:`_person_in_a_name`)."""
    key = canonical_key(label)
    if not key or not tombstones:
        return None
    same = same_name(key, tombstones)
    if same is not None:
        return Resemblance(same, True, "the same name")
    words = subject_words(key)
    mine = _vector_of(words) if _meaningful(words) else None
    written = _written(label, key)
    best: Resemblance | None = None
    for t in tombstones:
        if key in t.exceptions:
            continue
        if category in PEOPLE and _person_in_a_name(words, t):
            continue
        near = _near(key, t, floor, mine, written)
        if near is not None and near.score >= 1.0:
            return near
        if near is not None and (best is None or near.score > best.score):
            best = near
    return best


# --- messages -----------------------------------------------------------------------------------


def _phrase_in(words: Sequence[str], phrase: Sequence[str]) -> bool:
    n = len(phrase)
    return bool(n) and any(
        list(words[i : i + n]) == list(phrase) for i in range(len(words) - n + 1)
    )


_TOKEN = re.compile(r"[^\W\d_]+|[^\w\s]|\n")


@dataclass(frozen=True)
class _Token:
    word: str  # lower case, or the punctuation mark
    capital: bool  # a capitalised word that does not start its sentence: part of a name
    alpha: bool
    # A capitalised word that starts its sentence: a name's part when it is a given name or a
    # word English does not know ("Peter" in "Peter Vane is my coach"), not "Yesterday".
    opens: bool = False


def tokens(text: str) -> list[_Token]:
    """The words and punctuation of a message, each word marked when it is capitalised
    where a sentence does not start (so it is a name's part: "Peter" in "with Peter Vane"),
    or capitalised where it starts one (``opens``)."""
    out: list[_Token] = []
    for match in _TOKEN.finditer(text):
        raw = match.group()
        start = not out or out[-1].word in {".", "!", "?", "\n"}
        alpha = raw[0].isalpha()
        upper = alpha and raw[0].isupper()
        # A word as its key ("Zoë" -> "zoe", "Kjær" -> "kjaer"), as the names it is compared
        # with are: lower case alone kept the accents, so "Zoë called." never named a Zoë.
        word = (canonical_key(raw) or raw.lower()) if alpha else raw
        out.append(_Token(word, upper and not start, alpha, upper and start))
    return out


# A capitalised word that starts a sentence at least this common in English (Zipf) is that
# word ("Yesterday", "Today", "Finally"), not a name: given names stay below it ("Hans" 3.8,
# "Graham" 4.3, "Juan" 4.1) unless the nicknames list knows them ("Peter" 4.9).
_OPENER = 4.5


def _name_part(token: _Token) -> bool:
    """Whether ``token`` may be part of a name: capitalised inside its sentence, or at its
    start when it is a given name the lists know, or a word less common than a sentence's
    usual openers that is not an adverb in "-ly" ("Peter Vane is my coach", "Hans Müller is
    my coach": each starts its sentence and is still a name; "Luckily Vane called" is not)."""
    if token.capital:
        return True
    if not token.opens:
        return False
    if _given_name(token.word):
        return True
    return not token.word.endswith("ly") and (
        zipf_frequency(token.word, "en", wordlist="small") < _OPENER
    )


def _other_name(token: _Token | None, name: FullName) -> bool:
    """Whether ``token`` is another part of another person's name beside a part of ``name``:
    a capitalised word (:func:`_name_part`) that is not a stop word, a title or relation, or
    ``name``'s own."""
    if token is None or token.word in STOP_WORDS or not _name_part(token):
        return False
    if is_person_title(token.word):
        return False  # a title, a relation or a role ("Ms Vane", "Father Vane", "GP Vane")
    return not (name.given_hit(token.word) or name.surname_hit(token.word))


def speaks_of_person(said: Sequence[_Token], name: FullName) -> bool:
    """Whether a message (its :func:`tokens`) speaks of the person ``name``: it says their
    surname not after another given name ("Peter Vane"), or their given name or a nickname of
    it not before another surname ("Harriet Jones")."""
    for i, token in enumerate(said):
        if not token.alpha:
            continue
        before = _before_surname(said, i, name)
        after = said[i + 1] if i + 1 < len(said) else None
        if before is not None and _other_gender(_title_of(before.word), name.gender):
            continue  # "Mrs Halloway" for a forgotten "Mr Gregor Halloway": someone else
        if name.surname_hit(token.word) and not _other_name(before, name):
            return True
        if name.given_hit(token.word, named=_name_part(token)) and not _other_name(after, name):
            return True
    return False


def _before_surname(said: Sequence[_Token], i: int, name: FullName) -> _Token | None:
    """The word before ``said[i]``, past the surname's particles and the apostrophe or hyphen
    between them ("Peter" in "Peter O'Neill"), so another given name before a surname said
    with its particles is still seen."""
    j = i - 1
    while j >= 0 and (said[j].word in {"'", "’", "-"} or said[j].word in name.particles):
        j -= 1
    return said[j] if j >= 0 else None


def _title_of(word: str) -> str:
    """The gender a title says ("mrs" -> "f"), "" for any other word."""
    return title_gender(f"{word} x")


def _unmasked(words: list[str], stems: list[str], gender: str) -> tuple[list[str], list[str]]:
    """``words`` and their ``stems`` less each title of the other gender than ``gender`` and
    the word after it ("mrs okafor" for a forgotten "Mr Okafor": someone else's name)."""
    drop: set[int] = set()
    for i, word in enumerate(words):
        if _other_gender(_title_of(word), gender):
            drop |= {i, i + 1}
    if not drop:
        return words, stems
    keep = [i for i in range(len(words)) if i not in drop]
    return [words[i] for i in keep], [stems[i] for i in keep]


def _names_it(
    words: list[str],
    stems: list[str],
    t: Tombstone,
    named: frozenset[str] = frozenset(),
    alone: frozenset[str] = frozenset(),
) -> bool:
    """Whether a message's ``words`` (and their ``stems``) name ``t`` by its words alone: a
    name, a picking word, enough of a name's distinctive words, a rare head word, or a variant
    of a name (``named``: the words said as names, capitalised; ``alone``: of those, the ones
    said as a name of one word, which a thing's pet form is: "Otto Fairbanks" is a person,
    not the "Otto" of a cat called Ottoline)."""
    if t.gender:
        words, stems = _unmasked(words, stems, t.gender)
    for name in t.names:
        phrase = street_words(name.split())  # "gallowtree rd" said as "Gallowtree Road"
        if all(w in STOP_WORDS for w in phrase):
            continue  # a fragment such as "going" names nothing (as in forgotten_names)
        if _phrase_in(words, phrase) or _phrase_in(stems, [stem(w) for w in phrase]):
            return True
    mine = set(stems)
    if any(stem(w) in mine for w in t.words) or any(shares_name(mine, n) for n in t.groups):
        return True
    as_name = named if t.person else alone
    return any(_variant_of(w, t, named=w in as_name) for w in set(words) if w not in t.exceptions)


def named_words(said: Sequence[_Token]) -> frozenset[str]:
    """The words of a message (its :func:`tokens`) said as names (:func:`_name_part`)."""
    return frozenset(t.word for t in said if t.alpha and _name_part(t))


def alone_words(said: Sequence[_Token]) -> frozenset[str]:
    """The words of a message said as a name of one word: a name's part with no other beside
    it but a title ("Ottie" in "we lost Ottie", "Fola" in "Auntie Fola"; not "Otto" in "Otto
    Fairbanks rang")."""

    def part(i: int) -> bool:
        return 0 <= i < len(said) and said[i].alpha and _name_part(said[i])

    def other(i: int) -> bool:  # a title beside it is no other name ("Auntie Fola")
        return part(i) and not is_person_title(said[i].word)

    return frozenset(
        t.word for i, t in enumerate(said) if part(i) and not other(i - 1) and not other(i + 1)
    )


#: How rare a thing's first word must be to name it alone where written as a name
#: (:func:`rare_lead`): a word wordfreq's small list lacks, as for :data:`RARE_HEAD`.
RARE_LEAD = RARE_HEAD


def rare_lead(name: Sequence[str]) -> str:
    """The first word of a thing's name of two words or more when no English word is spelled
    so (a coined or proper word: "saltmarsh" of a band's "Saltmarsh Ramblers", "brightwater"
    of a "Brightwater Dental"): what people go on to call the thing, written as a name ("we
    played with Saltmarsh"); "" otherwise ("harbour" of a "Harbour Bakery" is a word)."""
    if len(name) < 2 or not is_distinctive(name[0]) or weight(name[0]) < RARE_LEAD:
        return ""
    return name[0]


def _beside_another_name(said: Sequence[_Token], i: int, name: Sequence[str]) -> bool:
    """Whether ``said[i]`` stands beside a word of another name: a capitalised word just
    before or after it that is not a word of ``name``, a stop word or a title ("Wednesday"
    in "the Wednesday Ramblers", "Harriers" in "Saltmarsh Harriers": another group's name
    that shares the word)."""
    own = {stem(w) for w in name}
    for j in (i - 1, i + 1):
        if not 0 <= j < len(said):
            continue
        other = said[j]
        if not other.alpha or other.word in STOP_WORDS or is_person_title(other.word):
            continue
        if other.capital and stem(other.word) not in own and not _cut_of(other.word, name):
            return True  # "Minis" beside "Wyvern" is a "Wyvern Miniatures Guild" cut short
    return False


def speaks_of_thing(said: Sequence[_Token], t: Tombstone) -> bool:
    """Whether a message (its :func:`tokens`) speaks of ``t``'s thing by one word of a name:
    its rare head word (:func:`rare_head`: "my fasciitis flared up"), or its rare first word
    written as a name inside a sentence (:func:`rare_lead`: "we played with Saltmarsh"),
    neither beside a word of another name ("the Wednesday Ramblers" is another group)."""
    for group in t.groups:
        head, lead = rare_head(group), rare_lead(group)
        if not head and not lead:
            continue
        for i, token in enumerate(said):
            if not token.alpha:
                continue
            word = stem(token.word)
            hit = (head and word == head) or (lead and token.capital and word == stem(lead))
            if hit and not _beside_another_name(said, i, group):
                return True
    return False


def named_in(text: str, tombstones: Sequence[Tombstone]) -> Tombstone | None:
    """The first of ``tombstones`` whose forgotten thing ``text`` names (as :func:`hidden`
    judges a message, without meaning: a name, a picking word, a variant, enough of a name's
    distinctive words, a part of a person's name that is not someone else's). What an
    assistant writes about a memory (an observation) is judged by it: the same words said
    under another entity's name are the same thing said again."""
    if not tombstones:
        return None
    words = street_words(canonical_key(text).split())
    stems = [stem(w) for w in words]
    said = tokens(text)
    named = named_words(said)
    alone = alone_words(said)
    capitals = acronyms(text)
    letters = monograms(text)
    for t in tombstones:
        named_so = _names_it(words, stems, t, named, alone)
        if named_so or capitals & t.initials or letters & t.monograms:
            return t
        if speaks_of_thing(said, t) or any(speaks_of_person(said, n) for n in t.full_names):
            return t
    return None


def naming_words(t: Tombstone) -> frozenset[str]:
    """The words by which a text may name ``t``'s forgotten thing: its picking words, the
    words of its names' distinctive groups, and a person's given names, surnames and names
    said alone."""
    words = set(t.words) | {w for group in t.groups for w in group} | set(t.bare)
    for name in t.full_names:
        words |= {name.surname, *name.said}
    return frozenset(w for w in words if w)


def kept_beside(
    labels: Iterable[str], tombstones: Sequence[Tombstone], *, floor: float
) -> tuple[str, ...]:
    """Of ``labels`` (what the person keeps, sharing a word with something forgotten), those
    that look like nothing forgotten (:func:`resemblance`): names of other things, for
    :func:`hidden`'s ``beside``. Sorted, without duplicates."""
    return tuple(
        sorted({label for label in labels if resemblance(label, tombstones, floor=floor) is None})
    )


def named_beside(text: str, label: str, tombstones: Sequence[Tombstone]) -> Tombstone | None:
    """The first of ``tombstones`` whose forgotten thing ``text`` names beside ``label``, the
    name it is said of (:func:`named_in` of the text with the label said in it taken out):
    "We hired Mensah Plumbing" names no forgotten "Ravi Mensah" beside "Mensah Plumbing",
    whose own resemblance is :func:`resemblance`'s to judge; "Gregor Halloway is coming for
    dinner" names him beside "Stepdad"."""
    return named_in(without_names(text, [label]), tombstones)


def without_names(text: str, names: Sequence[str]) -> str:
    """``text`` with each of ``names`` said in it (whole words, any case, any punctuation or
    spacing between its words) taken out."""
    for name in names:
        said = re.findall(r"\w+", name)
        if said:
            pattern = r"\b" + r"\W+".join(map(re.escape, said)) + r"\b"
            text = re.sub(pattern, " ", text, flags=re.IGNORECASE)
    return text


def _by_letters(
    texts: Sequence[str], tombstones: Sequence[Tombstone], out: list[bool]
) -> list[bool]:
    """``out``, with each text also hidden that writes a forgotten name by its letters: its
    initials in capitals ("RLS"), a person's initials ("JL"), or a name forgotten as its
    acronym said in full ("irritable bowel syndrome" of a forgotten "IBS")."""
    initials = frozenset().union(*(t.initials for t in tombstones))
    if initials:
        out = [
            seen or bool(acronyms(text) & initials) for seen, text in zip(out, texts, strict=True)
        ]
    written = frozenset(
        t.label.lower() for t in tombstones if not t.person and _ACRONYM_LABEL.match(t.label)
    )
    if written:
        out = [
            seen or bool(spelled_out(text) & written) for seen, text in zip(out, texts, strict=True)
        ]
    lettered = frozenset().union(*(t.monograms for t in tombstones))
    if lettered:
        out = [
            seen or bool(monograms(text) & lettered) for seen, text in zip(out, texts, strict=True)
        ]
    return out


def hidden(
    texts: Sequence[str],
    tombstones: Sequence[Tombstone],
    *,
    floor: float,
    beside: Sequence[str] = (),
) -> list[bool]:
    """For each of ``texts``, whether it speaks of something forgotten: it says one of a
    tombstone's names, words or variants, enough of a name's distinctive words
    (:func:`shares_name`), a part of a forgotten person's full name that is not someone
    else's (:func:`speaks_of_person`), or a word of it (not a stop word, not a word of the
    forgotten name itself) is close in meaning to the forgotten name (cosine at least
    ``floor``). The words of all the texts are embedded once, together. ``beside`` are the
    names of things the person keeps that share a word with something forgotten and are
    not it ("Mensah Plumbing" beside a forgotten "Ravi Mensah"): what a text says in those
    names speaks of them, not of the forgotten thing."""
    if not tombstones:
        return [False] * len(texts)
    if beside:
        texts = [without_names(text, beside) for text in texts]
    split = [street_words(canonical_key(text).split()) for text in texts]
    stemmed = [[stem(w) for w in words] for words in split]
    said = [tokens(text) for text in texts]
    named = [named_words(tok) for tok in said]  # once per text, not once per tombstone
    alone = [alone_words(tok) for tok in said]
    out = [
        any(_names_it(w, s, t, names, one) or speaks_of_thing(tok, t) for t in tombstones)
        for w, s, tok, names, one in zip(split, stemmed, said, named, alone, strict=True)
    ]
    out = _by_letters(texts, tombstones, out)
    people = [name for t in tombstones for name in t.full_names]
    if people:
        out = [
            seen or any(speaks_of_person(s, n) for n in people)
            for seen, s in zip(out, said, strict=True)
        ]
    with_vectors = [t for t in tombstones if t.vector is not None]
    if not with_vectors:
        return out
    own = frozenset().union(*(t.stems for t in with_vectors))
    vocabulary = sorted(
        {
            w
            for i, words in enumerate(split)
            if not out[i]
            for w in words
            if len(w) > 2
            and w.isalpha()
            and w not in STOP_WORDS
            and stem(w) not in own
            and _english(w)
        }
    )
    if not vocabulary:
        return out
    near = embed(vocabulary) @ np.stack([t.vector for t in with_vectors]).T  # type: ignore[misc]
    kept = frozenset().union(*(t.exceptions for t in with_vectors))
    close = {
        w
        for w, row in zip(vocabulary, near, strict=True)
        if any(
            float(score) >= floor and not spelled_alike(w, t.subject)
            for score, t in zip(row, with_vectors, strict=True)
        )
        and w not in kept
    }
    return [seen or any(w in close for w in words) for seen, words in zip(out, split, strict=True)]
