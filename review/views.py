"""The review queue: one card per pending candidate, each action an HTMX swap of that card.

Every view works without JavaScript too: a plain POST redirects back to the queue with a
message. Decisions are taken by ``memory.services.review``, which locks the candidate and
refuses a second decision, so a double click or another tab never writes twice.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from dashboard.htmx import HtmxHttpRequest
from memory import import_selectors, selectors, triage_selectors
from memory.models import Candidate
from memory.services import review as review_services
from memory.services.review import CandidateAlreadyDecided, ResemblanceUndecided, ReviewError
from memory.services.uploads import transcripts_upload
from memory.vocab import CandidateStatus
from review import views_triage
from review.choices import CHOICES
from review.forms import (
    MergeForm,
    PickerForm,
    PreviewForm,
    PromoteForm,
    QueueFilterForm,
    RejectForm,
    SuppressForm,
    UploadForm,
)

QUEUE = "review/queue.html"
PAGE_SIZE = 20
# The session's last decision and last batch, offered for undo (one key each, shared with
# views_triage).
LAST_DECISION = views_triage.LAST_DECISION


def _filter_selects(form: QueueFilterForm) -> dict[str, str]:
    """The options of the filters' selects, the value asked for selected: written here, not by
    the form's widgets, which render a template per option."""
    selects: dict[str, str] = {}
    for name in ("category", "transcript", "sort"):
        chosen = str(form[name].value() or "")
        selects[name] = format_html_join(
            "",
            '<option value="{}"{}>{}</option>',
            (
                (value, mark_safe(" selected") if str(value) == chosen else "", text)
                for value, text in form.fields[name].choices  # type: ignore[attr-defined]
            ),
        )
    return selects


def candidate_or_404(request: HtmxHttpRequest, candidate_id: int) -> Candidate:
    """The signed-in owner's candidate, or 404 (another user's row is never shown)."""
    candidate = selectors.candidate_get(request.user, candidate_id)
    if candidate is None:
        raise Http404("No such candidate")
    return candidate


def _card(
    request: HtmxHttpRequest, candidate: Candidate, *, status: int = 200, **extra: Any
) -> HttpResponse:
    """The card of ``candidate`` as it is now: pending (the form) or decided (a note)."""
    context = {"candidate": candidate, "oob_count": True, **CHOICES, **extra}
    return render(request, f"{QUEUE}#card", context, status=status)


def _done(
    request: HtmxHttpRequest, candidate: Candidate, message: str, *, level: int = messages.SUCCESS
) -> HttpResponse:
    """After a decision (or a refused one): swap the card, or redirect to the queue."""
    if candidate.status != CandidateStatus.PENDING:
        request.session[LAST_DECISION] = candidate.pk
        # the undo bar offers the newest decision only
        request.session.pop(views_triage.LAST_BATCH, None)
    if request.htmx:
        return _card(request, candidate, message=message, undo=level == messages.SUCCESS)
    messages.add_message(request, level, message)
    return redirect("review:queue")


def _refused(request: HtmxHttpRequest, candidate: Candidate, exc: ReviewError) -> HttpResponse:
    if isinstance(exc, CandidateAlreadyDecided):
        return _done(request, exc.candidate, str(exc), level=messages.INFO)
    if request.htmx:
        return _card(request, candidate, error=str(exc), status=409)
    messages.error(request, str(exc))
    return redirect("review:queue")


def _invalid(request: HtmxHttpRequest, candidate: Candidate, form: Any) -> HttpResponse:
    error = "; ".join(str(e) for errors in form.errors.values() for e in errors)
    return _refused(request, candidate, ReviewError(error))


# Any of these in the query string asks for the whole queue; none of them opens "start here".
WHOLE_QUEUE = ("view", "category", "transcript", "subject", "sort", "page")


@login_required
@require_GET
def queue(request: HtmxHttpRequest) -> HttpResponse:
    """The review queue: "start here" (the 20 guesses most worth the person's time) unless
    the query asks for the whole queue, filtered and sorted, a page at a time."""
    start = not any(request.GET.get(k) for k in WHOLE_QUEUE) or request.GET.get("view") == "start"
    form = QueueFilterForm(
        request.GET, transcripts=[] if start else selectors.queue_transcripts(request.user)
    )
    if not form.is_valid():
        # HTMX swaps #queue: answer with that region (carrying the error), not a page.
        context = {"form": form, "selects": _filter_selects(form), **CHOICES}
        return render(request, f"{QUEUE}#queue" if request.htmx else QUEUE, context, status=400)
    last_id = request.session.get(LAST_DECISION)
    last = selectors.candidate_get(request.user, last_id) if last_id else None
    context = {
        "form": form,
        "selects": _filter_selects(form),
        "last": last if last and last.status != CandidateStatus.PENDING else None,
        **CHOICES,
    }
    if start:
        return views_triage.start_here(request, context)
    rows = selectors.candidate_queue(request.user, **form.filters())
    if form.cleaned_data.get("subject"):
        anchor = form.cleaned_data["subject"]
        rows = rows.filter(pk__in=triage_selectors.subject_member_ids(request.user, anchor))
    context["page"] = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    context.update(views_triage.triage_context(request))
    return render(request, f"{QUEUE}#queue" if request.htmx else QUEUE, context)


@login_required
@require_GET
def candidate(request: HtmxHttpRequest, candidate_id: int) -> HttpResponse:
    """One card: the swap target for HTMX, a page of its own when opened directly."""
    found = candidate_or_404(request, candidate_id)
    if request.htmx:
        return _card(request, found)
    return render(request, "review/candidate.html", {"candidate": found, **CHOICES})


@login_required
@require_POST
def candidate_promote(request: HtmxHttpRequest, candidate_id: int) -> HttpResponse:
    candidate = candidate_or_404(request, candidate_id)
    form = PromoteForm(request.POST)
    if not form.is_valid():
        return _invalid(request, candidate, form)
    existing = selectors.node_named(request.user, form.cleaned_data.get("label") or "")
    if existing is not None and candidate.status == CandidateStatus.PENDING:
        # Promoting under an existing memory's name is a merge into it: show what the merge
        # will change on it first (the merge page previews it), never merge unseen.
        pick = reverse("review:candidate-merge-pick", args=[candidate.pk])
        if request.htmx:
            return HttpResponseClientRedirect(f"{pick}?node={existing.pk}")
        return redirect(f"{pick}?node={existing.pk}")
    try:
        node = review_services.candidate_promote(
            candidate=candidate, by=request.user, **form.cleaned_data
        )
    except ResemblanceUndecided as exc:
        return _resemblance_choice(request, candidate, exc, form.cleaned_data)
    except ReviewError as exc:
        return _refused(request, candidate, exc)
    verb = "Promoted" if candidate.status == CandidateStatus.PROMOTED else "Merged into"
    return _done(request, candidate, f"{verb} “{node.label}”.")


def _resemblance_choice(
    request: HtmxHttpRequest,
    candidate: Candidate,
    exc: ResemblanceUndecided,
    promote: dict[str, Any],
) -> HttpResponse:
    """A promotion that looks like something the person asked to forget: ask them to lift
    that suppression or keep it (and make this memory its exception), the card's swap target
    for HTMX, a page of its own without JavaScript. Each answer promotes as asked."""
    context = {"candidate": candidate, "refusal": exc, "promote": promote, "oob_count": False}
    if request.htmx:
        return render(request, "review/resemblance.html#choice", context)
    return render(request, "review/resemblance.html", context)


@login_required
@require_POST
def candidate_reject(request: HtmxHttpRequest, candidate_id: int) -> HttpResponse:
    candidate = candidate_or_404(request, candidate_id)
    form = RejectForm(request.POST)
    if not form.is_valid():
        return _invalid(request, candidate, form)
    forget = form.cleaned_data["forget"]
    try:
        review_services.candidate_reject(candidate=candidate, by=request.user, forget=forget)
    except ReviewError as exc:
        return _refused(request, candidate, exc)
    said = "; what was said about it is forgotten" if forget else ""
    return _done(request, candidate, f"Rejected “{candidate.label_guess}”{said}.")


@login_required
@require_POST
def candidate_suppress(request: HtmxHttpRequest, candidate_id: int) -> HttpResponse:
    candidate = candidate_or_404(request, candidate_id)
    form = SuppressForm(request.POST)
    if not form.is_valid():
        return _invalid(request, candidate, form)
    try:
        review_services.candidate_reject(
            candidate=candidate, by=request.user, suppress=True, until=form.until_value()
        )
    except ReviewError as exc:
        return _refused(request, candidate, exc)
    return _done(request, candidate, f"Rejected “{candidate.label_guess}”; similar ones stop.")


@login_required
@require_GET
def candidate_merge_form(request: HtmxHttpRequest, candidate_id: int) -> HttpResponse:
    """A card's merge form, fetched when its Merge section is opened: the swap target that
    replaces the section's placeholder (HTMX). Without JavaScript the section links to the
    merge page, where this address also leads."""
    candidate = candidate_or_404(request, candidate_id)
    if not request.htmx:
        return redirect("review:candidate-merge-pick", candidate_id=candidate.pk)
    return render(request, f"{QUEUE}#merge-form", {"candidate": candidate})


@login_required
@require_GET
def candidate_merge_pick(request: HtmxHttpRequest, candidate_id: int) -> HttpResponse:
    """The merge picker: search as you type (HTMX) or a page of its own (no JavaScript)."""
    candidate = candidate_or_404(request, candidate_id)
    form = PickerForm(request.GET)
    q = form.cleaned_data["q"] if form.is_valid() else ""
    context: dict[str, Any] = {
        "candidate": candidate,
        "q": q,
        "nodes": selectors.node_picker(request.user, q),
    }
    picked = PreviewForm(request.GET)
    if not request.htmx and candidate.status == CandidateStatus.PENDING and picked.is_valid():
        node = selectors.node_get(request.user, picked.cleaned_data["node"])
        if node is not None:  # the page of its own previews the picked memory (no JavaScript)
            context["preview"] = review_services.merge_preview(candidate=candidate, node=node)
    template = "review/merge.html"
    return render(request, f"{template}#picker" if request.htmx else template, context)


@login_required
@require_POST
def candidate_merge(request: HtmxHttpRequest, candidate_id: int) -> HttpResponse:
    candidate = candidate_or_404(request, candidate_id)
    form = MergeForm(request.POST)
    if not form.is_valid():
        return _invalid(request, candidate, form)
    node = selectors.node_get(request.user, form.cleaned_data["node"])
    if node is None:
        raise Http404("No such memory")
    try:
        review_services.candidate_merge(
            candidate=candidate,
            node=node,
            by=request.user,
            add_alias=form.cleaned_data["add_alias"],
            change_state=form.cleaned_data["change_state"],
        )
    except ReviewError as exc:
        return _refused(request, candidate, exc)
    return _done(request, candidate, f"Merged into “{node.label}”.")


@login_required
@require_GET
def candidate_merge_preview(request: HtmxHttpRequest, candidate_id: int) -> HttpResponse:
    """What a merge into the picked memory would change there, before the person confirms."""
    candidate = candidate_or_404(request, candidate_id)
    form = PreviewForm(request.GET)
    node = selectors.node_get(request.user, form.cleaned_data["node"]) if form.is_valid() else None
    preview = None
    if node is not None:
        add_alias = form.cleaned_data["add_alias"]
        preview = review_services.merge_preview(candidate=candidate, node=node, add_alias=add_alias)
    context = {"candidate": candidate, "preview": preview}
    return render(request, "review/merge.html#preview", context, status=200 if node else 400)


@login_required
@require_POST
def candidate_undo(request: HtmxHttpRequest, candidate_id: int) -> HttpResponse:
    candidate = candidate_or_404(request, candidate_id)
    try:
        review_services.candidate_undo(candidate=candidate, by=request.user)
    except ReviewError as exc:
        if request.htmx:
            return _card(request, candidate, message=str(exc), error=str(exc), status=409)
        messages.error(request, str(exc))
        return redirect("review:queue")
    request.session.pop(LAST_DECISION, None)
    if request.htmx:
        return _card(request, candidate, message="Undone: back in the queue.")
    messages.success(request, f"Undone: “{candidate.label_guess}” is back in the queue.")
    return redirect("review:queue")


@login_required
@require_GET
def uploads(request: HtmxHttpRequest) -> HttpResponse:
    return _uploads_page(request, UploadForm(), results=None)


@login_required
@require_POST
def upload(request: HtmxHttpRequest) -> HttpResponse:
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _uploads_page(request, form, results=None, status=400)
    results = transcripts_upload(
        owner=request.user,
        files=form.cleaned_data["transcripts"],
        source_time=form.source_time(),
    )
    return _uploads_page(request, UploadForm(), results=results)


def _uploads_page(
    request: HtmxHttpRequest, form: UploadForm, *, results: Any, status: int = 200
) -> HttpResponse:
    context = {
        "form": form,
        "results": results,
        "transcripts": selectors.transcript_uploads(request.user),
        "imports": import_selectors.chat_imports_recent(request.user),
    }
    template = "review/uploads.html"
    return render(
        request, f"{template}#upload-panel" if request.htmx else template, context, status=status
    )


@login_required
@require_GET
def import_progress(request: HtmxHttpRequest, import_id: int) -> HttpResponse:
    """One chat import's progress; the partial polls itself until nothing is left to do."""
    progress = import_selectors.chat_import_progress(request.user, import_id)
    if progress is None:
        raise Http404("No such import")
    template = "review/import.html"
    if request.htmx:  # the panel polls itself: its counts only
        return render(request, f"{template}#import-progress", {"p": progress})
    conversations = import_selectors.chat_import_conversations(request.user, import_id)
    return render(request, template, {"p": progress, "conversations": conversations})
