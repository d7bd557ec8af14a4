"""The memory browser: nodes, a node's page, the graph and the suppressions.

Dashboard pages only (the /v1/ API lives in ``api``). Function views, the owner's rows
only (another user's id is a 404), HTMX swaps of one region, and plain POSTs that redirect.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import capfirst, lower, pluralize
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from browser.forms import (
    AliasForm,
    EvidenceFilterForm,
    GraphFilterForm,
    NodeDeleteForm,
    NodeEditForm,
    NodeFilterForm,
)
from browser.graph_layout import NodeIn, layout_graph
from browser.search import search_nodes
from dashboard.htmx import HtmxHttpRequest
from memory import selectors
from memory.models import Node, Receipt, Suppression
from memory.selectors import receipt_get
from memory.services import nodes as node_services
from memory.services.nodes import NodeEditError, StaleRevision
from memory.vocab import Category, EdgeType, EventAction, Importance, SliceKind, TimeSource

NODE = "browser/node.html"
NODES = "browser/nodes.html"


def node_or_404(request: HtmxHttpRequest, node_id: int) -> Node:
    """The signed-in owner's node, or 404 (another user's row is never shown)."""
    node = selectors.node_get(request.user, node_id)
    if node is None:
        raise Http404("No such memory")
    return node


def suppression_or_404(request: HtmxHttpRequest, suppression_id: int) -> Suppression:
    suppression = selectors.suppression_get(request.user, suppression_id)
    if suppression is None:
        raise Http404("No such suppression")
    return suppression


def _errors(form: Any) -> str:
    return "; ".join(str(e) for errors in form.errors.values() for e in errors)


@login_required
@require_GET
def nodes(request: HtmxHttpRequest) -> HttpResponse:
    form = NodeFilterForm(request.GET)
    if not form.is_valid():
        # HTMX swaps #node-results: answer with that region (carrying the error), not a page.
        template = f"{NODES}#node-results" if request.htmx else NODES
        return render(request, template, {"form": form}, status=400)
    # One pass over the person's nodes gives both the filters' counts and the page count.
    pairs = selectors.node_pair_counts(request.user)
    found = search_nodes(request.user, **form.cleaned_data, pairs=pairs)
    page = Paginator(found.hits, 50).get_page(request.GET.get("page"))
    facets = selectors.node_facets(request.user, pairs)
    context = {"form": form, "page": page, "reason": found.reason, "facets": facets}
    return render(request, f"{NODES}#node-results" if request.htmx else NODES, context)


@login_required
@require_GET
def node(request: HtmxHttpRequest, node_id: int) -> HttpResponse:
    if request.htmx and "page" in request.GET:
        # The pager of "Why ume has this memory": that region only.
        node = node_or_404(request, node_id)
        context = {"node": node, **_evidence_context(request, node)}
        return render(request, f"{NODE}#node-evidence", context)
    # The newest facts and events, or every one of them with ?all=1.
    shown = selectors.node_detail(request.user, node_id, everything=request.GET.get("all") == "1")
    if shown is None:
        raise Http404("No such memory")
    return render(
        request,
        NODE,
        node_context(
            shown, undo_receipt=_last_change(request, shown), **_evidence_context(request, shown)
        ),
    )


def _evidence_context(request: HtmxHttpRequest, node: Node) -> dict[str, Any]:
    rows = selectors.node_evidence(request.user, node.pk)
    page = Paginator(rows, selectors.EVIDENCE_PAGE).get_page(request.GET.get("page"))
    return {"evidence_page": page}


@login_required
@require_GET
def node_evidence(request: HtmxHttpRequest, node_id: int) -> HttpResponse:
    """Every quote behind one fact, event or link of a node, a page at a time."""
    node = node_or_404(request, node_id)
    form = EvidenceFilterForm(request.GET)
    if not form.is_valid():
        return render(request, "browser/evidence.html", {"node": node, "form": form}, status=400)
    rows = selectors.node_evidence(
        request.user, node.pk, of=form.cleaned_data["of"], item_id=form.cleaned_data["id"]
    )
    page = Paginator(rows, selectors.EVIDENCE_PAGE).get_page(form.cleaned_data["page"])
    context = {"node": node, "form": form, "evidence_page": page}
    template = "browser/evidence.html#evidence-list" if request.htmx else "browser/evidence.html"
    return render(request, template, context)


def _last_change(request: HtmxHttpRequest, node: Node) -> Receipt | None:
    """The person's last correction on this page, while it can still be undone."""
    receipt_id = request.session.get("node_last_change")
    receipt = receipt_get(request.user, receipt_id) if isinstance(receipt_id, int) else None
    if receipt is None or receipt.undone_at or receipt.detail.get("node") != node.pk:
        return None
    return receipt


def _addresses(name: str, *args: Any) -> Callable[[int], str]:
    """``reverse(name, args=[*args, pk])`` for many rows: reversed once with a stand-in id,
    then each row's id put in its place. A node page has hundreds of rows with two addresses
    each, and a ``reverse`` is not free (docs/benchmarks.md, "Figures behind the code's choices")."""
    stand_in = "987654321987654321"
    head, tail = reverse(name, args=[*args, int(stand_in)]).split(stand_in, 1)
    return lambda pk: f"{head}{pk}{tail}"


def _names(choices: list[tuple[str, str]], shown: Any = capfirst) -> Callable[[str], str]:
    """A value's label as the page shows it: ``get_FOO_display`` rebuilds the field's whole
    choice list at every call, and a node page shows hundreds of rows."""
    labels = {value: shown(label) for value, label in choices}
    return lambda value: labels.get(value) or shown(value)


def _prepare_rows(node: Node) -> None:
    """What the rows of the node page show that their model does not hold, computed once
    here rather than per row in the template: every fact, event and link that
    ``selectors.node_detail`` loaded gets its Edit (``form_url``) and delete (``delete_url``)
    addresses and the labels of its choices (``kind_name``; ``action_name``,
    ``importance_name``, ``source_name``; ``type_name``), each link the address of the
    memory at its other end (``other_url``). A node read otherwise shows no such rows."""
    if not hasattr(node, "shown_events"):
        return
    shown: Any = node  # with node_detail's prefetched lists
    kind_name, action_name = _names(SliceKind.choices), _names(EventAction.choices)
    importance_name, source_name = _names(Importance.choices, str), _names(TimeSource.choices, str)
    type_name = _names(EdgeType.choices, lower)
    for fact in (*shown.current_slices, *shown.old_slices):
        fact.kind_name = kind_name(fact.kind)
    for event in shown.shown_events:
        event.action_name = action_name(event.action)
        event.importance_name = importance_name(event.importance)
        event.source_name = source_name(event.happened_at_source)
    out: list[Any] = list(node.edges_out.all())
    into: list[Any] = list(node.edges_in.all())
    rows: dict[str, list[Any]] = {
        "slice": [*shown.current_slices, *shown.old_slices],
        "event": shown.shown_events,
        "edge": [*out, *into],
    }
    for kind, items in rows.items():
        form = _addresses("memory:detail-form", kind)
        delete = _addresses("memory:detail-delete", kind)
        for row in items:
            row.form_url, row.delete_url = form(row.pk), delete(row.pk)
    page = _addresses("memory:node")
    for edge in out:
        edge.other_url, edge.type_name = page(edge.to_node_id), edge.label or type_name(edge.type)
    for edge in into:
        edge.other_url, edge.type_name = (
            page(edge.from_node_id),
            edge.label or type_name(edge.type),
        )


def node_context(node: Node, **extra: Any) -> dict[str, Any]:
    """What the node page and each of its regions render from. A fact's, event's, alias's or
    link's edit form is not part of it: the page shows an Edit link per detail, and the form
    is fetched when it is clicked (``browser.views_details.detail_form``)."""
    initial = {"label": node.label, "category": node.category, "state": node.state}
    _prepare_rows(node)
    return {
        "node": node,
        "edit_form": NodeEditForm(
            initial={**initial, "summary": node.summary, "revision": node.revision}
        ),
        "alias_form": AliasForm(),
        **extra,
    }


@login_required
@require_POST
def node_edit(request: HtmxHttpRequest, node_id: int) -> HttpResponse:
    node = node_or_404(request, node_id)
    form = NodeEditForm(request.POST)
    try:
        if not form.is_valid():
            raise NodeEditError(_errors(form))
        expected = form.cleaned_data.pop("revision")
        node_services.node_update(node=node, expected_revision=expected, **form.cleaned_data)
    except StaleRevision as exc:
        return _conflict(request, exc.node, form.cleaned_data, expected)
    except NodeEditError as exc:
        return _region(request, node_or_404(request, node_id), "node-head", str(exc), status=400)
    return _region(request, node_or_404(request, node_id), "node-head", "Saved.", oob=True)


@login_required
@require_POST
def alias_add(request: HtmxHttpRequest, node_id: int) -> HttpResponse:
    node = node_or_404(request, node_id)
    form = AliasForm(request.POST)
    try:
        if not form.is_valid():
            raise NodeEditError(_errors(form))
        node_services.alias_add(node=node, alias=form.cleaned_data["alias"])
    except NodeEditError as exc:
        return _region(request, node, "aliases", str(exc), status=400)
    return _region(request, node_or_404(request, node_id), "aliases", "Alias added.")


def _conflict(
    request: HtmxHttpRequest, node: Node, yours: dict[str, Any], expected: int | None
) -> HttpResponse:
    """Someone changed the memory since the form was rendered: show their version and this
    one side by side, nothing saved. The form now carries the current revision, this person's
    changes (the fields that differ from the version their form showed) and, for every other
    field, what was saved meanwhile: saving again keeps both changes, never reverting theirs."""
    fields = ("label", "category", "state", "summary")
    shown = selectors.revision_get(request.user, "node", node.pk, expected) if expected else None
    base = shown.snapshot if shown is not None else None
    mine = {
        name: yours.get(name)
        for name in fields
        if yours.get(name) is not None and (base is None or yours.get(name) != base.get(name))
    }
    rows = [
        {"field": name, "theirs": getattr(node, name), "yours": value}
        for name, value in mine.items()
        if value != getattr(node, name)
    ]
    context = node_context(
        node,
        note="This memory was changed since you opened it; nothing was saved. Compare "
        "the two versions, then save again to keep yours.",
        error=True,
        conflict=rows,
    )
    current = {name: getattr(node, name) for name in fields}
    context["edit_form"] = NodeEditForm(initial={**current, **mine, "revision": node.revision})
    if request.htmx:
        return render(request, f"{NODE}#node-head", context, status=409)
    return render(request, NODE, context | _evidence_context(request, node), status=409)


def _region(
    request: HtmxHttpRequest,
    node: Node,
    region: str,
    note: str,
    *,
    status: int = 200,
    oob: bool = False,
) -> HttpResponse:
    """One region of the node page (HTMX), or back to the page with a message."""
    error = status >= 400
    if request.htmx:
        context = node_context(node, note=note, error=error, oob_aliases=oob)
        return render(request, f"{NODE}#{region}", context, status=status)
    messages.add_message(request, messages.ERROR if error else messages.SUCCESS, note)
    return redirect("memory:node", node_id=node.pk)


@login_required
@require_GET
def node_delete_confirm(request: HtmxHttpRequest, node_id: int) -> HttpResponse:
    node = node_or_404(request, node_id)
    return render(request, "browser/node_delete.html", {"node": node, "form": NodeDeleteForm()})


@login_required
@require_POST
def node_delete(request: HtmxHttpRequest, node_id: int) -> HttpResponse:
    node = node_or_404(request, node_id)
    form = NodeDeleteForm(request.POST)
    form.is_valid()  # a lone boolean: absent means unticked
    stick = bool(form.cleaned_data.get("stick"))
    label = node.label
    suppressions = node_services.node_delete(node=node, stick=stick)
    n = len(suppressions)
    note = (
        f" {n} suppression{pluralize(n)} {'keeps' if n == 1 else 'keep'} it from coming back."
        if stick
        else ""
    )
    messages.success(request, f"Deleted “{label}”.{note}")
    return redirect("memory:nodes")


@login_required
@require_GET
def graph(request: HtmxHttpRequest) -> HttpResponse:
    form = GraphFilterForm(request.GET)
    if not form.is_valid():
        return render(request, "browser/graph.html", {"form": form}, status=400)
    shown, edges = selectors.graph_data(request.user, category=form.cleaned_data["category"])
    layout = layout_graph(
        [NodeIn(n.pk, n.label, n.category, n.state, n.mention_count) for n in shown],
        [(e.from_node_id, e.to_node_id, e.type) for e in edges],
        category_labels=dict(Category.choices),
    )
    return render(request, "browser/graph.html", {"form": form, "layout": layout})


@login_required
@require_GET
def suppressions(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "browser/suppressions.html", _suppression_lists(request))


def _suppression_lists(request: HtmxHttpRequest, **extra: Any) -> dict[str, Any]:
    now = timezone.now()
    rows = list(selectors.suppression_list(request.user))
    return {
        "active": [s for s in rows if s.is_active_at(now)],
        "ended": [s for s in rows if not s.is_active_at(now)],
        "now": now,
        **extra,
    }


@login_required
@require_POST
def suppression_lift(request: HtmxHttpRequest, suppression_id: int) -> HttpResponse:
    suppression = node_services.suppression_lift(
        suppression=suppression_or_404(request, suppression_id)
    )
    note = f"Lifted the suppression on “{suppression.label}”: ume may learn it again."
    if request.htmx:  # both lists: the lifted row moves from Active to Expired or lifted
        context = _suppression_lists(request, note=note)
        return render(request, "browser/suppressions.html#lists", context)
    messages.success(request, note)
    return redirect("memory:suppressions")
