"""Recall: what an assistant gets back when it asks ume about something.

:func:`recall` is the one entry point. It reads the owner's memory in a fixed number of
queries (:func:`load_index`), then ranks with pure functions over those rows, so the same
rows give the same answer on SQLite and PostgreSQL:

1. **Gate.** Greetings, thanks, acknowledgements and self-contained utility questions ("what
   is 2+2", "how do I reverse a list in python") return nothing, with ``no_recall`` and a
   reason. "Who is Rahul?" and "what is Atlas?" are recall questions: the subject is a
   capitalised name, or names something in memory.
2. **Recall phrasing is stripped** ("what do you remember about", "tell me everything you know
   about" ...), leaving the subject.
3. **Broad profile** ("what are my projects", "my health") returns the nodes of the mapped
   categories.
4. **Named lane.** Canonical labels and aliases found in the subject, longest first: a name
   inside a longer name ("UML" inside "UML College Society") does not count on its own.
5. **Lexical lane.** BM25 over a per-owner index of labels, aliases, summaries, current slices,
   events and pages, with stop words removed and a Porter stemmer. Words already used by a
   name do not score again, so identities that merely share words with a named one are not
   returned; a query whose content words match nothing returns nothing.

Superseded slices never feed ranking or context. Nothing is cached between calls: every call
reads the owner's rows afresh, only the columns ranking needs, and then the events of the
nodes it returns.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.db.models.functions import Coalesce

from memory.keys import canonical_key
from memory.models import Alias, Event, Node, Page, Slice
from memory.recall_episodes import EpisodeItem, recall_episodes

# --- vocabulary ---------------------------------------------------------------------------

WHY_EXACT = "exact"
WHY_ALIAS = "alias"
WHY_LEXICAL = "lexical"
WHY_PROFILE = "profile"

REASON_EMPTY = "empty_query"
REASON_SMALLTALK = "smalltalk"
REASON_UTILITY = "utility_query"
REASON_NO_MATCH = "no_match"
REASON_MATCHED = "matched"
REASON_PROFILE = "broad_profile"

MAX_LIMIT = 50
SLICES_PER_ITEM = 5
EVENTS_PER_ITEM = 3
SLICES_PER_LINE = 3
EVENTS_PER_LINE = 2

# Ranking constants. A node named in the query scores NAMED_WEIGHT x (share of the query's
# content words its name covers); lexical scores are normalised to the best one (0..1).
NAMED_WEIGHT = 2.5
ALIAS_DISCOUNT = 0.95
LEXICAL_RELATIVE_FLOOR = 0.3
MIN_TERM_SHARE = 0.5  # of the idf weight of the query's words
BM25_K1 = 1.2
BM25_B = 0.75
NODE_FIELD_WEIGHTS = {
    "label": 3.0,
    "alias": 3.0,
    "summary": 1.5,
    "slice": 1.0,
    "event": 1.0,
    "category": 1.0,
}
PAGE_FIELD_WEIGHTS = {"title": 3.0, "topic": 2.0, "summary": 1.5, "body": 1.0}

STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any anything are as at be because
    been before being below between both but by can could did do does doing done down during
    each else ever every everything few for from further get got had has have having he her
    here hers herself him himself his how i if in into is it its itself just know knew let
    me mention mentioned might mine more most much must my myself no nor not now of off on
    once only or other our ours ourselves out over own please recall remember remind s said
    same say she should so some something still such t tell than that the their theirs them
    themselves then there these they thing things this those through to told too under until
    up us very was we were what whatever when where which while who whom whose why will with
    would you your yours yourself
    new news latest update updates happening happened going doing lately recent recently
    currently current status info details stuff
    """.split()
)

# Words of a broad profile question and the categories they stand for.
PROFILE_WORDS: dict[str, tuple[str, ...]] = {
    "project": ("project",),
    "projects": ("project",),
    "work": ("project", "organization"),
    "health": ("health",),
    "medical": ("health",),
    "conditions": ("health",),
    "family": ("family",),
    "relatives": ("family",),
    "friends": ("person", "relationship"),
    "people": ("person", "family", "relationship"),
    "relationships": ("relationship",),
    "hobbies": ("interest", "habit", "skill"),
    "interests": ("interest",),
    "skills": ("skill",),
    "habits": ("habit",),
    "routines": ("habit",),
    "goals": ("goal",),
    "plans": ("goal",),
    "preferences": ("preference",),
    "likes": ("preference",),
    "tools": ("tool", "system"),
    "stack": ("tool", "system"),
    "systems": ("system",),
    "places": ("place",),
    "organizations": ("organization",),
    "organisations": ("organization",),
    "companies": ("organization",),
    "possessions": ("possession",),
    "belongings": ("possession",),
    "events": ("life_event",),
    "milestones": ("life_event",),
    "identity": ("identity",),
}
_EVERYTHING = frozenset({"me", "myself", "everything", "about me", "who am i", "my profile"})
_PROFILE_FILLER = frozenset(
    "what are is list show me all of my tell about the current which do i have give and "
    "everything you know".split()
)

_SMALLTALK_WORDS = frozenset(
    """
    hi hello hey hiya yo howdy greetings thanks thank you thx ty cheers ok okay k kk cool nice
    great awesome good morning afternoon evening night bye goodbye see ya later sure yes yeah
    yep yup no nope nah lol haha hahaha perfect alright right got it sounds fine wonderful
    amazing brilliant excellent much so very lovely there welcome np noted understood a lot
    lots for that this the help all again
    """.split()
)
_SMALLTALK_PHRASES = frozenset(
    {"how are you", "how are you doing", "what s up", "whats up", "how s it going", "sup"}
)
_ARITHMETIC = re.compile(
    r"^\s*(?:what\s+is|what's|whats|calculate|compute|solve)?\s*"
    r"[-+*/x×÷^%().\d\s=]*\d\s*[-+*/x×÷^%]\s*[-+*/x×÷^%().\d\s]*[=?]?\s*$",
    re.IGNORECASE,
)

_LEAD = re.compile(r"^(?:(?:hey|hi|hello|ok|okay|so|please|um|well|and|also)\s+)+")
_RECALL_PHRASES = [
    re.compile(p)
    for p in (
        r"^(?:can|could|would|will) you (?:please )?(?:recall|remember|tell me|remind me)"
        r"(?: what| everything| anything| all)?(?: i (?:said|told you|mentioned|wrote)"
        r"| you (?:know|remember|have))?(?: about| regarding| of| on)?\b",
        r"^what (?:else )?(?:do|did|can) you (?:remember|recall|know|have)"
        r"(?: stored| saved| noted)?(?: about| regarding| of| on)?\b",
        r"^what (?:did|have|had) i (?:tell you|told you|say|said|mention|mentioned|share|shared)"
        r"(?: to you)?(?: about| regarding| of| on)?\b",
        r"^(?:tell|remind|show|give) me(?: everything| anything| all| what| more| something)?"
        r"(?: you (?:know|remember|recall|have)| i (?:said|told you|mentioned))?"
        r"(?: about| regarding| of| on)?\b",
        r"^(?:do|did) you (?:still )?(?:remember|recall|know)(?: anything| everything| what)?"
        r"(?: i (?:said|told you|mentioned))?(?: about| regarding| of| on)?\b",
        r"^(?:anything|everything|something) (?:about|regarding|on)\b",
        r"^(?:who|what) (?:is|are|was|were|s)\b",
        r"^(?:recall|remember)(?: about)?\b",
    )
]
_RECALL_INTENT = re.compile(
    r"\b(?:remember|recall|remind me|you know|i told you|i said|i mentioned)\b"
)
_UTILITY_PREFIX = re.compile(
    r"^(?:how (?:do|can|should|would|does|did) (?:i|you|we|one)|how to|"
    r"translate|convert|calculate|compute|define|explain|summari[sz]e|spell|write (?:me )?(?:a|an)|"
    r"give me (?:a|an)|can you (?:explain|help|write|translate|convert|calculate|fix|debug)|"
    r"what time is it|what is the (?:weather|time|date|capital|meaning|definition|difference)|"
    r"what s the (?:weather|time|date|capital|meaning|definition|difference))\b"
)
_SUBJECT_QUESTION = re.compile(r"^(?:what|who)(?:'s|’s| is| are| was| were)\s+(.+)$", re.I)
_PERSONAL = frozenset({"i", "my", "me", "mine", "myself", "we", "our", "ours", "us"})
_ARTICLES = frozenset({"a", "an", "the", "some", "this", "that"})


# --- a compact Porter stemmer ----------------------------------------------------------------


def _is_cons(word: str, i: int) -> bool:
    ch = word[i]
    if ch in "aeiou":
        return False
    if ch == "y":
        return i == 0 or not _is_cons(word, i - 1)
    return True


def _measure(stem: str) -> int:
    form = "".join("c" if _is_cons(stem, i) else "v" for i in range(len(stem)))
    return form.count("vc")


def _has_vowel(stem: str) -> bool:
    return any(not _is_cons(stem, i) for i in range(len(stem)))


def _double_cons(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_cons(word, len(word) - 1)


def _cvc(word: str) -> bool:
    n = len(word)
    return (
        n >= 3
        and _is_cons(word, n - 3)
        and not _is_cons(word, n - 2)
        and _is_cons(word, n - 1)
        and word[-1] not in "wxy"
    )


_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("logi", "log"),
)
_STEP3 = (
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
)
_STEP4 = "al ance ence er ic able ible ant ement ment ent ion ou ism ate iti ous ive ize".split()


def _replace_longest(word: str, rules: Sequence[tuple[str, str]], min_m: int) -> str:
    best = max((r for r in rules if word.endswith(r[0])), key=lambda r: len(r[0]), default=None)
    if best is None:
        return word
    stem = word[: len(word) - len(best[0])]
    return stem + best[1] if _measure(stem) > min_m else word


def stem(word: str) -> str:
    """The Porter (1980) stem of a lower-case word; words under three letters are kept."""
    if len(word) < 3 or not word.isalpha():
        return word
    w = word
    # Step 1a: plurals.
    if w.endswith("sses") or w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    # Step 1b: -eed, -ed, -ing.
    if w.endswith("eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
    else:
        for suffix in ("ed", "ing"):
            if w.endswith(suffix) and _has_vowel(w[: -len(suffix)]):
                w = w[: -len(suffix)]
                if w.endswith(("at", "bl", "iz")):
                    w += "e"
                elif _double_cons(w) and w[-1] not in "lsz":
                    w = w[:-1]
                elif _measure(w) == 1 and _cvc(w):
                    w += "e"
                break
    # Step 1c: y -> i.
    if w.endswith("y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    w = _replace_longest(w, _STEP2, 0)
    w = _replace_longest(w, _STEP3, 0)
    # Step 4: remove a suffix where the stem is long enough (only the longest that ends it).
    suffix = max((s for s in _STEP4 if w.endswith(s)), key=len, default="")
    if suffix:
        base = w[: -len(suffix)]
        if _measure(base) > 1 and (suffix != "ion" or base.endswith(("s", "t"))):
            w = base
    # Step 5: a final -e, a double l.
    if w.endswith("e"):
        base = w[:-1]
        if _measure(base) > 1 or (_measure(base) == 1 and not _cvc(base)):
            w = base
    if w.endswith("ll") and _measure(w) > 1:
        w = w[:-1]
    return w


def _content(tokens: Iterable[str]) -> list[str]:
    return [t for t in tokens if t not in STOP_WORDS and (len(t) > 1 or t.isdigit())]


_ASCII_WORD = re.compile(r"[a-z0-9]+")


def words_of(text: str) -> list[str]:
    """The words of ``canonical_key(text)``, with a fast path for ASCII text (where the key's
    words are exactly the runs of letters and digits, lower-cased)."""
    if text.isascii():
        return _ASCII_WORD.findall(text.lower())
    return canonical_key(text).split()


def _probe(term: str) -> str:
    """A string every word with Porter stem ``term`` contains: the stem itself, less a final
    "e" or "i" that stemming may have added or changed ("hope" from "hoping", "happi")."""
    return term[:-1] if len(term) > 1 and term[-1] in "ei" else term


def terms(text: str, cache: dict[str, str] | None = None) -> list[str]:
    """Stemmed content terms of ``text`` (canonical key words, stop words removed)."""
    out = []
    for token in _content(words_of(text)):
        if cache is None:
            out.append(stem(token))
            continue
        hit = cache.get(token)
        if hit is None:
            hit = cache[token] = stem(token)
        out.append(hit)
    return out


# --- what recall returns -----------------------------------------------------------------------


@dataclass(frozen=True)
class SliceView:
    text: str
    kind: str


@dataclass(frozen=True)
class EventView:
    action: str
    text: str
    happened_at: datetime | None
    precision: str

    @property
    def date_text(self) -> str:
        """The date as precisely as it is known: ``2026``, ``2026-03``, ``2026-03-05``."""
        if self.happened_at is None:
            return ""
        when = self.happened_at
        if self.precision == "year":
            return f"{when:%Y}"
        if self.precision == "month":
            return f"{when:%Y-%m}"
        if self.precision == "week":
            return f"week of {when:%Y-%m-%d}"
        return f"{when:%Y-%m-%d}"

    def as_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "text": self.text,
            "happened_at": self.happened_at.isoformat() if self.happened_at else None,
            "precision": self.precision or None,
            "date": self.date_text or None,
        }


@dataclass(frozen=True)
class RecallItem:
    kind: str  # "node" or "page"
    id: int
    label: str  # a node's label, a page's title
    category: str
    state: str
    why: str
    score: float
    summary: str = ""
    slices: tuple[SliceView, ...] = ()
    events: tuple[EventView, ...] = ()
    node_id: int | None = None  # for a page: the node it is about

    def context_line(self) -> str:
        if self.kind == "page":
            return f"Page: {self.label} - {self.summary}" if self.summary else f"Page: {self.label}"
        head = f"{self.label} ({self.category.replace('_', ' ')}, {self.state})"
        parts = [s.text for s in self.slices[:SLICES_PER_LINE]]
        if not parts and self.summary:
            parts.append(self.summary.rstrip(". "))
        for event in self.events[:EVENTS_PER_LINE]:
            parts.append(f"{event.text} ({event.date_text})" if event.date_text else event.text)
        return f"{head} - {'; '.join(parts)}" if parts else head

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "id": self.id}
        if self.kind == "page":
            data.update(title=self.label, node_id=self.node_id)
        else:
            data.update(label=self.label, category=self.category, state=self.state)
        data.update(
            why=self.why,
            score=round(self.score, 4),
            summary=self.summary,
        )
        if self.kind == "node":
            data["slices"] = [{"text": s.text, "kind": s.kind} for s in self.slices]
            data["events"] = [e.as_json() for e in self.events]
        return data


@dataclass(frozen=True)
class RecallResult:
    query: str
    items: tuple[RecallItem | EpisodeItem, ...]
    no_recall: bool
    reason: str
    context: str = ""
    context_truncated: bool = False

    def as_json(self) -> dict[str, Any]:
        """JSON-safe; the API and the MCP tools return it as is."""
        return {
            "query": self.query,
            "no_recall": self.no_recall,
            "reason": self.reason,
            "context": self.context,
            "context_truncated": self.context_truncated,
            "count": len(self.items),
            "items": [item.as_json() for item in self.items],
        }


# --- the per-owner index ---------------------------------------------------------------------


@dataclass(slots=True)
class Doc:
    """One node or page, as ranking sees it."""

    kind: str
    id: int
    label: str
    key: str  # the stored canonical key of the label or title
    category: str = ""
    state: str = ""
    summary: str = ""
    node_id: int | None = None
    mention_count: int = 0
    last_seen_at: datetime | None = None
    aliases: list[str] = field(default_factory=list)
    slices: list[tuple[str, str]] = field(default_factory=list)  # (text, kind), newest first
    event_texts: list[str] = field(default_factory=list)  # in no particular order
    fields: list[tuple[str, str]] = field(default_factory=list)  # (field name, text)


@dataclass
class OwnerIndex:
    """Everything recall reads for one owner, loaded in :data:`INDEX_QUERIES` queries."""

    docs: list[Doc]
    names: dict[str, list[tuple[Doc, str]]]  # canonical key -> [(doc, why)]


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
    """Every run of ``words`` that :func:`_named_spans` could look up."""
    phrases = set()
    for start in range(len(words)):
        for end in range(start + 1, len(words) + 1):
            if _content(words[start:end]):
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
    if not [w for w in words if _content([w])]:
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
    spans = _named_spans(words, names)
    named_positions = {i for s in spans for i in range(s.start, s.end)}
    if not all(i in named_positions for i, w in enumerate(words) if _content([w])):
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


# --- the gate: is this a recall question at all? ------------------------------------------------


@dataclass(frozen=True)
class Parsed:
    """A query after the gate: the subject words, or why there is nothing to recall."""

    subject: tuple[str, ...] = ()
    reason: str = ""  # set when the answer is "no recall"
    needs_name: bool = False  # a "what is X" question: recall only if X names a memory
    profile: tuple[str, ...] = ()  # categories of a broad profile question
    everything: bool = False


def _is_smalltalk(key: str) -> bool:
    if key in _SMALLTALK_PHRASES:
        return True
    words = key.split()
    return bool(words) and all(w in _SMALLTALK_WORDS for w in words)


def _strip_phrasing(key: str) -> tuple[str, bool]:
    """The subject left after removing recall phrasing, and whether any was removed."""
    stripped = False
    while True:
        before = key
        key = _LEAD.sub("", key)
        for pattern in _RECALL_PHRASES:
            key = pattern.sub("", key, count=1).strip()
        if key == before:
            return key, stripped
        stripped = True


def _profile_categories(words: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    rest = [w for w in words if w not in _PROFILE_FILLER or w in PROFILE_WORDS]
    if "my" not in words and "me" not in words and "i" not in words:
        return (), False
    if not rest:
        # "tell me about me", "what do you know about me", "who am I"
        return (), any(w in ("me", "myself", "i") for w in words)
    cats: list[str] = []
    for word in rest:
        mapped = PROFILE_WORDS.get(word)
        if mapped is None:
            return (), False
        cats += [c for c in mapped if c not in cats]
    return tuple(cats), False


def parse_query(query: str) -> Parsed:
    """Pure: decide whether ``query`` asks for memory and, if so, what its subject is."""
    raw = " ".join(query.split())
    key = canonical_key(raw)
    if not key:
        return Parsed(reason=REASON_EMPTY)
    if _is_smalltalk(key):
        return Parsed(reason=REASON_SMALLTALK)
    if _ARITHMETIC.match(raw):
        return Parsed(reason=REASON_UTILITY)
    subject, phrased = _strip_phrasing(key)
    intent = phrased and bool(_RECALL_INTENT.search(key))
    words = tuple(subject.split())
    if not words:
        return Parsed(reason=REASON_EMPTY)
    if key in _EVERYTHING or subject in _EVERYTHING and intent:
        return Parsed(subject=words, everything=True)
    cats, everything = _profile_categories(words)
    if cats or everything:
        return Parsed(subject=words, profile=cats, everything=everything)
    if intent:
        return Parsed(subject=words)
    utility = _UTILITY_PREFIX.match(key)
    if utility:
        remainder = key[utility.end() :].split()
        if not _PERSONAL & set(remainder):
            return Parsed(reason=REASON_UTILITY)
        return Parsed(subject=words)
    question = _SUBJECT_QUESTION.match(raw.rstrip("?!. "))
    if question:
        said = question.group(1).split()
        if _PERSONAL & set(words):
            return Parsed(subject=words)
        # "Who is Rahul?", "what is Atlas?": a capitalised name is a recall question, and so
        # is "who is working nights" (people are what memory knows). "What is a monad?" and
        # "who is the president?" are recall questions only if memory has that exact name.
        article = said[0].lower() in _ARTICLES
        named = any(w[:1].isupper() for w in said)
        if not article and (named or raw[:3].lower() == "who"):
            return Parsed(subject=words)
        return Parsed(subject=words, needs_name=True)
    return Parsed(subject=words)


# --- ranking (pure) -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    key: str


def _named_spans(words: Sequence[str], names: dict[str, list[tuple[Doc, str]]]) -> list[_Span]:
    """Labels and aliases found in ``words``, longest first, never overlapping."""
    taken: set[int] = set()
    spans: list[_Span] = []
    for length in range(len(words), 0, -1):
        for start in range(0, len(words) - length + 1):
            positions = set(range(start, start + length))
            if positions & taken:
                continue
            key = " ".join(words[start : start + length])
            if key in names and _content(words[start : start + length]):
                spans.append(_Span(start, start + length, key))
                taken |= positions
    return sorted(spans, key=lambda s: s.start)


def _bm25(
    docs: Sequence[Doc],
    scored: Sequence[str],
    named: Sequence[str],
    cache: dict[str, str],
) -> dict[int, float]:
    """BM25F-style scores (field-weighted term frequencies) by position in ``docs``.

    Only ``scored`` terms add to a score; ``named`` terms (words of a name the query already
    matched) count only towards the share of the query a document must match.
    """
    if not scored or not docs:
        return {}
    wanted = set(scored) | set(named)
    probes = {_probe(t) for t in wanted}
    tf: list[dict[str, float]] = []
    lengths: list[float] = []
    df: dict[str, int] = defaultdict(int)
    for doc in docs:
        weights = PAGE_FIELD_WEIGHTS if doc.kind == "page" else NODE_FIELD_WEIGHTS
        counts: dict[str, float] = defaultdict(float)
        # Length in words (field-weighted), cheap for every document; only documents whose
        # text contains a probe of a wanted term are tokenised and stemmed.
        lengths.append(sum(weights[name] * len(text.split()) for name, text in doc.fields))
        tf.append(counts)
        joined = "\n".join(text for _name, text in doc.fields)
        blob = joined.lower() if joined.isascii() else canonical_key(joined)
        if not any(p in blob for p in probes):
            continue
        for name, text in doc.fields:
            if not text:
                continue
            weight = weights[name]
            for term in terms(text, cache):
                if term in wanted:
                    counts[term] += weight
        for term in counts:
            df[term] += 1
    n = len(docs)
    avg = (sum(lengths) / n) or 1.0
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted}
    total = sum(idf.values())
    scoring = set(scored)
    scores: dict[int, float] = {}
    for i, counts in enumerate(tf):
        if not counts:
            continue
        # A document must match enough of the query's weight, not one incidental word of a
        # question that is about something else ("best hiking boots" is not the best man).
        if len(idf) > 1 and sum(idf[t] for t in counts) < MIN_TERM_SHARE * total:
            continue
        norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths[i] / avg)
        score = sum(
            idf[t] * freq * (BM25_K1 + 1) / (freq + norm)
            for t, freq in counts.items()
            if t in scoring
        )
        if score > 0:
            scores[i] = score
    return scores


def _item(doc: Doc, why: str, score: float) -> RecallItem:
    return RecallItem(
        kind=doc.kind,
        id=doc.id,
        label=doc.label,
        category=doc.category,
        state=doc.state,
        why=why,
        score=score,
        summary=doc.summary,
        slices=tuple(SliceView(text, kind) for text, kind in doc.slices[:SLICES_PER_ITEM]),
        node_id=doc.node_id,
    )


def _sort_key(item: RecallItem) -> tuple[float, int, str, int]:
    return (-item.score, 0 if item.kind == "node" else 1, item.label.casefold(), item.id)


def _profile(index: OwnerIndex, categories: Sequence[str], everything: bool) -> list[RecallItem]:
    wanted = set(categories)
    nodes = [d for d in index.docs if d.kind == "node" and (everything or d.category in wanted)]
    nodes.sort(
        key=lambda d: (
            d.state != "active",
            -(d.last_seen_at.timestamp() if d.last_seen_at else 0.0),
            -d.mention_count,
            d.label.casefold(),
            d.id,
        )
    )
    return [_item(d, WHY_PROFILE, 1.0 / (1 + rank)) for rank, d in enumerate(nodes)]


def rank(index: OwnerIndex, parsed: Parsed) -> tuple[list[RecallItem], str]:
    """Pure ranking over the loaded index: ``(items best first, reason)``."""
    if parsed.reason:
        return [], parsed.reason
    if parsed.profile or parsed.everything:
        items = _profile(index, parsed.profile, parsed.everything)
        return items, REASON_PROFILE if items else REASON_NO_MATCH
    words = list(parsed.subject)
    content_positions = [i for i, w in enumerate(words) if _content([w])]
    if not content_positions:
        return [], REASON_NO_MATCH
    spans = _named_spans(words, index.names)
    named_positions = {i for s in spans for i in range(s.start, s.end)}
    fully_named = all(i in named_positions for i in content_positions)
    if parsed.needs_name and not fully_named:
        return [], REASON_UTILITY

    scores: dict[tuple[str, int], float] = {}
    whys: dict[tuple[str, int], str] = {}
    best_named: dict[tuple[str, int], float] = {}
    by_key: dict[tuple[str, int], Doc] = {}
    n_content = len(content_positions)
    named_node_ids: set[int] = set()
    for span in spans:
        coverage = len([i for i in content_positions if span.start <= i < span.end]) / n_content
        for doc, why in index.names[span.key]:
            ref = (doc.kind, doc.id)
            value = NAMED_WEIGHT * coverage * (1.0 if why == WHY_EXACT else ALIAS_DISCOUNT)
            if value > best_named.get(ref, 0.0):
                # A doc named twice keeps its best name for ``why``; the scores add up.
                best_named[ref] = value
                whys[ref] = why
            scores[ref] = scores.get(ref, 0.0) + value
            by_key[ref] = doc
            if doc.kind == "node":
                named_node_ids.add(doc.id)

    cache: dict[str, str] = {}
    if fully_named:
        # Only pages about the named identity may join it, ranked by the named words: pages
        # linked to it, or unlinked pages whose title holds the whole name. A page linked to
        # another node is about that node, whatever words its title shares.
        span_keys = [s.key for s in spans]
        pages = [
            d
            for d in index.docs
            if d.kind == "page"
            and (d.kind, d.id) not in scores
            and (
                d.node_id in named_node_ids
                or d.node_id is None
                and any(f" {k} " in f" {d.key} " for k in span_keys)
            )
        ]
        query_terms = [stem(words[i]) for i in content_positions]
        name_terms: list[str] = []
        lexical_docs: Sequence[Doc] = pages
    else:
        query_terms = [stem(words[i]) for i in content_positions if i not in named_positions]
        name_terms = [stem(words[i]) for i in content_positions if i in named_positions]
        lexical_docs = index.docs
    lexical = _bm25(lexical_docs, query_terms, name_terms, cache)
    if lexical:
        best = max(lexical.values())
        for i, raw in lexical.items():
            doc = lexical_docs[i]
            ref = (doc.kind, doc.id)
            normalised = raw / best
            if ref not in scores and normalised < LEXICAL_RELATIVE_FLOOR:
                continue
            scores[ref] = scores.get(ref, 0.0) + normalised
            whys.setdefault(ref, WHY_LEXICAL)
            by_key[ref] = doc
    items = [_item(by_key[ref], whys[ref], score) for ref, score in scores.items()]
    items.sort(key=_sort_key)
    return items, REASON_MATCHED if items else REASON_NO_MATCH


def build_context(items: Sequence[RecallItem | EpisodeItem], budget: int) -> tuple[str, bool]:
    """Lines for an assistant, within ``budget`` characters. The first line that does not fit
    is clipped with an ellipsis and marks the context truncated; nothing after it is added."""
    lines: list[str] = []
    used = 0
    for item in items:
        line = item.context_line()
        sep = 1 if lines else 0
        if used + sep + len(line) <= budget:
            lines.append(line)
            used += sep + len(line)
            continue
        room = budget - used - sep
        if room >= 2:
            lines.append(line[: room - 1].rstrip() + "…")
        return "\n".join(lines), True
    return "\n".join(lines), False


def recall(
    owner: Any, query: str, limit: int = 10, *, char_budget: int | None = None
) -> RecallResult:
    """Ranked nodes and pages for ``query``, read for ``owner`` only.

    Smalltalk and self-contained utility questions touch no table. A broad profile question
    reads the nodes of its categories and the slices of those returned
    (:data:`PROFILE_QUERIES`); a query whose content words are all names reads the named rows
    (:data:`NAME_QUERIES` + :data:`NAMED_QUERIES`); any other reads the name lookup and then
    the owner's whole index (:data:`INDEX_QUERIES`) for BM25. Each then reads the recent
    events of the nodes it returns (:data:`DETAIL_QUERIES`). Every read is filtered by owner
    and nothing is kept between calls.
    """
    limit = max(1, min(int(limit), MAX_LIMIT))
    budget = char_budget if char_budget is not None else settings.UME_RECALL_CONTEXT_CHARS
    parsed = parse_query(query)
    if parsed.reason:
        return RecallResult(query=query, items=(), no_recall=True, reason=parsed.reason)
    profile = bool(parsed.profile or parsed.everything)
    index = load_profile_nodes(owner, parsed) if profile else load_named_index(owner, parsed)
    if index is None:
        index = load_index(owner)
    items, reason = rank(index, parsed)
    # What was said comes after confirmed memories, sharing the limit: when both have
    # something, episodes keep at least half of it.
    episodes = (
        recall_episodes(owner, subject_terms(parsed), limit=limit)
        if reason != REASON_UTILITY
        else []
    )
    if not items and not episodes:
        return RecallResult(query=query, items=(), no_recall=True, reason=reason)
    keep = limit - min(len(episodes), limit // 2) if episodes else limit
    chosen = items[:keep]
    if profile:
        chosen = with_slices(owner, chosen)
    returned: tuple[RecallItem | EpisodeItem, ...] = (
        *with_events(owner, chosen),
        *episodes[: limit - len(chosen)],
    )
    context, truncated = build_context(returned, max(0, budget))
    return RecallResult(
        query=query,
        items=returned,
        no_recall=False,
        reason=REASON_MATCHED if reason == REASON_NO_MATCH else reason,
        context=context,
        context_truncated=truncated,
    )


def subject_terms(parsed: Parsed) -> list[str]:
    """Stemmed content words of the query's subject, in order, each once."""
    return list(dict.fromkeys(terms(" ".join(parsed.subject))))
