"""A node's History tab: its revisions and its details', with who, when and what changed,
and "restore this version" (a rollback: a new revision, never a rewrite).

The history outlives the node: a deleted memory's history page still shows, read-only.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from browser.forms import HistoryPageForm, RestoreForm
from dashboard.htmx import HtmxHttpRequest
from memory import selectors
from memory.history import timeline
from memory.services.rollback import RollbackError, revision_rollback

PAGE = "browser/node_history.html"
PER_PAGE = 25
#: How many revisions the tab can page through (the API pages further).
LIMIT = 500


def _context(request: HtmxHttpRequest, node_id: int, page_number: int | None = 1) -> dict:
    node = selectors.node_get(request.user, node_id)
    rows = selectors.node_history(request.user, node_id, limit=LIMIT)
    if node is None and not rows:
        raise Http404("No such memory")
    page = Paginator(rows, PER_PAGE).get_page(page_number)
    shown = list(page.object_list)
    entries = timeline(shown, selectors.revision_parents(request.user, shown))
    label = (
        node.label
        if node
        else next((r.snapshot.get("label") for r in rows if r.kind == "node"), "")
    )
    return {"node": node, "node_id": node_id, "label": label, "page": page, "entries": entries}


@login_required
@require_GET
def node_history(request: HtmxHttpRequest, node_id: int) -> HttpResponse:
    form = HistoryPageForm(request.GET)
    if not form.is_valid():
        return HttpResponse("page: a page number", status=400)
    context = _context(request, node_id, form.cleaned_data["page"] or 1)
    return render(request, f"{PAGE}#history" if request.htmx else PAGE, context)


@login_required
@require_POST
def node_restore(request: HtmxHttpRequest, node_id: int) -> HttpResponse:
    form = RestoreForm(request.POST)
    target = None
    if form.is_valid():
        d = form.cleaned_data
        target = selectors.revision_get(request.user, d["kind"], d["id"], d["revision"])
    if target is None or target.node_id != node_id:
        raise Http404("No such revision")
    error = False
    try:
        receipt = revision_rollback(
            owner=request.user, kind=target.kind, object_id=target.object_id, number=target.number
        )
        note = receipt.summary + "."
    except RollbackError as exc:
        note, error = f"Not restored: {exc}.", True
    if not request.htmx:
        messages.add_message(request, messages.ERROR if error else messages.SUCCESS, note)
        return redirect("memory:node-history", node_id=node_id)
    context = _context(request, node_id) | {"note": note, "error": error}
    return render(request, f"{PAGE}#history", context, status=400 if error else 200)
