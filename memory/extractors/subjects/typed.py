"""Names a person types in lower case, read from where they stand in the sentence.

:func:`memory.extractors.subjects.written_names` reads a lower-case name as a name when the
batch writes it capitalised somewhere else. Someone who types everything in lower case and
names a person or a pet once ("my mate maisie is doing it too", "felipe is driving", "our dog
biscuit", "my supervisor dr halloran") gives no such spelling. Where a word stands says it is
a name all the same:

- right after one of theirs ("my friend jess", "our dog biscuit", "baby malia"), or after a
  title ("dr halloran");
- leading a clause and doing something ("felipe is driving", "that felipe left on the couch",
  "bola (the new mechanic) said ..."), set off before what it is to the person ("tidepool,
  my side thing"), or after a kind of thing and "is" ("day job is fernhill"), when English
  does not know the word at all;
- anywhere, in a message typed all in lower case (a sentence or "i" without its capital), a
  word English writes only as a name: the tagger's lexicon has it with a capital, as a
  proper noun, and not in lower case ("back in portland", "we're going to dublin"). Someone
  who capitalises their sentences and writes a word in lower case means the word ("trans
  rights"), so a message with its capitals keeps its words as written.

A word English knows is a name only in the first place, and only when it is rare ("biscuit",
not "my dog food" or "my friend group"); a word it does not know is not a contraction typed
bare ("shes"), chat shorthand ("imo", "ngl": no vowel) or a word the other side also writes in
lower case (code, a term of theirs).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from wordfreq import iter_wordlist, zipf_frequency

from memory.extractors import patterns as p
from memory.extractors.rules.people import RELATIONS
from memory.extractors.subjects.framing import KIND_OF
from memory.extractors.subjects.phrases import (
    BARE_CONTRACTIONS,
    RARE_ZIPF,
    lexical_tag,
    meant,
    proper_tag,
    zipf,
)
from memory.keys import is_honorific
from memory.markup import markup_to_text
from memory.policy import FILLERS
from memory.transcripts import Message
from memory.vocab import Category

_TOKEN = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\S")
_LETTERS = re.compile(r"^[^\W\d_]{3,}$")
_VOWEL = re.compile(r"[aeiouyàáâãäåèéêëìíîïòóôõöùúûüýÿ]")
_POSSESSIVES = frozenset("my our his her their".split())
# Whose someone is: a relation, a role or a pet ("RELATIONS"), and the words for a friend
# the rules do not read as a relation.
_LEADS = frozenset(RELATIONS) | frozenset({"mate", "bestie", "bff"})
# Chat shorthand with a vowel, which no lexicon knows.
_SHORTHAND = frozenset("imo imho ily idk ikr lmk omw prob probs tho thru cos coz cuz".split())
# A common noun English knows is a pet's or a person's name after one of theirs only when it is
# this rare ("biscuit" 3.45; not "litter", "food", "group").
PET_NAME_ZIPF = 3.6
_VERB_TAGS = ("VB", "MD")  # any verb: "felipe left", "zuzia say" (typed by a learner)
_BE_HAVE = frozenset("is was has had says said".split())
_SET_OFF = frozenset("the my a an our his her their".split())


@lru_cache(maxsize=1)
def _clippings() -> frozenset[str]:
    """The starts (three letters or more) of the common English words that are not names:
    a word cut short ("chem", "bio", "uni") is the word, not a name."""
    starts: set[str] = set()
    for word in iter_wordlist("en"):
        if zipf_frequency(word, "en") < RARE_ZIPF:
            break
        if word.isalpha() and lexical_tag(word) not in ("", "NNP"):
            starts |= {word[:end] for end in range(3, len(word))}
    return frozenset(starts)


def _unknown(word: str, lower: set[str]) -> bool:
    """A word written in lower case that English does not know as a word of its own."""
    return (
        bool(_LETTERS.match(word))
        and word.islower()
        and lexical_tag(word) in ("", "NNP")
        and zipf(word) < RARE_ZIPF
        and meant(word) == word
        and bool(_VOWEL.search(word))
        and word not in BARE_CONTRACTIONS
        and word not in _SHORTHAND
        and word not in FILLERS
        and word not in p.SMALLTALK
        and word not in lower
        and word not in _clippings()
    )


def _proper_only(word: str) -> bool:
    """A word English writes only as a name, typed in lower case ("dublin", "portland"): the
    lexicon has it capitalised as a proper noun and has no lower-case word of that spelling,
    and it is no title, no word cut short and no slip for another word."""
    return (
        len(word) >= 4
        and bool(_LETTERS.match(word))
        and word.islower()
        and not lexical_tag(word)
        and proper_tag(word.capitalize())
        and meant(word) == word
        and not is_honorific(word)
        and word not in _clippings()
    )


_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)([^\W\d_])")
_LOWER_I = re.compile(r"(?<![\w'’])i(?=[\s'’,!?]|$)")


def typed_in_lower_case(text: str) -> bool:
    """Whether a message is typed without capitals: a sentence starting in lower case, or the
    pronoun "i" (and "i'm", "i've") written small."""
    return bool(_LOWER_I.search(text)) or any(
        m.group(1).islower() for m in _SENTENCE_START.finditer(text)
    )


def _rare_noun(word: str) -> bool:
    return (
        bool(_LETTERS.match(word))
        and word.islower()
        and lexical_tag(word) in ("NN", "")
        and zipf(word) < PET_NAME_ZIPF
    )


# A subject pronoun starts a clause of its own: "my son tadeusz he is 9 now".
_STARTS_CLAUSE = frozenset("i he she they we it".split())
# Words said between someone and what they do: "my husband tobiasz also thinks ...", "our son
# kofi always wins".
_BEFORE_VERB = frozenset("also always just still never really already often usually even".split())


def _ends_phrase(after: str) -> bool:
    """The name ends its noun phrase: punctuation, the end, a verb or a subject pronoun
    after it."""
    lowered = after.lower()
    return (
        not after[:1].isalpha()
        or _acts(after)
        or lowered in _STARTS_CLAUSE
        or lowered in _BEFORE_VERB
    )


def _acts(word: str) -> bool:
    lowered = word.lower()
    if lowered in BARE_CONTRACTIONS:
        return False  # "righto thats all": "that is", a clause of its own
    return lowered in _BE_HAVE or lexical_tag(lowered).startswith(_VERB_TAGS)


# Who misses, and how: "miss" typed after these (or opening the sentence) is the verb, not
# the title ("i miss beatriz so much", "miss beatriz and the dogs", "really miss nana").
_MISSES = frozenset(
    """i we you they he she really so still already do don't dont will gonna 'll i'll ill
    we'll always just""".split()
)


def _title_at(tokens: list[str], at: int) -> bool:
    """The token at ``at`` is a title said before a name ("dr halloran", "ms okafor"); "miss"
    is one only where it cannot be the verb."""
    word = tokens[at].lower().rstrip(".") if 0 <= at < len(tokens) else ""
    if not is_honorific(word):
        return False
    if word == "miss" and tokens[at] == "miss":
        return at > 0 and tokens[at - 1].lower() not in _MISSES
    return True


def _theirs(tokens: list[str], at: int) -> bool:
    """The word at ``at`` comes right after one of someone's ("my friend", "our dog"),
    or after a title that does."""
    lead = at - 1
    if lead >= 0 and _title_at(tokens, lead):
        return True
    if lead < 0 or tokens[lead].lower() not in _LEADS:
        return False
    return tokens[lead].lower() == "baby" or (lead > 0 and tokens[lead - 1].lower() in _POSSESSIVES)


def _leads_clause(tokens: list[str], at: int) -> bool:
    """The word at ``at`` starts a clause ("..., felipe is driving", "that felipe left") and
    does something there (a verb after it, or a role set off in brackets after it). A word
    after someone's possessive ("idris's brithday is next week") is a thing of theirs."""
    before = tokens[at - 1].lower() if at > 0 else ""
    if before.isalpha() and before not in ("and", "but", "so", "that", "then", "because"):
        return False
    if before.endswith(("'s", "’s", "s'", "s’")):
        return False
    after = tokens[at + 1] if at + 1 < len(tokens) else ""
    if after == "(":
        return at + 2 < len(tokens) and tokens[at + 2].lower() in _SET_OFF
    return bool(after) and _acts(after)


# Kinds of thing a name is given to, said before "is" and the name ("day job is fernhill",
# "the cafe is crumb", "my side project is tidepool", "the dog is biscuit").
_KINDS = (
    frozenset(KIND_OF)
    | {word for word, kind in RELATIONS.items() if kind == Category.POSSESSION}
    | {"pet"}
)


def _named_there(tokens: list[str], at: int) -> bool:
    """The word at ``at`` stands where a thing is named: set off before what it is to the
    person ("tidepool, my side thing", "fernhill, our new office"), or after a kind of thing
    and "is" ("day job is fernhill")."""
    after = tokens[at + 1 : at + 3]
    if len(after) == 2 and after[0] == "," and after[1].lower() in _POSSESSIVES:
        return True
    before = [t.lower() for t in tokens[max(0, at - 2) : at]]
    return len(before) == 2 and before[1] in ("is", "was") and before[0] in _KINDS


# Where a person says they live, come from or work, typed in lower case: "we stay in ruhengeri",
# "im based in kuopio", "moved to viljandi", "i work at glovoz". A word English does not
# know, right after these, is the place's or the firm's name.
_WHERE_ONE_IS = (
    ("live", "in"),
    ("living", "in"),
    ("lived", "in"),
    ("stay", "in"),
    ("staying", "in"),
    ("based", "in"),
    ("moved", "to"),
    ("moving", "to"),
    ("grew", "up"),
    ("work", "at"),
    ("working", "at"),
    ("work", "for"),
    ("working", "for"),
)


def _where_one_is(tokens: list[str], at: int) -> bool:
    """The word at ``at`` comes right after where one lives or works ("live in", "moved to",
    "work at"; "grew up in")."""
    before = tuple(t.lower() for t in tokens[max(0, at - 3) : at])
    if before[-2:] in _WHERE_ONE_IS:
        return True
    return before == ("grew", "up", "in")


def _title_before(tokens: list[str], at: int) -> str:
    return tokens[at - 1].rstrip(".").lower() if _title_at(tokens, at - 1) else ""


def typed_names(messages: Sequence[Message]) -> dict[str, str]:
    """The names the person types in lower case where only a name stands, by their spelling
    as typed ("felipe", "dr halloran") -> as a name is written ("Felipe", "Dr Halloran")."""
    lower: set[str] = set()
    for message in messages:
        if message.role != "user":
            # Each word once (the other side repeats its words), told lower case at C speed.
            lower.update(filter(str.islower, set(_TOKEN.findall(message.content))))
    names: dict[str, str] = {}
    for message in messages:
        if message.role != "user":
            continue
        text = markup_to_text(message.content)
        small = typed_in_lower_case(text)
        for sentence in p.split_sentences(text):
            tokens = _TOKEN.findall(sentence)
            for at, word in enumerate(tokens):
                after = tokens[at + 1] if at + 1 < len(tokens) else ""
                theirs = _theirs(tokens, at) and _ends_phrase(after)
                if not (
                    (_unknown(word, lower) and (theirs or _leads_clause(tokens, at)))
                    # set off as what it is to the person ("this is tidepool, my side thing"),
                    # it is a name even where the other side echoes it in lower case
                    or (_unknown(word, set()) and _named_there(tokens, at))
                    or (theirs and _rare_noun(word) and word not in lower)
                    or (_unknown(word, lower) and _where_one_is(tokens, at))
                    or (small and _proper_only(word) and word not in lower)
                ):
                    continue
                title = _title_before(tokens, at)
                if title:
                    names[f"{title} {word}"] = f"{title.capitalize()} {word.capitalize()}"
                names.setdefault(word, word.capitalize())
    return names
