"""A ChatGPT export as a person's account produces it, for the import benchmark
(``python -m eval.bench --import-export 2000:54388``).

Pure generation: :func:`chatgpt_conversations` writes ``conversations`` conversations holding
exactly ``messages`` messages in ChatGPT's ``conversations.json`` shape (a ``mapping`` tree
from a root without a message, a hidden system message, then the person and the assistant in
turn, with times), from a seed. The person talks about their life (:mod:`eval.bench_corpus`:
people, places, dates, things) and asks for help (code, recipes, travel, writing); the
assistant answers at ChatGPT's length, a few paragraphs and a list. :func:`write_export`
streams them to a file as one JSON array.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from eval.bench_corpus import FIRST_NAMES, STATEMENTS, fact_slots

ASKS = (
    "can you help me write a python function that {task}?",
    "what is a good recipe for {dish} that takes under 30 minutes?",
    "I'm planning three days in {place}, what should I not miss?",
    "how do I explain {topic} to someone who has never heard of it?",
    "rewrite this so it sounds friendlier: I need the {thing} report by Friday.",
    "why does my {thing} make a clicking noise when it starts?",
    "ok, and what if I want to {task} without a library?",
    "thanks, that worked",
    "can you make it shorter?",
)
TASKS = (
    "parses dates from a csv file",
    "removes duplicates from a list",
    "reads a large json file line by line",
    "retries a web request three times",
    "sorts people by surname",
)
DISHES = ("lentil soup", "a mushroom risotto", "pad thai", "shakshuka", "banana bread")
TOPICS = ("compound interest", "a vector database", "inflation", "photosynthesis", "a mortgage")
ANSWER_OPENINGS = (
    "Good question. Here is a way to think about it, step by step.",
    "Sure! Below is an approach that works well in most cases.",
    "Here is a short plan you can follow, with a few options at the end.",
)
ANSWER_POINTS = (
    "Start with the simplest version that works, then measure before changing anything.",
    "Keep the ingredients or inputs ready before you begin, it saves a lot of time later.",
    "If something fails, read the first error message carefully: it usually names the cause.",
    "Write down what you tried, so you can go back to the last version that worked.",
    "Ask the people involved early, because plans change more often than we expect.",
    "Check the weather and opening hours the day before, especially on public holidays.",
    "A small test with real data tells you more than a long discussion about it.",
    "Use clear names for everything, future you will be grateful when reading it again.",
)
ANSWER_CLOSINGS = (
    "Let me know if you want me to go deeper into any of these points.",
    "Would you like a version adapted to your situation?",
    "I hope this helps, and good luck!",
)


def _ask(rng: random.Random) -> str:
    slots = fact_slots(rng, {name: (name, "friend") for name in FIRST_NAMES})
    if rng.random() < 0.45:
        said, _reply = STATEMENTS[rng.choice(sorted(STATEMENTS))]
        return said.format(**slots)
    return rng.choice(ASKS).format(
        task=rng.choice(TASKS),
        dish=rng.choice(DISHES),
        place=slots["C"],
        topic=rng.choice(TOPICS),
        thing=slots["T"],
    )


def _answer(rng: random.Random) -> str:
    points = rng.sample(ANSWER_POINTS, rng.randint(3, 6))
    body = "\n".join(f"{i}. {point}" for i, point in enumerate(points, start=1))
    extra = " ".join(rng.sample(ANSWER_POINTS, 3))
    return f"{rng.choice(ANSWER_OPENINGS)}\n\n{body}\n\n{extra}\n\n{rng.choice(ANSWER_CLOSINGS)}"


def _sizes(conversations: int, messages: int, rng: random.Random) -> list[int]:
    """Messages per conversation, at least one each, summing to ``messages`` (most are
    short, a few long, as in a real account)."""
    if conversations < 1 or messages < conversations:
        raise ValueError("an export needs at least one message per conversation")
    weights = [rng.paretovariate(1.6) for _ in range(conversations)]
    spare = messages - conversations
    sizes = [1 + int(spare * w / sum(weights)) for w in weights]
    for i in rng.sample(range(conversations), messages - sum(sizes)):
        sizes[i] += 1
    return sizes


def _node(node_id: str, parent: str | None, message: dict[str, Any] | None) -> dict[str, Any]:
    return {"id": node_id, "message": message, "parent": parent, "children": []}


def _id(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128)))


def _message(
    role: str, text: str, when: datetime, rng: random.Random, *, hidden: bool = False
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"is_visually_hidden_from_conversation": True} if hidden else {}
    return {
        "id": _id(rng),
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": when.timestamp(),
        "update_time": None,
        "content": {"content_type": "text", "parts": [text]},
        "status": "finished_successfully",
        "end_turn": role == "assistant" or None,
        "weight": 1.0,
        "metadata": metadata,
        "recipient": "all",
    }


def conversation(n: int, size: int, start: datetime, rng: random.Random) -> dict[str, Any]:
    """One conversation of ``size`` messages, the person first."""
    root = _id(rng)
    mapping = {root: _node(root, None, None)}
    parent = root
    when = start
    turns = [("system", "", True)] + [
        ("user", _ask(rng), False) if i % 2 == 0 else ("assistant", _answer(rng), False)
        for i in range(size)
    ]
    for role, text, hidden in turns:
        node_id = _id(rng)
        mapping[node_id] = _node(node_id, parent, _message(role, text, when, rng, hidden=hidden))
        mapping[parent]["children"].append(node_id)
        parent = node_id
        when += timedelta(seconds=rng.randint(5, 240))
    return {
        "title": f"Chat {n + 1}: {rng.choice(TOPICS)}",
        "create_time": start.timestamp(),
        "update_time": when.timestamp(),
        "mapping": mapping,
        "current_node": parent,
        "conversation_id": _id(rng),
        "id": _id(rng),
        "moderation_results": [],
        "default_model_slug": "gpt-4o",
    }


def chatgpt_conversations(
    conversations: int, messages: int, rng: random.Random
) -> Iterator[dict[str, Any]]:
    """``conversations`` conversations of ``messages`` messages in all, over two years."""
    sizes = _sizes(conversations, messages, rng)
    start = datetime(2024, 1, 1, 8, 0, tzinfo=UTC)
    step = timedelta(days=730) / conversations
    for n, size in enumerate(sizes):
        yield conversation(n, size, start + n * step, rng)


def write_export(path: str, conversations: int, messages: int, seed: int) -> int:
    """The export as ``conversations.json`` at ``path``; returns its size in bytes."""
    rng = random.Random(seed)
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write("[")
        for i, item in enumerate(chatgpt_conversations(conversations, messages, rng)):
            chunk = ("," if i else "") + json.dumps(item)
            out.write(chunk)
            written += len(chunk.encode("utf-8"))
        out.write("]")
    return written + 2
