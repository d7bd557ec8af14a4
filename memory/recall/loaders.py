"""Index loaders: the selectors recall reads through. Every read is filtered by owner and
reads only the columns ranking needs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from django.db.models import Q
from django.db.models.functions import Coalesce

from memory.models import Alias, Event, Node, Page, Slice
from memory.recall.items import (
    EVENTS_PER_ITEM,
    SLICES_PER_ITEM,
    WHY_ALIAS,
    WHY_EXACT,
    Doc,
    EventView,
    OwnerIndex,
    RecallItem,
    SliceView,
)
from memory.recall.lanes import named_spans
from memory.recall.query import Parsed
from memory.recall.text import content

INDEX_QUERIES = 5
DETAIL_QUERIES = 1  # the events of the nodes recall returns, when it returns any


def load_index(owner: Any) -> OwnerIndex:
    """The owner's nodes, aliases, current slices, event texts and pages: five queries,
    whatever the corpus size. Superseded slices are not read.

    Only what ranking needs is read: not event dates, since converting thousands of
    datetimes costs more than ranking; :func:`with_events` reads the events of the few nodes
    recall returns."""
    nodes: dict[int, Doc] = {}
    for nid, label, key, category, state, summary in (
        Node.objects.filter(owner=owner)
        .order_by("id")
        .values_list("id", "label", "canonical_key", "category", "state", "summary")
    ):
        nodes[nid] = Doc("node", nid, label, key, category=category, state=state, summary=summary)
    names: dict[str, list[tuple[Doc, str]]] = defaultdict(list)
    for doc in nodes.values():
        names[doc.key].append((doc, WHY_EXACT))
    for node_id, alias, key in (
        Alias.objects.filter(owner=owner)
        .order_by("id")
        .values_list("node_id", "alias", "canonical_key")
    ):
        alias_doc = nodes.get(node_id)
        if alias_doc is not None:
            alias_doc.aliases.append(alias)
            names[key].append((alias_doc, WHY_ALIAS))
    for node_id, text, kind in (
        Slice.objects.filter(owner=owner, is_current=True)
        .order_by("-created_at", "-id")
        .values_list("node_id", "text", "kind")
    ):
        slice_doc = nodes.get(node_id)
        if slice_doc is not None:
            slice_doc.slices.append((text, kind))
    # Ranking only counts words, so the order of a node's events does not matter here.
    for node_id, text in Event.objects.filter(owner=owner).values_list("node_id", "text"):
        event_doc = nodes.get(node_id)
        if event_doc is not None:
            event_doc.event_texts.append(text)
    docs = list(nodes.values())
    for doc in docs:
        doc.fields = [
            ("label", doc.label),
            ("summary", doc.summary),
            ("category", doc.category.replace("_", " ")),
        ]
        doc.fields += [("alias", a) for a in doc.aliases]
        doc.fields += [("slice", text) for text, _kind in doc.slices]
        doc.fields += [("event", t) for t in doc.event_texts]
    for pid, title, key, topic, summary, body, node_id in (
        Page.objects.filter(owner=owner)
        .order_by("id")
        .values_list("id", "title", "canonical_key", "topic", "summary", "body", "node_id")
    ):
        page = Doc("page", pid, title, key, summary=summary, node_id=node_id)
        page.fields = [("title", title), ("topic", topic), ("summary", summary), ("body", body)]
        docs.append(page)
        names[key].append((page, WHY_EXACT))
    return OwnerIndex(docs=docs, names=dict(names))


NAME_QUERIES = 3  # nodes, aliases and pages whose key is a phrase of the query
NAMED_QUERIES = 2  # then, for a query that only names things: their pages and slices
MAX_NAME_PHRASES = 400  # a longer question reads the whole index instead


def _name_phrases(words: Sequence[str]) -> set[str]:
    """Every run of ``words`` that :func:`named_spans` could look up."""
    phrases = set()
    for start in range(len(words)):
        for end in range(start + 1, len(words) + 1):
            if content(words[start:end]):
                phrases.add(" ".join(words[start:end]))
    return phrases


def load_named_index(owner: Any, parsed: Parsed) -> OwnerIndex | None:
    """The part of the owner's index that :func:`rank` reads for a query whose content words
    are all names (or that needs a name): the nodes, aliases and pages whose key is a phrase
    of the query, the pages that may join a named node, and the named nodes' current slices.
    ``None`` when the query has other content words: it needs the whole index for BM25.

    Reads :data:`NAME_QUERIES` queries, then :data:`NAMED_QUERIES` when the query is fully
    named, whatever the corpus size. :func:`rank` returns the same over this part as over
    the whole index, because in these cases it looks only at these rows."""
    words = list(parsed.subject)
    if not [w for w in words if content([w])]:
        return OwnerIndex(docs=[], names={})  # rank returns no_match before reading any
    phrases = _name_phrases(words)
    if len(phrases) > MAX_NAME_PHRASES:
        return None
    keys = sorted(phrases)
    nodes: dict[int, Doc] = {}
    names: dict[str, list[tuple[Doc, str]]] = defaultdict(list)
    node_columns = ("id", "label", "canonical_key", "category", "state", "summary")
    for nid, label, key, category, state, summary in (
        Node.objects.filter(owner=owner, canonical_key__in=keys)
        .order_by("id")
        .values_list(*node_columns)
    ):
        doc = nodes[nid] = Doc(
            "node", nid, label, key, category=category, state=state, summary=summary
        )
        names[key].append((doc, WHY_EXACT))
    for key, nid, label, node_key, category, state, summary in (
        Alias.objects.filter(owner=owner, node__owner=owner, canonical_key__in=keys)
        .order_by("id")
        .values_list("canonical_key", *(f"node__{c}" for c in node_columns))
    ):
        doc = nodes.get(nid) or nodes.setdefault(
            nid, Doc("node", nid, label, node_key, category=category, state=state, summary=summary)
        )
        names[key].append((doc, WHY_ALIAS))
    page_columns = ("id", "title", "canonical_key", "topic", "summary", "body", "node_id")
    pages: dict[int, Doc] = {}

    def page_doc(row: tuple[Any, ...]) -> Doc:
        pid, title, key, topic, summary, body, node_id = row
        page = pages.get(pid)
        if page is None:
            page = pages[pid] = Doc("page", pid, title, key, summary=summary, node_id=node_id)
            page.fields = [("title", title), ("topic", topic), ("summary", summary), ("body", body)]
        return page

    for row in (
        Page.objects.filter(owner=owner, canonical_key__in=keys)
        .order_by("id")
        .values_list(*page_columns)
    ):
        names[row[2]].append((page_doc(row), WHY_EXACT))
    spans = named_spans(words, names)
    named_positions = {i for s in spans for i in range(s.start, s.end)}
    if not all(i in named_positions for i, w in enumerate(words) if content([w])):
        return OwnerIndex(docs=[], names=dict(names)) if parsed.needs_name else None
    named_nodes = {d.id: d for s in spans for d, _why in names[s.key] if d.kind == "node"}
    # Pages linked to a named node, or unlinked with a named key among their words (rank
    # checks the words; the database only narrows the rows down).
    unlinked = Q()
    for span in spans:
        unlinked |= Q(canonical_key__contains=span.key)
    for row in (
        Page.objects.filter(owner=owner)
        .filter(Q(node_id__in=sorted(named_nodes)) | Q(node__isnull=True) & unlinked)
        .order_by("id")
        .values_list(*page_columns)
    ):
        page_doc(row)
    for node_id, text, kind in (
        Slice.objects.filter(owner=owner, is_current=True, node_id__in=sorted(named_nodes))
        .order_by("-created_at", "-id")
        .values_list("node_id", "text", "kind")
    ):
        named_nodes[node_id].slices.append((text, kind))
    docs = list(nodes.values()) + [pages[pid] for pid in sorted(pages)]
    return OwnerIndex(docs=docs, names=dict(names))


PROFILE_QUERIES = 2  # the nodes of the categories asked about, the slices of those returned


def load_profile_nodes(owner: Any, parsed: Parsed) -> OwnerIndex:
    """For a broad profile question: the owner's nodes of the categories asked about (all of
    them for "tell me about me"), in one query. No slices: :func:`with_slices` reads those of
    the nodes recall returns."""
    nodes = Node.objects.filter(owner=owner)
    if not parsed.everything:
        nodes = nodes.filter(category__in=sorted(set(parsed.profile)))
    docs = [
        Doc(
            "node",
            nid,
            label,
            key,
            category=category,
            state=state,
            summary=summary,
            mention_count=mentions,
            last_seen_at=seen,
        )
        for nid, label, key, category, state, summary, mentions, seen in nodes.order_by(
            "id"
        ).values_list(
            "id",
            "label",
            "canonical_key",
            "category",
            "state",
            "summary",
            "mention_count",
            "last_seen_at",
        )
    ]
    return OwnerIndex(docs=docs, names={})


def with_slices(owner: Any, items: Sequence[RecallItem]) -> list[RecallItem]:
    """``items`` with the current slices of each node, newest first: one query, for those
    nodes only."""
    node_ids = {item.id for item in items if item.kind == "node"}
    if not node_ids:
        return list(items)
    slices: dict[int, list[SliceView]] = defaultdict(list)
    for node_id, text, kind in (
        Slice.objects.filter(owner=owner, is_current=True, node_id__in=sorted(node_ids))
        .order_by("-created_at", "-id")
        .values_list("node_id", "text", "kind")
    ):
        if len(slices[node_id]) < SLICES_PER_ITEM:
            slices[node_id].append(SliceView(text, kind))
    return [
        replace(item, slices=tuple(slices.get(item.id, ()))) if item.kind == "node" else item
        for item in items
    ]


def with_events(owner: Any, items: Sequence[RecallItem]) -> list[RecallItem]:
    """``items`` with the most recent events of each node: one query, for those nodes only
    (none when no node is among them)."""
    node_ids = {item.id for item in items if item.kind == "node"}
    if not node_ids:
        return list(items)
    events: dict[int, list[EventView]] = defaultdict(list)
    # Most recent first: by when it happened, or when ume learned it if that is unknown.
    for node_id, action, text, happened, precision in (
        Event.objects.filter(owner=owner, node_id__in=sorted(node_ids))
        .annotate(recency=Coalesce("happened_at", "created_at"))
        .order_by("-recency", "-id")
        .values_list("node_id", "action", "text", "happened_at", "happened_at_precision")
    ):
        if len(events[node_id]) < EVENTS_PER_ITEM:
            events[node_id].append(EventView(action, text, happened, precision))
    return [
        replace(item, events=tuple(events.get(item.id, ()))) if item.kind == "node" else item
        for item in items
    ]
