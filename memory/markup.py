"""Markup read as text: HTML and Markdown in a transcript or a label become plain words.

Pure string work shared by the extractors (a message is read as text before it is split into
sentences, so evidence quotes stay readable), the gate's label check and :func:`canonical_key`.
It is deliberately separate from :mod:`memory.transcripts`, which decides who said what; this
module only decides what the words are.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

# A tag: <b>, </p>, <br/>, <a href="...">. "a < b" and "<3" are not tags.
TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_BLOCK_TAG = re.compile(
    r"</?(?:p|div|br|li|ul|ol|tr|td|th|table|h[1-6]|blockquote|pre|section|article|hr)\b[^<>]*>",
    re.IGNORECASE,
)
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z]+);")
_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]+)\]\((?:[^()\s]+)\)")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE)
_MD_QUOTE = re.compile(r"^\s{0,3}>\s?", re.MULTILINE)
# Emphasis around a run of words: **bold**, __bold__, *em*, _em_, `code`, ~~struck~~.
_MD_EMPHASIS = re.compile(
    r"(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1|(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])|"
    r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])|`([^`\n]+)`"
)


def _emphasis(match: re.Match[str]) -> str:
    return next(group for group in match.groups()[1:] if group is not None)


def has_markup(text: str) -> bool:
    return bool(TAG.search(text) or _ENTITY.search(text))


_FENCE = re.compile(r"(```.*?(?:```|$))", re.DOTALL)


# A message is read as text by each reader of a transcript (the rules, the subjects, the
# names typed in it): the last few hundred are kept, up to this length each.
_CACHED_LENGTH = 20_000


def markup_to_text(text: str) -> str:
    """HTML and Markdown as plain text: tags dropped (block tags end a line), entities decoded,
    links reduced to their text, emphasis and heading marks dropped. Bullets and fenced code
    blocks are kept as they are (the sentence splitter reads bullets and skips code). Plain
    text comes back unchanged."""
    if not text:
        return text
    if len(text) <= _CACHED_LENGTH:
        return _markup_to_text_kept(text)
    return _markup_to_text(text)


@lru_cache(maxsize=512)
def _markup_to_text_kept(text: str) -> str:
    return _markup_to_text(text)


def _markup_to_text(text: str) -> str:
    parts = _FENCE.split(text)
    return "\n".join(
        part if part.startswith("```") else _plain(part) for part in parts if part.strip()
    ).strip()


# A character every mark below starts or ends with: a text without one has no markup.
_MARK = re.compile(r"[<&\[#>*_~`]")


def _plain(text: str) -> str:
    if not _MARK.search(text):
        return _spaced(text)
    out = _BLOCK_TAG.sub("\n", text) if TAG.search(text) else text
    out = TAG.sub("", out)
    out = html.unescape(out) if _ENTITY.search(out) else out
    out = _MD_IMAGE.sub(r"\1", out)
    out = _MD_LINK.sub(r"\1", out)
    out = _MD_HEADING.sub("", out)
    out = _MD_QUOTE.sub("", out)
    out = _MD_EMPHASIS.sub(_emphasis, out)
    return _spaced(out)


_SPACES = re.compile(r"[ \t]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def _spaced(text: str) -> str:
    """Runs of spaces and tabs as one space, blank lines dropped, the ends stripped."""
    return _BLANK_LINES.sub("\n", _SPACES.sub(" ", text)).strip()


def label_text(label: str) -> str:
    """A label with balanced markup removed ("<b>R&amp;D Tracker</b>" -> "R&D Tracker"). A tag
    left open or closed alone ("<b>R", "D Tracker</b>") is kept, so the label check sees a cut
    name for what it is."""
    text = html.unescape(label) if _ENTITY.search(label) else label
    tags = TAG.findall(text)
    opened = [t for t in tags if not t.startswith("</") and not t.endswith("/>")]
    closed = [t for t in tags if t.startswith("</")]
    if tags and len(opened) == len(closed):
        text = TAG.sub("", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_EMPHASIS.sub(_emphasis, text)
    return " ".join(text.split())
