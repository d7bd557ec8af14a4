"""Google Takeout's Gemini activity -> conversations: pure parsing, no database.

``My Activity/Gemini Apps/MyActivity.json`` is a JSON list of activity records, newest first::

    {"header": "Gemini Apps", "title": "Prompted <what the person typed>",
     "time": "2025-05-01T10:00:00.123Z", "products": ["Gemini Apps"],
     "safeHtmlItem": [{"html": "<p>the answer, as HTML</p>"}], ...}

A record whose title starts with ``Prompted`` is one exchange: the person's prompt (a user
message) and Gemini's answer (an assistant message, its HTML read as text by the standard
library's HTML parser, never by patterns). Every other record (``Created Gem``, ``Used ...``,
settings changes) is not part of a conversation: it is skipped and counted as ``activity``.

Takeout gives no conversation id, so conversations are rebuilt from time: consecutive prompts
(in the file's order) less than :data:`GAP` apart are one conversation. Gemini's own chats are
not recorded, but a person who comes back after a pause usually starts another topic, and a
time gap keeps a day of questions from becoming one huge transcript. Each conversation is
named by its first prompt, dated by its first and last, and every message keeps its own time.
A conversation also ends at :data:`~memory.transcripts.MAX_MESSAGES` messages or at the
per-conversation byte limit, so each one stays within what a transcript may hold.

Message ids are made of the record's time and a digest of the prompt, and a conversation's id
is the time of its first prompt: a later Takeout of the same account gives the same ids, so a
conversation that went on is stored with only its new messages.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from html.parser import HTMLParser
from typing import Any

from memory.imports.formats import Conversation, ImportFormatError, parse_time
from memory.transcripts import MAX_MESSAGES

GAP = timedelta(minutes=30)
PROMPTED = "Prompted"
TITLE_CHARS = 80
# Elements whose text is not the answer's (code that would run, styling, the page's head).
_HIDDEN_TAGS = {"script", "style", "head", "title", "template", "noscript", "svg", "math"}
_BLOCK_TAGS = {
    "p",
    "div",
    "br",
    "hr",
    "ul",
    "ol",
    "table",
    "tr",
    "pre",
    "blockquote",
    "section",
    "article",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
}
_VOID_TAGS = {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "wbr"}


class _TextParser(HTMLParser):
    """HTML as text: the data of every visible element, block elements on lines of their own,
    list items as ``- `` bullets. Entities are decoded by the parser itself."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN_TAGS:
            self.hidden += 1
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag in _BLOCK_TAGS or tag in {"td", "th"}:
            self.parts.append("\n" if tag not in {"td", "th"} else " ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN_TAGS:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BLOCK_TAGS or tag == "li":
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    """The visible text of an HTML fragment, one line per block, blank lines collapsed."""
    parser = _TextParser()
    parser.feed(markup)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line and line != "-")


def _answer(record: dict[str, Any]) -> str:
    items = record.get("safeHtmlItem")
    texts = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("html"), str):
            texts.append(html_to_text(item["html"]))
    return "\n".join(t for t in texts if t).replace("\x00", "").strip()


def _prompt(title: str) -> str:
    return title[len(PROMPTED) :].replace("\x00", "").strip()


def _message_id(moment: datetime, prompt: str, role: str) -> str:
    digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:10]
    return f"{moment:%Y%m%dT%H%M%S.%f}-{digest}-{role[0]}"


class _Grouper:
    """The conversation being gathered: its prompts (record, time, text, answer) and the
    counts of what was skipped since the last conversation was handed out."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.turns: list[tuple[datetime, str, str, int]] = []  # time, prompt, answer, files
        self.size = 0
        self.skipped: Counter[str] = Counter()

    def fits(self, moment: datetime, size: int) -> bool:
        if not self.turns:
            return True
        last = self.turns[-1][0]
        return (
            abs(moment - last) <= GAP
            and len(self.turns) * 2 + 2 <= MAX_MESSAGES
            and self.size + size <= self.max_bytes
        )

    def add(self, moment: datetime, prompt: str, answer: str, files: int) -> None:
        self.turns.append((moment, prompt, answer, files))
        self.size += len(prompt.encode("utf-8")) + len(answer.encode("utf-8")) + 200

    def take(self) -> Conversation:
        """The gathered prompts as one conversation, in time order; the gatherer is emptied."""
        turns = sorted(self.turns, key=lambda turn: turn[0])
        first, last = turns[0][0], turns[-1][0]
        title = " ".join(turns[0][1].split())
        if len(title) > TITLE_CHARS:
            title = title[: TITLE_CHARS - 1].rstrip() + "…"
        conv = Conversation(
            external_id=first.isoformat(),
            title=title or f"Gemini ({first.date().isoformat()})",
            created_at=first,
            updated_at=last,
            skipped=self.skipped,
        )
        for moment, prompt, answer, files in turns:
            conv.attachments += files
            when = moment.isoformat()
            conv.messages.append(
                {
                    "id": _message_id(moment, prompt, "user"),
                    "role": "user",
                    "content": prompt,
                    "ts": when,
                }
            )
            if answer:
                conv.messages.append(
                    {
                        "id": _message_id(moment, prompt, "assistant"),
                        "role": "assistant",
                        "content": answer,
                        "ts": when,
                    }
                )
            else:
                conv.skipped["no answer"] += 1
        self.turns, self.size, self.skipped = [], 0, Counter()
        return conv


def gemini_conversations(
    elements: Iterable[Any], *, max_element_bytes: int
) -> Iterator[tuple[int, Conversation | ImportFormatError]]:
    """(position, conversation or the error it alone failed with) from the records of
    ``MyActivity.json``, in the file's order.

    A record over the element limit fails alone (the conversation around it is closed first).
    Records that are no prompt are counted on the conversation being gathered when they come;
    when the file holds none, they are handed out on an empty conversation, so the import
    still counts them.
    """
    group = _Grouper(max_element_bytes)
    position = 0
    for element in elements:
        if isinstance(element, ImportFormatError):
            if group.turns:
                yield position, group.take()
                position += 1
            yield position, ImportFormatError(f"activity record: {element}")
            position += 1
            continue
        if not isinstance(element, dict) or not isinstance(element.get("title"), str):
            group.skipped["unreadable"] += 1
            continue
        title = element["title"]
        if title != PROMPTED and not title.startswith(PROMPTED + " "):
            group.skipped["activity"] += 1  # a Gem created, an app used, a setting changed
            continue
        moment = parse_time(element.get("time"))
        prompt = _prompt(title)
        if moment is None or not prompt:
            group.skipped["no time" if moment is None else "empty"] += 1
            continue
        answer = _answer(element)
        files = element.get("attachedFiles")
        size = len(prompt.encode("utf-8")) + len(answer.encode("utf-8")) + 200
        if not group.fits(moment, size):
            yield position, group.take()
            position += 1
        group.add(moment, prompt, answer, len(files) if isinstance(files, list) else 0)
    if group.turns:
        yield position, group.take()
    elif group.skipped:
        yield (
            position,
            Conversation(
                external_id="",
                title="Gemini activity",
                created_at=None,
                updated_at=None,
                skipped=group.skipped,
            ),
        )
