"""Reading a golden-set file: one error type and one reader for every eval."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


class FixtureError(ValueError):
    """The fixture cannot be used; the message says what and where."""


def read_fixture_file(path: Path, validate: Callable[[Any], None]) -> Any:
    """Decode ``path`` and check it with ``validate``; every failure is a
    :class:`FixtureError` naming the file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise FixtureError(f"{path}: no such fixture file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise FixtureError(f"{path}: cannot read the fixture file ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise FixtureError(
            f"{path}: malformed JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc
    try:
        validate(data)
    except FixtureError as exc:
        raise FixtureError(f"{path}: {exc}") from exc
    return data


def naming(path: Path, error: FixtureError) -> str:
    """The error's message, naming the fixture file once (a command's error line)."""
    message = str(error)
    return message if str(path) in message else f"{path}: {message}"
