"""The typed memory graph: nodes, their aliases, slices (details), events (change, with when it
happened apart from when ume learned it), edges between nodes, and pages.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from memory.models.base import Owned, Receipted, Recorded, Revised, owner_key
from memory.vocab import (
    Category,
    EdgeType,
    EventAction,
    Importance,
    NodeOrigin,
    NodeState,
    SliceKind,
    TimePrecision,
    TimeSource,
)


class Node(Recorded, Revised, Receipted):
    owner = owner_key("memory_nodes")
    label = models.CharField(max_length=200)
    canonical_key = models.CharField(max_length=200, help_text="canonical_key(label)")
    category = models.CharField(max_length=32, choices=Category.choices, default=Category.OTHER)
    state = models.CharField(max_length=16, choices=NodeState.choices, default=NodeState.ACTIVE)
    summary = models.TextField(blank=True, default="")
    origin = models.CharField(
        max_length=16, choices=NodeOrigin.choices, default=NodeOrigin.EXTRACTED
    )
    mention_count = models.PositiveIntegerField(default=1)
    session_count = models.PositiveIntegerField(default=1)
    last_seen_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "category", "canonical_key"], name="memory_node_unique_key"
            ),
            models.CheckConstraint(
                condition=~Q(canonical_key=""), name="memory_node_key_not_empty"
            ),
        ]
        indexes = [
            models.Index(fields=["owner", "canonical_key"], name="memory_node_owner_key"),
            # memory.recall.loaders.load_profile_nodes: a profile question's first nodes of a
            # category, by state, in the lane's order (and, by its prefix, the browser's
            # facet counts by category and state).
            models.Index(
                fields=["owner", "category", "state", "-last_seen_at", "-mention_count", "id"],
                name="memory_node_profile_cat",
            ),
            # the same for "tell me about me": every category
            models.Index(
                fields=["owner", "state", "-last_seen_at", "-mention_count", "id"],
                name="memory_node_profile",
            ),
            models.Index(fields=["owner", "-updated_at"], name="memory_node_owner_upd"),
            # memory.selectors.node_list: the memory browser pages the owner's nodes by label.
            models.Index(fields=["owner", "label", "id"], name="memory_node_owner_label"),
            # memory.selectors.graph_data: the graph's most-mentioned nodes, all of them and
            # of one category.
            models.Index(
                fields=["owner", "-mention_count", "label", "id"], name="memory_node_graph"
            ),
            models.Index(
                fields=["owner", "category", "-mention_count", "label", "id"],
                name="memory_node_graph_cat",
            ),
        ]
        ordering = ["label"]

    def __str__(self) -> str:
        return self.label


class Alias(Recorded, Revised):
    owner = owner_key("memory_aliases")
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="aliases")
    alias = models.CharField(max_length=200)
    canonical_key = models.CharField(max_length=200)

    class Meta:
        verbose_name_plural = "aliases"
        constraints = [
            # An alias names exactly one node of its owner: otherwise recall could not tell
            # two identities apart by it.
            models.UniqueConstraint(
                fields=["owner", "canonical_key"], name="memory_alias_unique_key"
            ),
            models.CheckConstraint(
                condition=~Q(canonical_key=""), name="memory_alias_key_not_empty"
            ),
        ]
        ordering = ["alias"]

    def __str__(self) -> str:
        return self.alias


class Slice(Recorded, Revised, Receipted):
    owner = owner_key("memory_slices")
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="slices")
    text = models.TextField()
    kind = models.CharField(max_length=32, choices=SliceKind.choices, default=SliceKind.OTHER)
    is_current = models.BooleanField(default=True)
    superseded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["node", "kind", "is_current"], name="memory_slice_node_kind"),
            # Recall reads the current slices of a few nodes by owner and node.
            models.Index(fields=["owner", "node", "is_current"], name="memory_slice_owner_node"),
            # A node's facts are paged by position (memory.selectors.node_slices_page).
            models.Index(fields=["node", "created_at", "id"], name="memory_slice_node_created"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.text[:80]


class Event(Owned, Revised, Receipted):
    owner = owner_key("memory_events")
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="events")
    action = models.CharField(max_length=32, choices=EventAction.choices, default=EventAction.OTHER)
    text = models.TextField()
    importance = models.CharField(
        max_length=32, choices=Importance.choices, default=Importance.ORDINARY
    )
    happened_at = models.DateTimeField(
        null=True, blank=True, help_text="When it happened; NULL when unknown, never 'now'."
    )
    happened_at_precision = models.CharField(
        max_length=8, choices=TimePrecision.choices, blank=True, default=""
    )
    happened_at_source = models.CharField(
        max_length=16, choices=TimeSource.choices, default=TimeSource.UNKNOWN
    )
    created_at = models.DateTimeField(default=timezone.now, help_text="When ume learned it.")

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(happened_at__isnull=True, happened_at_precision="")
                | Q(happened_at__isnull=False) & ~Q(happened_at_precision=""),
                name="memory_event_precision_with_date",
            ),
        ]
        indexes = [
            models.Index(fields=["node", "-created_at"], name="memory_event_node_created"),
            # Recall reads the recent events of a few nodes by owner and node.
            models.Index(fields=["owner", "node"], name="memory_event_owner_node"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.text[:80]


class Edge(Recorded, Revised, Receipted):
    owner = owner_key("memory_edges")
    from_node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="edges_out")
    to_node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="edges_in")
    type = models.CharField(max_length=32, choices=EdgeType.choices)
    label = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text='The relation as it was named ("works on"), kept beside its type.',
    )

    class Meta:
        constraints = [
            # Two relations of one type may differ by name ("works on", "leads").
            models.UniqueConstraint(
                fields=["owner", "from_node", "to_node", "type", "label"],
                name="memory_edge_unique_named",
            ),
            models.CheckConstraint(
                condition=~Q(from_node=models.F("to_node")), name="memory_edge_no_self_loop"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.from_node_id} {self.type} {self.to_node_id}"


class Page(Recorded, Revised, Receipted):
    """A note page: a longer piece of memory (a conversation summary, a design note)."""

    owner = owner_key("memory_pages")
    title = models.CharField(max_length=200)
    canonical_key = models.CharField(max_length=200)
    topic = models.CharField(max_length=200, blank=True, default="")
    summary = models.TextField(blank=True, default="")
    body = models.TextField(blank=True, default="")
    node = models.ForeignKey(
        Node, null=True, blank=True, on_delete=models.SET_NULL, related_name="pages"
    )
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "canonical_key"], name="memory_page_unique_key"
            ),
        ]
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title


#: The details a person may correct one by one, by the name used in URLs and receipts (the
#: nouns people use for them are ``memory.vocab.DETAIL_NOUNS``).
DETAIL_KINDS: dict[str, type[models.Model]] = {
    "slice": Slice,
    "event": Event,
    "alias": Alias,
    "edge": Edge,
}
