"""Triage at the scale of a life's chat history: the "start here" view, the queue grouped by
subject, category or conversation, batches on a selection or a group and their undo, and
the guesses cleanup expired, with restore.

Batches and restores are plain form posts (with or without JavaScript) that redirect back
to the page they came from with a message; the last batch is offered for undo on the queue
(``u`` clicks it). The reads are ``memory.triage_selectors``; the writes
``memory.services.triage``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from dashboard.htmx import HtmxHttpRequest
from memory import selectors
from memory import triage_selectors as triage
from memory.models import Candidate, Receipt
from memory.services.review import ReviewError
from memory.services.triage import (
    BATCH_MAX,
    Batch,
    batch_undo,
    candidates_batch,
    candidates_restore,
)
from review.choices import CHOICES
from review.forms import BulkForm, BulkUndoForm, GroupBatchForm, RestoreForm

LAST_BATCH = "review_last_bulk"
LAST_DECISION = "review_last_decision"
EXPIRED_PAGE = 20


def last_batch(request: HtmxHttpRequest) -> Receipt | None:
    """The batch this person made last in this session, while it can still be undone."""
    receipt = triage.batch_receipt(request.user, request.session.get(LAST_BATCH))
    if receipt is None or receipt.undone_at is not None:
        return None
    return receipt


def triage_context(request: HtmxHttpRequest) -> dict[str, Any]:
    """What every queue page shows above its cards: the last batch to undo, and the guesses
    cleanup expired lately."""
    return {
        "last_batch": last_batch(request),
        "expired": triage.expired_notice(request.user, now=timezone.now()),
        "batch_max": BATCH_MAX,
        **CHOICES,
    }


def start_here(request: HtmxHttpRequest, context: dict[str, Any]) -> HttpResponse:
    """The queue as it opens: the 20 guesses most worth the person's time."""
    context.update(triage_context(request), start_view=True, start=triage.start_here(request.user))
    return render(
        request, "review/queue.html#queue" if request.htmx else "review/queue.html", context
    )


@login_required
@require_GET
def groups(request: HtmxHttpRequest, by: str) -> HttpResponse:
    """The pending guesses grouped by subject, category or conversation, a page of groups
    at a time, each group with its first cards and a batch for all of it."""
    if by not in triage.GROUPINGS:
        raise Http404("No such grouping")
    try:
        number = int(request.GET.get("page") or 1)
    except ValueError:
        number = 1
    context = {
        "page": triage.groups_page(request.user, by, page=number),
        "upto": _newest_id(request),
        **triage_context(request),
    }
    template = "review/groups.html"
    return render(request, f"{template}#groups" if request.htmx else template, context)


def _newest_id(request: HtmxHttpRequest) -> int:
    newest = (
        Candidate.objects.for_owner(request.user)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    return newest or 0


def _back(request: HtmxHttpRequest, form: Any) -> HttpResponse:
    target = (
        form.cleaned_data.get("next") if form.is_bound and hasattr(form, "cleaned_data") else ""
    )
    return redirect(target or "review:queue")


def _refuse(request: HtmxHttpRequest, form: Any) -> HttpResponse:
    messages.error(request, "; ".join(str(e) for es in form.errors.values() for e in es))
    return _back(request, form)


def _names(candidates: list[Candidate], limit: int = 5) -> str:
    """“Alpha”, “Beta” and “Gamma”; past ``limit``, “Alpha”, … and 7 more."""
    quoted = [f"“{c.label_guess}”" for c in candidates[:limit]]
    if len(candidates) > limit:
        return f"{', '.join(quoted)} and {len(candidates) - limit} more"
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def _said(batch: Batch, asked: int) -> str:
    verb = {"promote": "Promoted", "reject": "Rejected", "suppress": "Suppressed"}
    said = f"{verb[batch.action]} {_names(batch.done)}." if batch.done else "Nothing was changed."
    if batch.skipped:
        reasons = "; ".join(f"“{c.label_guess}” ({why})" for c, why in batch.skipped[:5])
        more = len(batch.skipped) - 5
        said += f" Left as they were: {reasons}{f' and {more} more' if more > 0 else ''}."
    gone = asked - len(batch.done) - len(batch.skipped)
    if gone:
        said += f" {gone} {'was' if gone == 1 else 'were'} already decided or not found."
    return said


def _run_batch(
    request: HtmxHttpRequest, form: Any, candidates: list[Candidate], asked: int
) -> HttpResponse:
    try:
        batch = candidates_batch(
            owner=request.user,
            candidates=candidates,
            action=form.cleaned_data["action"],
            by=request.user,
            until=form.until_value(),
        )
    except ReviewError as exc:
        messages.error(request, str(exc))
        return _back(request, form)
    if batch.receipt is not None:
        request.session[LAST_BATCH] = batch.receipt.pk
        request.session.pop(LAST_DECISION, None)
    level = messages.SUCCESS if batch.done else messages.INFO
    messages.add_message(request, level, _said(batch, asked))
    return _back(request, form)


@login_required
@require_POST
def bulk(request: HtmxHttpRequest) -> HttpResponse:
    """Promote, reject, or reject and suppress every selected card that still waits."""
    form = BulkForm(request.POST)
    if not form.is_valid():
        return _refuse(request, form)
    ids = form.cleaned_data["ids"]
    if len(ids) > BATCH_MAX:
        messages.error(request, f"Select at most {BATCH_MAX} cards at once.")
        return _back(request, form)
    pending = selectors.candidates_pending_by_ids(request.user, ids)
    return _run_batch(request, form, pending, len(ids))


@login_required
@require_POST
def batch_group(request: HtmxHttpRequest) -> HttpResponse:
    """The same for a whole group of the grouped view, as the person saw it."""
    form = GroupBatchForm(request.POST)
    if not form.is_valid():
        return _refuse(request, form)
    data = form.cleaned_data
    members = triage.group_members(
        request.user, data["by"], data["key"], upto=data["upto"], limit=BATCH_MAX
    )
    return _run_batch(request, form, members, len(members))


@login_required
@require_POST
def bulk_undo(request: HtmxHttpRequest) -> HttpResponse:
    """Take back the whole of one batch: every guess it decided goes back to the queue."""
    form = BulkUndoForm(request.POST)
    if not form.is_valid():
        return _refuse(request, form)
    receipt = triage.batch_receipt(request.user, form.cleaned_data["batch"])
    if receipt is None:
        raise Http404("No such batch")
    try:
        result = batch_undo(receipt=receipt, by=request.user)
    except ReviewError as exc:
        messages.error(request, str(exc))
        return _back(request, form)
    request.session.pop(LAST_BATCH, None)
    if result.undone:
        messages.success(request, f"Undone: {_names(result.undone)} back in the queue.")
    if result.refused:
        messages.error(
            request,
            "Not undone: " + "; ".join(f"“{c.label_guess}”: {why}" for c, why in result.refused),
        )
    return _back(request, form)


@login_required
@require_GET
def expired(request: HtmxHttpRequest) -> HttpResponse:
    """The guesses cleanup expired, most recent first, each with Restore; ``?receipt=`` one
    cleanup run's."""
    try:
        receipt = int(request.GET["receipt"]) if request.GET.get("receipt") else None
    except ValueError:
        receipt = None
    rows = triage.expired_queue(request.user, receipt=receipt)
    page = Paginator(rows, EXPIRED_PAGE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "receipt": receipt,
        "one_off_days": settings.UME_ONE_OFF_DAYS,
        "ttl_days": settings.UME_CANDIDATE_TTL_DAYS,
        **triage_context(request),
    }
    template = "review/expired.html"
    return render(request, f"{template}#expired" if request.htmx else template, context)


@login_required
@require_POST
def restore(request: HtmxHttpRequest) -> HttpResponse:
    """Bring expired guesses back to the queue: the selected ones, or a cleanup run's."""
    form = RestoreForm(request.POST)
    if not form.is_valid():
        return _refuse(request, form)
    data = form.cleaned_data
    if data.get("receipt"):
        rows = triage.expired_by_receipt(request.user, data["receipt"])
    else:
        rows = triage.expired_by_ids(request.user, data["ids"])
    receipt, skipped = candidates_restore(owner=request.user, candidates=rows, by=request.user)
    if receipt is not None:
        messages.success(request, f"Back in the queue: {receipt.summary.split(': ', 1)[-1]}")
    if skipped:
        messages.info(
            request,
            "Not restored: " + "; ".join(f"“{c.label_guess}”: {why}" for c, why in skipped),
        )
    if receipt is None and not skipped:
        messages.info(request, "Nothing to restore: those guesses are no longer expired.")
    return _back(request, form)
