"""The graph layout is pure: same input, same picture; clusters by category; edges follow."""

from __future__ import annotations

import itertools
import math

from browser.graph_layout import NodeIn, layout_graph

LABELS = {"skill": "skill", "project": "project", "family": "family"}


def nodes(n_per_category: int) -> list[NodeIn]:
    out = []
    for c, category in enumerate(LABELS):
        for i in range(n_per_category):
            out.append(NodeIn(c * 100 + i, f"{category} {i}", category, "active", i + 1))
    return out


def test_empty_graph() -> None:
    layout = layout_graph([], [], category_labels=LABELS)
    assert layout.nodes == () and layout.edges == ()


def test_deterministic_and_inside_the_canvas() -> None:
    first = layout_graph(nodes(12), [(0, 100, "uses")], category_labels=LABELS)
    again = layout_graph(nodes(12), [(0, 100, "uses")], category_labels=LABELS)
    assert first == again
    for p in first.nodes:
        assert p.x - p.r >= 0 and p.x + p.r <= first.width
        assert p.y - p.r >= 0 and p.y + p.r <= first.height
    assert [c.text for c in first.clusters] == ["family", "project", "skill"]


def test_nodes_do_not_overlap() -> None:
    layout = layout_graph(nodes(20), [], category_labels=LABELS)
    for a, b in itertools.combinations(layout.nodes, 2):
        assert math.dist((a.x, a.y), (b.x, b.y)) > a.r + b.r


def test_edges_only_between_drawn_nodes() -> None:
    layout = layout_graph(nodes(2), [(0, 100, "uses"), (0, 999, "uses")], category_labels=LABELS)
    assert len(layout.edges) == 1
    edge = layout.edges[0]
    start = next(p for p in layout.nodes if p.id == 0)
    assert (edge.x1, edge.y1) == (start.x, start.y)
    assert edge.title == "skill 0 uses project 0"


def test_long_labels_are_shortened() -> None:
    layout = layout_graph(
        [NodeIn(1, "A very long label for a memory node", "skill", "active", 1)],
        [],
        category_labels=LABELS,
    )
    assert layout.nodes[0].short.endswith("…") and len(layout.nodes[0].short) <= 18
