"""The streamed reader of big JSON arrays (memory/imports/jsonstream.py)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap

import pytest

from memory.imports.jsonstream import (
    MAX_DEPTH,
    ImportFormatError,
    head_events,
    iter_json_array,
)


def read(data: bytes, limit: int = 1000) -> list[object]:
    return list(iter_json_array(io.BytesIO(data), max_element_bytes=limit))


def test_elements_of_every_kind_come_back_as_json_reads_them() -> None:
    items = [{"a": [1, 2.5, None, True]}, [], {}, "text", 7, False, None, {"é": "ü"}]
    assert read(json.dumps(items).encode()) == json.loads(json.dumps(items))


def test_an_empty_list_has_no_elements_and_a_byte_order_mark_is_allowed() -> None:
    assert read(b"\xef\xbb\xbf  [ ]\n") == []


def test_an_escaped_export_and_a_plain_one_fail_at_the_same_conversation() -> None:
    # The size is the content's, not the raw bytes': "\u00e9" is one character, not six.
    text = "é" * 600
    plain = json.dumps([{"t": text}], ensure_ascii=False).encode()
    escaped = json.dumps([{"t": text}], ensure_ascii=True).encode()
    assert len(escaped) > 3 * 1000 > len(plain) / 2
    assert read(plain) == read(escaped) == [{"t": text}]


def test_a_long_string_element_fails_alone() -> None:
    first, second = read(json.dumps(["x" * 1500, "short"]).encode())
    assert isinstance(first, ImportFormatError) and "over 1,000 bytes" in str(first)
    assert second == "short"


def test_one_value_too_long_to_hold_stops_the_reading_keeping_what_came_before() -> None:
    data = b'[{"a": 1}, {"b": "' + b"y" * 200_000 + b'"}, {"c": 3}]'
    seen = []
    with pytest.raises(ImportFormatError, match="conversation 2 holds one value over 1,000"):
        for item in iter_json_array(io.BytesIO(data), max_element_bytes=1000):
            seen.append(item)
    assert seen == [{"a": 1}]


def test_nesting_deeper_than_the_limit_is_malformed_and_names_the_conversation() -> None:
    deep = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    data = ('[{"a": 1}, ' + deep + "]").encode()
    seen = []
    with pytest.raises(ImportFormatError, match="conversation 2: nested too deeply"):
        for item in iter_json_array(io.BytesIO(data), max_element_bytes=10**7):
            seen.append(item)
    assert seen == [{"a": 1}]


def test_the_parsers_complaint_never_quotes_the_file() -> None:
    with pytest.raises(ImportFormatError) as caught:
        read(b'[{"secret": "hunter2"} {"b": 2}]')
    assert "hunter2" not in str(caught.value) and "\n" not in str(caught.value)


def test_trailing_text_after_the_list_is_malformed() -> None:
    with pytest.raises(ImportFormatError, match="after conversation 1"):
        read(b'[{"a": 1}] {"b": 2}')


def test_head_events_stop_quietly_where_the_bytes_end() -> None:
    data = b'[{"mapping": {"a": "' + b"z" * 5000 + b'"}}]'
    events = list(head_events(io.BytesIO(data), max_bytes=100))
    assert ("item", "map_key", "mapping") in events
    assert all(event != "end_array" for _, event, _ in events)


def test_an_element_far_over_the_limit_is_skipped_in_bounded_memory() -> None:
    # Measured in a process of its own: tracemalloc counts every thread of the process.
    script = textwrap.dedent(
        """
        import io, json, tracemalloc
        from memory.imports.jsonstream import iter_json_array
        big = {"messages": [{"text": "w" * 1000} for _ in range(20_000)]}  # ~20 MB
        data = json.dumps([big, {"ok": 1}]).encode()
        stream = io.BytesIO(data)
        tracemalloc.start()
        items = list(iter_json_array(stream, max_element_bytes=100_000))
        peak = tracemalloc.get_traced_memory()[1]
        print(json.dumps({"peak": peak, "size": len(data), "last": items[-1],
                          "first": type(items[0]).__name__}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    figures = json.loads(done.stdout)
    assert figures["first"] == "ImportFormatError" and figures["last"] == {"ok": 1}
    assert figures["peak"] < figures["size"] / 20, figures
