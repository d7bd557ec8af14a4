"""A strict JSON body parser: UTF-8 only, clear messages, no crash on hostile nesting."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest
from ninja.parser import Parser

from api.errors import BodyError


class StrictJSONParser(Parser):
    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        raw = request.body  # RequestDataTooBig here becomes a 413
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BodyError(f"the body is not UTF-8 (byte {exc.start}); send UTF-8 JSON") from exc
        try:
            data = json.loads(text)
        except RecursionError as exc:
            raise BodyError("the JSON is nested too deeply") from exc
        except json.JSONDecodeError as exc:
            raise BodyError(
                f"malformed JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
            ) from exc
        if not isinstance(data, dict):
            raise BodyError("the body must be a JSON object")
        try:  # a lone surrogate escape ("\\ud800") parses, but no database can store it
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise BodyError(
                "the JSON holds a lone surrogate escape (\\ud800-\\udfff); send valid Unicode"
            ) from exc
        return data
