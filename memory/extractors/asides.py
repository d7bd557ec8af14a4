"""What a person says that is not theirs to keep: asides, retractions, quotes, irony, disowning.

The rules and the proposer read statements; some statements are said in a way that takes them
out of the person's life, whatever their wording otherwise:

- **kept private**: a message that asks not to be saved ("don't remember this", "off the
  record", "between you and me"): nothing in it is kept (:func:`private`);
- **taken back**: a message that retracts what the person said just before ("scratch that",
  "forget I said it", "ignore that"): the person's previous message is not kept
  (:func:`withheld_messages`);
- **quoted**: words inside quotation marks, double or single, are someone else's (a line of a
  book, a film, a sign), not the person's (:func:`quoted_spans`);
- **ironic**: a sentence marked as meaning its opposite ("/s", "yeah right", or an upside-down
  or eye-roll face on praise) says nothing the person means (:func:`ironic`);
- **disowned**: a sentence in which the person says a thing is not theirs ("it's my
  flatmate's, not mine") (:func:`disowned`);
- **denied**: what follows a negated experience in its clause ("I've never been to the UK",
  "neither of us has ever been to Europe", "we haven't tried Rust"): a place never visited, a
  thing never had or tried is not in the person's life (:func:`denied_spans`);
- **exclaimed**: a fixed exclamation or oath ("God help us all", "thank God", "for heaven's
  sake") names no one the person talks about (:func:`oath_spans`).

Pure: no database, no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.extractors.patterns import compiled
from memory.transcripts import Message

_PRIVATE = re.compile(
    r"\b(?:(?:don'?t|dont|do\s+not|never|pls\s+don'?t|please\s+don'?t)\s+(?:save|remember|store|"
    r"keep|note|record)|off\s+the\s+record|forget\s+(?:this|that|it|i\s+said)|between\s+"
    r"(?:us|you\s+and\s+me))\b",
    re.IGNORECASE,
)
# A message that takes back the one before it: "scratch that", "forget I said it", "ignore
# what I just said", "never mind that", "strike that".
_RETRACT = re.compile(
    r"(?:\b(?:scratch|strike|ignore|disregard|forget)\s+(?:that|this|it|what\s+i\s+(?:just\s+)?"
    r"(?:said|wrote|told\s+you)|(?:that\s+)?last\s+(?:bit|message|part)|i\s+(?:ever\s+)?"
    r"(?:said|mentioned)\s+(?:it|that|anything))|\bnever\s*mind\s+(?:that|what\s+i\s+said))"
    r"(?=\s*(?:[,.;:!?\u2014\u2013-]|$))",
    re.IGNORECASE,
)
# Irony, marked: "/s", "yeah right", "not!" at the end; or the upside-down face, the eye roll
# or the unamused face on praise ("I just LOVE doing my taxes 🙃", "Great, another Monday 🙄").
# On a plain report the face is a sigh, and the report stands ("my bf forgot our anniversary
# AGAIN 🙄", "mum left her tablets in Enugu 🙃").
_IRONY = re.compile(r"(?:^|\s)/s\b|\byeah,?\s+right\b|\bnot!\s*$", re.IGNORECASE)
_IRONIC_FACE = re.compile(r"[\U0001F643\U0001F644\U0001F612]")
_PRAISE = re.compile(
    r"\b(?:love|loving|loved|adore|adoring|great|amazing|awesome|fantastic|wonderful|brilliant|"
    r"perfect|lovely|fun|best|genius|highlight|favou?rite|thrilled|delighted|can'?t\s+wait|"
    r"so\s+excited|such\s+an?|natural|clearly|totally|of\s+course|sure|yay|thanks)\b",
    re.IGNORECASE,
)
# "not mine", "isn't mine", "not ours", "not my own": the thing is someone else's.
_DISOWNED = re.compile(
    r"\b(?:not|isn'?t|aren'?t|wasn'?t|weren'?t|never\s+was)\s+(?:mine|ours|my\s+own|our\s+own)\b",
    re.IGNORECASE,
)
# A quotation: double quotes of either kind, or single quotes that open after a space or a
# start and close before a space, punctuation or an end; an apostrophe between letters inside
# it ("'we'll always have Paris'") does not close it, and "my brother's" is no quote.
_QUOTATION = re.compile(
    r"[\"“]([^\"“”]{1,200})[\"”]"
    r"|(?:(?<=\s)|^)['‘]((?:[^'‘’\n]|(?<=\w)['’](?=\w)){3,200})['’](?=[\s.,;:!?)—–-]|$)"
)


# "Don't forget that ..." asks to keep it: no "forget that" of a retraction or an aside.
_KEEP_IT = re.compile(r"\b(?:don'?t|do\s+not|never)\s+forget\b", re.IGNORECASE)


def _plain(text: str) -> str:
    return _KEEP_IT.sub("remember", text.replace("’", "'"))


def private(text: str) -> bool:
    """The person asks that this message not be kept."""
    return bool(_PRIVATE.search(_plain(text)))


def retracts(text: str) -> bool:
    """The message takes back what the person said just before it."""
    return bool(_RETRACT.search(_plain(text)))


def ironic(sentence: str) -> bool:
    """The sentence is marked as meaning its opposite."""
    plain = _plain(sentence)
    if _IRONY.search(plain):
        return True
    return bool(_IRONIC_FACE.search(plain)) and bool(_PRAISE.search(plain))


def disowned(sentence: str) -> bool:
    """The person says the thing in the sentence is not theirs."""
    return bool(_DISOWNED.search(_plain(sentence)))


def quoted_spans(sentence: str) -> list[tuple[int, int]]:
    """(start, end) of each quotation in ``sentence``, its marks included."""
    return [m.span() for m in _QUOTATION.finditer(sentence)]


# A negated experience: "never", "not ever", "neither/nor/no one/nobody ... ever" or a negated
# perfect ("haven't", "has not") before a verb of experience in its perfect or past form ("been
# to", "visited", "tried", "met", "had"). What follows it in its clause is what the person has
# not known. A verb of habit or feeling ("I never miss my class", "I've never felt better") is
# no such verb: its object may well be in the person's life.
_DENIAL = re.compile(
    r"\b(?:never|(?:not|n't)\s+(?:yet\s+)?ever|(?:neither|nor|nobody|no\s+one|none)\b[^.;:!?,]*?\bever|"
    r"(?:have|has|had)(?:n't|\s+not)(?:\s+(?:yet|really|actually))?)\s+"
    r"(?:(?:yet|really|actually|once|even)\s+)?"
    r"(?:been|gone|travell?ed|flown|visited|seen|tried|met|owned|had|used|played|eaten|"
    r"heard\s+of|set\s+foot|lived)\b",
    re.IGNORECASE,
)
# Where a clause ends: punctuation or a conjunction that starts another ("but", "and", "so").
_CLAUSE_END = re.compile(r"[.;:!?,()\n]|\s(?:but|and|so|though|although|because|cause)\s", re.I)
# A fixed exclamation or oath: "God help us", "thank God", "oh my God", "God knows", "for
# heaven's sake", "good Lord", "Jesus Christ!" said as an exclamation.
_OATH = re.compile(
    r"\b(?:(?:oh\s+)?my\s+(?:god|gosh|lord|goodness)|thank\s+(?:god|heavens?|goodness|christ)|"
    r"(?:god|lord|heaven|goodness)\s+(?:help|knows|bless|forbid|willing)\b(?:\s+(?:us|me|him|her|"
    r"them|you))?(?:\s+all)?|for\s+(?:god|christ|heaven|goodness|pete|pity)['’]?s\s+sake|"
    r"good\s+(?:lord|god|heavens|grief)|jesus(?:\s+christ)?(?=\s*[,!.]))",
    re.IGNORECASE,
)


def denied_spans(sentence: str) -> list[tuple[int, int]]:
    """(start, end) of each negated experience in ``sentence`` and the rest of its clause
    ("never been to the UK before")."""
    text = sentence.replace("’", "'")
    out = []
    for match in _DENIAL.finditer(text):
        end = _CLAUSE_END.search(text, match.end())
        out.append((match.start(), end.start() if end else len(text)))
    return out


def oath_spans(sentence: str) -> list[tuple[int, int]]:
    """(start, end) of each fixed exclamation or oath in ``sentence`` ("God help us all")."""
    return [m.span() for m in _OATH.finditer(sentence.replace("’", "'"))]


def unmeant(sentence: str, words: Sequence[str]) -> bool:
    """Every place ``sentence`` says ``words`` (in order) is where the person does not say it
    of their own life: inside a quotation, after a negated experience in its clause ("I've
    never been to Europe"), or inside an exclamation ("God help us all")."""
    if not words:
        return False
    pattern = compiled(r"\b" + r"\W+".join(re.escape(w) for w in words) + r"\b", re.IGNORECASE)
    found = [m.start() for m in pattern.finditer(sentence)]
    spans = quoted_spans(sentence)
    spans += [(a - 1, b) for a, b in denied_spans(sentence) + oath_spans(sentence)]
    return bool(found) and all(any(a < at < b for a, b in spans) for at in found)


# A quotation of this many words or more is someone's line (a book, a film, a sign); a shorter
# one is more often a title or a name the person is talking about ("my favourite is "Rebecca"").
_LINE_WORDS = 3


def quotations_elided(sentence: str) -> str:
    """``sentence`` with each quoted line (three words or more) replaced by an ellipsis, so
    that what it says is not read as the person's own statement; short quotations (titles,
    names) are kept."""
    out, last = [], 0
    for start, end in quoted_spans(sentence):
        if len(sentence[start + 1 : end - 1].split()) >= _LINE_WORDS:
            out += [sentence[last:start], "…"]
            last = end
    return "".join(out) + sentence[last:] if out else sentence


def not_own(sentence: str) -> bool:
    """A sentence that is not the person's own statement: ironic or disowning."""
    return ironic(sentence) or disowned(sentence)


def withheld(messages: Sequence[Message]) -> set[int]:
    """Positions of the person's messages that are not theirs to keep: those that ask not to
    be kept, those that take back the one before, and the one each takes back. (By position:
    two messages may share an id.)"""
    out: set[int] = set()
    previous: int | None = None
    for at, message in enumerate(messages):
        if message.role != "user" or not message.content.strip():
            continue
        if private(message.content):
            out.add(at)
        if retracts(message.content):
            out.add(at)
            if previous is not None:
                out.add(previous)
        previous = at
    return out


def withheld_messages(messages: Sequence[Message]) -> set[str]:
    """Ids of the messages :func:`withheld` finds."""
    return {messages[at].id for at in withheld(messages)}
