"""Noun phrases and names in a sentence, and how specific each is. No sentence templates.

The tagger is TextBlob's pattern tagger (a Brill lexicon with context and morphology rules that
ship inside the package, read from its own folder: nothing is downloaded). Its chunker groups a
sentence's tokens into noun phrases; a phrase is kept as a possible subject when it is a name
(proper nouns, never a month, weekday or the speaker) or when it carries a word that is rare in
English (wordfreq's Zipf scale): "the pottery class", "a retired greyhound", "Van Oord". Common
phrases ("a lot", "the day", "some time") carry no rare word and are never subjects.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import threading
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

from wordfreq import zipf_frequency

from memory.extractors import patterns as p
from memory.keys import is_honorific, likeliest_meant, mistyped
from memory.policy import FILLERS, PRONOUNS
from memory.temporal import MONTHS, WEEKDAYS

# Below this Zipf frequency a word is specific enough to name a subject on its own ("pottery"
# 2.9, "greyhound" 2.8); "class" (4.9), "week" (5.5), "job" (5.2) are not.
RARE_ZIPF = 4.0
# A phrase of two or more content words is specific with a less rare word ("dance studio" 4.7,
# "mental health awareness" 4.4): the words narrow each other down.
RARE_PHRASE_ZIPF = 4.7
# A name must not be a word English uses every day ("Great", "Love" at the start of a line).
NAME_MAX_ZIPF = 5.0

_NOUN = frozenset({"NN", "NNS", "NNP", "NNPS"})
_PROPER = frozenset({"NNP", "NNPS"})
_KEEP = _NOUN | frozenset({"JJ", "VBG", "VBN", "FW"})
_TIME_WORDS = frozenset(
    """today tonight yesterday tomorrow tmrw tmr tmrow tomoz tonite 2nite 2day 2moro 2morrow week weekend month year day days weeks months years
    morning evening night afternoon mornings evenings nights afternoons weekends time times moment while lot bit kind sort way thing things
    part end start beginning first last next ago everything anything something""".split()
)
# Adjectives that describe the moment, not the thing ("a new bike" is "Bike").
_LEAD_DROP = frozenset(
    """new old other same last next first second few many several much more most little big
    small great good bad best worst nice lovely amazing awesome cool huge whole own such
    recent current former latest own certain different special meaningful ideal potential
    strong real true deep positive wonderful beautiful perfect incredible important
    memorable precious""".split()
)
# Abstract nouns name a feeling or a quality ("serenity", "encouragement", "resilience"), not
# something in a life that a person would keep; a phrase made only of them is not a subject.
_ABSTRACT = re.compile(r"(?:ness|ity|ism|hood|itude|acy|dom)$", re.IGNORECASE)
# The tokenizer splits "I'm" into "I", "'", "m" and tags the "m" as a noun: spell them out.
_CONTRACTIONS = (
    (re.compile(r"\b(i)['’]m\b", re.I), r"\1 am"),
    (re.compile(r"n['’]t\b", re.I), " not"),
    (re.compile(r"['’]ve\b", re.I), " have"),
    (re.compile(r"['’]re\b", re.I), " are"),
    (re.compile(r"['’]ll\b", re.I), " will"),
    (re.compile(r"\b(i|we|you|they|he|she)['’]d\b", re.I), r"\1 would"),
)
# Contractions typed without their apostrophe ("im", "shes", "hasnt"): spelled out, or the
# tagger takes "Im" and "Shes" for names and "hasnt" for a noun.
BARE_CONTRACTIONS = {
    "im": "I am",
    "ive": "I have",
    "shes": "she is",
    "hes": "he is",
    "youre": "you are",
    "theyre": "they are",
    "thats": "that is",
    "theres": "there is",
    "whats": "what is",
    "dont": "do not",
    "doesnt": "does not",
    "didnt": "did not",
    "isnt": "is not",
    "wasnt": "was not",
    "arent": "are not",
    "werent": "were not",
    "hasnt": "has not",
    "havent": "have not",
    "hadnt": "had not",
    "couldnt": "could not",
    "wouldnt": "would not",
    "shouldnt": "should not",
}
_TYPED_WORD = re.compile(r"\b[A-Za-z]+\b(?!['’])")


# A word typed in capitals for emphasis ("mochi HATES the carrier", "I NEVER said that"): four
# letters or more, and a verb, adverb, adjective or interjection in lower case; shorter ones
# and nouns in capitals may be initials ("ADD", "SAD", "MOT").
_EMPHASIS_MIN = 4
_EMPHASIS_TAGS = ("VB", "RB", "JJ", "UH", "MD")


def _emphasis(word: str) -> bool:
    return (
        len(word) >= _EMPHASIS_MIN
        and word.isupper()
        and lexical_tag(word.lower()).startswith(_EMPHASIS_TAGS)
    )


def _typed(match: re.Match[str]) -> str:
    """A contraction typed bare, spelled out; a slip with one reading, the word meant; a word
    in capitals for emphasis, in lower case (the tagger reads capitals as a name)."""
    word = match.group(0)
    spelled = BARE_CONTRACTIONS.get(word.lower())
    if spelled is not None:
        return spelled
    if _emphasis(word):
        return word.lower()
    if word.islower() and _STRETCHED.search(word):
        return unstretched(word)
    return mistyped(word) if meant(word) != word else word


# A letter typed three times or more, as chat stretches a word ("finallyyy", "sooo", "looong").
_STRETCHED = re.compile(r"([a-z])\1\1+")


@lru_cache(maxsize=4096)
def unstretched(word: str) -> str:
    """A stretched word as English writes it, its letters typed once or twice, whichever is
    the more common word ("finallyyy" -> "finally", "sooo" -> "so", "looong" -> "long");
    the word as typed when neither is one."""
    forms = {_STRETCHED.sub(r"\1", word), _STRETCHED.sub(r"\1\1", word)}
    best = max(forms, key=lambda form: (zipf_frequency(form, "en"), form))
    return best if zipf_frequency(best, "en") > 0 else word


def meant(word: str) -> str:
    """The word a slip of the fingers was meant to be, for a word written in lower case
    ("tnoight" is "tonight", "birhtday" is "birthday"); a capitalised word may be a name and
    is left as written, and so is any word wordfreq's full list knows. A word is judged by it
    (a misspelling is not a rare word; "tnoight" is a time word); the tagger reads it, so a
    subject takes its label from it, only where the slip has one reading ("pltaeau" is
    "Plateau"; "sotring" stays as typed). The evidence keeps what was said."""
    if not word.islower() or zipf_frequency(word, "en") > 0:
        return word  # a name, or a word English knows ("backend", not "backed")
    return likeliest_meant(word)


# Weekdays as people type them short ("see you Fri") are dates, not names.
_CALENDAR = (
    frozenset(MONTHS)
    | frozenset(WEEKDAYS)
    | frozenset({"christmas", "easter", "tues", "weds", "thurs", "fri"})
    # months cut short, as dates are typed ("Sept 19"); not "Jan" nor "Jun", given names too
    | frozenset({"feb", "mar", "apr", "jul", "aug", "sep", "sept", "oct", "nov", "dec"})
)
# A word of any alphabet's letters ("Émile", "Lefèvre", "Anne-Marie"), not a number or a sign.
_WORD = re.compile(r"^[^\W\d_][^\W\d_'&.-]*(?:['&.-][^\W\d_]*)*$")
# What the person read, watched or heard: the phrases after it are its topic ("an article
# comparing Postgres and MySQL", "a novel about a lighthouse keeper in Cornwall"), not their life.
_MEDIA = frozenset(
    """article articles video videos podcast podcasts post posts documentary documentaries
    thread threads story stories news novel novels book books film films movie movies show
    shows episode episodes paper papers blog blogs tweet tweets meme memes review reviews
    report reports essay essays line lines quote quotes lyric lyrics song songs scene scenes
    chapter chapters poem poems headline headlines""".split()
)


@dataclass(frozen=True)
class Phrase:
    """A possible subject: its words as written, its label, and what makes it one."""

    words: tuple[str, ...]
    label: str
    is_name: bool
    rarity: float  # 0 (every word common) .. 1 (a word English almost never uses)
    start: int  # token index in the sentence, to tell a name from a capitalised first word


_BARE = threading.Lock()  # one bare import at a time: it stands packages in for everyone


def bare_import(name: str, packages: tuple[str, ...]) -> ModuleType:
    """The module ``name`` imported without running the ``__init__`` of ``packages`` (its
    parents): those stand in as empty packages over their own folders while it loads, then
    leave ``sys.modules`` with every module of theirs loaded meanwhile (a later plain import
    of the package gets the real one; what they imported from elsewhere, the standard
    library's ``xml.etree``, stays imported). A package already imported whole is used as it
    is.

    TextBlob's ``__init__`` imports NLTK whole (about 47 MB and half a second) for what this
    module does not use: the pattern tagger (``textblob.en``, whose code imports only the
    standard library) and NLTK's Porter stemmer (``nltk.stem.porter``: pure code beside the
    abstract base it derives from) need none of it."""
    top = packages[0].split(".")[0]
    with _BARE:
        if top in sys.modules:
            return importlib.import_module(name)
        before = set(sys.modules)
        try:
            for package in packages:
                spec = importlib.util.find_spec(package)
                if spec is None or spec.submodule_search_locations is None:
                    raise ImportError(f"no package {package}")
                stand_in = ModuleType(package)
                stand_in.__path__ = list(spec.submodule_search_locations)
                sys.modules[package] = stand_in
            return importlib.import_module(name)
        finally:
            for loaded in set(sys.modules) - before:
                if loaded == top or loaded.startswith(top + "."):
                    del sys.modules[loaded]


@lru_cache(maxsize=1)
def _english() -> Any:
    # Loaded on first use: the lexicon takes about 11 MB and a tenth of a second to read.
    english = bare_import("textblob.en", ("textblob",))
    if not dict.__len__(english.lexicon):  # not read yet (it reads itself when first asked)
        _read_lexicon(english.lexicon)
    return english


def _read_lexicon(lexicon: Any) -> None:
    """The tagger's lexicon read as ``textblob._text.Lexicon.load`` reads it (a line's first
    two words, a later line winning; ``;;;`` comments and blank lines skipped), with each line
    split once and each tag one shared string: 94,118 words have 89 tags between them, and
    a string of their own for each took about 4 MB."""
    with open(lexicon.path, encoding="utf-8") as lines:
        for line in lines:
            line = line.strip()
            if not line or line.startswith(";;;"):
                continue
            word, tag = line.split(" ")[:2]
            dict.__setitem__(lexicon, word, sys.intern(tag))


def _parser() -> Any:
    return _english().parse


@lru_cache(maxsize=65536)
def lexical_tag(word: str) -> str:
    """The part of speech the tagger's lexicon gives ``word`` out of context."""
    lexicon = _english().lexicon
    return str(lexicon.get(word.lower()) or lexicon.get(word) or "")


def proper_tag(word: str) -> bool:
    """Whether the tagger's lexicon has ``word``, as written, as a proper noun only."""
    return str(_english().lexicon.get(word) or "") == "NNP"


@lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    return zipf_frequency(meant(word).lower(), "en")


def rarity(words: tuple[str, ...]) -> float:
    """How specific the phrase is: the rarest content word's distance below everyday English."""
    scores = [zipf(w) for w in words if w.lower() not in FILLERS and w.lower() not in PRONOUNS]
    if not scores:
        return 0.0
    return max(0.0, min(1.0, (6.0 - min(scores)) / 4.0))


@lru_cache(maxsize=4096)
def tag(sentence: str) -> list[list[tuple[str, str, str]]]:
    """(word, part of speech, chunk tag) per token, per sentence, by the pattern tagger."""
    for pattern, spelled in _CONTRACTIONS:
        sentence = pattern.sub(spelled, sentence)
    sentence = _TYPED_WORD.sub(_typed, sentence)
    # "O'Neill", "D'Souza": the tokenizer cuts a name at its apostrophe; it reads the name
    # without it, and the name is given back as written.
    elided = {_unelided(m): m.group(0) for m in _ELIDED.finditer(sentence)}
    sentence = _ELIDED.sub(_unelided, sentence)
    parsed = _parser()(sentence, tokenize=True, tags=True, chunks=True, relations=False)
    out = []
    for line in parsed.split("\n"):
        tokens = []
        for token in line.split(" "):
            parts = token.split("/")
            if len(parts) >= 3:
                word = "/".join(parts[:-3]) or parts[0]
                tokens.append((elided.get(word, word), parts[-3], parts[-2]))
        out.append(_verbs(tokens))
    return out


def _verbs(tokens: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The tagger reads "waters" in "Siobhan O'Neill waters my plants" as a plural noun and
    runs the name and the object into one phrase; a plural after a noun or "who" and before
    "my", "her", "their" is the verb of the noun before it (a noun does not go on into a
    possessive)."""
    out = list(tokens)
    for index in range(1, len(out) - 1):
        word, pos, _chunk = out[index]
        before = out[index - 1]
        if pos == "NNS" and word.islower() and (before[1] in _NOUN or before[1] == "WP"):
            after = out[index + 1]
            if after[1] == "PRP$":
                out[index] = (word, "VBZ", "B-VP")
                out[index + 1] = (after[0], after[1], "B-NP")
    return out


# A name with an elided letter before its capital: "O'Neill", "D'Souza", "N'Golo".
_ELIDED = re.compile(r"\b([A-Z])['’]([A-Z][a-z]+)\b")


def _unelided(match: re.Match[str]) -> str:
    """The name as one word the tagger reads as a name ("O'Neill" -> "Oneill")."""
    return match.group(1) + match.group(2).lower()


def _unknown_gerund(word: str, pos: str) -> bool:
    """A word the tagger reads as a gerund by its ending alone, its lexicon not knowing it: a
    rare activity ("showjumping", "bouldering", "inburgering"), not a participle English
    uses as an adjective ("growing", "upcoming", "rewarding"), which the lexicon knows."""
    return pos == "VBG" and word.islower() and not lexical_tag(word)


def _activity_before_noun(tokens: list[tuple[str, str, str]], index: int) -> bool:
    """An unknown gerund right before a common noun, after a possessive, an article, an
    adjective or an adverb ("my inburgering exam", "my first ever showjumping comp"): the
    name of an activity said as the noun's kind, where the tagger cuts the phrase."""
    word, pos, _chunk = tokens[index]
    if not _unknown_gerund(word, pos) or index == 0 or index + 1 >= len(tokens):
        return False
    return tokens[index - 1][1] in ("PRP$", "DT", "JJ", "RB") and tokens[index + 1][1] in (
        "NN",
        "NNS",
    )


# What may follow an activity named by a noun and a gerund: nothing, a stop, a preposition, a
# conjunction ("got me into sea swimming with a group", "I love rock climbing.").
_AFTER_ACTIVITY = frozenset({"IN", "CC", ",", ".", ":", "TO", ")"})


def _activity_after_noun(
    tokens: list[tuple[str, str, str]], index: int, chunks: list[list[tuple[int, str, str]]]
) -> bool:
    """A gerund right after a chunk of lower-case common words that follows a preposition or
    a verb, with no object after it ("got me into sea swimming with", "love rock climbing",
    "took up wild swimming"): a noun and a gerund naming an activity, where the tagger cuts
    it. Not after an article or a possessive ("saw a dog running", "my sister swimming"),
    nor a name ("Tom running")."""
    word, pos, _chunk = tokens[index]
    if pos != "VBG" or not word.islower() or not chunks or not chunks[-1]:
        return False
    last = chunks[-1]
    if last[-1][0] != index - 1 or len(last) > 2:
        return False
    if not all(t[1].islower() and t[2] in ("NN", "JJ") for t in last) or last[-1][2] != "NN":
        return False
    start = last[0][0]
    if start == 0 or not tokens[start - 1][1].startswith(("IN", "VB", "TO")):
        return False
    after = tokens[index + 1][1] if index + 1 < len(tokens) else "."
    return after in _AFTER_ACTIVITY


# What an activity named by a gerund alone follows: "doing bouldering", "really into
# birdwatching", "I love showjumping" (the tagger reads "love" after "I" as a noun).
_ACTIVITY_LEADS = frozenset("doing into love loves enjoy enjoys adore like likes".split())


def _activity_alone(tokens: list[tuple[str, str, str]], index: int) -> bool:
    """A gerund on its own in an object's place, with nothing it governs after it: the name of
    an activity, where the tagger reads a verb ("I've been doing bouldering at the Depot",
    "been really into birdwatching lately", "I love showjumping"), after one of
    :data:`_ACTIVITY_LEADS`, or after another verb or a preposition when the lexicon does
    not know it ("took up showjumping"). A gerund the lexicon knows stays a verb in
    :func:`_phrase` ("I keep forgetting", "into knitting": the rules read those)."""
    word, pos, _chunk = tokens[index]
    if pos != "VBG" or not word.islower() or index == 0:
        return False
    before = tokens[index - 1]
    if not (
        before[0].lower() in _ACTIVITY_LEADS
        or (_unknown_gerund(word, pos) and before[1].startswith(("VB", "IN")))
    ):
        return False
    after, tag_after = tokens[index + 1][:2] if index + 1 < len(tokens) else (".", ".")
    if after.lower() in _PARTICLES or before[0].lower() in _KEEPS:
        return False  # "keeps fogging up", "kept bouldering": a verb going on, or phrasal
    return tag_after in _AFTER_ACTIVITY or tag_after.startswith("RB")


# A verb's particle ("fogging up") and a verb of going on ("keeps crashing"): after a gerund or
# before it, it is a verb.
_PARTICLES = frozenset("up out down off over away back around along through".split())
_KEEPS = frozenset("keep keeps kept keeping stop stops stopped".split())


def _joins_compound(
    tokens: list[tuple[str, str, str]], index: int, chunks: list[list[tuple[int, str, str]]]
) -> bool:
    """The tagger cuts "a wheel throwing course" at its gerund: a gerund between a noun and a
    common noun, and the common noun after it, stay in the noun's chunk."""
    if not chunks or not chunks[-1]:
        return False
    _word, pos, chunk = tokens[index]
    last = chunks[-1][-1]
    after = tokens[index + 1][1] if index + 1 < len(tokens) else ""
    if pos == "VBG" and last[2] in _NOUN:
        return after in ("NN", "NNS")
    return chunk == "B-NP" and pos in ("NN", "NNS") and last[2] == "VBG" and last[0] == index - 1


# A word that joins two capitalised names into one ("University of Aberdeen", "Isle of Skye",
# "Marks & Spencer"), and a particle written in lower case (``NAME_PARTICLES``). "and" is one
# only inside a name said with "the" (:func:`_and_joins`): "Milo and Ada" are two people.
_NAME_JOINS = frozenset({"of", "&"})
JOIN = "JOIN"  # the part of speech given to such a word inside a chunk


def _capitalised(token: tuple[str, str, str]) -> bool:
    return token[1] in _PROPER and token[0][:1].isupper()


def _joins_names(
    tokens: list[tuple[str, str, str]], index: int, chunks: list[list[tuple[int, str, str]]]
) -> bool:
    """Whether the token at ``index`` ("of", "&") sits between two capitalised names, the
    first already ending the current chunk."""
    word = tokens[index][0]
    if not chunks or not chunks[-1]:
        return False
    if word == "and" and not _and_joins(tokens, index, chunks[-1]):
        return False
    joins = word.lower() in _NAME_JOINS and word != "OF"
    if word != "and" and not joins and word not in p.NAME_PARTICLES:
        return False
    last = chunks[-1][-1]
    after = tokens[index + 1] if index + 1 < len(tokens) else ("", "", "")
    if word == "&" and _two_people(tokens, index, chunks[-1]):
        return False
    return (
        last[0] == index - 1
        and last[2] in _PROPER
        and last[1][:1].isupper()
        and _cased(after[0])
        and after[1] in _NOUN  # "Spoke & Chain": the tagger reads "Chain" as a common noun
    )


def _two_people(
    tokens: list[tuple[str, str, str]], index: int, chunk: list[tuple[int, str, str]]
) -> bool:
    """Whether "&" at ``index`` joins two people, not the words of one name: a given name
    alone on each side and nothing after ("the grandkids (Otto & Greta)"); "Hale & Sons", "Simon
    & Schuster" and "Ben & Jerry's" are one name each."""
    from memory.extractors.subjects.given_names import world_given_name
    from memory.tombstones import _given_name

    def given(word: str) -> bool:
        return _given_name(word.lower()) or world_given_name(word)

    after = tokens[index + 1] if index + 1 < len(tokens) else ("", "", "")
    after_next = tokens[index + 2] if index + 2 < len(tokens) else ("", "", "")
    before = tokens[index - 2] if index >= 2 else ("", "", "")
    return (
        chunk[-1][0] == index - 1
        and not (before[0][:1].isupper() and before[1] in _PROPER)
        and given(tokens[index - 1][0])
        and given(after[0])
        and not after_next[0][:1].isupper()
        and not after_next[0].startswith(("'", "’"))
    )


def _and_joins(
    tokens: list[tuple[str, str, str]], index: int, chunk: list[tuple[int, str, str]]
) -> bool:
    """Whether "and" at ``index`` is inside one name, as in the names of pubs and of firms
    said with "the": "the Fox and Hounds", "the Rose and Crown": one capitalised word after
    "the", "and", one capitalised word, and no other capitalised word after it ("Milo and Ada"
    are two people; so are "the Smiths and the Joneses")."""
    after_next = tokens[index + 2] if index + 2 < len(tokens) else ("", "", "")
    return (
        index >= 2
        and tokens[index - 2][0].lower() == "the"
        and [t[0] for t in chunk] in ([index - 1], [index - 2, index - 1])
        and not (after_next[0][:1].isupper() and after_next[1] in _PROPER)
    )


def _continues_name(
    tokens: list[tuple[str, str, str]], index: int, chunks: list[list[tuple[int, str, str]]]
) -> bool:
    """Whether the capitalised word at ``index`` goes on with the capitalised name that ends
    the current chunk: the tagger reads a word of a name as the verb or the common noun it
    also is and cuts the name there ("the Vega Climbing Wall" is not "Vega" and "Wall"). A
    word that is not a noun goes on only into another capitalised word ("Ana Running" is not
    a name)."""
    if not chunks or not chunks[-1]:
        return False
    word, pos, _chunk = tokens[index]
    last = chunks[-1][-1]
    if last[0] != index - 1 or not _cased(last[1]) or not _cased(word):
        return False
    if last[2] not in _PROPER | {"NN", "NNS", "VBG", "VBN", "JJ"} or pos not in _KEEP:
        return False
    if pos in _NOUN:
        return True
    after = tokens[index + 1] if index + 1 < len(tokens) else ("", "", "")
    return _cased(after[0]) and after[1] in _NOUN


def _cased(word: str) -> bool:
    """A word written with a capital, which is not the speaker ("I")."""
    return word[:1].isupper() and word not in ("I", "I'm")


def _chunks(tokens: list[tuple[str, str, str]]) -> list[list[tuple[int, str, str]]]:
    """The noun-phrase chunks of one tagged sentence, with each token's index."""
    chunks: list[list[tuple[int, str, str]]] = []
    joined = False  # the last token joined two names: the next one continues the chunk
    for index, (word, pos, chunk) in enumerate(tokens):
        if joined:
            joined = False
            chunks[-1].append((index, word, pos))
            continue
        if _joins_names(tokens, index, chunks):
            chunks[-1].append((index, word, JOIN))
            joined = True
            continue
        if _continues_name(tokens, index, chunks) or _joins_compound(tokens, index, chunks):
            chunks[-1].append((index, word, pos))
            continue
        if _model_number(tokens, index, chunks):
            chunks[-1].append((index, word, "NNP"))
            continue
        if _activity_after_noun(tokens, index, chunks):
            chunks[-1].append((index, word, "NN"))  # "into sea swimming": the activity's name
            continue
        if _activity_before_noun(tokens, index):
            chunks.append([(index, word, pos)])  # "my inburgering exam": "exam" joins it
            continue
        if _activity_alone(tokens, index):
            chunks.append([(index, word, "NN")])  # "doing bouldering": the activity's name
            chunks.append([])
            continue
        if pos in ("CC", ",", ":", "PRP$") and chunks and chunks[-1]:
            chunks.append([])  # "Milo and Ada", "courgettes, beans": one subject each
            continue
        if pos == "PRP" and word.lower() in _SUBJECT_PRONOUNS and chunks and chunks[-1]:
            chunks.append([])  # "my nephew Anselm he loves trains": the pronoun starts a clause
        if chunk == "B-NP" or (chunk == "I-NP" and not chunks):
            chunks.append([])
        if chunk in ("B-NP", "I-NP"):
            chunks[-1].append((index, word, pos))
        elif chunks and chunks[-1]:
            chunks.append([])
    return [c for c in chunks if c]


# After these a word is a verb, whatever the tagger says ("we need folks", "how this impacts
# neighbourhoods", "to focus my passion"): it does not start a noun phrase.
_SUBJECT_PRONOUNS = frozenset("i we you they he she it who".split())


def _after_verb(
    tokens: list[tuple[str, str, str]], chunk: list[tuple[int, str, str]]
) -> list[tuple[int, str, str]]:
    """The chunk less a subject pronoun and the verb the tagger took for a noun after it
    ("We need folks" -> "folks"), or less an infinitive's verb ("to focus my passion")."""
    for at in range(len(chunk) - 1, -1, -1):
        if chunk[at][1].lower() in _SUBJECT_PRONOUNS:
            return chunk[at + 2 :]
    first = chunk[0][0]
    infinitive = first > 0 and tokens[first - 1][0].lower() == "to"
    if infinitive and len(chunk) > 1 and chunk[0][2] in ("NN", "VB", "VBP"):
        return chunk[1:]
    return chunk


# A model's name the tagger reads as a proper noun: a capital, then letters and digits
# ("D750", "PS5", "A320"); not "5pm" or "83kg".
_MODEL = re.compile(r"^[A-Z][A-Za-z]*\d[A-Za-z\d]*$")


def _model(kept: list[tuple[int, str, str]], t: tuple[int, str, str]) -> bool:
    """A model's name right after its maker's ("Nikon D750", "Canon R6", "Omnipod 5": a number
    :func:`_model_number` joined to the name); alone ("level A2") it is a code, not a name."""
    return (
        # the tagger may read a model's code as a common noun ("Moto G7")
        (t[2] in _PROPER or (t[2].startswith("NN") and bool(_MODEL.match(t[1]))))
        and bool(_MODEL.match(t[1]) or _MODEL_NUMBER.match(t[1]))
        and bool(kept)
        and kept[-1][0] == t[0] - 1
        and kept[-1][1][:1].isupper()
    )


_MODEL_NUMBER = re.compile(r"^\d{1,2}$")


def _model_number(
    tokens: list[tuple[str, str, str]], index: int, chunks: list[list[tuple[int, str, str]]]
) -> bool:
    """A number of one or two digits right after a capitalised name that ends the current
    chunk, with no noun after it: the name of a model or a version ("I'm on a pump (Omnipod
    5)", "my Pixel 7 keeps crashing", "Windows 11"); not a count ("Paris 3 times", "Tom 2
    years ago") nor a year."""
    if not chunks or not chunks[-1] or not _MODEL_NUMBER.match(tokens[index][0]):
        return False
    last = chunks[-1][-1]
    if last[0] != index - 1 or last[2] not in _PROPER or not last[1][:1].isupper():
        return False
    after = tokens[index + 1][1] if index + 1 < len(tokens) else "."
    return not after.startswith(("NN", "CD", "JJ"))


def _named_day(kept: list[tuple[int, str, str]], t: tuple[int, str, str]) -> bool:
    """A month or a day named with a capitalised adjective right before it: a name of its own
    ("Dry January", "Black Friday"; not "Grandma Saturday" nor "a walk last Friday")."""
    if not kept or not t[1][:1].isupper() or kept[-1][0] != t[0] - 1:
        return False
    before = kept[-1][1]
    return before[:1].isupper() and lexical_tag(before.lower()).startswith("JJ")


# The time words that close a day, a week or a month the calendar names ("Earth Day", "Pride
# Month", "Mental Health Awareness Week").
_OCCASION = frozenset("day month week weekend".split())


def _occasion(kept: list[tuple[int, str, str]], t: tuple[int, str, str]) -> bool:
    """A capitalised "Day", "Week" or "Month" right after a capitalised word: an
    occasion of the calendar ("Earth Day", "Pride Month", "Black History Month"), a date
    like a holiday, which the words before it do not name alone ("Earth", "Pride")."""
    return (
        bool(kept)
        and t[1][:1].isupper()
        and t[1].lower() in _OCCASION
        and kept[-1][0] == t[0] - 1
        and kept[-1][1][:1].isupper()
    )


def _numbered(kept: list[tuple[int, str, str]], t: tuple[int, str, str]) -> bool:
    """A number of one or two digits right after a common noun that says which one ("type 1
    diabetes", "stage 2", "level 3 course"): part of the phrase, never cut out of it ("Type
    Diabetes" names nothing); a number that ends the phrase goes with the other words that
    are no noun."""
    return (
        t[2] == "CD"
        and bool(_MODEL_NUMBER.match(t[1]))
        and bool(kept)
        and kept[-1][0] == t[0] - 1
        and kept[-1][2] == "NN"
        and kept[-1][1].islower()
    )


def _renamed_at(kept: list[tuple[int, str, str]]) -> int:
    """Where the name starts in a phrase that says what a thing is, then names it ("my Etsy
    shop Ekhorn Studio", "the Spotify playlist Sunday Reset"): the capitalised words after
    the last word written in lower case, when a proper noun is among them; else 0 ("Vega
    Climbing Wall", "sister Ana" are whole)."""
    end = len(kept)
    start = end
    while start > 0 and kept[start - 1][1][:1].isupper():
        start -= 1
    if start in (0, end) or not kept[start - 1][1].islower():
        return 0
    if kept[start - 1][2] not in _NOUN or not any(t[2] in _PROPER for t in kept[start:]):
        return 0
    return start


def _trim(chunk: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """Keep the content of a chunk: no determiner, pronoun, number, time word or mood word."""
    kept: list[tuple[int, str, str]] = []
    for at, t in enumerate(chunk):
        if t[2].startswith("RB") and kept and kept[-1][2] in _NOUN:
            break  # "help dancers really shine": a noun phrase has no adverb after its noun
        timed = meant(t[1]).lower() in _TIME_WORDS or t[1].lower().removesuffix("s") in _CALENDAR
        if timed and not (kept and kept[-1][2] == JOIN):  # "Museo del Mar": inside a name
            if _named_day(kept, t):
                kept.append(t)
                continue
            if _occasion(kept, t):
                if any(later[2] in _NOUN for later in chunk[at + 1 :]):
                    kept.append(t)  # "the Harbour Day Festival": a name that holds the day
                    continue
                return []  # "Pride Month", "Earth Day": a date of the calendar, not a subject
            if kept:
                break  # "a retired greyhound last week": the phrase ends where time starts
            continue
        joins = t[2] == JOIN and bool(kept) and kept[-1][2] in _PROPER
        word = _WORD.match(t[1]) or _model(kept, t)
        if joins or (t[2] in _KEEP and word and t[1].lower() not in PRONOUNS) or _numbered(kept, t):
            kept.append(t)
    proper = [i for i, t in enumerate(kept) if t[2] in _PROPER]
    if proper and kept[-1][2] in _PROPER and proper[0] > 0:
        kept = kept[proper[0] :]  # "sister Ana", "friend Tom": the name is the subject
    kept = kept[_renamed_at(kept) :]
    while kept and (
        kept[0][1].lower() in _LEAD_DROP
        or (kept[0][2] in ("VBG", "VBN") and not _unknown_gerund(kept[0][1], kept[0][2]))
    ):
        if len(kept) == 1 or kept[0][2] in _PROPER or (kept[0][0] > 0 and kept[0][1][:1].isupper()):
            break  # "Second Stride", "New Forest": a capitalised word is part of the name
        kept = kept[1:]
    while kept and kept[-1][2] not in _NOUN:
        kept = kept[:-1]
    return kept


_OBJECT_LEADS = frozenset(
    "the a an my our your his her their this that these those us me them".split()
)


def _verb_cut(
    tokens: list[tuple[str, str, str]], kept: list[tuple[int, str, str]]
) -> list[tuple[int, str, str]]:
    """A plural and then a word English also uses as a verb, with an object after it, is a
    subject and its verb ("biz ventures need the hard work", "the volunteers need our help"):
    the phrase ends before the verb."""
    if len(kept) < 2 or kept[-2][2] != "NNS" or not kept[-1][1].islower():
        return kept
    at = kept[-1][0]
    after = tokens[at + 1][0].lower() if at + 1 < len(tokens) else ""
    if after not in _OBJECT_LEADS or not verbal(kept[-1][1].lower()):
        return kept
    return kept[:-1]


def verbal(word: str) -> bool:
    """Whether English uses ``word`` as a verb at all, though the lexicon's one tag for it is
    a noun's: its -ed or -ing form is a verb's ("face": "faced"; "spread": "spreading";
    "smile": "smiled"). Only read where the sentence has already said a verb may stand."""
    if lexical_tag(word) in ("VB", "VBP"):
        return True
    stems = {word, word[:-1]} if word.endswith("e") else {word, word + word[-1:]}
    forms = {s + "ed" for s in stems} | {s + "ing" for s in stems} | {word + "d"}
    return any(lexical_tag(f) in ("VBD", "VBN", "VBG") for f in forms if f != word)


def _idiom(tokens: list[tuple[str, str, str]], kept: list[tuple[int, str, str]]) -> bool:
    """A bare noun between "in" and "of" is a piece of a phrase English says whole ("in awe
    of", "in charge of", "in need of", "in search of", "in favour of"), not a subject."""
    if len(kept) != 1 or kept[0][2] != "NN" or not kept[0][1].islower():
        return False
    at = kept[0][0]
    before = tokens[at - 1][0].lower() if at > 0 else ""
    after = tokens[at + 1][0].lower() if at + 1 < len(tokens) else ""
    return before == "in" and after == "of"


def _made_by(kept: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """A brand's name before what of it the person speaks of ("my Dexcom graphs", "my Strava
    runs", "the Ikea shelves"): the name is the subject, the common nouns after it a detail of
    it. Only a name English does not use as a word (rarer than :data:`RARE_ZIPF`, no entry in
    the lexicon, which knows places such as "Orkney", and not an acronym: "Christmas tree",
    "French class", "Orkney seals", "LGBTQ group" stay whole), written with its capital inside
    the sentence, before one common noun that is neither the kind of place it names ("the
    Oxfam bookshop") nor something done there once ("the Snowdon hike"); before two, the name
    is a piece of a longer one ("the Perseid meteor shower")."""
    if len(kept) < 2 or kept[0][0] == 0:
        return kept
    brand, rest = kept[0], kept[1:]
    word = brand[1]
    if not (
        brand[2] in _PROPER
        and word[:1].isupper()
        and not word.isupper()
        and word.isalpha()
        and zipf(word) < RARE_ZIPF
        and not lexical_tag(word.lower())
        and not proper_tag(word)
        and len(rest) == 1
        and all(t[1].islower() and t[2] in ("NN", "NNS") for t in rest)
        and rest[-1][1] not in _PLACE_HEADS
        and rest[-1][1].removesuffix("s") not in p.EXPERIENCE_NOUNS
    ):
        return kept
    return [brand]


# The kind of place a name is often typed with in lower case after it: "the Oxfam bookshop",
# "Morriston hospital", "Tooting lido".
_PLACE_HEADS = frozenset(
    """shop bookshop store hospital clinic surgery school college university academy gym
    studio centre center library church mosque temple synagogue cafe café pub restaurant
    bakery market lido pool hotel theatre cinema museum gallery stadium deli delicatessen
    butcher butchers grocer grocers greengrocer greengrocers florist salon barber barbers
    garage pharmacy chemist launderette takeaway diner bistro brewery inn""".split()
)


def _placed(named: list[tuple[int, str, str]]) -> bool:
    """A name typed with the kind of place it is in lower case after it ("Oxfam bookshop",
    "Morriston hospital"), inside a sentence: every word before the last a proper noun with a
    capital, the last one of :data:`_PLACE_HEADS`."""
    *name, head = named
    return (
        bool(name)
        and name[0][0] > 0
        and head[1] in _PLACE_HEADS
        and all(_cased(t[1]) and t[2] in _PROPER for t in name)
    )


def _named(named: list[tuple[int, str, str]]) -> bool:
    """Whether the words of a phrase are a name as written: each a proper noun with a capital,
    or, in a phrase of two words or more, each written with a capital where one at least is a
    proper noun or the phrase is not the sentence's first ("the Hollowmere Choir", "Vega
    Climbing Wall": the tagger reads a word of a name as the common noun it also is)."""
    if not named or not _cased(named[0][1]):
        return False
    if _placed(named):
        return True
    if not all(_cased(t[1]) or _MODEL_NUMBER.match(t[1]) for t in named[1:]):
        return False  # a model's number after the name is part of it ("Omnipod 5")
    if all(t[2] in _PROPER for t in named):
        return True
    return len(named) > 1 and (named[0][0] > 0 or any(t[2] in _PROPER for t in named))


def _title(named: list[tuple[int, str, str]], index: int) -> bool:
    """Whether the word at ``index`` is a title said before the capitalised name that follows
    it ("Mr Ravi Mensah", "Dr. Boateng"): a word English uses every day, it is part of a
    name there, even first in a sentence."""
    return index + 1 < len(named) and is_honorific(named[index][1].lower().rstrip("."))


# What is asked for about a subject, said after it: "adoption advice", "budgeting tips" are
# about adoption and budgeting; the asking is no part of the subject.
_ASKED_FOR = frozenset("advice tips ideas suggestions recommendations recs info".split())


def _phrase(kept: list[tuple[int, str, str]]) -> Phrase | None:
    if any(t[2] == JOIN for t in kept) and not _named([t for t in kept if t[2] != JOIN]):
        kept = kept[: next(i for i, t in enumerate(kept) if t[2] == JOIN)]  # not two names
    if len(kept) > 1 and kept[-1][1] in _ASKED_FOR:  # as written: "Citizens Advice" is a name
        # What is asked for about a thing too common to be a subject alone ("adoption advice",
        # "gift ideas", "travel tips") is no subject either: the asking is not a thing of a life.
        return _phrase(kept[:-1])
    words = tuple(t[1] for t in kept)
    if not words or len(words) > p.MAX_LABEL_WORDS:
        return None
    named = [t for t in kept if t[2] != JOIN]
    is_name = _named(named) and all(
        zipf(t[1]) < NAME_MAX_ZIPF or kept[0][0] > 0 or _title(named, i)
        for i, t in enumerate(named)
    )
    if (
        is_name
        and kept[0][0] == 0
        and len(words) == 1
        and zipf(words[0]) >= RARE_ZIPF
        and lexical_tag(words[0]) != "NNP"
    ):
        # A capitalised first word English uses often is not a name, unless the tagger's
        # lexicon knows it only as one ("Tom says ...", "Jo's away"; not "Mark", "Will").
        is_name = False
    if not is_name and all(_ABSTRACT.search(w) for w in words):
        return None
    if not is_name and lexical_tag(words[0]).startswith(("VB", "RB", "UH")):
        return None  # a verb the chunker took for a noun: "Show Feelings", "Make a Difference"
    score = rarity(tuple(t[1] for t in named))
    floor = RARE_PHRASE_ZIPF if len(words) > 1 else RARE_ZIPF
    if not is_name and score < (6.0 - floor) / 4.0:
        return None
    label = p.make_label(" ".join(words))
    if label is None:
        return None
    return Phrase(words, label, is_name, score, kept[0][0])


_RELATIVE = frozenset("who whom whose which".split())
_FINITE = frozenset({"VBZ", "VBD", "VBP", "MD"})


def _appositive(tokens: list[tuple[str, str, str]], at: int) -> bool:
    """Whether what follows the comma after a name (from ``at``) says who the name is rather
    than goes on to the listener: a relative clause ("Ravi, who keeps my books, ..."), a
    phrase set off by a second comma before the sentence's verb ("Ravi, my accountant, is
    ..."), or what it is to the speaker, with no verb ("this is Tidepool, my side thing").
    "Thanks Mel, you're a star" and "Mel, can you help?" are said to Mel."""
    if at >= len(tokens):
        return False
    if tokens[at][0].lower() in _RELATIVE:
        return True
    owned = tokens[at][0].lower() in ("my", "our")
    for index in range(at, len(tokens) - 1):
        word, pos, _chunk = tokens[index]
        if pos in _FINITE or word.lower() in _SUBJECT_PRONOUNS:
            return False  # a clause of its own, not a phrase about the name
        if word == ",":
            return owned or tokens[index + 1][1] in _FINITE
        if owned and word in (".", "!", ";"):
            return True  # "this is Tidepool, my side thing.": what it is to the speaker
    return owned


def _vocative(tokens: list[tuple[str, str, str]], kept: list[tuple[int, str, str]]) -> bool:
    """A name said to the listener ("Hey Mel!", "Thanks, Jon."), not about them."""
    first, last = kept[0][0], kept[-1][0]
    before = [w.lower() for w, _pos, _c in tokens[:first]]
    after = tokens[last + 1][0] if last + 1 < len(tokens) else ""
    greeted = all(w in FILLERS or w in p.SMALLTALK or not w.isalpha() for w in before)
    if after == "," and _appositive(tokens, last + 2):
        return False  # "Ravi Mensah, who keeps my books, is ...": the sentence is about him
    if greeted and after in ("!", ",", ".", "?", ""):
        return True  # "Hey Mel!", "Cool, thanks Mel!"
    # "my great-grandfather, William Trevenna, a tin miner" says who he is; "... with my
    # business, Jon." is said to Jon: a given name alone ending the sentence is the listener.
    named = after == "," or len(kept) > 1 or not _given(kept[0][1])
    if before and before[-1] == "," and named and _renames(tokens, first - 1):
        return False
    # "..., Mel!" / "..., Mel." : set off by a comma and ending the clause.
    return bool(before) and before[-1] == "," and after in ("!", ".", "?", ",", "")


_THIRD_POSSESSIVE = frozenset("my our his her their".split())


def _renames(tokens: list[tuple[str, str, str]], comma: int) -> bool:
    """Whether the name after the comma at ``comma`` names the noun phrase before it, one of
    the speaker's or a third person's ("my great-grandfather, William Trevenna", "his
    girlfriend of nine years, Sinéad"): a name set off that way is said of them, not to the
    listener ("thanks for your help, Mel")."""
    for index in range(comma - 1, max(-1, comma - 7), -1):
        word, pos, _chunk = tokens[index]
        if pos == "PRP$":
            return word.lower() in _THIRD_POSSESSIVE
        if pos.startswith(("VB", "MD", "RB")) or pos in (",", ".", ":") or word.lower() in PRONOUNS:
            return False  # "I appreciate our friendship too, Caroline": no noun before it
    return False


def _given(word: str) -> bool:
    """Whether ``word`` is a given name English knows ("Jon", "Caroline")."""
    from memory.tombstones import _given_name  # the nickname lists, read on first use

    return _given_name(word.lower())


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    # Pure code, no corpus: ships with NLTK, loaded without the rest of it (:func:`bare_import`).
    return bare_import("nltk.stem.porter", ("nltk", "nltk.stem")).PorterStemmer()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of ``word`` ("dance", "dancing" -> "danc"; "classes" -> "class")."""
    return str(_stemmer().stem(word.lower()))


def topic_word(phrase: Phrase) -> str:
    """The phrase's most specific word as written: what its subject is about ("pottery" of
    "pottery classes", "adoption" of "adoption agency interviews")."""
    content = [w for w in phrase.words if w.lower() not in FILLERS | PRONOUNS] or list(phrase.words)
    return min(content, key=lambda w: (zipf(w), -len(w)))


def topic_key(phrase: Phrase) -> str:
    """One key per subject a person talks about: a name is itself (its words, lower case:
    "UML" and "UML College Society" are two subjects, so are "Ana" and "Ana Lopez"); any other
    phrase is the stem of its most specific word, so "pottery", "pottery class" and "pottery
    classes", or "adoption agencies" and "the adoption group", are one subject."""
    if _whole(phrase):
        return " ".join(w.lower() for w in phrase.words)
    return stem(topic_word(phrase))


# Stems English's function words have too: "canned" stems to "can", "willing" to "will". A
# phrase whose most specific word stems to one ("canned food") is keyed by its words, or every
# "I can" the person ever typed would count as saying it again.
_FUNCTION_STEMS = frozenset(
    "can could will would may might must shall should do did does be is was were are am has "
    "have had get got let".split()
)


def _whole(phrase: Phrase) -> bool:
    """Whether the phrase's key is its words rather than one stem: a name of several words, or
    a phrase whose stem is a function word's."""
    if len(phrase.words) < 2:
        return False
    return phrase.is_name or stem(topic_word(phrase)) in _FUNCTION_STEMS


_PLAIN_WORDS = re.compile(r"[a-z0-9][a-z0-9'&.-]*")


# Words English chat clips, and the word each stands for: "fam camping" is family camping,
# one subject with "family camping". A clipping written as a name ("Biz", a shop) is left be.
CLIPPED = {
    "fam": "family",
    "bro": "brother",
    "sis": "sister",
    "hubby": "husband",
    "bday": "birthday",
    "xmas": "christmas",
    "vacay": "vacation",
    "hols": "holidays",
    "uni": "university",
    "biz": "business",
    "convo": "conversation",
    "convos": "conversations",
    "appt": "appointment",
    "wknd": "weekend",
    "fave": "favourite",
    "faves": "favourites",
    "grad": "graduation",
    "nite": "night",
    "pic": "picture",
    "pics": "pictures",
}


def words_of(text: str) -> list[str]:
    """The words of ``text``, lower case."""
    return [w.strip(".'") for w in _PLAIN_WORDS.findall(text.lower().replace("’", "'"))]


def written_plain(label: str, said: str) -> bool:
    """Whether the person wrote the label's words in lower case in ``said`` (a phrase such as
    "adoption agencies", not a name such as "UML College Society")."""
    words = set(words_of(label))
    written = [w for w in re.findall(r"[A-Za-z][A-Za-z'&-]*", said) if w.lower() in words]
    return bool(written) and any(w.islower() for w in written)


def label_keys(label: str, said: str = "") -> set[str]:
    """The topic keys a card's label stands for (``said``: a sentence it was said in). One
    word is the subject of every phrase about it ("Pottery" takes "pottery classes", "UML"
    takes "UML course"); a label of several words is its own words, and the stem of its most
    specific word only when the person wrote it in lower case: a name ("UML College Society")
    never takes "UML", "Ana Lopez" never takes "Ana Ruiz"."""
    words = words_of(label)
    if not words:
        return set()
    if len(words) == 1:
        return {stem(words[0])}
    keys = {" ".join(words)}
    if written_plain(label, said):
        keys.add(stem(min(words, key=lambda w: (zipf(w), -len(w)))))
    return keys


# A word English says this often (or an adjective) is no subject said again on its own: "love"
# of "Loving Home", "support" of "Supportive Community" and "meet" of "Regular Meetings" are in
# most conversations a person has. Such a subject is said again only with all its words.
EVERYDAY_TOPIC_ZIPF = 4.5
# Joins the stems of a subject said again only with all its words (:func:`said_again_key`); no
# word holds it.
ALL_OF = "\x1f"


def said_again_key(phrase: Phrase) -> str | None:
    """The stems an earlier sentence must hold, all of them, to say this subject again, joined
    by :data:`ALL_OF`; None when its topic key alone does ("pottery" of "Pottery Class", a
    name, a one-word subject)."""
    if len(phrase.words) < 2 or _whole(phrase):
        return None
    word = topic_word(phrase)
    lowered = word.lower()
    if zipf(lowered) < EVERYDAY_TOPIC_ZIPF and not lexical_tag(lowered).startswith("JJ"):
        return None
    content = {
        stem(w.lower()) for w in phrase.words if w.lower() not in FILLERS | PRONOUNS and w.isalpha()
    }
    return ALL_OF.join(sorted(content)) if len(content) > 1 else None


def needle(phrase: Phrase) -> str:
    """A substring every spelling of the phrase's subject contains, to look for it in what the
    person said before (the stem and the word as written share it: "potter" of "pottery")."""
    if _whole(phrase):
        return topic_key(phrase)
    word = topic_word(phrase).lower()
    return os.path.commonprefix([word, stem(word)])


# A quoted title ("Becoming Nicole", "The Lean Startup") names a work the person read, watched
# or sang, not a thing of their life; so does the name of its author after "by".
_QUOTED = re.compile(r"[\"“”]([^\"“”]{1,80})[\"“”]|[\"“]([^\"“”]{1,80})$")
_AUTHOR = re.compile(r"^by\s+(?:[A-Z][\w'.-]*\s*){1,4}")


def _unquoted(sentence: str) -> str:
    """The sentence with each quoted title, and an author named right after it, taken out."""
    out, last = [], 0
    for match in _QUOTED.finditer(sentence):
        out.append(sentence[last : match.start()])
        rest = sentence[match.end() :].lstrip()
        author = _AUTHOR.match(rest)
        last = (
            match.end()
            + (len(sentence[match.end() :]) - len(rest))
            + (author.end() if author else 0)
        )
        out.append(" , ")
    out.append(sentence[last:])
    return "".join(out)


# Verbs of making or keeping a work of one's own: "I host a podcast called ...", "we run a
# blog", "I'm writing a novel", "I have a newsletter".
_MAKING = frozenset(
    """host hosts hosting hosted run runs running ran make makes making made write writes
    writing wrote start started starting launch launched launching record records recording
    recorded produce produces producing produced edit edits editing edited publish publishes
    publishing published create creates creating created co-host co-hosts have has""".split()
)


def _made(tokens: list[tuple[str, str, str]], chunk: list[tuple[int, str, str]]) -> bool:
    """The work a chunk names is the speaker's own: "I" or "we", then a verb of making, leads
    up to it ("I host a podcast called ...", "we started a blog", "I'm writing a novel");
    not what they read, watched or heard of ("I read an article about ...")."""
    said = [w.lower() for w, _p, _c in tokens[: chunk[0][0]]]
    said += [w.lower() for _i, w, _p in chunk]
    for at in range(len(said) - 1, -1, -1):
        if said[at] in ("i", "we", "i'm", "we're", "i've", "we've"):
            return any(w in _MAKING for w in said[at + 1 : at + 4])
    return False


def _other_news(tokens: list[tuple[str, str, str]], chunk: list[tuple[int, str, str]]) -> bool:
    """Whether the chunk is "other news" of "in other news", the way chat moves on to the
    next thing it tells ("in other news i joined Kestrel Rowing Club"), not news that was read."""
    first = chunk[0][0]
    return (
        [w.lower() for _i, w, _p in chunk] == ["other", "news"]
        and first > 0
        and tokens[first - 1][0].lower() == "in"
    )


def phrases(sentence: str) -> list[Phrase]:
    """The possible subjects of ``sentence``: names and rare noun phrases, in order."""
    found: list[Phrase] = []
    for tokens in tag(_unquoted(sentence)):
        topic = False
        for chunk in _chunks(tokens):
            if topic:
                break
            nouns = [word for _i, word, pos in chunk if pos in _NOUN]
            own = any(word.lower() in ("my", "our") for _i, word, _pos in chunk)
            if (
                nouns
                and nouns[-1].lower() in _MEDIA
                and not own
                and not _made(tokens, chunk)
                and not _other_news(tokens, chunk)
            ):
                # "an article": it, and what follows it, is what was read; "my thesis chapter
                # on peatlands" is the person's own work, and its topic theirs
                topic = True
                continue
            chunk = _after_verb(tokens, chunk)
            kept = _made_by(_verb_cut(tokens, _trim(chunk))) if chunk else []
            if kept and all(t[2] in _PROPER for t in kept) and _vocative(tokens, kept):
                continue
            if _idiom(tokens, kept):
                continue
            phrase = _phrase(kept)
            if phrase is not None and phrase.label not in {f.label for f in found}:
                found.append(phrase)
    return found
