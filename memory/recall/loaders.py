"""Index loaders: the selectors recall reads through. Every read is filtered by owner and
reads only the columns ranking needs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.db.models import Q, QuerySet

from memory.models import (
    Alias,
    Event,
    Node,
    Page,
    RecallDoc,
    RecallStats,
    RecallTerm,
    RecallTermCount,
    Slice,
)
from memory.owned import Person
from memory.recall.items import (
    EVENTS_PER_ITEM,
    MAX_LIMIT,
    SLICES_PER_ITEM,
    WHY_ALIAS,
    WHY_EXACT,
    CorpusStats,
    Doc,
    EventView,
    OwnerIndex,
    Posting,
    RecallItem,
    SliceView,
)
from memory.recall.lanes import Span, named_spans
from memory.recall.provider import configured
from memory.recall.query import Parsed
from memory.recall.statements import column, converted, fetch, marks, owned_rows, owned_select
from memory.recall.text import content
from memory.vocab import NodeState

DETAIL_QUERIES = 1  # the events of the nodes recall returns, when it returns any


NAME_QUERIES = 3  # nodes, aliases and pages whose key is a phrase of the query
NAMED_QUERIES = 2  # then, for a query that only names things: their pages and slices
MAX_NAME_WORDS = 12  # no label or alias is looked up by a longer run of words


def _name_phrases(words: Sequence[str]) -> set[str]:
    """Every run of ``words`` (up to :data:`MAX_NAME_WORDS`) that :func:`named_spans` could
    look up."""
    phrases = set()
    for start in range(len(words)):
        for end in range(start + 1, min(len(words), start + MAX_NAME_WORDS) + 1):
            if content(words[start:end]):
                phrases.add(" ".join(words[start:end]))
    return phrases


def load_named_index(owner: Person, parsed: Parsed) -> OwnerIndex:
    """The nodes, aliases and pages whose key is a phrase of the query (:data:`NAME_QUERIES`
    queries). For a query whose content words are all names, also the pages that may join a
    named node and the named nodes' current slices (:data:`NAMED_QUERIES` more): everything
    :func:`rank` reads for it, and the index is ``complete``. For any other query the index
    holds the named rows only and the engine adds the lexical and semantic candidates."""
    words = list(parsed.subject)
    if not [w for w in words if content([w])]:
        return OwnerIndex(docs=[], names={})  # rank returns no_match before reading any
    keys = sorted(_name_phrases(words))
    rows = _NamedRows()
    rows.read(owner, keys)
    names = rows.names
    spans = named_spans(words, names)
    named_positions = {i for s in spans for i in range(s.start, s.end)}
    if not all(i in named_positions for i, w in enumerate(words) if content([w])):
        if parsed.needs_name:
            return OwnerIndex(docs=[], names=dict(names))
        return OwnerIndex(docs=rows.docs(), names=dict(names), complete=False)
    named_nodes = {d.id: d for s in spans for d, _why in names[s.key] if d.kind == "node"}
    rows.read_around(owner, spans, named_nodes)
    return OwnerIndex(docs=rows.docs(), names=dict(names))


def _current_slices(owner: Person, node_ids: Iterable[int]) -> list[tuple[Any, ...]]:
    """``(node id, text, kind)`` of the current slices of ``node_ids``, newest first (one
    query; none for no nodes)."""
    ids = sorted(node_ids)
    if not ids:
        return []
    return owned_rows(
        Slice,
        ("node", "text", "kind"),
        owner,
        f"is_current = %s AND node_id IN ({marks(len(ids))})",
        [True, *ids],
        order_by="created_at DESC, id DESC",
    )


def _add_current_slices(owner: Person, nodes: dict[int, Doc]) -> None:
    """Each node's current slices, newest first, in its document (one query)."""
    for node_id, text, kind in _current_slices(owner, nodes):
        nodes[node_id].slices.append((text, kind))


_NODE_COLUMNS = ("id", "label", "canonical_key", "category", "state", "summary")
_PAGE_COLUMNS = ("id", "title", "canonical_key", "topic", "summary", "body", "node_id")


def _aliases_with_nodes(owner: Person, keys: Sequence[str]) -> tuple[str, list[Any]]:
    """The owner's aliases whose key is one of ``keys``, each with its node's columns
    (:data:`_NODE_COLUMNS`); the owner is the condition of both tables."""
    alias_sql, params = owned_select(
        Alias,
        ("id", "canonical_key", "node"),
        owner,
        f"canonical_key IN ({marks(len(keys))})",
        keys,
    )
    node_sql, node_params = owned_select(Node, _NODE_COLUMNS, owner)
    node_columns = ", ".join(f"n.{column(Node, name)}" for name in _NODE_COLUMNS)
    return (
        f"SELECT a.id, a.canonical_key, {node_columns} FROM ({alias_sql}) AS a"
        f" JOIN ({node_sql}) AS n ON n.{column(Node, 'id')} = a.{column(Alias, 'node')}",
        [*params, *node_params],
    )


@dataclass
class _NamedRows:
    """What :func:`load_named_index` reads: documents by id, and the keys that name them."""

    nodes: dict[int, Doc] = field(default_factory=dict)
    pages: dict[int, Doc] = field(default_factory=dict)
    names: dict[str, list[tuple[Doc, str]]] = field(default_factory=lambda: defaultdict(list))

    def docs(self) -> list[Doc]:
        return list(self.nodes.values()) + [self.pages[pid] for pid in sorted(self.pages)]

    def page_doc(self, row: tuple[Any, ...]) -> Doc:
        pid, title, key, topic, summary, body, node_id = row
        page = self.pages.get(pid)
        if page is None:
            page = self.pages[pid] = Doc("page", pid, title, key, summary=summary, node_id=node_id)
            page.fields = [("title", title), ("topic", topic), ("summary", summary), ("body", body)]
        return page

    def read(self, owner: Person, keys: list[str]) -> None:
        """The nodes, aliases and pages whose key is one of ``keys`` (:data:`NAME_QUERIES`).

        Sorted by id here, not in SQL: without table statistics, SQLite reads an ORDER BY id
        (or the model's default order by label) from an index on the owner alone, every node
        of the owner, rather than from the (owner, key) index. The same for aliases and
        pages."""
        in_keys = f"canonical_key IN ({marks(len(keys))})"
        for nid, label, key, category, state, summary in sorted(
            owned_rows(Node, _NODE_COLUMNS, owner, in_keys, keys)
        ):
            doc = self.nodes[nid] = Doc(
                "node", nid, label, key, category=category, state=state, summary=summary
            )
            self.names[key].append((doc, WHY_EXACT))
        for _alias_id, key, nid, label, node_key, category, state, summary in sorted(
            fetch(*_aliases_with_nodes(owner, keys))
        ):
            doc = self.nodes.get(nid) or self.nodes.setdefault(
                nid,
                Doc("node", nid, label, node_key, category=category, state=state, summary=summary),
            )
            self.names[key].append((doc, WHY_ALIAS))
        for row in sorted(owned_rows(Page, _PAGE_COLUMNS, owner, in_keys, keys)):
            self.names[row[2]].append((self.page_doc(row), WHY_EXACT))

    def read_around(self, owner: Person, spans: list[Span], named_nodes: dict[int, Doc]) -> None:
        """Pages linked to a named node, or unlinked with a named key among their words (rank
        checks the words; the database only narrows the rows down), and the named nodes'
        current slices (:data:`NAMED_QUERIES`)."""
        unlinked = Q()
        for span in spans:
            unlinked |= Q(canonical_key__contains=span.key)
        for row in (
            Page.objects.for_owner(owner)
            .filter(Q(node_id__in=sorted(named_nodes)) | Q(node__isnull=True) & unlinked)
            .order_by("id")
            .values_list(*_PAGE_COLUMNS)
        ):
            self.page_doc(row)
        _add_current_slices(owner, named_nodes)


# A broad profile question reads, per category asked about (one read in all for "tell me
# about me"), the first active nodes; then the nodes tied with the last; then the slices of
# those returned. PROFILE_QUERIES is that count for one category; when fewer than the limit
# are active, the first inactive nodes are read the same way (PROFILE_FILL_QUERIES per
# category).
PROFILE_QUERIES = 3
PROFILE_FILL_QUERIES = 1
PROFILE_ORDER = ("-last_seen_at", "-mention_count", "id")


def _profile_first(
    nodes: QuerySet[Node], categories: Sequence[str] | None, columns: Sequence[str], limit: int
) -> list[tuple[Any, ...]]:
    """The first ``limit`` of ``nodes`` in the profile lane's order: one read per category,
    each a walk of the (owner, category, state, last seen, mentions, id) index that stops at
    ``limit`` rows (a read of several categories at once would sort all their nodes), merged
    here. ``categories`` None: every category, through the (owner, state, ...) index."""
    if categories is None:
        return list(nodes.order_by(*PROFILE_ORDER).values_list(*columns)[:limit])
    rows = [
        row
        for category in categories
        for row in nodes.filter(category=category)
        .order_by(*PROFILE_ORDER)
        .values_list(*columns)[:limit]
    ]
    # columns end with (..., mention_count, last_seen_at); the id is first
    rows.sort(key=lambda row: (-row[-1].timestamp(), -row[-2], row[0]))
    return rows[:limit]


def load_profile_nodes(owner: Person, parsed: Parsed, limit: int = MAX_LIMIT) -> OwnerIndex:
    """For a broad profile question: the owner's ``limit`` first nodes of the categories
    asked about (all categories for "tell me about me"), in the profile lane's order (active
    first, most recently seen, most mentioned), and every node tied with the last of them,
    so that the lane's own tie-break (the label) sees all it needs (:data:`PROFILE_QUERIES`
    and the reads :func:`_profile_first` adds per category), whatever the number of nodes.
    No slices: :func:`with_slices` reads those of the nodes returned."""
    categories = None if parsed.everything else sorted(set(parsed.profile))
    nodes = Node.objects.for_owner(owner)
    if categories is not None:
        nodes = nodes.filter(category__in=categories)
    columns = (
        "id",
        "label",
        "canonical_key",
        "category",
        "state",
        "summary",
        "mention_count",
        "last_seen_at",
    )
    active = nodes.filter(state=NodeState.ACTIVE)
    inactive = nodes.exclude(state=NodeState.ACTIVE)
    rows = _profile_first(active, categories, columns, limit)
    if len(rows) < limit:
        rows += _profile_first(inactive, categories, columns, limit - len(rows))
    if rows:
        *_rest, state, _summary, mentions, seen = rows[-1]
        have = {row[0] for row in rows}
        tied = active if state == NodeState.ACTIVE else inactive
        rows += [
            row
            for row in tied.filter(last_seen_at=seen, mention_count=mentions)
            .order_by()
            .values_list(*columns)
            if row[0] not in have
        ]
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
        for nid, label, key, category, state, summary, mentions, seen in rows
    ]
    return OwnerIndex(docs=docs, names={})


def with_slices(owner: Person, items: Sequence[RecallItem]) -> list[RecallItem]:
    """``items`` with the current slices of each node, newest first: one query, for those
    nodes only."""
    node_ids = {item.id for item in items if item.kind == "node"}
    if not node_ids:
        return list(items)
    slices: dict[int, list[SliceView]] = defaultdict(list)
    for node_id, text, kind in _current_slices(owner, node_ids):
        if len(slices[node_id]) < SLICES_PER_ITEM:
            slices[node_id].append(SliceView(text, kind))
    return [
        replace(item, slices=tuple(slices.get(item.id, ()))) if item.kind == "node" else item
        for item in items
    ]


def with_events(owner: Person, items: Sequence[RecallItem]) -> list[RecallItem]:
    """``items`` with the most recent events of each node: one query, for those nodes only
    (none when no node is among them)."""
    node_ids = {item.id for item in items if item.kind == "node"}
    if not node_ids:
        return list(items)
    events: dict[int, list[EventView]] = defaultdict(list)
    # Most recent first: by when it happened, or when ume learned it if that is unknown.
    happened, learned = column(Event, "happened_at"), column(Event, "created_at")
    wanted = sorted(node_ids)
    columns = ("node_id", "action", "text", "happened_at", "happened_at_precision")
    rows = owned_rows(
        Event,
        columns,
        owner,
        f"{column(Event, 'node')} IN ({marks(len(wanted))})",
        wanted,
        order_by=f"COALESCE({happened}, {learned}) DESC, {column(Event, 'id')} DESC",
    )
    for node_id, action, text, when, precision in converted(Event, columns, rows):
        if len(events[node_id]) < EVENTS_PER_ITEM:
            events[node_id].append(EventView(action, text, when, precision))
    return [
        replace(item, events=tuple(events.get(item.id, ()))) if item.kind == "node" else item
        for item in items
    ]


STATS_QUERIES = 1  # the owner's corpus statistics and index versions, once per recall
POSTINGS_QUERIES = 2  # the terms' document frequencies, then their postings
COMMON_QUERIES = 1  # when a term is common: its postings in the documents found
VECTOR_QUERIES = 1  # the owner's vectors, only when the cache does not hold their version
CANDIDATE_QUERIES = 3  # the shortlisted nodes, pages and the nodes' current slices


def load_stats(owner: Person) -> dict[str, CorpusStats]:
    """Documents, total length and index version per corpus (``memory``, ``episode``): one
    read, which recall makes once and shares between its lanes."""
    return {
        row[0]: CorpusStats(*row[1:])
        for row in owned_rows(
            RecallStats,
            ("corpus", "docs", "total_length", "version", "seq", "epoch", "model"),
            owner,
        )
    }


POSTINGS_PER_TERM = 1000  # a term in more documents is common; see load_postings
# When every word of a question is common: how many documents of the least common one are
# read as the candidates (those where it weighs most). Each is scored, fused and ranked in
# Python, so the cap is a real share of a recall at 100,000 nodes; 500 keeps the first answer
# of two-word questions as 1,000 did, at half the cost (docs/benchmarks.md, "Figures behind the code's choices").
SEED_POSTINGS = 500
# About how many terms a document has (a message fewer, a node with its details more): a
# common word's postings in the documents found are read by document when that is fewer
# rows than all of the word's postings, else by word. The same rows either way.
TERMS_PER_DOCUMENT = 12
_KINDS = tuple(RecallDoc.Kind.values)


@dataclass
class IndexReads:
    """What one recall reads from the index once and shares between its lanes: the owner's
    statistics (:func:`load_stats`, on first use) and how many documents of each kind hold
    each word, from the kept counts (:class:`~memory.models.RecallTermCount`, a row per word
    and kind, however common the word). The memory lanes and the episode lane ask about
    mostly the same words: each word is read once, for every kind at once (one query per
    :meth:`read_terms` that has a word not read yet)."""

    owner: Person
    known: dict[str, dict[str, int]] = field(default_factory=dict)  # term -> kind -> docs
    corpora: dict[str, CorpusStats] | None = None

    def stats(self, corpus: str) -> CorpusStats:
        if self.corpora is None:
            self.corpora = load_stats(self.owner)
        return self.corpora.get(corpus, CorpusStats())

    def read_terms(self, terms: Iterable[str]) -> None:
        missing = sorted({t for t in terms if t and t not in self.known})
        if not missing:
            return
        for term in missing:
            self.known[term] = {}
        for term, kind, docs in owned_rows(
            RecallTermCount,
            ("term", "kind", "docs"),
            self.owner,
            f"term IN ({marks(len(missing))})",
            missing,
        ):
            self.known[term][kind] = docs

    def df(self, terms: Iterable[str], kinds: Sequence[str]) -> dict[str, int]:
        """For each of ``terms``, its documents among ``kinds`` (reading the words not read
        yet); a term no such document holds is absent."""
        wanted = sorted(set(terms))
        self.read_terms(wanted)
        kinds = sorted(set(kinds))
        counts = {t: sum(self.known[t].get(k, 0) for k in kinds) for t in wanted}
        return {t: n for t, n in counts.items() if n > 0}


def term_counts(owner: Person, terms: Sequence[str], kinds: Sequence[str]) -> dict[str, int]:
    """How many of the owner's documents of ``kinds`` hold each of ``terms``: one read
    (:class:`IndexReads`)."""
    return IndexReads(owner).df(terms, kinds)


def load_postings(
    owner: Person,
    terms: Sequence[str],
    kinds: Sequence[str],
    *,
    per_term: int | None = None,
    seed_postings: int = SEED_POSTINGS,
    df: dict[str, int] | None = None,
) -> list[Posting]:
    """The postings BM25 needs for ``terms`` in the owner's documents of ``kinds``
    (:data:`~memory.recall.items.Posting` rows; their terms' document frequencies are
    ``df``): at most three queries, reading from the index only.

    The document frequencies come first (:func:`term_counts`, unless the caller read them
    already and passes them as ``df``). A term in at most ``per_term``
    (:data:`POSTINGS_PER_TERM` by default) documents ("rare") brings all its postings. A
    common term brings its postings in the documents a rare term matched, so each of those
    is scored exactly; when every term is common, the documents where the least common one
    weighs most (its ``seed_postings`` highest frequencies, at most ``per_term``, the newest
    first among equals: the index read backwards) are the candidates instead. A document
    that only common terms match is otherwise not a candidate: it could only pass the
    coverage floor on words that say little about it."""
    cap = POSTINGS_PER_TERM if per_term is None else per_term
    wanted = sorted(set(terms))
    if not wanted:
        return []
    if df is None:
        df = term_counts(owner, wanted, kinds)
    df = {t: n for t, n in df.items() if t in wanted and n}
    kinds = sorted(set(kinds))
    rare = sorted(t for t, n in df.items() if n <= cap)
    common = sorted(t for t, n in df.items() if n > cap)
    first: list[Any]
    if rare:
        first = owned_rows(
            RecallTerm,
            _POSTING_COLUMNS,
            owner,
            f"term IN ({marks(len(rare))}) AND kind IN ({marks(len(kinds))})",
            [*rare, *kinds],
        )
    elif common:
        seed = min(common, key=lambda t: (df[t], t))
        common.remove(seed)
        first = _top_postings(owner, seed, kinds, min(cap, seed_postings))
    else:
        return []
    postings: list[Posting] = first
    if common and postings:
        postings += _in_documents(owner, postings, common, df, kinds)
    return postings


_POSTING_COLUMNS = ("term", "kind", "ref_id", "tf", "length")


def _top_postings(owner: Person, term: str, kinds: Sequence[str], cap: int) -> list[Any]:
    """The ``cap`` postings of ``term`` with the highest frequencies, the newest first among
    equals, across ``kinds``: one query that reads each kind's first ``cap`` in the order of
    the (owner, term, kind, tf, ref_id) index, then merges them. One read across several kinds
    would sort every posting of the word instead, thousands for a common one
    (docs/benchmarks.md, "Figures behind the code's choices")."""
    parts: list[str] = []
    params: list[Any] = []
    for position, kind in enumerate(kinds):
        sql, part_params = owned_select(
            RecallTerm, _POSTING_COLUMNS, owner, "term = %s AND kind = %s", [term, kind]
        )
        parts.append(
            f"SELECT * FROM ({sql} ORDER BY tf DESC, ref_id DESC LIMIT {int(cap)}) AS kind{position}"
        )
        params += part_params
    sql = " UNION ALL ".join(parts)
    if len(kinds) > 1:  # merged by the database, which returns the first ``cap`` only
        sql = f"{sql} ORDER BY tf DESC, ref_id DESC, kind DESC LIMIT {int(cap)}"
    return fetch(sql, params)


def _in_documents(
    owner: Person,
    found: Sequence[Posting],
    common: Sequence[str],
    df: dict[str, int],
    kinds: Sequence[str],
) -> list[Any]:
    """The postings of the ``common`` terms in the documents of ``found``.

    Read by document when that is fewer rows than all of the words' postings, from the
    (owner, kind, ref_id, term, ...) index: the term is then compared as an expression so
    that neither database walks every posting of the common words by the term index
    instead (40,000 of "number" among 200,000 messages, to keep a few dozen). Else by word,
    the documents as a filter. The ids are integers read from the index, written into the
    SQL as integers (``int`` is the check): up to a thousand of them, which as parameters
    cost more to adapt than the database takes to read the rows; the kinds and terms stay
    parameters."""
    by_kind: dict[str, set[int]] = defaultdict(set)
    for _term, kind, ref_id, _tf, _length in found:
        by_kind[kind].add(ref_id)
    clauses: list[str] = []
    params: list[Any] = []
    for kind, ids in sorted(by_kind.items()):
        listed = ", ".join(str(int(i)) for i in sorted(ids))
        clauses.append(f"(kind = %s AND ref_id IN ({listed}))")
        params.append(kind)
    documents = sum(len(ids) for ids in by_kind.values())
    words = marks(len(common))
    if sum(df[t] for t in common) > documents * TERMS_PER_DOCUMENT:
        where = f"({' OR '.join(clauses)}) AND term || '' IN ({words})"
        params += common
    else:
        where = f"term IN ({words}) AND kind IN ({marks(len(kinds))}) AND ({' OR '.join(clauses)})"
        params = [*common, *kinds, *params]
    return owned_rows(RecallTerm, _POSTING_COLUMNS, owner, where, params)


def load_candidates(
    owner: Person, index: OwnerIndex, refs: Sequence[tuple[str, int]]
) -> OwnerIndex:
    """``index`` with the shortlisted documents ``refs`` added (nodes and pages, read by id
    for this owner only; a row deleted since it was indexed is simply absent), and the
    current slices of every node in it, newest first."""
    known = {(d.kind, d.id): d for d in index.docs}
    node_ids = sorted({i for k, i in refs if k == "node" and ("node", i) not in known})
    page_ids = sorted({i for k, i in refs if k == "page" and ("page", i) not in known})
    docs = list(index.docs)
    if node_ids:
        for nid, label, key, category, state, summary in owned_rows(
            Node, _NODE_COLUMNS, owner, f"id IN ({marks(len(node_ids))})", node_ids, "id"
        ):
            docs.append(
                Doc("node", nid, label, key, category=category, state=state, summary=summary)
            )
    if page_ids:
        for pid, title, key, summary, node_id in owned_rows(
            Page,
            ("id", "title", "canonical_key", "summary", "node"),
            owner,
            f"id IN ({marks(len(page_ids))})",
            page_ids,
            "id",
        ):
            docs.append(Doc("page", pid, title, key, summary=summary, node_id=node_id))
    nodes = {d.id: d for d in docs if d.kind == "node"}
    if nodes:
        _add_current_slices(owner, nodes)
    return OwnerIndex(docs=docs, names=index.names, complete=True)


def recall_index_stale(owner: Person) -> int:
    """How many of the owner's documents need a vector: embedded by another model than the
    configured one, or without a vector (written while the model could not answer)."""
    return (
        RecallDoc.objects.for_owner(owner)
        .filter(~Q(model=configured().name) | Q(vector__isnull=True))
        .count()
    )


def recall_vector_dim(owner: Person, model: str) -> int | None:
    """The dimension of the owner's stored vectors of ``model`` (their length in int8 bytes),
    ``None`` when there is none."""
    vector = (
        RecallDoc.objects.for_owner(owner)
        .filter(model=model, vector__isnull=False)
        .values_list("vector", flat=True)
        .first()
    )
    return None if vector is None else len(vector)
