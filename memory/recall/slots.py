"""What a question asks for, and whether a message could answer it. Pure: no ORM.

A question about something never said often names something memory holds and asks for a
detail that was never said: "how much did the garage charge for the MOT" when the person only
said the car was making a noise. The message about the car holds the question's words; what it
lacks is an answer of the kind asked for. So:

- **The asked-for slot** (:func:`asked_kind`): "when", "how long", "what date" want a time;
  "how much", "how many" a quantity; "who" a person; "where" a place. Other questions ("what
  did ...", "why ...") ask for no kind this module can check.
- **An answer of that kind** (:func:`holds_kind`): a message holds one when it says a word of
  that kind the question itself did not say (a weekday or "yesterday" for a time, a number or
  "£" for a quantity, a name or "my sister" for a person, a name or "the park" for a place).
- **Only the name** (:func:`only_names`): a message that holds the names the question used and
  none of its other words ("what did Mr Okonkwo say about the rent increase", of a message
  about Mr Okonkwo sending someone) shares who the question is about, not what it asks.

:meth:`Slot.answer_factor` (for a whole answer) and :meth:`Slot.names_factor` (for one
message) turn these into factors on confidences (:mod:`memory.recall.confidence`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from wordfreq import zipf_frequency

from memory.recall.text import STOP_WORDS, stem

TIME = "time"
QUANTITY = "quantity"
PERSON = "person"
PLACE = "place"

# An answer none of whose items holds an answer of the asked-for kind keeps this share of
# its confidence; a message that holds only the question's names, this share of its own.
MISSING_SLOT_FACTOR = 0.5
ONLY_NAMES_FACTOR = 0.6

_LEAD = re.compile(r"^(?:(?:and|so|ok|okay|hey|hi|um|well|also|then|but)\s+)+")
_ASKED: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"^(?:when|since when|how (?:long|soon|often)|"
            r"(?:what|which) (?:date|day|time of year|year|month|week|weekend|season)s?\b)"
        ),
        TIME,
    ),
    (re.compile(r"^how (?:much|many|old|far|tall|big|heavy)\b"), QUANTITY),
    (re.compile(r"^(?:who|whom|whose)\b"), PERSON),
    (
        re.compile(r"^(?:where|(?:what|which) (?:city|country|town|place|state|village)s?\b)"),
        PLACE,
    ),
)

_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety "
    "hundred thousand million billion dozen couple few several half once twice first second "
    "third".split()
)
_TIME_WORDS = _NUMBER_WORDS | frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday "
    "friday saturday sunday mon tue tues wed thu thur thurs fri sat sun "
    "yesterday today tonight tomorrow tmrw tmr morning afternoon evening night overnight "
    "weekend weekends week weeks wk wks month months year years yr yrs day days daily weekly "
    "monthly yearly annually hour hours hr hrs minute minutes min mins ago since until till "
    "soon later earlier recently lately summer winter spring autumn fall christmas xmas easter "
    "birthday anniversary holiday holidays semester term noon midnight o'clock decade "
    "always usually sometimes often never every".split()
)
_MONEY = re.compile(r"[£$€¥]|\b\d")
_KIN_WORDS = frozenset(
    "mum mom mother mam dad father parents sister sis brother bro wife husband partner son "
    "daughter kid kids child children baby grandson granddaughter grandkids grandma grandpa "
    "grandmother grandfather nan nana gran granny aunt auntie uncle cousin niece nephew "
    "friend friends mate mates buddy pal boyfriend girlfriend fiance fiancee boss manager "
    "colleague colleagues coworker coworkers neighbour neighbours neighbor neighbors doctor gp "
    "nurse dentist teacher coach landlord landlady babysitter family mentor therapist team "
    "everyone somebody someone guy lady man woman people".split()
)
_PLACE_WORDS = frozenset(
    "home house flat apartment place park beach shop store restaurant cafe café bar pub club "
    "school college university uni office work gym church hospital clinic surgery library "
    "museum gallery city town village street road rd lane avenue centre center market station "
    "airport hotel garden allotment lake river mountain mountains forest camp campsite "
    "country abroad downtown studio hall venue stadium pool farm coast island trail".split()
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’]*")
# A capitalised word at the start of a sentence is a name only when English rarely uses it
# ("Thanks", "The" are not names; "Priya" is).
_NAME_ZIPF = 4.0


@lru_cache(maxsize=8192)
def _everyday(word: str) -> bool:
    return zipf_frequency(word, "en", wordlist="small") >= _NAME_ZIPF


def asked_kind(question: str) -> str:
    """The kind of answer ``question`` asks for (:data:`TIME`, :data:`QUANTITY`,
    :data:`PERSON`, :data:`PLACE`), or "" when it asks for none of them ("what did ...",
    "why ...")."""
    key = _LEAD.sub("", " ".join(question.lower().replace("’", "'").split()))
    for pattern, kind in _ASKED:
        if pattern.match(key):
            return kind
    return ""


def names_of(text: str) -> list[str]:
    """The words of ``text`` written as names, lower-cased: capitalised, and either inside a
    sentence or rare in English ("Thanks, Mel! Priya came" gives "mel", "priya")."""
    out: list[str] = []
    end = -1
    for match in _WORD.finditer(text):
        word = match.group(0).rstrip("'’")
        starts = end < 0 or any(c in ".!?" for c in text[end : match.start()])
        end = match.end()
        bare = re.sub(r"['’]s$", "", word)
        if not bare[:1].isupper() or bare.lower() in STOP_WORDS or bare == "I":
            continue
        if starts and _everyday(bare.lower()):
            continue
        out.append(bare.lower())
    return out


def _words(text: str) -> list[str]:
    return [re.sub(r"['’]s$", "", w.lower()) for w in _WORD.findall(text)]


def holds_kind(kind: str, text: str, said: Iterable[str] = ()) -> bool:
    """Whether ``text`` holds an answer of ``kind`` beyond the words ``said`` (the
    question's own, lower-case): any text for no kind."""
    if not kind:
        return True
    asked = {w.lower() for w in said}
    words = [w for w in _words(text) if w not in asked]
    if kind == TIME:
        return any(w in _TIME_WORDS or any(c.isdigit() for c in w) for w in words)
    if kind == QUANTITY:
        fresh = " ".join(words)
        return bool(_MONEY.search(text) and _MONEY.search(fresh)) or any(
            w in _NUMBER_WORDS or w.isdigit() for w in words
        )
    names = [n for n in names_of(text) if n not in asked]
    if kind == PERSON:
        return bool(names) or any(w in _KIN_WORDS for w in words)
    return bool(names) or any(w in _PLACE_WORDS for w in words)


def only_names(held: Iterable[str], wanted: Iterable[str], names: Iterable[str]) -> bool:
    """Whether the stems an item ``held`` of a question's ``wanted`` stems are all ``names``
    (stems of the names the question used), while it wanted more than names."""
    name_set = set(names)
    got = set(held)
    rest = [t for t in wanted if t not in name_set]
    return bool(got) and bool(rest) and got <= name_set


@dataclass(frozen=True)
class Slot:
    """What a question asks for, as recall checks it against what it found."""

    kind: str = ""  # asked_kind of the question
    said: frozenset[str] = frozenset()  # the question's words, lower-case
    names: frozenset[str] = frozenset()  # stems of the words it wrote as names

    @classmethod
    def of(cls, question: str) -> Slot:
        return cls(
            kind=asked_kind(question),
            said=frozenset(_words(question)),
            names=frozenset(stem(n) for n in names_of(question)),
        )

    def answer_factor(self, texts: Iterable[str]) -> float:
        """The share of their confidence the items of one answer (``texts``) keep: all of it
        when the question asks for no checkable kind or one of them holds an answer of that
        kind, :data:`MISSING_SLOT_FACTOR` when none does. The answer, not each item: the
        message that names the thing often comes before the one that gives the detail ("the
        garage reckons it's the pads", then "£180 fitted")."""
        if not self.kind or any(holds_kind(self.kind, text, self.said) for text in texts):
            return 1.0
        return MISSING_SLOT_FACTOR

    def names_factor(
        self, held: Iterable[str], wanted: Iterable[str], names: Iterable[str] = ()
    ) -> float:
        """The share of its confidence an item keeps: :data:`ONLY_NAMES_FACTOR` when the
        question asks for no checkable kind and, of its ``wanted`` stems, the item ``held``
        only names (the words the question wrote as names, and ``names``: keys of the
        memories it named); 1 otherwise (an asked-for kind is checked by
        :meth:`answer_factor`)."""
        if self.kind or not only_names(held, wanted, self.names | set(names)):
            return 1.0
        return ONLY_NAMES_FACTOR
