"""A deterministic layout of nodes and edges for a server-rendered SVG graph.

Pure: takes plain node and edge tuples, returns positions. Nodes of one category sit in a
cluster (a sunflower spiral, most-mentioned in the middle); the clusters sit on a ring.
No randomness, so the same memory always draws the same picture.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

GOLDEN_ANGLE = math.pi * (3 - math.sqrt(5))
SPACING = 56.0  # distance scale between neighbours in a cluster
PAD = 24.0  # around the drawing
LABEL_HALF = 60.0  # half the width of a node's label, roughly


@dataclass(frozen=True)
class NodeIn:
    id: int
    label: str
    category: str
    state: str
    mentions: int


@dataclass(frozen=True)
class PlacedNode:
    id: int
    label: str
    short: str
    category: str
    state: str
    x: float
    y: float
    r: float


@dataclass(frozen=True)
class PlacedEdge:
    x1: float
    y1: float
    x2: float
    y2: float
    type: str
    title: str


@dataclass(frozen=True)
class ClusterLabel:
    x: float
    y: float
    text: str


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    nodes: tuple[PlacedNode, ...]
    edges: tuple[PlacedEdge, ...]
    clusters: tuple[ClusterLabel, ...]


def _radius(mentions: int) -> float:
    return round(7 + 2.5 * math.log2(max(1, mentions)), 1)


def _short(label: str, limit: int = 18) -> str:
    return label if len(label) <= limit else label[: limit - 1].rstrip() + "…"


def _cluster_radius(count: int) -> float:
    """How far a cluster's spiral reaches, plus room for the labels under the nodes."""
    return SPACING * 0.95 * math.sqrt(max(count - 1, 0)) + 26


def layout_graph(
    nodes: Sequence[NodeIn],
    edges: Sequence[tuple[int, int, str]],
    *,
    category_labels: dict[str, str],
) -> Layout:
    """Place ``nodes`` (clustered by category) and the ``edges`` (from id, to id, type) among them."""
    if not nodes:
        return Layout(320, 160, (), (), ())
    groups: dict[str, list[NodeIn]] = {}
    for node in sorted(nodes, key=lambda n: (-n.mentions, n.label.lower(), n.id)):
        groups.setdefault(node.category, []).append(node)
    order = sorted(groups, key=lambda c: (-len(groups[c]), c))
    radii = [_cluster_radius(len(groups[c])) for c in order]
    # Clusters on a ring just big enough for them to sit side by side.
    slots = [max(2 * r + 40, 130.0) for r in radii]  # room for the category name too
    circumference = sum(slots)
    ring = 0.0 if len(order) == 1 else circumference / (2 * math.pi)
    centres: list[tuple[float, float]] = []
    travelled = 0.0
    for slot in slots:
        angle = (travelled + slot / 2) / circumference * 2 * math.pi - math.pi / 2
        centres.append((ring * math.cos(angle), ring * math.sin(angle)))
        travelled += slot
    extent = ring + max(radii)
    placed: list[PlacedNode] = []
    labels: list[ClusterLabel] = []
    for category, (cx, cy), r in zip(order, centres, radii, strict=True):
        for i, node in enumerate(groups[category]):
            dist = SPACING * math.sqrt(i) * 0.95
            theta = i * GOLDEN_ANGLE
            x, y = cx + dist * math.cos(theta) + extent, cy + dist * math.sin(theta) + extent
            placed.append(
                PlacedNode(
                    node.id,
                    node.label,
                    _short(node.label),
                    node.category,
                    node.state,
                    round(x, 1),
                    round(y, 1),
                    _radius(node.mentions),
                )
            )
        labels.append(
            ClusterLabel(
                round(cx + extent, 1),
                round(cy + extent - r - 4, 1),
                category_labels.get(category, category),
            )
        )
    # Crop to what is drawn (nodes, their labels, the category names), plus a margin.
    left = min([p.x - LABEL_HALF for p in placed] + [c.x - LABEL_HALF for c in labels]) - PAD
    top = min([p.y - p.r for p in placed] + [c.y - 14 for c in labels]) - PAD
    right = max(p.x + LABEL_HALF for p in placed) + PAD
    bottom = max(p.y + p.r + 16 for p in placed) + PAD
    placed = [
        PlacedNode(
            p.id,
            p.label,
            p.short,
            p.category,
            p.state,
            round(p.x - left, 1),
            round(p.y - top, 1),
            p.r,
        )
        for p in placed
    ]
    labels = [ClusterLabel(round(c.x - left, 1), round(c.y - top, 1), c.text) for c in labels]
    where = {p.id: p for p in placed}
    placed_edges = tuple(
        PlacedEdge(a.x, a.y, b.x, b.y, kind, f"{a.label} {kind.replace('_', ' ')} {b.label}")
        for source, dest, kind in edges
        if (a := where.get(source)) is not None and (b := where.get(dest)) is not None
    )
    return Layout(int(right - left), int(bottom - top), tuple(placed), placed_edges, tuple(labels))
