"""Small display filters for the dashboard templates: ``{% load ume %}``."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import timezone

from memory.vocab import RejectReason

register = template.Library()

_REASONS = dict(RejectReason.choices)


@register.filter
def words(value: Any) -> str:
    """``nodes_updated`` -> ``nodes updated``."""
    return str(value).replace("_", " ")


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
