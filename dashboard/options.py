"""Choice lists rendered once per process, for pages and forms that show many select boxes."""

from __future__ import annotations

from django.utils.html import format_html
from django.utils.safestring import mark_safe


def select_options(choices: list[tuple[str, str]], *, capfirst: bool = False) -> dict[str, str]:
    """The ``<option>`` list of a choice field with each value selected in turn: value -> HTML,
    and ``""`` -> none selected (for a value outside the choices). Built once per process, so
    a page with many select boxes (the queue's cards, a detail's edit form) does not render
    thousands of options through the template engine (see docs/benchmarks.md). Templates
    pick one with the ``options_for`` filter."""

    def option(value: str, text: str, chosen: str) -> str:
        shown = text[:1].upper() + text[1:] if capfirst else text
        selected = " selected" if value == chosen else ""
        return format_html('<option value="{}"{}>{}</option>', value, mark_safe(selected), shown)

    return {
        chosen: mark_safe("".join(option(value, text, chosen) for value, text in choices))
        for chosen in ["", *(value for value, _text in choices)]
    }
