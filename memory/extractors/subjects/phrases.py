"""Noun phrases and names in a sentence, and how specific each is. No sentence templates.

The tagger is TextBlob's pattern tagger (a Brill lexicon with context and morphology rules that
ship inside the package, read from its own folder: nothing is downloaded). Its chunker groups a
sentence's tokens into noun phrases; a phrase is kept as a possible subject when it is a name
(proper nouns, never a month, weekday or the speaker) or when it carries a word that is rare in
English (wordfreq's Zipf scale): "the pottery class", "a retired greyhound", "Van Oord". Common
phrases ("a lot", "the day", "some time") carry no rare word and are never subjects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from wordfreq import zipf_frequency

from memory.extractors import patterns as p
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
    """today tonight yesterday tomorrow week weekend month year day days weeks months years
    morning evening night afternoon mornings evenings nights afternoons weekends time times moment while lot bit kind sort way thing things
    part end start beginning first last next ago everything anything something""".split()
)
# Adjectives that describe the moment, not the thing ("a new bike" is "Bike").
_LEAD_DROP = frozenset(
    """new old other same last next first second few many several much more most little big
    small great good bad best worst nice lovely amazing awesome cool huge whole own such
    recent current former latest own certain different""".split()
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
_CALENDAR = frozenset(MONTHS) | frozenset(WEEKDAYS) | frozenset({"christmas", "easter"})
_WORD = re.compile(r"^[A-Za-z][A-Za-z'&.-]*$")
# What the person read, watched or heard: the phrases after it are its topic ("an article
# comparing Postgres and MySQL", "a novel about a lighthouse keeper in Cornwall"), not their life.
_MEDIA = frozenset(
    """article articles video videos podcast podcasts post posts documentary documentaries
    thread threads story stories news novel novels book books film films movie movies show
    shows episode episodes paper papers blog blogs tweet tweets meme memes review reviews
    report reports essay essays""".split()
)


@dataclass(frozen=True)
class Phrase:
    """A possible subject: its words as written, its label, and what makes it one."""

    words: tuple[str, ...]
    label: str
    is_name: bool
    rarity: float  # 0 (every word common) .. 1 (a word English almost never uses)
    start: int  # token index in the sentence, to tell a name from a capitalised first word


@lru_cache(maxsize=1)
def _parser() -> Any:
    # Imported on first use: TextBlob imports NLTK, which costs about a second at start-up.
    from textblob.en import parse

    return parse


@lru_cache(maxsize=65536)
def _lexical_tag(word: str) -> str:
    """The part of speech the tagger's lexicon gives ``word`` out of context."""
    from textblob.en import lexicon

    return str(lexicon.get(word.lower()) or lexicon.get(word) or "")


@lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    return zipf_frequency(word.lower(), "en")


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
    parsed = _parser()(sentence, tokenize=True, tags=True, chunks=True, relations=False)
    out = []
    for line in parsed.split("\n"):
        tokens = []
        for token in line.split(" "):
            parts = token.split("/")
            if len(parts) >= 3:
                tokens.append(("/".join(parts[:-3]) or parts[0], parts[-3], parts[-2]))
        out.append(tokens)
    return out


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


def _chunks(tokens: list[tuple[str, str, str]]) -> list[list[tuple[int, str, str]]]:
    """The noun-phrase chunks of one tagged sentence, with each token's index."""
    chunks: list[list[tuple[int, str, str]]] = []
    for index, (word, pos, chunk) in enumerate(tokens):
        if _joins_compound(tokens, index, chunks):
            chunks[-1].append((index, word, pos))
            continue
        if pos in ("CC", ",", ":") and chunks and chunks[-1]:
            chunks.append([])  # "Milo and Ada", "courgettes, beans": one subject each
            continue
        if chunk == "B-NP" or (chunk == "I-NP" and not chunks):
            chunks.append([])
        if chunk in ("B-NP", "I-NP"):
            chunks[-1].append((index, word, pos))
        elif chunks and chunks[-1]:
            chunks.append([])
    return [c for c in chunks if c]


def _trim(chunk: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """Keep the content of a chunk: no determiner, pronoun, number, time word or mood word."""
    kept: list[tuple[int, str, str]] = []
    for t in chunk:
        if t[1].lower() in _TIME_WORDS or t[1].lower().removesuffix("s") in _CALENDAR:
            if kept:
                break  # "a retired greyhound last week": the phrase ends where time starts
            continue
        if t[2] in _KEEP and _WORD.match(t[1]) and t[1].lower() not in PRONOUNS:
            kept.append(t)
    proper = [i for i, t in enumerate(kept) if t[2] in _PROPER]
    if proper and kept[-1][2] in _PROPER and proper[0] > 0:
        kept = kept[proper[0] :]  # "sister Ana", "friend Tom": the name is the subject
    while kept and (kept[0][1].lower() in _LEAD_DROP or kept[0][2] in ("VBG", "VBN")):
        if len(kept) == 1 or kept[0][2] in _PROPER or (kept[0][0] > 0 and kept[0][1][:1].isupper()):
            break  # "Second Stride", "New Forest": a capitalised word is part of the name
        kept = kept[1:]
    while kept and kept[-1][2] not in _NOUN:
        kept = kept[:-1]
    return kept


def _phrase(kept: list[tuple[int, str, str]]) -> Phrase | None:
    words = tuple(t[1] for t in kept)
    if not words or len(words) > p.MAX_LABEL_WORDS:
        return None
    proper = [t for t in kept if t[2] in _PROPER and t[1][:1].isupper()]
    is_name = len(proper) == len(kept) and all(
        zipf(w) < NAME_MAX_ZIPF or kept[0][0] > 0 for w in words
    )
    if is_name and kept[0][0] == 0 and len(words) == 1 and zipf(words[0]) >= RARE_ZIPF:
        is_name = False  # a capitalised first word English uses often is not a name
    if not is_name and all(_ABSTRACT.search(w) for w in words):
        return None
    if not is_name and _lexical_tag(words[0]).startswith(("VB", "RB", "UH")):
        return None  # a verb the chunker took for a noun: "Show Feelings", "Make a Difference"
    score = rarity(words)
    floor = RARE_PHRASE_ZIPF if len(words) > 1 else RARE_ZIPF
    if not is_name and score < (6.0 - floor) / 4.0:
        return None
    label = p.make_label(" ".join(words))
    if label is None:
        return None
    return Phrase(words, label, is_name, score, kept[0][0])


def _vocative(tokens: list[tuple[str, str, str]], kept: list[tuple[int, str, str]]) -> bool:
    """A name said to the listener ("Hey Mel!", "Thanks, Jon."), not about them."""
    first, last = kept[0][0], kept[-1][0]
    before = [w.lower() for w, _pos, _c in tokens[:first]]
    after = tokens[last + 1][0] if last + 1 < len(tokens) else ""
    greeted = all(w in FILLERS or w in p.SMALLTALK or not w.isalpha() for w in before)
    if greeted and after in ("!", ",", ".", "?", ""):
        return True  # "Hey Mel!", "Cool, thanks Mel!"
    # "..., Mel!" / "..., Mel." : set off by a comma and ending the clause.
    return bool(before) and before[-1] == "," and after in ("!", ".", "?", ",", "")


def phrases(sentence: str) -> list[Phrase]:
    """The possible subjects of ``sentence``: names and rare noun phrases, in order."""
    found: list[Phrase] = []
    for tokens in tag(sentence):
        topic = False
        for chunk in _chunks(tokens):
            if topic:
                break
            nouns = [word for _i, word, pos in chunk if pos in _NOUN]
            if nouns and nouns[-1].lower() in _MEDIA:
                topic = True  # "an article": it, and what follows it, is what was read
                continue
            kept = _trim(chunk)
            if kept and all(t[2] in _PROPER for t in kept) and _vocative(tokens, kept):
                continue
            phrase = _phrase(kept)
            if phrase is not None and phrase.label not in {f.label for f in found}:
                found.append(phrase)
    return found
