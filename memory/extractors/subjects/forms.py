"""A label's form: whether its words can name a thing at all, read from English grammar.

A card's label names someone, somewhere or something of a life: a noun phrase ("Pottery
Class", "Rescue Dog", "Lisbon"). Extractors take labels from sentences, and the sentences'
other shapes come through as labels a person rejects on sight. These are judged here from the
label's words (their part of speech by the tagger's lexicon, their frequency) and how the
person wrote them, never from a list of sentences:

- ``doing``: a verb phrase, something done rather than a thing: a verb or a gerund leading an
  object with an article, a possessive, a pronoun, a particle or an adjective after it
  ("Making a Difference", "Building Up Confidence", "Staying Positive", "Inspiring Others"),
  a gerund of a common verb with only a generic word after it ("Helping People", "Spending
  Time"), a light verb's gerund alone ("Working", "Supporting": no pastime without its
  object), a verb after "to", a modal or "help" ("to spread understanding"); a word the
  lexicon has as a noun where the sentence leaves it only a verb's place ("and face
  challenges" after "to stand out", "this impacts neighborhoods", "lending a hand");
- ``clause``: a piece of a sentence with its verb in it ("Conversations Going", "Kinds
  Celebrating Love"; "People Smile" of "make people smile."), two phrases run together with an
  article between ("Kids a Loving Home"), or led by a quantifier ("All the Good Vibes", "All
  Dances");
- ``verb``: one word English uses as a verb ("Believe", "Refreshes");
- ``time``: a day of the week or its short form ("Tues"): when, not what;
- ``slip``: one word typed with a slip whose meant word is no thing ("Couragous");
- ``shorthand``: one word of consonants English does not know ("Smth", "Wknd"): letters
  standing for a word;
- ``plural``: one plural common noun alone ("Mountains", "Mentors", "Chats"): a kind of thing,
  not one thing of a life; a rarer one too when every sentence says it of others or in
  passing (after an article, an adjective, "and" ending a list, "in"), not after a verb or a
  possessive ("we keep chickens");
- ``people``: a phrase that ends on a word for people in general ("Trans People", "Young
  Folks");
- ``group``: the person's family as a whole ("Family", "Fam"): no one in particular;
- ``liking``: a word that stands for what is liked, named elsewhere ("one of my faves",
  "Favourites"): a way of liking, not a thing.

Only a label the person wrote in lower case is judged: a name ("Make-A-Wish", "Believe
Academy") is its own. Pure: no database, no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.extractors.patterns import LIGHT_VERBS
from memory.extractors.subjects.phrases import CLIPPED, lexical_tag, meant, verbal, zipf

_ARTICLES = frozenset("a an the".split())
_POSSESSIVES = frozenset("my our your his her their its".split())
_PRONOUNS = frozenset(
    "me us you him her them it others myself ourselves yourself themselves everyone someone "
    "people".split()
)
_PARTICLES = frozenset("up out around down off over back away along through".split())
_QUANTIFIERS = frozenset("all some any every many most more such both few several lots".split())
# Words that lead a verb's plain form: "to spread", "can make", "help make", "wanna try".
_INFINITIVE = frozenset(
    "to can could will would should might must may shall help helps helped let lets wanna gonna"
    " gotta".split()
)
_PREPOSITIONS = frozenset(
    "of to in on at for with from by into onto about near around across over under between"
    " through after before as like".split()
)
# What follows a gerund in a verb phrase that names nothing: "helping people", "spending
# time", "trusting life".
_GENERIC = frozenset(
    "people time life things stuff others folks everyone everything someone something lot lots"
    " way ways world".split()
)
_WEEKDAYS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed weds thu thur"
    " thurs fri sat sun".split()
)
_DO = frozenset("do does did don't doesn't didn't".split())
# Verbs whose complement says what something is like, not what is done to a thing: "want to be
# couragous", "feeling stuck". A word after one is not read as a verb's object.
_COPULAS = frozenset(
    "be am is are was were been being 'm 're seem seems seemed feel feels felt become becomes"
    " became".split()
)
# Verbs that take "to" and a verb after them ("want to", "tried to", "hoping to"), and the
# endings of their forms; "going to" is left out: it leads places as often ("going to dance
# class").
_TAKES_TO = frozenset(
    "want try tri hope plan need decide learn aim wish mean hate start begin continue refuse"
    " agree promise expect manage choose forget remember love like prefer".split()
)
_ENDINGS = frozenset({"", "s", "ed", "d", "ing", "es", "ning", "ned"})
# What stands before a verb's -s form and never before a plural: "this impacts", "it needs".
_SINGULAR = frozenset("this that it he she which who".split())
_GROUPS = frozenset("family fam folks relatives".split())
# Words for people in general: a phrase that ends on one ("Trans People", "Young Folks",
# "Homeless Individuals") is a kind of person, not someone of the person's life.
_LIKED = frozenset("favourite favourites favorite favorites fave faves fav favs".split())
_PEOPLE = frozenset("people folks folk individuals persons ones guys peeps humans".split())
_DEMONSTRATIVES = frozenset("these those this that such".split())
# What stands before the last of a list, or where a thing is not what it is: "and mentors",
# "in neighborhoods".
_LISTED = frozenset("and or in".split())
# Words that measure how much, not what: "learning a ton", "loads of", "a bunch", "a bit".
_MEASURES = frozenset(
    "ton tons lot lots bunch bunches heap heaps load loads bit bits tad plenty handful".split()
)
# A gerund whose verb the lexicon tags as a verb ("helping", "building", "spending"); a noun in
# -ing is not one ("clothing", "morning", "wedding").
_VERB_TAGS = ("VB", "VBP")
# What a gerund takes that is no object: an adjective, a participle, a verb, an adverb.
_NO_OBJECT = ("JJ", "VBN", "VB", "RB")
_VOWELS = frozenset("aeiou")
# A plural this common is a kind of thing ("plans", "books", "parents"); a rarer one is often
# what a person keeps or lives with ("chickens", "pigeons", "migraines").
_COMMON_PLURAL = 4.2
# Words in any script: "Almería" is one word, not "Almer" and "a".
_WORD = re.compile(r"[^\W_][\w'’&-]*")


# The same words and the marks between them.
_TOKEN = re.compile(_WORD.pattern + r"|[^\w\s]")


def _bare(word: str) -> str:
    """A word as the label spells it: lower case, without a possessive ("fam's" is "fam")."""
    word = word.lower().replace("’", "'")
    return word[:-2] if word.endswith("'s") else word.rstrip("'")


def _words(text: str) -> list[str]:
    return [_bare(w) for w in _WORD.findall(text)]


def _verb_of(word: str) -> set[str]:
    """The plain verb a gerund label was made from: "supporting" of "support", "making" of
    "make", "running" of "run"."""
    if not word.endswith("ing") or len(word) < 5:
        return set()
    stem = word[:-3]
    return {stem, stem + "e"} | ({stem[:-1]} if len(stem) > 2 and stem[-1] == stem[-2] else set())


def _written_plain(words: list[str], quote: str) -> bool:
    """Whether the person wrote one of ``words`` in lower case in ``quote`` (or a clipping of
    it: "fam" for "family"; or the verb a gerund label was made from: "I'd love to support
    them" of "Supporting"), or capitalised only as the first word of the sentence."""
    wanted = set(words) | {clip for clip, full in CLIPPED.items() if full in words}
    wanted |= {verb for word in words for verb in _verb_of(word)}
    for found in _WORD.finditer(quote):
        word = found.group()
        if _bare(word) not in wanted:
            continue
        if word.islower() or (_SENTENCE_START.search(quote[: found.start()]) and _opens(word)):
            return True
    return False


# Where a sentence starts: the start of what was said, or after its end mark.
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)\W*$")
_NAME_TAGS = ("", "NNP", "NNPS")


def _opens(word: str) -> bool:
    """A word capitalised only because it opens the sentence ("Setbacks can be tough"): a
    word English has in lower case, not a name (the lexicon has "setbacks", not "maisie")."""
    rest = word[1:]
    return (
        word[:1].isupper() and rest == rest.lower() and lexical_tag(word.lower()) not in _NAME_TAGS
    )


def _gerund(word: str) -> bool:
    if not word.endswith("ing") or len(word) < 5:
        return False
    if lexical_tag(word) == "VBG":
        return True
    return any(lexical_tag(s) in _VERB_TAGS for s in _verb_of(word))


def _stem(gerund: str) -> str:
    """The verb of a gerund as the lexicon spells it: "trusting" "trust", "making" "make"."""
    stem = gerund[:-3]
    for candidate in (stem, stem + "e", stem[:-1]):
        if lexical_tag(candidate):
            return candidate
    return stem


def _verb(word: str) -> bool:
    """A word the lexicon tags as a verb in a finite or plain form, or an -s/-es form of one it
    tags as a verb ("refreshes" of "refresh")."""
    if lexical_tag(word) in ("VB", "VBP", "VBZ", "VBD", "MD"):
        return True
    if lexical_tag(word):
        return False
    for cut in (word[:-2], word[:-1]) if word.endswith("es") else (word[:-1],):
        if word.endswith("s") and lexical_tag(cut) in _VERB_TAGS:
            return True
    return False


def _around(label_words: list[str], quotes: Sequence[str]) -> tuple[str, str, list[str]] | None:
    """The word the person said just before the label and the one just after it, in the first
    sentence that says it (a clipping as the word it stands for: "biz" is "business"), with
    the words before it; a mark is a word here ("don't forget, believe in yourself": ","), and
    the start or end of what was said is "". ``None`` where no sentence says the label."""
    size = len(label_words)
    wanted = [CLIPPED.get(w, w) for w in label_words]  # the label may keep the clipping too
    for quote in quotes:
        words = [_bare(w) for w in _TOKEN.findall(quote)]
        read = [CLIPPED.get(w, w) for w in words]
        for at in range(len(words) - size + 1):
            if read[at : at + size] == wanted:
                end = at + size
                return (
                    words[at - 1] if at else "",
                    words[end] if end < len(words) else "",
                    words[:at],
                )
    return None


def _before(label_words: list[str], quotes: Sequence[str]) -> str:
    """The word the person said just before the label (see ``_around``), or ""."""
    found = _around(label_words, quotes)
    return found[0] if found else ""


def _infinitive_before(said: list[str]) -> bool:
    """Whether the clause that leads up to a label goes on from "to" and a verb ("to fight for
    trans rights and spread awareness"): the label after its "and" is that verb's fellow."""
    for at in range(len(said) - 1, 0, -1):
        if not _WORD.match(said[at]):
            return False  # a mark ends the clause
        if said[at - 1] == "to" and verbal(said[at]) and at < len(said) - 1:
            return True
    return False


def _object_dropped(words: list[str], quotes: Sequence[str]) -> bool:
    """Whether the person said the label's first word, then an article or a possessive, then
    the rest of the label ("lending a hand", "made my day"): no noun phrase goes on past an
    article so, a verb does."""
    first, rest = words[0], words[1:]
    for quote in quotes:
        said = [CLIPPED.get(w, w) for w in (_bare(w) for w in _TOKEN.findall(quote))]
        for at in range(len(said) - len(rest) - 1):
            led = said[at] == first and said[at + 1] in _ARTICLES | _POSSESSIVES
            if led and said[at + 2 : at + 2 + len(rest)] == rest:
                return True
    return False


def _wanting_to(said: list[str]) -> bool:
    """Whether what was said before a label ends on "to" after a verb that takes one ("want
    to", "trying to", "hope it to": its own or with a pronoun between), so a verb follows;
    after "go", "back" or "way", "to" leads a place ("going to dance class")."""
    if len(said) < 2 or said[-1] != "to":
        return False
    verb = said[-3] if said[-2] in _PRONOUNS and len(said) > 2 else said[-2]
    return any(
        verb == lead or (verb.startswith(lead) and verb[len(lead) :] in _ENDINGS)
        for lead in _TAKES_TO
    )


def _doing(words: list[str], quotes: Sequence[str]) -> bool:
    first, rest = words[0], words[1:]
    before, _, said = _around(words, quotes) or ("", "", [])
    if before in _ARTICLES | _POSSESSIVES or lexical_tag(before).startswith(("JJ", "CD")):
        return False  # "a hiking trip", "my dancing passion": a noun phrase
    if _object_dropped(words, quotes):
        return True  # "Lending Hand" of "lending a hand": an article after a word makes it a verb
    if _gerund(first) or (first.endswith("ing") and verbal(_stem(first))):
        after = rest[0]
        if after in _ARTICLES | _POSSESSIVES | _PRONOUNS | _PARTICLES:
            return True
        if lexical_tag(after).startswith("JJ") and len(rest) > 1:
            return True  # "Making Sure Veterans", "Building Real Connections"
        if len(rest) == 1 and lexical_tag(after).startswith(_NO_OBJECT):
            return True  # "Staying Positive", "Feeling Stuck", "Letting Go"
        return len(rest) == 1 and after in _GENERIC  # "Helping People", "Trusting Life"
    if lexical_tag(first) in _VERB_TAGS and (
        before in _INFINITIVE
        or rest[0] in _ARTICLES | _POSSESSIVES | _PRONOUNS
        or lexical_tag(rest[0]).startswith(("RB", "JJR"))  # "Work Harder"
    ):
        return True
    if verbal(first) and (before in _INFINITIVE - {"to"} or _wanting_to(said)):
        return True  # "can face", "help spread", "want it to spread": only a verb stands there
    if before in _SINGULAR and first.endswith("s") and verbal(first[:-1]):
        return True  # "this impacts neighborhoods": a plural cannot follow "this"
    if before == "and" and verbal(first) and _infinitive_before(said):
        return True  # "to stand out and face challenges"
    if before in _COPULAS and lexical_tag(first).startswith("JJ") and len(rest) == 1:
        return rest[0].endswith("ing")  # "been busy painting": how the person was, doing what
    return before in _INFINITIVE and _verb(first)


def _clause(words: list[str], quotes: Sequence[str]) -> bool:
    if words[0] in _QUANTIFIERS:
        return True
    for at in range(1, len(words)):
        word, prior = words[at], words[at - 1]
        if word in _ARTICLES | _POSSESSIVES and prior not in _PREPOSITIONS and at > 0:
            return True  # "Kids a Loving Home"; "Trip to the East Coast" is a phrase
        if lexical_tag(prior) == "NNS" and (_gerund(word) or _verb(word)):
            return True  # "Conversations Going", "Kinds Celebrating Love"
    return _ends_on_verb(words, quotes)


def _ends_on_verb(words: list[str], quotes: Sequence[str]) -> bool:
    """A plural and then a word that can be a verb, where what follows in the sentence is an
    object or nothing: "make people smile.", "what our systems face.", "ventures need the
    hard work". Not after an article, a possessive, an adjective or a preposition, where the
    words are a noun phrase ("the farmers market", "to kids club")."""
    if len(words) < 2 or lexical_tag(words[-2]) != "NNS" or not verbal(words[-1]):
        return False
    found = _around(words, quotes)
    if found is None:
        return False
    before, after, _ = found
    if before in _ARTICLES | _POSSESSIVES | _PREPOSITIONS or lexical_tag(before).startswith(
        ("JJ", "CD")
    ):
        return False
    return not _WORD.match(after) or after in _ARTICLES | _POSSESSIVES | _PRONOUNS


def _plural(word: str, *, rare: bool = False) -> bool:
    """A plural common noun; one as common as :data:`_COMMON_PLURAL` or more unless ``rare``."""
    if word.endswith("ics") or (zipf(word) < _COMMON_PLURAL and not rare):
        return False  # "calisthenics": one activity; "chickens": a rarer kind, often kept
    if lexical_tag(word) == "NNS":
        return True
    if lexical_tag(word) or not word.endswith("s") or word.endswith("ss"):
        return False
    return lexical_tag(word[:-1]).startswith("NN") or lexical_tag(word[:-2]).startswith("NN")


def _one_word(word: str, quotes: Sequence[str]) -> str | None:
    if word in _WEEKDAYS:
        return "time"
    if word in _GROUPS:
        return "group"
    if word in _LIKED:
        return "liking"
    if word in _MEASURES:
        return "measure"
    before = _before([word], quotes)
    if not _VOWELS & set(word) and not lexical_tag(word) and before not in _PREPOSITIONS:
        # "rn", "smth", "wknd": letters for a word ("gym" is one); what follows a preposition
        # is named there ("built with dbt", "good at sql")
        return "shorthand"
    if _gerund(word):
        # "Volunteering", "Climbing": something the person does; "working", "supporting":
        # a verb that names no pastime without its object ("working with trans people")
        return "doing" if _stem(word) in LIGHT_VERBS else None
    # After an article or a possessive a word is a noun, whatever else it can be ("ask for a
    # raise", "my crush"), and so is the object of a verb ("we keep ferrets"; "do" leads a
    # verb: "i do believe"; "be" a complement: "to be couragous").
    named = before in _ARTICLES | _POSSESSIVES or (
        lexical_tag(before).startswith("VB") and before not in _DO | _COPULAS
    )
    fixed = meant(word)  # another word only for one English does not know
    if fixed != word:
        tag = lexical_tag(fixed)
        return "slip" if tag.startswith(("JJ", "RB", "VB")) and not named else None
    if _verb(word) and not named:
        return "verb"
    if _plural(word) or (_plural(word, rare=True) and _told_of(word, quotes)):
        return "plural"
    return None


def _told_of(word: str, quotes: Sequence[str]) -> bool:
    """Whether every sentence that says a plural says it of others or in passing, not as
    something the person has or does: at the start of what was said ("Setbacks can help
    us"), after an article or a demonstrative ("the dancers are so excited"), an adjective
    ("similar journeys"), "and" or "or" ending a list ("friends, family and mentors"), or
    "in" ("growth in neighborhoods"). After a verb or a possessive it is the person's ("we
    keep chickens", "my migraines"), and after most prepositions what they are into ("into
    crosswords")."""
    befores = [found[0] for quote in quotes if (found := _around([word], [quote]))]
    return bool(befores) and all(
        not before
        or not _WORD.match(before)
        or before in _ARTICLES | _DEMONSTRATIVES | _LISTED
        or (lexical_tag(before).startswith("JJ") and before not in _POSSESSIVES)
        for before in befores
    )


def fault(label: str, quotes: Sequence[str]) -> str | None:
    """Why ``label`` cannot name a thing (one of the kinds above), or ``None``. ``quotes``: the
    sentences it was taken from. A label written as a name in every one of them is not
    judged, but for a weekday (always written with a capital)."""
    words = _words(label)
    if len(words) == 1 and words[0] in _WEEKDAYS:
        return "time"
    if not words or not any(_written_plain(words, quote) for quote in quotes):
        return None
    if len(words) == 1:
        return _one_word(words[0], quotes)
    if _doing(words, quotes):
        return "doing"
    if _clause(words, quotes):
        return "clause"
    if words[-1] in _PEOPLE:
        return "people"
    return None
