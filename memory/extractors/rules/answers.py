"""Short answers read with the question they answer.

The other speaker's words are never a source of facts, but a short reply is meaningless
without them: "What's your favourite pizza?" / "Pepperoni, of course!" states "my favourite
pizza is Pepperoni"; "Are you still doing the pottery class?" / "Nope, I stopped going in
March" states that the pottery class stopped. :func:`in_context` rewrites such a reply into the
statement it makes, in the person's own words plus the question's object; the evidence still
quotes the reply as it was said.
"""

from __future__ import annotations

import re

_FAVOURITE_Q = re.compile(
    r"\b(?:what(?:'s|\s+is|\s+are|'re)|which\s+is|name)\s+(?:your|ur)\s+(?:all-time\s+|absolute\s+)?"
    r"favou?rite\s+(?P<what>[\w\- ]{2,40}?)\s*(?:these\s+days|right\s+now|at\s+the\s+moment)?\??$",
    re.IGNORECASE,
)
_STILL_Q = re.compile(
    r"\b(?:are|do|did)\s+you\s+still\s+(?P<verb>doing|going\s+to|playing|taking|attending|"
    r"do|go\s+to|play|take|attend|have|running|run|seeing|see)\s+(?P<what>[^?]{2,60})\?*$",
    re.IGNORECASE,
)
_ANSWER_FILLER = re.compile(
    r"^(?:(?:oh|hmm+|um+|well|probably|definitely|easily|obviously|honestly|i'd\s+say|i\s+think|"
    r"has\s+to\s+be|gotta\s+be|it's|that's|that\s+would\s+be)\s*,?\s+)+|"
    r"(?:,?\s+(?:of\s+course|obviously|for\s+sure|definitely|probably|hands\s+down|no\s+question|"
    r"i\s+think|i\s+guess|haha|lol))+\s*[.!]*$",
    re.IGNORECASE,
)
# "I stopped going", "I quit it", "gave it up": a stop with no object of its own.
_BARE_STOP = re.compile(
    r"\b(?P<verb>stopped|quit|gave\s+up|dropped|paused|finished)\s+(?:going|doing\s+(?:it|that)|"
    r"it|that|them)\b(?:\s+up)?",
    re.IGNORECASE,
)
_NO = re.compile(r"^(?:no|nope|nah|not\s+anymore|not\s+really)\b[\s,.!]*", re.IGNORECASE)
MAX_ANSWER_WORDS = 12


def _last_question(text: str) -> str:
    sentences = re.split(r"(?<=[.!?])\s+", text.strip())
    questions = [s for s in sentences if s.rstrip().endswith("?")]
    return questions[-1].strip() if questions else ""


def in_context(question_turn: str, answer: str) -> str | None:
    """The statement a short ``answer`` makes given the other speaker's ``question_turn``, or
    None when the answer needs no context or the question is not one we read."""
    question = _last_question(question_turn)
    if not question or len(answer.split()) > MAX_ANSWER_WORDS:
        return None
    favourite = _FAVOURITE_Q.search(question)
    if favourite:
        first = re.split(r"(?<=[.!?])\s+", answer.strip())[0]
        thing = _ANSWER_FILLER.sub("", first.strip()).strip(" .!?,")
        thing = _ANSWER_FILLER.sub("", thing).strip(" .!?,")
        if not thing or re.match(r"^(?:i|we|my|you|no|not|none|nothing|dunno)\b", thing, re.I):
            return None
        return f"My favourite {favourite.group('what').strip()} is {thing}."
    still = _STILL_Q.search(question)
    if still:
        what = still.group("what").strip()
        bare = _BARE_STOP.search(answer)
        if bare:
            rest = _NO.sub("", answer[: bare.start()]).strip(" ,")
            tail = answer[bare.end() :].strip()
            lead = f"{rest} " if rest else "I "
            return f"{lead}{bare.group('verb')} {what} {tail}".strip()
    return None


# "Can you fix the pagination overflow in the invoice table renderer?" / "Done — ...": work
# the person asked for and the other side confirmed. The person's request is the source (it
# names the thing and the change); the reply only confirms that it happened, and nothing it
# adds ("I capped rows at fifteen") is taken from it.
_WORK_REQUEST = re.compile(
    r"^(?:(?:can|could|would|will)\s+you\s+|please\s+)?(?:please\s+)?(?P<verb>fix|repair|patch|"
    r"update|change|add|remove|rename|refactor|speed\s+up|clean\s+up|rewrite)\s+(?P<obj>.+?)"
    r"(?:,?\s+please)?[?.!]*$",
    re.IGNORECASE,
)
_CONFIRMED = re.compile(
    r"^\W*(?:done|fixed|all\s+set|updated|implemented|sorted|patched|finished|that's\s+done|"
    r"i(?:'ve|\s+have)\s+(?:now\s+)?(?:fixed|updated|added|changed|removed|renamed|patched|"
    r"rewritten|refactored|made))\b",
    re.IGNORECASE,
)
_COMPONENT = re.compile(
    r"\b(?:in|on|of|inside|within)\s+(?:the|our|my)\s+(?P<part>[^,;?!]+)$", re.I
)


def confirmed_work(request: str, reply: str) -> tuple[str, str, str] | None:
    """(verb, component phrase, what was done) for a work request the reply confirms."""
    match = _WORK_REQUEST.match(request.strip())
    if not match or not _CONFIRMED.match(reply.strip()):
        return None
    obj = match.group("obj").strip()
    part = _COMPONENT.search(obj)
    component = part.group("part") if part else re.sub(r"^(?:the|our|my)\s+", "", obj, flags=re.I)
    verb = match.group("verb").lower()
    done = {"fix": "Fixed", "repair": "Repaired", "patch": "Patched", "add": "Added"}.get(
        verb, verb.split()[0].capitalize() + ("d" if verb.endswith("e") else "ed")
    )
    return verb, component.strip(), f"{done} {obj}"
