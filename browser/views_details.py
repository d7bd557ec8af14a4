"""Fixing one detail on a node page: edit or delete a fact, event, alias or link, and undo.

The node page shows an Edit link per detail, not its form: the form is fetched when the link
is clicked (HTMX swaps it in place of the link; without JavaScript it is a page of its own),
so a page of hundreds of details renders no form until one is wanted. Every delete button
submits the page's one shared form (``form="detail-delete"``).

Each action answers with the region of the node page that holds the detail (HTMX), carrying
a note and an Undo button, or redirects back to the node page (no JavaScript), where the
last change waits with its own Undo.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from browser.forms import DETAIL_FORMS
from browser.views import node_context
from dashboard.htmx import HtmxHttpRequest
from dashboard.options import select_options
from memory import selectors
from memory.models import Receipt
from memory.selectors import receipt_get
from memory.services import details as detail_services
from memory.services.details import NOUNS, DetailConflict, DetailError
from memory.vocab import EdgeType, EventAction, SliceKind

NODE = "browser/node.html"
DETAIL_FORM = "browser/detail_edit.html"
#: The region of the node page (its element id) that shows each kind of detail.
REGIONS = {"slice": "facts", "event": "timeline", "alias": "aliases", "edge": "links"}
LAST_CHANGE = "node_last_change"
#: The option lists of the edit forms' selects, built once per process.
OPTIONS = {
    "slice_kinds": select_options(SliceKind.choices, capfirst=True),
    "event_actions": select_options(EventAction.choices, capfirst=True),
    "edge_types": select_options(EdgeType.choices),
}

_EDITORS: dict[str, Any] = {
    "slice": lambda row, data, rev: detail_services.slice_update(
        slice=row, **data, expected_revision=rev
    ),
    "event": lambda row, data, rev: detail_services.event_update(
        event=row, **data, expected_revision=rev
    ),
    "alias": lambda row, data, rev: detail_services.alias_update(
        alias=row, text=data["alias"], expected_revision=rev
    ),
    "edge": lambda row, data, rev: detail_services.edge_update(
        edge=row, type=data["type"], expected_revision=rev
    ),
}


def detail_or_404(request: HtmxHttpRequest, kind: str, row_id: int) -> Any:
    """The signed-in owner's fact, event, alias or link, or 404."""
    row = selectors.detail_get(request.user, kind, row_id)
    if row is None:
        raise Http404(f"No such {NOUNS.get(kind, 'detail')}")
    return row


def _page_node_id(request: HtmxHttpRequest, kind: str, row: Any) -> int:
    """The node whose page the person is on (``node`` of the form, or of the query string for
    a GET): a link shows on the pages of both its ends."""
    if kind != "edge":
        return int(row.node_id)
    asked = (request.POST if request.method == "POST" else request.GET).get("node", "")
    ends = {row.from_node_id, row.to_node_id}
    return int(asked) if asked.isdigit() and int(asked) in ends else int(row.from_node_id)


def _answer(
    request: HtmxHttpRequest,
    kind: str,
    node_id: int,
    note: str,
    *,
    receipt: Receipt | None = None,
    status: int = 200,
) -> HttpResponse:
    error = status >= 400
    if receipt is not None:
        request.session[LAST_CHANGE] = receipt.pk
    node = selectors.node_detail(request.user, node_id)
    if not request.htmx or node is None:
        messages.add_message(request, messages.ERROR if error else messages.SUCCESS, note)
        if node is None:
            return redirect("memory:nodes")
        return redirect("memory:node", node_id=node_id)
    context = node_context(node, note=note, error=error, undo_receipt=receipt)
    return render(request, f"{NODE}#{REGIONS[kind]}", context, status=status)


@login_required
@require_GET
def detail_form(request: HtmxHttpRequest, kind: str, row_id: int) -> HttpResponse:
    """The edit form of one detail: the swap target that replaces its Edit link (HTMX), or a
    page of its own (no JavaScript). It carries the detail's current revision."""
    row = detail_or_404(request, kind, row_id)
    node_id = _page_node_id(request, kind, row)
    if kind == "edge":
        node = row.from_node if node_id == row.from_node_id else row.to_node
    else:
        node = row.node
    context = {"kind": kind, "row": row, "node": node, "noun": NOUNS[kind], **OPTIONS}
    context |= {"region": REGIONS[kind]}
    template = f"{DETAIL_FORM}#detail-form" if request.htmx else DETAIL_FORM
    return render(request, template, context)


@login_required
@require_POST
def detail_edit(request: HtmxHttpRequest, kind: str, row_id: int) -> HttpResponse:
    row = detail_or_404(request, kind, row_id)
    node_id = _page_node_id(request, kind, row)
    form = DETAIL_FORMS[kind](request.POST)
    try:
        if not form.is_valid():
            raise DetailError("; ".join(str(e) for es in form.errors.values() for e in es))
        data = dict(form.cleaned_data)
        receipt = _EDITORS[kind](row, data, data.pop("revision", None))
    except DetailConflict as exc:
        return _answer(request, kind, node_id, str(exc), status=409)
    except DetailError as exc:
        return _answer(request, kind, node_id, str(exc), status=400)
    if receipt is None:
        return _answer(request, kind, node_id, "Nothing to change.")
    return _answer(request, kind, node_id, f"Saved the {NOUNS[kind]}.", receipt=receipt)


@login_required
@require_POST
def detail_delete(request: HtmxHttpRequest, kind: str, row_id: int) -> HttpResponse:
    row = detail_or_404(request, kind, row_id)
    node_id = _page_node_id(request, kind, row)
    receipt = detail_services.detail_delete(row=row)
    note = f"Deleted the {NOUNS[kind]} {detail_services.describe(kind, receipt.detail['before'])}."
    return _answer(request, kind, node_id, note, receipt=receipt)


@login_required
@require_POST
def alias_remove(request: HtmxHttpRequest, alias_id: int) -> HttpResponse:
    """The older alias-removal address: the same delete as every other detail, with a
    receipt and Undo (it used to remove the alias without either)."""
    return detail_delete(request, "alias", alias_id)


@login_required
@require_POST
def detail_undo(request: HtmxHttpRequest, receipt_id: int) -> HttpResponse:
    receipt = receipt_get(request.user, receipt_id)
    if receipt is None or not detail_services.is_detail_receipt(receipt):
        raise Http404("No such change")
    kind = receipt.detail["kind"]
    asked = request.POST.get("node", "")
    node_id = int(asked) if asked.isdigit() else int(receipt.detail["node"])
    try:
        detail_services.detail_undo(receipt=receipt)
    except DetailError as exc:
        return _answer(request, kind, node_id, str(exc), status=409)
    request.session.pop(LAST_CHANGE, None)
    return _answer(request, kind, node_id, f"Undone: the {NOUNS[kind]} is as it was.")
