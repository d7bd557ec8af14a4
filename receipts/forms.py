"""The Saves page filter: a GET form, so a filtered view is a link."""

from __future__ import annotations

from datetime import date, timedelta

from django import forms
from django.utils import timezone
from django.utils.text import capfirst

from memory.vocab import Outcome, Source

MAX_RANGE_DAYS = 366
DEFAULT_RANGE_DAYS = 30
# Days the filter accepts: the chart and the day-boundary arithmetic step a year either side,
# which overflows ``date`` at the ends of the calendar.
EARLIEST_DAY = date(1900, 1, 1)
LATEST_DAY = date(9000, 12, 31)


class SavesFilterForm(forms.Form):
    outcome = forms.ChoiceField(
        choices=[("", "any outcome"), *((v, capfirst(label)) for v, label in Outcome.choices)],
        required=False,
    )
    source = forms.ChoiceField(choices=[("", "any source"), *Source.choices], required=False)
    start = forms.DateField(
        required=False, label="From", widget=forms.DateInput(attrs={"type": "date"})
    )
    end = forms.DateField(
        required=False, label="To", widget=forms.DateInput(attrs={"type": "date"})
    )

    def clean(self) -> dict:
        data = super().clean() or {}
        start, end = data.get("start"), data.get("end")
        for name, day in (("start", start), ("end", end)):
            if day and not EARLIEST_DAY <= day <= LATEST_DAY:
                self.add_error(name, f"Pick a day between {EARLIEST_DAY:%Y} and {LATEST_DAY:%Y}.")
        if start and end and start > end:
            raise forms.ValidationError("“From” must be on or before “To”.")
        return data

    def chart_range(self) -> tuple[date, date]:
        """The days the chart covers: the chosen range, else the last 30 days (at most a year)."""
        chosen = self.cleaned_data.get("start")
        # A start in the future with no end: the chart runs to that start, never backwards.
        end = self.cleaned_data.get("end") or max(timezone.localdate(), chosen or date.min)
        start = chosen or end - timedelta(days=DEFAULT_RANGE_DAYS - 1)
        return max(start, end - timedelta(days=MAX_RANGE_DAYS - 1)), end

    def is_filtered(self) -> bool:
        return any(self.cleaned_data.get(name) for name in self.fields)
