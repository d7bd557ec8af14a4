"""When did it happen? Pure resolution of date phrases in one clause of text.

:func:`resolve_when` finds the first date phrase it trusts and returns a :class:`When`, or
``None``. It never invents a time: no phrase, a vague phrase ("recently", "a while ago",
"a few weeks ago"), a future phrase ("next week", "tomorrow") or a relative phrase without an
anchor all give ``None``, and the caller stores NULL.

Stated dates (``source="stated"``, no anchor needed), tried first:

- ISO ``2021-03-05`` (day) and ``2021-03`` (month);
- numeric dates are read **day first**: ``5/3/2021`` is 5 March 2021 (``3/25/2021`` has no
  13th month and is refused, not guessed);
- ``5 March 2021``, ``5th of March, 2021``, ``March 5, 2021``, ``March 5th 2021`` (day);
- ``March 2021``, ``March of 2021`` (month);
- a bare year only after a preposition (``in/since/during/from/around/by/back in 2019``,
  optionally ``early/mid/late``): "I have 2021 photos" is not a date.

Relative phrases (``source="resolved_phrase"``), resolved against ``anchor`` (the message's
time, else the transcript's):

- ``today``, ``this morning/afternoon/evening``, ``tonight`` (day); ``yesterday``,
  ``last night`` (day); ``the day before yesterday`` (day);
- ``last week`` (anchor minus 7 days, week), ``last weekend`` (its Saturday, week),
  ``last month`` (month), ``last year`` (year), ``last Monday`` (day);
- ``last March`` (the most recent March before the anchor's month), ``in June`` / ``in early
  June`` without a year (the most recent June up to and including the anchor's month);
- ``N days/weeks/months/years ago`` with digits or number words, ``a/an``, ``a couple of``.

Recurring phrases are schedules, not dates (:func:`recurrence` finds them): "on Sunday
mornings", "on Mondays", "on weekends", "every Monday", "every morning", "twice a week",
"three days a week", "most evenings". :func:`resolve_when` reads past them, so "I started
running on Sunday mornings" has no date, while "on Sunday morning" (one morning) still means
the last Sunday and "every week since 2019" still gives 2019.

The returned moment is the start of its period in UTC: midnight for days and weeks, the first
of the month, or the first of January.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from memory.vocab import TimePrecision, TimeSource

DAY = TimePrecision.DAY.value
WEEK = TimePrecision.WEEK.value
MONTH = TimePrecision.MONTH.value
YEAR = TimePrecision.YEAR.value
STATED = TimeSource.STATED.value
RESOLVED = TimeSource.RESOLVED_PHRASE.value

MIN_YEAR, MAX_YEAR = 1900, 2100


@dataclass(frozen=True)
class When:
    happened_at: datetime
    precision: str
    source: str
    phrase: str


MONTHS = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
}
_ABBREVIATIONS = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
}

_FULL_MONTH = "|".join(MONTHS)
# A month by its name or its short form ("oct", "sept"), for patterns elsewhere too.
ANY_MONTH = "|".join([*MONTHS, *_ABBREVIATIONS])
_ANY_MONTH = ANY_MONTH
_YEAR = r"(?P<year>(?:19|20)\d{2}|2100)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_NOT_MORE_DIGITS = r"(?![\d%])"

# Stated forms, most specific first.
_ISO_DAY = re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})\b")
_ISO_MONTH = re.compile(r"\b(?P<year>\d{4})-(?P<month>0[1-9]|1[0-2])\b(?![-/]\d)")
_NUMERIC_DAY = re.compile(
    r"(?<![\d/.])(?P<day>\d{1,2})[/.](?P<month>\d{1,2})[/.](?P<year>\d{4})(?![\d/.]\d)"
)
_DAY_MONTH_YEAR = re.compile(
    rf"\b{_DAY}\s+(?:of\s+)?(?P<month>{_ANY_MONTH})\.?,?\s+{_YEAR}\b{_NOT_MORE_DIGITS}",
    re.IGNORECASE,
)
_MONTH_DAY_YEAR = re.compile(
    rf"\b(?P<month>{_ANY_MONTH})\.?\s+{_DAY},?\s+{_YEAR}\b{_NOT_MORE_DIGITS}",
    re.IGNORECASE,
)
_MONTH_YEAR = re.compile(
    rf"\b(?P<month>{_ANY_MONTH})\.?,?\s+(?:of\s+)?{_YEAR}\b{_NOT_MORE_DIGITS}", re.IGNORECASE
)
_PREPOSITION_YEAR = re.compile(
    rf"\b(?:back\s+in|in|since|during|from|around|by|until|circa)\s+"
    rf"(?:(?:early|mid|late|the\s+(?:spring|summer|autumn|fall|winter)\s+of)\s+)?"
    rf"{_YEAR}\b{_NOT_MORE_DIGITS}(?!\s*(?:-|–|/)\s*\d)",
    re.IGNORECASE,
)

# Relative forms.
_NUMBER = r"\d{1,3}|a\s+couple(?:\s+of)?|couple\s+of|an?|" + "|".join(
    word for word in NUMBER_WORDS if " " not in word and word not in ("a", "an")
)
_AGO = re.compile(
    rf"\b(?P<count>{_NUMBER})\s+(?P<unit>day|week|month|year)s?\s+ago\b", re.IGNORECASE
)
_LAST_MONTH_NAME = re.compile(rf"\blast\s+(?P<month>{_FULL_MONTH})\b", re.IGNORECASE)
_IN_MONTH_NAME = re.compile(
    rf"\b(?:back\s+in|in|during|since)\s+(?:(?:early|mid|late)\s+)?(?P<month>{_FULL_MONTH})\b"
    rf"(?!\s*(?:\d|of\s+\d))",
    re.IGNORECASE,
)
_LAST_WEEKDAY = re.compile(rf"\b(?:last|on)\s+(?P<weekday>{'|'.join(WEEKDAYS)})\b", re.IGNORECASE)
_FIXED_PHRASES: tuple[tuple[re.Pattern[str], int, str], ...] = (
    # (pattern, days back, precision); order matters: longer phrases first.
    (re.compile(r"\bthe\s+day\s+before\s+yesterday\b", re.IGNORECASE), 2, DAY),
    (re.compile(r"\byesterday\b", re.IGNORECASE), 1, DAY),
    (re.compile(r"\blast\s+night\b", re.IGNORECASE), 1, DAY),
    (re.compile(r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b", re.I), 0, DAY),
    (re.compile(r"\blast\s+week\b", re.IGNORECASE), 7, WEEK),
)
_WEEKDAY = "|".join(WEEKDAYS)
_PART_OF_DAY = r"(?:morning|afternoon|evening|night|nite|lunchtime)"
_FREQUENCY_COUNT = (
    r"(?:\d{1,2}|one|two|three|four|five|six|seven|a\s+couple\s+of|a\s+few|several)\s+"
    r"(?:times|days|nights|mornings|evenings|sessions)"
)
RECURRENCE = re.compile(
    r"\b(?:"
    # twice a week, three days a week, 4 times per month
    rf"(?:once|twice|thrice|{_FREQUENCY_COUNT})\s+(?:a|an|per|each|every)\s+"
    r"(?:day|night|week|weekend|fortnight|month|year)"
    # every Monday, every other day, each morning, every Sunday morning
    rf"|(?:every|each)\s+(?:other\s+|single\s+)?(?:(?:{_WEEKDAY})(?:\s+{_PART_OF_DAY})?|"
    rf"{_PART_OF_DAY}|day|week|weekend|weekday|month|year)"
    # on Mondays, on Mondays and Thursdays, on Sunday mornings, on weekends
    rf"|on\s+(?:weekends|weekdays|(?:{_WEEKDAY})s(?:,?\s+(?:and\s+)?(?:{_WEEKDAY})s)*|"
    rf"(?:{_WEEKDAY})\s+{_PART_OF_DAY}s)"
    # most days, most evenings, most Saturdays
    rf"|most\s+(?:days|weekends|(?:{_WEEKDAY})s|{_PART_OF_DAY}s)"
    r")\b",
    re.IGNORECASE,
)
_LAST_WEEKEND = re.compile(r"\blast\s+weekend\b", re.IGNORECASE)
_LAST_MONTH = re.compile(r"\blast\s+month\b", re.IGNORECASE)
_LAST_YEAR = re.compile(r"\blast\s+year\b", re.IGNORECASE)


def _month_number(name: str) -> int:
    name = name.lower().rstrip(".")
    return MONTHS.get(name) or _ABBREVIATIONS[name]


def _month_value(raw: str | None) -> int:
    """A month group as a number; 0 (refused by :func:`_utc`) for nonsense such as "00"."""
    if raw is None:
        return 1
    return int(raw) if raw.isdigit() else _month_number(raw)


def _utc(year: int, month: int = 1, day: int = 1) -> datetime | None:
    if not MIN_YEAR <= year <= MAX_YEAR:
        return None
    try:
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None


def _midnight(moment: datetime) -> datetime:
    return datetime(moment.year, moment.month, moment.day, tzinfo=UTC)


def _months_back(anchor: datetime, months: int) -> datetime:
    index = anchor.year * 12 + (anchor.month - 1) - months
    return datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC)


def _stated(text: str) -> When | None:
    for pattern, precision in (
        (_ISO_DAY, DAY),
        (_NUMERIC_DAY, DAY),
        (_DAY_MONTH_YEAR, DAY),
        (_MONTH_DAY_YEAR, DAY),
        (_ISO_MONTH, MONTH),
        (_MONTH_YEAR, MONTH),
        (_PREPOSITION_YEAR, YEAR),
    ):
        for match in pattern.finditer(text):
            parts = match.groupdict()
            moment = _utc(
                int(parts["year"]), _month_value(parts.get("month")), int(parts.get("day") or 1)
            )
            if moment is not None:
                return When(moment, precision, STATED, match.group(0))
    return None


def _count(raw: str) -> int:
    word = " ".join(raw.lower().split())
    return int(word) if word.isdigit() else NUMBER_WORDS[word]


def _ago(match: re.Match[str], anchor: datetime) -> When | None:
    count, unit = _count(match.group("count")), match.group("unit").lower()
    if count <= 0:
        return None
    if unit == "day":
        return When(_midnight(anchor - timedelta(days=count)), DAY, RESOLVED, match.group(0))
    if unit == "week":
        return When(_midnight(anchor - timedelta(weeks=count)), WEEK, RESOLVED, match.group(0))
    if unit == "month":
        return When(_months_back(anchor, count), MONTH, RESOLVED, match.group(0))
    moment = _utc(anchor.year - count)
    return When(moment, YEAR, RESOLVED, match.group(0)) if moment else None


def _most_recent_month(anchor: datetime, month: int, *, strictly_before: bool) -> datetime:
    """The latest month ``month`` before (or, if allowed, at) the anchor's month."""
    back = (anchor.month - month) % 12
    if back == 0 and strictly_before:
        back = 12
    return _months_back(anchor, back)


def _relative(text: str, anchor: datetime) -> When | None:
    for pattern, days, precision in _FIXED_PHRASES:
        match = pattern.search(text)
        if match:
            moment = _midnight(anchor - timedelta(days=days))
            return When(moment, precision, RESOLVED, match.group(0))
    if match := _LAST_WEEKEND.search(text):
        # The Saturday of the previous weekend (on a weekend day, not the current one).
        back = (anchor.weekday() - 5) % 7 + (7 if anchor.weekday() >= 5 else 0)
        return When(_midnight(anchor - timedelta(days=back)), WEEK, RESOLVED, match.group(0))
    if match := _AGO.search(text):
        return _ago(match, anchor)
    if match := _LAST_MONTH.search(text):
        return When(_months_back(anchor, 1), MONTH, RESOLVED, match.group(0))
    if match := _LAST_YEAR.search(text):
        last_year = _utc(anchor.year - 1)
        return When(last_year, YEAR, RESOLVED, match.group(0)) if last_year else None
    if match := _LAST_MONTH_NAME.search(text):
        month = _most_recent_month(
            anchor, MONTHS[match.group("month").lower()], strictly_before=True
        )
        return When(month, MONTH, RESOLVED, match.group(0))
    if match := _IN_MONTH_NAME.search(text):
        name = match.group("month")
        if name.lower() == "may" and not name[0].isupper():
            return None  # "in may" is far more often the verb than the month
        month = _most_recent_month(anchor, MONTHS[name.lower()], strictly_before=False)
        return When(month, MONTH, RESOLVED, match.group(0))
    if match := _LAST_WEEKDAY.search(text):
        back = (anchor.weekday() - WEEKDAYS.index(match.group("weekday").lower())) % 7 or 7
        return When(_midnight(anchor - timedelta(days=back)), DAY, RESOLVED, match.group(0))
    return None


def recurrence(text: str) -> str | None:
    """The first schedule phrase in ``text`` ("on Sunday mornings", "twice a week"), or ``None``."""
    match = RECURRENCE.search(text)
    return match.group(0) if match else None


def _without_recurrence(text: str) -> str:
    """``text`` with schedule phrases blanked (same length, so phrases keep their places)."""
    return RECURRENCE.sub(lambda m: " " * len(m.group(0)), text)


def resolve_when(text: str, anchor: datetime | None) -> When | None:
    """The date ``text`` states or implies, or ``None`` when it gives no trustworthy date.

    ``anchor`` is when the words were said; a naive anchor is taken as UTC. Relative phrases
    need it: without an anchor they resolve to ``None``, never to "now".
    """
    if not text:
        return None
    text = _without_recurrence(text)
    stated = _stated(text)
    if stated is not None:
        return stated
    if anchor is None:
        return None
    try:
        anchor = anchor.replace(tzinfo=UTC) if anchor.tzinfo is None else anchor.astimezone(UTC)
        return _relative(text, anchor)
    except (OverflowError, ValueError):
        # "yesterday" or "last month" said on 0001-01-01 (or "in 3 weeks" on 9999-12-31) has no date we can
        # represent: no trustworthy date, like a phrase without an anchor.
        return None
