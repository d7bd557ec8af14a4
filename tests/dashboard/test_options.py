"""Option lists built once per process: each value selected in turn, none for a value
outside the choices, text escaped."""

from __future__ import annotations

from dashboard.options import select_options
from dashboard.templatetags.ume import options_for


def test_each_value_is_selected_in_its_own_list_and_only_there() -> None:
    options = select_options([("a", "apple"), ("b", "<b>ean")], capfirst=True)
    assert options_for(options, "b") == (
        '<option value="a">Apple</option><option value="b" selected>&lt;b&gt;ean</option>'
    )
    assert options_for(options, "a").count(" selected") == 1
    # A value the choices do not have (an edge type kept from an assistant): none selected.
    assert " selected" not in options_for(options, "zebra")
