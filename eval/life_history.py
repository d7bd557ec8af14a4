"""A life's chat history, generated: ``python -m eval.life_history --seed 7 --conversations
2000 --out conversations.json [--manifest subjects.json]``.

One seed is one person: a partner, a sister (later a niece), friends, two managers, a dog and
later a cat, a move from one city to another with a change of job, two health problems (one
that heals), hobbies (one dropped), a side project, a language learnt after the move, a tool,
a few trips and a handful of people met once. Their conversations with an assistant span
four and a half years, more of them in the later years, mostly in the evenings. Most of them
are the everyday help real histories are made of (code, recipes, emails, explanations) and
name nothing of the person's life; about one in four asks for help with something of it, and
names it on the way ("my sister Ana is getting married in June..."). Subjects recur while
they are part of the life, by weight; the people met once come up once.

The output is a ChatGPT ``conversations.json`` as ume's importer reads it
(:mod:`memory.imports.formats`): each conversation a ``mapping`` tree from a
``client-created-root``, with a hidden system message, sometimes the custom instructions, an
edited first message kept as a side branch, an uploaded image, a call to the browsing tool;
every message with its own ``create_time``. People type in their own ways: as written, all in
lower case, hurried ("pls", "u", no apostrophes), or with a slip of the fingers.

The manifest lists every subject with the words a card naming it may use, and the
conversations and user messages that mention it: :mod:`eval.triage` matches the review
queue's cards against it. Everything is drawn from ``random.Random(seed)``: the same seed and
size give the same bytes. Pure Python, no Django: the sentences are in :mod:`eval.life_phrases`.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from eval import life_phrases as P

START = datetime(2021, 3, 1, tzinfo=UTC)
END = datetime(2025, 9, 30, tzinfo=UTC)
LIFE_SHARE = 0.27  # conversations that ask for help with something of the person's life
SECOND_SUBJECT = 0.2  # ... and that bring up a second subject of it
FOLLOW_UP = 0.45

Bank = list[tuple[str, str]]


@dataclass
class Subject:
    """One thing of the person's life: what it is called, the other words a card naming it
    may carry ("greyhound", "class"), when it is part of the life and how often it comes up.
    ``intro`` is said the first time it comes up, ``outro`` once near its end."""

    id: str
    kind: str
    name: str
    words: frozenset[str]
    start: float  # share of the span
    end: float
    weight: float
    bank: Bank
    slots: dict[str, str] = field(default_factory=dict)
    intro: Bank = field(default_factory=list)
    outro: Bank = field(default_factory=list)
    conversations: list[str] = field(default_factory=list)
    mentions: int = 0
    said: list[datetime] = field(default_factory=list)
    introduced: bool = False
    ended: bool = False

    def active(self, share: float) -> bool:
        return self.start <= share <= self.end

    def manifest(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "name": self.name,
            "words": sorted(self.words),
            "conversations": len(self.conversations),
            "mentions": self.mentions,
            "first_said": min(self.said).isoformat() if self.said else None,
            "last_said": max(self.said).isoformat() if self.said else None,
        }


@dataclass
class Life:
    """The person: their subjects and the slots every sentence may use."""

    subjects: list[Subject]
    slots: dict[str, str]


def _words(*texts: str) -> frozenset[str]:
    return frozenset(w for t in texts for w in re.findall(r"[a-z0-9]+", t.lower()))


def _people(rng: random.Random) -> tuple[list[Subject], dict[str, str]]:
    names = rng.sample(P.FIRST_NAMES, 8)
    partner, sister, niece, friend1, friend2, boss1, boss2, extra = names
    surname = rng.choice(P.SURNAMES)
    subjects = [
        Subject("partner", "person", partner, _words("partner girlfriend"), 0, 1, 5, P.PARTNER),
        Subject("sister", "person", sister, _words("sister", surname), 0, 1, 3, P.SISTER),
        Subject("niece", "person", niece, _words("niece baby"), 0.72, 1, 1.5, P.NIECE),
        Subject("friend1", "person", friend1, _words("friend"), 0, 0.5, 1.5, P.FRIEND),
        Subject("friend2", "person", friend2, _words("friend"), 0.5, 1, 1.5, P.FRIEND),
        Subject("manager1", "person", boss1, _words("manager boss"), 0.04, 0.41, 1.5, P.MANAGER),
        Subject("manager2", "person", boss2, _words("manager boss"), 0.46, 1, 1.5, P.MANAGER),
    ]
    return subjects, {"partner": partner, "partner_rel": "girlfriend", "extra": extra}


def _pets(rng: random.Random) -> list[Subject]:
    dog_name, cat_name = rng.sample(P.PET_NAMES, 2)
    dog, cat = rng.choice(P.DOGS), rng.choice(P.CATS)
    return [
        Subject(
            "dog", "pet", dog_name, _words(dog, "dog puppy"), 0.18, 1, 4, P.PET,
            slots={"species": dog}, intro=P.PET_ARRIVAL,
        ),
        Subject(
            "cat", "pet", cat_name, _words(cat, "cat kitten"), 0.66, 1, 2, P.CAT,
            slots={"species": cat}, intro=P.PET_ARRIVAL,
        ),
    ]  # fmt: skip


def _work_and_places(rng: random.Random) -> list[Subject]:
    old_city, city, language = rng.choice(P.CITY_MOVES)
    old_job, new_job = rng.sample(P.EMPLOYERS, 2)
    role = rng.choice(P.ROLES)
    places = {"old_city": old_city, "city": city, "role": role}
    return [
        Subject(
            "employer1", "organization", old_job, _words("job company", role), 0, 0.41, 2.5,
            P.JOB, slots={"employer": old_job, **places}, outro=P.JOB_LEAVE,
        ),
        Subject(
            "employer2", "organization", new_job, _words("job company", role), 0.43, 1, 2.5,
            P.JOB, slots={"employer": new_job, **places}, intro=P.JOB_START,
        ),
        Subject(
            "city1", "place", old_city, _words("city"), 0, 0.42, 0.6, P.CITY,
            slots={**places, "city": old_city},
        ),
        Subject(
            "city2", "place", city, _words("city"), 0.42, 1, 2, P.CITY, slots=places,
            intro=P.MOVE,
        ),
        Subject(
            "language", "goal", language, _words("language lessons course exam"), 0.46, 1, 1.5,
            P.LANGUAGE, slots={"language": language, **places},
        ),
    ]  # fmt: skip


def _health_and_hobbies(rng: random.Random) -> list[Subject]:
    (c1, t1, seen1), (c2, t2, seen2) = rng.sample(P.CONDITIONS, 2)
    (h1, p1), (h2, p2), (h3, p3) = rng.sample(P.HOBBIES, 3)
    project, thing = rng.choice(P.PROJECTS)
    tool = rng.choice(P.TOOLS)

    def hobby(sid: str, name: str, place: str, start: float, end: float, w: float) -> Subject:
        return Subject(
            sid, "hobby", name, _words(place, "classes lessons club"), start, end, w, P.HOBBY,
            slots={"hobby": name, "place": place}, intro=P.HOBBY_START,
        )  # fmt: skip

    def health(sid: str, cond: str, treat: str, seen: str, start: float, end: float) -> Subject:
        return Subject(
            sid, "health", cond, _words("my"), start, end, 2, P.HEALTH,
            slots={"condition": cond, "treatment": treat, "seen": seen},
            intro=P.HEALTH_START, outro=P.HEALTH_END if end < 1 else [],
        )  # fmt: skip

    return [
        health("health1", c1, t1, seen1, 0.3, 0.56),
        health("health2", c2, t2, seen2, 0.8, 1),
        hobby("hobby1", h1, p1, 0.08, 1, 3),
        hobby("hobby2", h2, p2, 0.5, 1, 2),
        hobby("hobby3", h3, p3, 0.2, 0.36, 1.5),
        Subject(
            "project", "project", project, _words(thing, "app project side"), 0.35, 0.75, 2,
            P.PROJECT, slots={"thing": thing},
        ),
        Subject("tool", "tool", tool, _words("app"), 0.1, 1, 0.7, P.TOOL),
    ]  # fmt: skip


def _once(rng: random.Random, taken: set[str]) -> list[Subject]:
    """Trips and people that come up once or twice: the one-off guesses of a real queue."""
    subjects = []
    for i, place in enumerate(rng.sample(P.TRIP_PLACES, 4)):
        start = rng.uniform(0.05, 0.95)
        subjects.append(
            Subject(f"trip{i + 1}", "trip", place, _words("trip"), start, start + 0.02, 3, P.TRIP)
        )
    free = [n for n in P.FIRST_NAMES if n not in taken]
    for i, (role, said) in enumerate(rng.sample(P.ONE_OFF_PEOPLE, 5)):
        name = rng.choice(free)
        free.remove(name)
        start = rng.uniform(0.05, 0.95)
        subjects.append(
            Subject(
                f"once{i + 1}", "person", name, _words(role, "dr"), start, start + 0.01, 3,
                P.ONE_OFF, slots={"said": said.format(name=name)},
            )
        )  # fmt: skip
    return subjects


def life_from_seed(seed: int) -> Life:
    """The person of ``seed``: every subject, with its window and weight."""
    rng = random.Random(f"life:{seed}")
    people, slots = _people(rng)
    subjects = people + _pets(rng) + _work_and_places(rng) + _health_and_hobbies(rng)
    subjects += _once(rng, {s.name for s in subjects})
    years = str(rng.randint(3, 9))
    return Life(subjects, {**slots, "years": years, "age": str(rng.randint(2, 9))})


# --- the conversations -----------------------------------------------------------------------


def _times(rng: random.Random, count: int) -> list[datetime]:
    """``count`` moments over the span, more of them later (use grows), mostly evenings."""
    span = (END - START).total_seconds()
    moments = []
    for _ in range(count):
        day = START + timedelta(seconds=span * rng.random() ** 0.7)
        roll = rng.random()
        hour = rng.uniform(18, 23.5) if roll < 0.6 else rng.uniform(9, 17) if roll < 0.9 else 7
        moments.append(day.replace(hour=0, minute=0, second=0) + timedelta(hours=hour))
    return sorted(moments)


def _typo(rng: random.Random, template: str) -> str:
    """Swap two letters inside one long plain word of the template (never inside a slot)."""
    words = [m for m in re.finditer(r"(?<![{\w])[a-z]{6,}(?![\w}])", template)]
    if not words:
        return template
    word = rng.choice(words)
    i = word.start() + rng.randint(1, len(word.group()) - 3)
    return template[:i] + template[i + 1] + template[i] + template[i + 2 :]


def _styled(rng: random.Random, style: str, template: str, slots: dict[str, str]) -> str:
    if style == "typo":
        template = _typo(rng, template)
    text = template.format_map(slots)
    if style == "lower":
        return text.lower().rstrip(".")
    if style == "hurried":
        text = f" {text} "
        for long, short in P.HURRIED.items():
            text = text.replace(long, short)
        return text.strip().replace("'", "").lower()
    return text


@dataclass
class Turn:
    role: str
    text: str


@dataclass
class Draft:
    """One conversation before it is laid out as ChatGPT's tree."""

    when: datetime
    turns: list[Turn]
    subjects: list[Subject]


def _pick(rng: random.Random, subjects: Sequence[Subject], share: float) -> Subject | None:
    active = [s for s in subjects if s.active(share)]
    if not active:
        return None
    return rng.choices(active, weights=[s.weight for s in active])[0]


def _bank_for(subject: Subject, share: float) -> Bank:
    if subject.intro and not subject.introduced:
        subject.introduced = True
        return subject.intro
    subject.introduced = True
    near_end = share >= subject.start + 0.85 * (subject.end - subject.start)
    if subject.outro and near_end and not subject.ended:
        subject.ended = True
        return subject.outro
    return subject.bank


def _about(
    rng: random.Random, life: Life, subject: Subject, share: float, style: str
) -> list[Turn]:
    asked, answer = rng.choice(_bank_for(subject, share))
    month = P.MONTHS[rng.randrange(12)]
    slots = {**life.slots, **subject.slots, "name": subject.name, "month": month}
    slots.setdefault("thing", rng.choice(["pottery", "old films", "hiking", "jazz"]))
    slots.setdefault("trip", rng.choice(P.TRIP_PLACES))
    turns = [
        Turn("user", _styled(rng, style, asked, slots)),
        Turn("assistant", answer.format_map(slots)),
    ]
    if rng.random() < FOLLOW_UP:
        turns.append(Turn("user", _styled(rng, style, rng.choice(P.FOLLOW_UPS), slots)))
        turns.append(Turn("assistant", "Glad it helps. Tell me how it goes."))
    return turns


def _everyday(rng: random.Random, style: str) -> list[Turn]:
    bank = P.EVERYDAY if rng.random() < 0.8 else P.EVERYDAY_FIRST_PERSON
    asked, answer = rng.choice(bank)
    turns = [Turn("user", _styled(rng, style, asked.replace("{", "{{").replace("}", "}}"), {}))]
    turns.append(Turn("assistant", answer))
    if rng.random() < 0.3:
        plain = [f for f in P.FOLLOW_UPS if "{" not in f]
        turns += [
            Turn("user", _styled(rng, style, rng.choice(plain), {})),
            Turn("assistant", "Sure."),
        ]
    return turns


def drafts(life: Life, count: int, seed: int) -> list[Draft]:
    """The person's ``count`` conversations, in time order."""
    rng = random.Random(f"talk:{seed}")
    out = []
    span = END - START
    for when in _times(rng, count):
        share = (when - START) / span
        style = rng.choice(P.STYLES)
        subject = _pick(rng, life.subjects, share) if rng.random() < LIFE_SHARE else None
        if subject is None:
            out.append(Draft(when, _everyday(rng, style), []))
            continue
        turns, about = _about(rng, life, subject, share, style), [subject]
        second = _pick(rng, life.subjects, share) if rng.random() < SECOND_SUBJECT else None
        if second is not None and second is not subject:
            turns += _about(rng, life, second, share, style)
            about.append(second)
        out.append(Draft(when, turns, about))
    return out


# --- ChatGPT's export shape -------------------------------------------------------------------


def _uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _message(
    rng: random.Random, role: str, parts: list[Any], when: float | None, **extra: Any
) -> dict[str, Any]:
    return {
        "id": _uid(rng),
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": when,
        "update_time": None,
        "content": {"content_type": extra.pop("content_type", "text"), "parts": parts},
        "status": "finished_successfully",
        "end_turn": role == "assistant" or None,
        "weight": 1.0,
        "metadata": extra.pop("metadata", {}),
        "recipient": extra.pop("recipient", "all"),
        **extra,
    }


class _Tree:
    """A conversation's ``mapping`` being built, node by node."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.mapping: dict[str, Any] = {
            "client-created-root": {
                "id": "client-created-root",
                "message": None,
                "parent": None,
                "children": [],
            }
        }
        self.current = "client-created-root"

    def add(self, message: dict[str, Any], *, parent: str | None = None, move: bool = True) -> str:
        parent = parent or self.current
        node_id = message["id"]
        self.mapping[node_id] = {
            "id": node_id,
            "message": message,
            "parent": parent,
            "children": [],
        }
        self.mapping[parent]["children"].append(node_id)
        if move:
            self.current = node_id
        return node_id


def _preamble(tree: _Tree, rng: random.Random) -> None:
    hidden = {"is_visually_hidden_from_conversation": True}
    tree.add(_message(rng, "system", [""], None, metadata=hidden))
    if rng.random() < 0.1:
        context = _message(rng, "user", [], None, metadata=hidden)
        context["content"] = {
            "content_type": "user_editable_context",
            "user_profile": "I prefer short answers with examples.",
            "user_instructions": "Use British spelling.",
        }
        tree.add(context)


def _turn(tree: _Tree, rng: random.Random, turn: Turn, clock: float, index: int) -> None:
    if turn.role == "user" and index == 0 and rng.random() < 0.08:
        # The person edited their first message: the first version stays as a side branch.
        first = tree.current
        older = _message(rng, "user", [turn.text.split(".")[0]], clock - 40)
        tree.add(older, move=False)
        tree.add(_message(rng, "assistant", ["Could you say a bit more?"], clock - 30),
                 parent=older["id"], move=False)  # fmt: skip
        tree.current = first
    if turn.role == "user" and rng.random() < 0.04:
        image = {
            "content_type": "image_asset_pointer",
            "asset_pointer": f"file-service://file-{_uid(rng)[:8]}",
            "size_bytes": rng.randint(20_000, 900_000),
            "width": 1024,
            "height": 768,
        }
        tree.add(_message(rng, "user", [image, turn.text], clock, content_type="multimodal_text"))
        return
    if turn.role == "assistant" and rng.random() < 0.03:
        call = _message(rng, "assistant", ['search("' + turn.text[:30] + '")'], clock - 5,
                        content_type="code", recipient="browser")  # fmt: skip
        tree.add(call)
        tree.add(_message(rng, "tool", ["(results)"], clock - 3))
    tree.add(_message(rng, turn.role, [turn.text], clock))


def _title(text: str) -> str:
    words = re.findall(r"[\w'’-]+", text)[:5]
    return " ".join(w[:1].upper() + w[1:] for w in words) or "New chat"


def chatgpt_conversation(draft: Draft, rng: random.Random) -> dict[str, Any]:
    """``draft`` as one element of ChatGPT's ``conversations.json``."""
    tree = _Tree(rng)
    _preamble(tree, rng)
    clock = draft.when.timestamp()
    started = clock
    for index, turn in enumerate(draft.turns):
        clock += rng.uniform(8, 50) if turn.role == "assistant" else rng.uniform(30, 240)
        _turn(tree, rng, turn, clock, index)
    conversation_id = _uid(rng)
    return {
        "title": _title(draft.turns[0].text),
        "create_time": started,
        "update_time": clock,
        "mapping": tree.mapping,
        "moderation_results": [],
        "current_node": tree.current,
        "plugin_ids": None,
        "conversation_id": conversation_id,
        "conversation_template_id": None,
        "gizmo_id": None,
        "is_archived": False,
        "safe_urls": [],
        "default_model_slug": rng.choice(
            ["gpt-4o", "gpt-4o", "gpt-4", "text-davinci-002-render-sha"]
        ),
        "id": conversation_id,
    }


@dataclass
class History:
    """A generated history: the export and its manifest."""

    export: list[dict[str, Any]]
    manifest: dict[str, Any]


def generate(*, seed: int = 7, conversations: int = 2000) -> History:
    """The chat history of the person of ``seed``: ``conversations`` conversations."""
    if conversations < 1:
        raise ValueError("conversations must be at least 1")
    life = life_from_seed(seed)
    rng = random.Random(f"export:{seed}")
    export = []
    for draft in drafts(life, conversations, seed):
        item = chatgpt_conversation(draft, rng)
        export.append(item)
        for subject in draft.subjects:
            subject.conversations.append(item["conversation_id"])
            said = [
                t
                for t in draft.turns
                if t.role == "user" and subject.name.lower() in t.text.lower()
            ]
            subject.mentions += len(said)
            subject.said.append(draft.when)
    life_count = sum(1 for s in life.subjects for _ in s.conversations)
    manifest = {
        "seed": seed,
        "conversations": conversations,
        "life_conversations": life_count,
        "subjects": [s.manifest() for s in life.subjects if s.conversations],
    }
    return History(export, manifest)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m eval.life_history", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--out", required=True, help="where to write conversations.json")
    parser.add_argument("--manifest", help="where to write the subjects (JSON)")
    args = parser.parse_args(argv)
    if args.conversations < 1:
        parser.error("--conversations must be at least 1")
    history = generate(seed=args.seed, conversations=args.conversations)
    Path(args.out).write_text(json.dumps(history.export, ensure_ascii=False), encoding="utf-8")
    if args.manifest:
        Path(args.manifest).write_text(
            json.dumps(history.manifest, ensure_ascii=False, indent=1), encoding="utf-8"
        )
    subjects = len(history.manifest["subjects"])
    print(f"{args.out}: {args.conversations} conversations, {subjects} subjects of a life")
    return 0


if __name__ == "__main__":
    sys.exit(main())
