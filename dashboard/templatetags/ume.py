"""Small display filters for the dashboard templates: ``{% load ume %}``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django import template
from django.utils import timezone

from memory.vocab import DETAIL_NOUNS, RejectReason

register = template.Library()

_REASONS = dict(RejectReason.choices)


@register.filter
def words(value: Any) -> str:
    """``nodes_updated`` -> ``nodes updated``."""
    return str(value).replace("_", " ")


@register.filter
def url_host(value: Any) -> str:
    """``https://app.example/oauth/client.json`` -> ``app.example``; '' when not a URL."""
    try:
        return urlsplit(str(value)).netloc
    except ValueError:
        return ""


@register.filter
def reason(value: Any) -> str:
    """A gate rejection reason in words."""
    return str(_REASONS.get(str(value), words(value)))


@register.filter
def happened(event: Any) -> str:
    """When an event happened, to the precision that is known; '' when unknown."""
    when = getattr(event, "happened_at", None)
    if when is None:
        return ""
    when = timezone.localtime(when)
    precision = getattr(event, "happened_at_precision", "day")
    if precision == "year":
        return f"{when:%Y}"
    if precision == "month":
        return f"{when:%B %Y}"
    if precision == "week":
        return f"week of {when.day} {when:%b %Y}"
    return f"{when.day} {when:%b %Y}"


@register.filter
def said_at(evidence: Any) -> Any:
    """When the quoted words were said: the message's time, else the transcript's, else when
    ume stored the quote."""
    transcript = getattr(evidence, "transcript", None)
    return (
        evidence.message_ts
        or (transcript.source_time if transcript is not None else None)
        or evidence.created_at
    )


@register.filter
def options_for(options: Any, value: Any) -> Any:
    """The option list of ``dashboard.options.select_options`` with ``value`` selected (none
    selected when ``value`` is not one of the choices)."""
    return options.get(value) or options[""]


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    """``mapping[key]`` in a template; '' when it is not a mapping or has no such key."""
    return mapping.get(key, "") if isinstance(mapping, dict) else ""


@register.filter
def detail_noun(kind: Any) -> str:
    """``slice`` -> ``fact``: what a person calls each kind of detail."""
    return DETAIL_NOUNS.get(str(kind), str(kind))


_SOURCES = {
    "review:candidate": "rejected and suppressed in Review",
    "dashboard:node": "a memory deleted with “make it stick”",
    "api:node": "a memory deleted through the API",
    "mcp:node": "a memory deleted by an assistant (MCP)",
    "undo:receipt": "an undone save",
}
_PLAIN_SOURCES = {
    "manual": "added by you",
    "cleanup": "removed by cleanup",
    "test": "a test",
}


@register.filter
def supp_source(value: Any) -> str:
    """Where a suppression came from, in words (``review:candidate:20`` is an internal id)."""
    text = str(value or "")
    head, _, tail = text.rpartition(":")
    if head in _SOURCES and tail.isdigit():
        return _SOURCES[head]
    return _PLAIN_SOURCES.get(text, text.replace(":", " ").replace("_", " "))


# A receipt's count keys in words: (one, many). Unknown keys fall back to their own words.
_COUNT_NOUNS = {
    "nodes": ("new memory", "new memories"),
    "nodes_updated": ("memory seen again", "memories seen again"),
    "slices": ("fact", "facts"),
    "superseded": ("fact superseded", "facts superseded"),
    "events": ("event", "events"),
    "edges": ("link", "links"),
    "candidates": ("guess for review", "guesses for review"),
    "candidate_bumps": ("guess seen again", "guesses seen again"),
    "held": ("detail held", "details held"),
    "rejected": ("skipped", "skipped"),
    "suppressions": ("suppression", "suppressions"),
    "reverted": ("change reverted", "changes reverted"),
    "not_reverted": ("change not reverted", "changes not reverted"),
    "one_offs_expired": ("one-off guess expired", "one-off guesses expired"),
    "decided": ("guess decided", "guesses decided"),
    "restored": ("guess back in the queue", "guesses back in the queue"),
}
# One line for the words a person cannot guess, shown the first time they appear on a page.
COUNT_HELP = {
    "held": "Held: facts and events about a guess still waiting for review; they are written "
    "when you promote or merge the guess, and dropped if you reject it.",
    "reverted": "Reverted: something this save had changed (a count, a state, a superseded "
    "fact) was put back as it was before.",
    "not_reverted": "Not reverted: a change that could not be put back, because something "
    "newer had changed it since; the receipt says what.",
    "superseded": "Superseded: an older fact replaced by a newer one of the same kind; it is "
    "kept as history.",
    "one_offs_expired": "One-off guesses: said in one conversation only, and left unreviewed "
    "for UME_ONE_OFF_DAYS days. The Review page's Expired view lists them and restores any.",
}


@register.filter
def count_noun(key: Any, n: Any) -> str:
    """The words after a count: ``("slices", 1)`` -> ``"fact"``, ``("nodes", 2)`` ->
    ``"new memories"``."""
    try:
        number = int(n)
    except (TypeError, ValueError):
        number = 0
    one, many = _COUNT_NOUNS.get(str(key), (words(key), words(key)))
    return one if number == 1 else many


@register.filter
def count_help(counts: Any) -> list[str]:
    """The explanations of the unusual words among a receipt's non-zero counts."""
    if not isinstance(counts, dict):
        return []
    return [text for key, text in COUNT_HELP.items() if counts.get(key)]


@register.filter
def count_title(key: Any) -> str:
    """The one-line explanation of a count's word, for a tooltip ('' when it needs none)."""
    return COUNT_HELP.get(str(key), "")
