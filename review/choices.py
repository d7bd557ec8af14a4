"""The option lists every card of the review queue renders, built once per process (a page
shows up to 50 cards, each with its selects)."""

from __future__ import annotations

from dashboard.options import select_options
from memory.vocab import Category, NodeState

CHOICES = {
    "categories": Category.choices,
    "states": NodeState.choices,
    # The option lists of each card's selects, built once (a page shows 50 cards).
    "category_options": select_options(Category.choices),
    "state_options": select_options(NodeState.choices, capfirst=True)[NodeState.ACTIVE],
    # "Suppress for ..." of every card and of the bulk form.
    "until_options": select_options(
        [("forever", "ever"), ("month", "a month"), ("week", "a week")]
    )[""],
}
