"""Reads of the review queue at the scale of a life's chat history: "start here", the queue
grouped by subject, category or conversation, a group's members for a batch, and the guesses
cleanup expired.

Every read takes the owner and filters on it. Each page is a constant number of queries
whatever the number of guesses (pinned in ``tests/review/test_triage_views.py``): groups are
counted in one aggregate, their first cards read in one statement, the evidence of the cards
shown in one more. Guesses are ordered by value (``memory.triage``), highest first.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, F, Max, QuerySet, Window
from django.db.models.functions import RowNumber

from memory.models import Candidate, Evidence, Receipt, Source
from memory.owned import Person
from memory.selectors import candidate_queue
from memory.triage import subject_groups
from memory.vocab import CandidateStatus, Category

#: Cards on the "start here" view.
START_HERE = 20
#: Cards shown in each group; the rest are one link away.
GROUP_CARDS = 3
#: Groups per page of a grouped view.
GROUPS_PER_PAGE = 10
GROUPINGS = ("subject", "category", "conversation")
#: Guesses expired longer ago than this are no longer announced on the queue.
EXPIRED_NOTICE_DAYS = 30


def start_here(owner: Person, *, limit: int = START_HERE) -> list[Candidate]:
    """The ``limit`` pending guesses most worth the person's time, with their evidence."""
    return list(candidate_queue(owner, sort="value")[:limit])


@dataclass
class Group:
    """One group of pending guesses: what it is (``key``, shown as ``label``), how many,
    the first cards by value, and for a conversation, when it was held."""

    key: str
    label: str
    count: int
    top: float
    cards: list[Candidate] = field(default_factory=list)
    when: datetime | None = None

    @property
    def more(self) -> int:
        return max(0, self.count - len(self.cards))


@dataclass
class GroupPage:
    """A page of groups: ``groups``, the page number, and how many groups in all."""

    by: str
    groups: list[Group]
    number: int
    total: int
    per_page: int = GROUPS_PER_PAGE

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // max(1, self.per_page)))

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.pages


def _pending(owner: Person) -> QuerySet[Candidate]:
    return Candidate.objects.for_owner(owner).filter(status=CandidateStatus.PENDING)


def _cards(owner: Person, ids: list[int]) -> dict[int, Candidate]:
    """The cards of ``ids`` as the queue shows them (evidence and possible node loaded)."""
    if not ids:
        return {}
    return {c.pk: c for c in candidate_queue(owner, sort="value").filter(pk__in=ids)}


def _page_slice(number: int, total: int) -> tuple[int, int]:
    number = max(1, min(number, max(1, -(-total // GROUPS_PER_PAGE))))
    start = (number - 1) * GROUPS_PER_PAGE
    return number, start


def groups_page(owner: Person, by: str, *, page: int = 1) -> GroupPage:
    """One page of the pending guesses grouped ``by`` subject, category or conversation,
    the groups with the most valuable guess first."""
    if by == "category":
        return _by_category(owner)
    if by == "conversation":
        return _by_conversation(owner, page)
    if by == "subject":
        return _by_subject(owner, page)
    raise ValueError(f"unknown grouping {by!r}")


def _by_category(owner: Person) -> GroupPage:
    """Every category with guesses waiting (at most 18: one page): three queries."""
    names = dict(Category.choices)
    rows = list(
        _pending(owner)
        .order_by()
        .values("category_guess")
        .annotate(n=Count("id"), top=Max("value"))
        .order_by("-top", "category_guess")
    )
    ranked = (
        _pending(owner)
        .annotate(
            rank=Window(
                RowNumber(),
                partition_by=[F("category_guess")],
                order_by=[F("value").desc(), F("id").desc()],
            )
        )
        .filter(rank__lte=GROUP_CARDS)
        .values_list("category_guess", "id")
    )
    firsts: dict[str, list[int]] = defaultdict(list)
    for category, pk in ranked:
        firsts[category].append(pk)
    cards = _cards(owner, [pk for ids in firsts.values() for pk in ids])
    groups = [
        Group(
            key=row["category_guess"],
            label=str(names.get(row["category_guess"], row["category_guess"])).capitalize(),
            count=row["n"],
            top=row["top"],
            cards=_ordered(cards, firsts[row["category_guess"]]),
        )
        for row in rows
    ]
    return GroupPage("category", groups, 1, len(groups), per_page=max(1, len(groups)))


def _ordered(cards: dict[int, Candidate], ids: list[int]) -> list[Candidate]:
    shown = [cards[pk] for pk in ids if pk in cards]
    return sorted(shown, key=lambda c: (-c.value, -c.pk))


def _conversation_evidence(owner: Person) -> QuerySet[Evidence]:
    """Quotes of pending guesses that came from a conversation (a transcript)."""
    return Evidence.objects.for_owner(owner).filter(
        transcript__isnull=False,
        candidate__owner=owner,
        candidate__status=CandidateStatus.PENDING,
    )


def _by_conversation(owner: Person, number: int) -> GroupPage:
    """Conversations with guesses waiting, a page at a time: five queries."""
    rows = _conversation_evidence(owner).order_by()
    total = rows.values("transcript_id").distinct().count()
    number, start = _page_slice(number, total)
    page = list(
        rows.values("transcript_id", "transcript__name", "transcript__source_time")
        .annotate(n=Count("candidate_id", distinct=True), top=Max("candidate__value"))
        .order_by("-top", "-transcript_id")[start : start + GROUPS_PER_PAGE]
    )
    pairs = (
        _conversation_evidence(owner)
        .filter(transcript_id__in=[row["transcript_id"] for row in page])
        .order_by()
        .values_list("transcript_id", "candidate_id", "candidate__value")
        .distinct()
    )
    firsts: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for transcript_id, candidate_id, value in pairs:
        firsts[transcript_id].append((value, candidate_id))
    chosen = {
        t: [pk for _v, pk in sorted(v, reverse=True)[:GROUP_CARDS]] for t, v in firsts.items()
    }
    cards = _cards(owner, [pk for ids in chosen.values() for pk in ids])
    groups = [
        Group(
            key=str(row["transcript_id"]),
            label=row["transcript__name"],
            count=row["n"],
            top=row["top"],
            cards=_ordered(cards, chosen.get(row["transcript_id"], [])),
            when=row["transcript__source_time"],
        )
        for row in page
    ]
    return GroupPage("conversation", groups, number, total)


def _subjects(owner: Person) -> tuple[dict[int, int], dict[int, tuple[str, float]]]:
    """Every pending guess's subject (memory.triage.subject_groups), and each guess's label
    and value: one query, of three short columns."""
    rows = list(
        _pending(owner).order_by().values_list("id", "canonical_key", "label_guess", "value")
    )
    roots = subject_groups({pk: key for pk, key, _label, _value in rows})
    return roots, {pk: (label, value) for pk, _key, label, value in rows}


def _by_subject(owner: Person, number: int) -> GroupPage:
    """Subjects with guesses waiting, the subject with the most valuable guess first, a page
    at a time: three queries."""
    roots, facts = _subjects(owner)
    members: dict[int, list[int]] = defaultdict(list)
    top: dict[int, float] = {}
    for pk, root in roots.items():
        members[root].append(pk)
        top[root] = max(top.get(root, facts[pk][1]), facts[pk][1])
    order = sorted(members, key=lambda root: (-top[root], -len(members[root]), root))
    number, start = _page_slice(number, len(order))
    shown = order[start : start + GROUPS_PER_PAGE]
    firsts = {
        root: sorted(members[root], key=lambda pk: (-facts[pk][1], -pk))[:GROUP_CARDS]
        for root in shown
    }
    cards = _cards(owner, [pk for ids in firsts.values() for pk in ids])
    groups = [
        Group(
            key=str(root),
            label=facts[root][0],
            count=len(members[root]),
            top=top[root],
            cards=_ordered(cards, firsts[root]),
        )
        for root in shown
    ]
    return GroupPage("subject", groups, number, len(order))


def subject_member_ids(owner: Person, anchor: int) -> list[int]:
    """The pending guesses whose subject is the guess ``anchor`` (the guess itself included)."""
    roots, _facts = _subjects(owner)
    return [pk for pk, root in roots.items() if root == anchor]


def group_members(
    owner: Person, by: str, key: str, *, upto: int | None = None, limit: int = 500
) -> list[Candidate]:
    """The pending guesses of one group (``by`` and ``key`` as :func:`groups_page` names it),
    most valuable first, at most ``limit``; with ``upto``, none newer than that id (a batch
    acts on the group as the person saw it, not on a guess proposed since)."""
    rows = _pending(owner)
    if by == "category":
        rows = rows.filter(category_guess=key)
    elif by == "conversation" and key.isdigit():
        rows = rows.filter(
            pk__in=Evidence.objects.for_owner(owner)
            .filter(transcript_id=int(key))
            .values("candidate_id")
        )
    elif by == "subject" and key.isdigit():
        rows = rows.filter(pk__in=subject_member_ids(owner, int(key)))
    else:
        return []
    if upto is not None:
        rows = rows.filter(pk__lte=upto)
    return list(rows.order_by("-value", "-id")[:limit])


@dataclass(frozen=True)
class ExpiredNotice:
    count: int
    receipt_id: int | None


def expired_notice(owner: Person, *, now: datetime) -> ExpiredNotice:
    """How many guesses cleanup expired in the last :data:`EXPIRED_NOTICE_DAYS` days are
    still expired, and the newest cleanup receipt that did: one query."""
    row = (
        Candidate.objects.for_owner(owner)
        .filter(
            status=CandidateStatus.EXPIRED,
            expired_receipt__created_at__gte=now - timedelta(days=EXPIRED_NOTICE_DAYS),
        )
        .aggregate(n=Count("id"), latest=Max("expired_receipt_id"))
    )
    return ExpiredNotice(row["n"] or 0, row["latest"])


def expired_queue(owner: Person, *, receipt: int | None = None) -> QuerySet[Candidate]:
    """Guesses cleanup expired, the most recently expired first (then by value); only those
    of one cleanup ``receipt`` when given. Their evidence and the cleanup receipt loaded."""
    rows = candidate_queue(owner, status=CandidateStatus.EXPIRED, sort="value").select_related(
        "expired_receipt"
    )
    if receipt is not None:
        rows = rows.filter(expired_receipt_id=receipt)
    return rows.order_by(F("expired_receipt_id").desc(nulls_last=True), "-value", "-id")


def expired_by_ids(owner: Person, ids: list[int]) -> list[Candidate]:
    """The owner's expired guesses among ``ids`` (to restore)."""
    return list(
        Candidate.objects.for_owner(owner)
        .filter(pk__in=ids, status=CandidateStatus.EXPIRED)
        .order_by("id")
    )


def expired_by_receipt(owner: Person, receipt_id: int) -> list[Candidate]:
    """The owner's guesses still expired by the cleanup run of ``receipt_id``."""
    return list(
        Candidate.objects.for_owner(owner)
        .filter(status=CandidateStatus.EXPIRED, expired_receipt_id=receipt_id)
        .order_by("id")
    )


def batch_receipt(owner: Person, receipt_id: Any) -> Receipt | None:
    """The owner's batch receipt ``receipt_id`` (a batch of review decisions), or None."""
    if not isinstance(receipt_id, int):
        return None
    return (
        Receipt.objects.for_owner(owner)
        .filter(pk=receipt_id, source=Source.REVIEW, detail__action="batch")
        .first()
    )
