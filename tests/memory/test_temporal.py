"""resolve_when: stated dates, relative phrases against an anchor, and what gives no date."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from memory.temporal import When, recurrence, resolve_when

ANCHOR = datetime(2026, 5, 10, 15, 30, tzinfo=UTC)  # a Sunday


def d(year: int, month: int = 1, day: int = 1) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected", "precision", "phrase"),
    [
        ("I moved to Berlin in March 2021", d(2021, 3), "month", "March 2021"),
        ("we married on 5 March 2021", d(2021, 3, 5), "day", "5 March 2021"),
        ("on the 5th of March, 2021", d(2021, 3, 5), "day", "5th of March, 2021"),
        ("it was March 5, 2021", d(2021, 3, 5), "day", "March 5, 2021"),
        ("shipped 2021-03-05", d(2021, 3, 5), "day", "2021-03-05"),
        ("started 2021-03", d(2021, 3), "month", "2021-03"),
        ("moved on 5/3/2021", d(2021, 3, 5), "day", "5/3/2021"),  # day first
        ("in Sept 2019 we left", d(2019, 9), "month", "Sept 2019"),
        ("in 2019 I got sick", d(2019), "year", "in 2019"),
        ("I have lived here since 2015", d(2015), "year", "since 2015"),
        ("back in 2008 it began", d(2008), "year", "back in 2008"),
        ("every week since 2019", d(2019), "year", "since 2019"),  # the schedule is read past
    ],
)
def test_stated_dates_need_no_anchor(text: Any, expected: Any, precision: Any, phrase: Any) -> None:
    assert resolve_when(text, None) == When(expected, precision, "stated", phrase)
    assert resolve_when(text, ANCHOR) == When(expected, precision, "stated", phrase)


@pytest.mark.parametrize(
    ("text", "expected", "precision"),
    [
        ("I started boxing last week", d(2026, 5, 3), "week"),
        ("yesterday I quit", d(2026, 5, 9), "day"),
        ("this morning I fell", d(2026, 5, 10), "day"),
        ("today I launched it", d(2026, 5, 10), "day"),
        ("the day before yesterday", d(2026, 5, 8), "day"),
        ("last month", d(2026, 4), "month"),
        ("last year", d(2025), "year"),
        ("last March", d(2026, 3), "month"),
        ("last May", d(2025, 5), "month"),  # the anchor's own month means a year back
        ("I stopped in June", d(2025, 6), "month"),
        ("in April", d(2026, 4), "month"),
        ("3 days ago", d(2026, 5, 7), "day"),
        ("a couple of weeks ago", d(2026, 4, 26), "week"),
        ("two years ago", d(2024), "year"),
        ("an hour", None, None),
        ("five months ago", d(2025, 12), "month"),
        ("last Monday", d(2026, 5, 4), "day"),
        ("last Sunday", d(2026, 5, 3), "day"),
        ("last weekend", d(2026, 5, 2), "week"),
        ("on Sunday morning I fell", d(2026, 5, 3), "day"),  # one morning: a date
        ("I started running on Sunday mornings last month", d(2026, 4), "month"),
    ],
)
def test_relative_phrases_resolve_against_the_anchor(
    text: Any, expected: Any, precision: Any
) -> None:
    when = resolve_when(text, ANCHOR)
    if expected is None:
        assert when is None
    else:
        assert when is not None
        assert (when.happened_at, when.precision, when.source) == (
            expected,
            precision,
            "resolved_phrase",
        )


@pytest.mark.parametrize("text", ["last week", "yesterday", "two years ago", "last March"])
def test_relative_phrase_without_anchor_is_none_never_now(text: Any) -> None:
    assert resolve_when(text, None) is None


@pytest.mark.parametrize(
    "text",
    [
        "I started boxing",
        "I have 2021 photos on my phone",
        "recently I took up yoga",
        "I will start soon",
        "someday I will learn it",
        "a while ago I did that",
        "a few weeks ago",
        "next week I start",
        "tomorrow I quit",
        "in 2 weeks",
        "I may try it",
        "13/25/2021",
        "2021-00-05",
        "",
    ],
)
def test_no_trustworthy_date_gives_none(text: Any) -> None:
    assert resolve_when(text, ANCHOR) is None


def test_naive_and_offset_anchors_are_taken_as_utc() -> None:
    naive = datetime(2026, 5, 10, 12, 0)
    assert resolve_when("yesterday", naive) == When(
        d(2026, 5, 9), "day", "resolved_phrase", "yesterday"
    )
    # 01:00 on 11 May at UTC+3 is still 10 May in UTC.
    offset = datetime(2026, 5, 11, 1, 0, tzinfo=timezone(timedelta(hours=3)))
    today = resolve_when("today", offset)
    assert today is not None and today.happened_at == d(2026, 5, 10)


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("I started running on Sunday mornings", "on Sunday mornings"),
        ("I swim on Mondays", "on Mondays"),
        ("lessons on Mondays and Thursdays", "on Mondays and Thursdays"),
        ("I rest on weekends", "on weekends"),
        ("I lift every Monday", "every Monday"),
        ("every Sunday morning we hike", "every Sunday morning"),
        ("I stretch every morning", "every morning"),
        ("I run every other day", "every other day"),
        ("I train twice a week", "twice a week"),
        ("I train three days a week for now", "three days a week"),
        ("we meet 4 times per month", "4 times per month"),
        ("I cook most evenings", "most evenings"),
        ("I swim most Sundays now", "most Sundays"),
        ("i game every nite after work", "every nite"),
    ],
)
def test_recurring_phrases_are_schedules_not_dates(text: Any, phrase: Any) -> None:
    assert recurrence(text) == phrase
    assert resolve_when(text, ANCHOR) is None


@pytest.mark.parametrize(
    "text", ["last Sunday", "on Sunday morning", "I started a weekly newsletter", "yesterday", ""]
)
def test_one_time_phrases_are_not_schedules(text: Any) -> None:
    assert recurrence(text) is None
