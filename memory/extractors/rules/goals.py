"""Goals, wishes and plans: "we're planning a trip to Japan in April 2027", "I want to ask for a
raise", "my goal is to be conversational in Spanish by next summer", "we hope to buy a house in
Bristol within two years", "I'm saving up for a motorbike".

The label is what is wanted, its place kept ("Trip to Japan", "House in Bristol"), its time
left in the slice text (a plan has no ``happened_at``: it has not happened). Wishes about
learning, trying, starting or stopping an activity stay hedges (a candidate to review), as
they were: "I want to learn the piano" is not yet a goal the person has set.
"""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.rules.base import GOAL, Clause, Found, slice_, time_phrase, without_time
from memory.temporal import MONTHS, WEEKDAYS
from memory.vocab import SliceKind

# Verbs that keep a wish a hedge (see memory.extractors.rules.hedges).
_HEDGE_VERBS = re.compile(
    r"^(?:try|start|take\s+up|learn|pick\s+up|get\s+into|join|switch|move|quit|stop|give\s+up|"
    r"build|launch|do|use|go\s+back|adopt)\b",
    re.IGNORECASE,
)
_WISH = re.compile(
    r"\b(?:i|we)(?:'re|'m|\s+am|\s+are)?\s+(?:really\s+|still\s+|also\s+|seriously\s+)?"
    r"(?:want|wanna|would\s+like|'d\s+like|'d\s+love|would\s+love|hope|hoping|plan|planning|"
    r"intend|intending|aim|aiming|dream\s+of|saving\s+(?:up\s+)?for|saving\s+up\s+to)\s+"
    r"(?:to\s+)?(?P<rest>.+)$",
    re.IGNORECASE,
)
_GOAL_IS = re.compile(
    r"\b(?:my|our)\s+(?:big\s+|main\s+|long-term\s+|new\s+)?(?:goal|dream|plan|aim|resolution)"
    r"(?:\s+for\s+\w+)?\s+(?:is|was)\s+(?:to\s+)?(?P<rest>.+)$",
    re.IGNORECASE,
)
_VERB = re.compile(r"^(?P<verb>[a-z]+)\s+(?:(?:for|to|on|up)\s+)?(?P<obj>.+)$", re.IGNORECASE)
# Verbs of showing or passing on a quality: their bare object is a way to be ("show warmth",
# "spread kindness", "bring joy", "find peace"), not a thing to achieve; with an article or
# a possessive it is one ("find a new job", "share my art").
_EXPRESSING = frozenset("show spread express share bring give feel find radiate".split())
# Making one thing into another: the goal is about the first ("turn my photography into a
# side income"), not the piece of clause that names both.
_TURNED = re.compile(
    r"^(?:turn|make|grow|convert|transform)\s+(?P<what>.+?)\s+into\s+", re.IGNORECASE
)
_SKILL_IN = re.compile(
    r"^be\s+(?:fluent|conversational|good|better|confident|comfortable)\s+(?:in|at|with)\s+"
    r"(?P<obj>.+)$",
    re.IGNORECASE,
)
_WHEN_WORDS = "|".join([*MONTHS, *WEEKDAYS, "spring", "summer", "autumn", "fall", "winter"])
_GOAL_END = re.compile(
    r"\s+(?:in|on|during|around|over)\s+(?:the\s+)?(?:" + _WHEN_WORDS + r"|\d{4})\b|"
    r"\s*(?:[,;:()!?]|\.(?:\s|$)|\s[-–—]\s)|\s+(?:and|but|because|so|before|by|within|until|"
    r"after|when|if|once|this|next|later|soon|someday|one\s+day|for\s+(?:my|our|the)\b|with\s+"
    r"(?:my|our|the)\b|mostly|maybe)\b",
    re.IGNORECASE,
)
# Wishes of the moment, not goals: "I want to go home", "I'd like to know more about X".
_PASSING = re.compile(
    r"^(?:go\s+(?:home|to\s+bed|out|back)|know|understand|hear|say|tell|talk|chat|check|"
    r"ask\s+(?:you|about)|see\s+(?:you|it|this|that|if|how|what|whether)|sleep|rest|eat|relax|"
    r"leave|stop\s+here|continue|finish\s+(?:this|it|that)|get\s+(?:this|it|that))\b",
    re.IGNORECASE,
)
_VAGUE = re.compile(
    r"^(?:more|less|it|this|that|something|anything|everything|you|home|out)\b", re.I
)
_DETERMINER = re.compile(r"^(?:(?:a|an|the|my|our|some|new)\s+)+", re.IGNORECASE)
# A piece of writing wanted in a chat ("I want a proper 30/60/90 day plan", "I'd like a
# checklist for the show") is what the person asks the assistant to write, not a goal.
_WRITING = frozenset(
    """plan plans list lists checklist checklists draft drafts email emails letter letters
    template templates outline outlines summary summaries itinerary itineraries script
    scripts caption captions message messages reply text paragraph version rewrite
    translation table spreadsheet""".split()
)


# A stay somewhere planned by how long it lasts: "three days in Bergen", "a long weekend in
# Porto", "two nights at the lake": a trip to that place.
_STAY = re.compile(
    r"^(?:(?:a|an)\s+(?:few\s+|couple\s+(?:of\s+)?)?|\d+\s+|one\s+|two\s+|three\s+|four\s+|"
    r"five\s+|six\s+|seven\s+|eight\s+|nine\s+|ten\s+|several\s+|some\s+)?(?:long\s+)?"
    r"(?:days?|nights?|weeks?|weekends?|months?)\s+(?:in|at|on)\s+(?P<place>.+)$",
    re.IGNORECASE,
)


def _goal_label(c: Clause, rest: str) -> str | None:
    rest = rest.strip()
    skill = _SKILL_IN.match(rest)
    stay = _STAY.match(rest)
    if skill:
        obj = skill.group("obj")
    elif stay:
        obj = f"trip to {stay.group('place')}"  # "three days in Bergen": a trip to Bergen
    elif re.match(r"^(?:a|an|the|my|our)\s", rest, re.IGNORECASE):
        obj = rest  # "planning a trip to Japan": the plan is the object itself
    else:
        verb = _VERB.match(rest)
        if not verb or _HEDGE_VERBS.match(rest) or _PASSING.match(rest):
            return None
        obj = verb.group("obj")
        if verb.group("verb").lower() in _EXPRESSING and not _DETERMINER.match(obj):
            return None  # "to show warmth", "to spread kindness": a way to be, not a goal
        turned = _TURNED.match(rest)
        if turned:
            obj = turned.group("what")  # "turn my baking into a business": the baking
    obj = without_time(obj, time_phrase(obj, c.anchor))
    end = _GOAL_END.search(obj)
    head = _DETERMINER.sub("", (obj[: end.start()] if end else obj).strip())
    if not head or len(head.split()) > 5 or _VAGUE.match(head):
        return None
    core = re.split(r"\s+(?:to|for|about|of|in|on|with|from)\s+", head, maxsplit=1)[0]
    if core.split()[-1].lower() in _WRITING:
        return None  # "a short email to my landlord": its head noun is the writing
    return p.make_label(head)


def goal(c: Clause) -> Found:
    for pattern in (_GOAL_IS, _WISH):
        match = pattern.search(c.text)
        if match and (label := _goal_label(c, match.group("rest"))):
            return slice_(c, label, GOAL, SliceKind.OTHER.value)
    return []
