"""The bench's conversations as a person has them, and the questions people ask about them.

Pure: no database. :func:`conversations` writes a person's messages (who they know, where
things happen, when, what things cost, beside small talk and the assistant's replies) from a
seed, and records each fact it states; :func:`question_sets` turns those facts into the
questions recall is timed on, 6 to 20 words each:

- ``real_first``: the person asking about their own life ("when is my sister Maya moving to
  Lisbon");
- ``real_third``: a question about someone else in it ("which book did Priya recommend from
  work");
- ``real_paraphrase``: the same facts in words the messages do not use ("which city is my
  sibling relocating to");
- ``real_never``: the same shapes about people, places and things never mentioned.

The same seed gives the same messages and questions, so a run before a change and one after
ask the same things of the same data.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

# People the person knows (first name, surname, how they know them), places and things.
FIRST_NAMES = """
Maya Priya Jonas Aisha Tomasz Elena Marcus Ingrid Kofi Lucia Rahul Sofia Dmitri Hana Mateo
Chloe Yusuf Greta Arjun Nadia Felix Amara Oskar Leila Bruno Mei Rafael Zara Emil Tessa Idris
Carmen Viktor Noor Hugo Sienna Tariq Freya Anton Lina
""".split()
SURNAMES = """
Brennan Okafor Lindqvist Moreau Haddad Kowalski Ferreira Nakamura Osei Varga Castillo Novak
Ahmed Larsen Rossi Petrov Quinn Sato Delgado Fischer
""".split()
RELATIONS = """
sister brother cousin neighbour colleague friend manager landlord coach aunt uncle flatmate
""".split()
PLACES = """
Lisbon Porto Leeds Bristol Krakow Valencia Dublin Lyon Ghent Bergen Tallinn Glasgow Seville
Utrecht Bologna Malmo Cardiff Graz Aarhus Brno Nantes Bilbao Turin Salzburg
""".split()
THINGS = """
car bike laptop camera guitar oven boiler kayak piano printer fridge phone tent drone
sewing-machine espresso-machine
""".split()
SKILLS = "pottery Portuguese climbing salsa chess sourdough woodwork watercolour".split()
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
MONTHS = """
January February March April May June July August September October November December
""".split()
ADJECTIVES = "quiet little corner rooftop riverside garden tiny busy".split()
TITLE_WORDS = "Silent Northern Glass Paper Winter Hollow Distant Copper Burning Salt".split()
TITLE_NOUNS = "Harbour Orchard Atlas Lantern River Garden Signal Mountain Archive Tide".split()

# Names, places and things no message mentions: the never-said questions ask about them.
NEVER_NAMES = "Bartholomew Ottoline Thaddeus Philippa Evander Rosalind Cornelius Wilhelmina".split()
NEVER_PLACES = "Reykjavik Vilnius Trieste Zagreb Kaunas Innsbruck".split()
NEVER_THINGS = "harp telescope trampoline canoe".split()


@dataclass(frozen=True)
class Fact:
    """One thing the person said, with the slots its questions are made of."""

    shape: str
    slots: dict[str, str]


@dataclass
class Corpus:
    """Conversations (lists of ``(role, text)``) and the facts their messages state."""

    conversations: list[list[tuple[str, str]]] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    people: dict[str, tuple[str, str]] = field(default_factory=dict)  # first -> (full, relation)
    said: list[str] = field(default_factory=list)  # the small talk's words, as drawn


# What a person says (each with the reply an assistant gives), by shape. ``{P}`` is a
# person's first name, ``{R}`` how the person knows them, ``{C}`` a place, ``{T}`` a thing,
# ``{M}`` a month, ``{D}`` a weekday, ``{N}`` an amount, ``{S}`` a skill, ``{A}`` an
# adjective, ``{B}`` a book title.
STATEMENTS = {
    "move": (
        "My {R} {P} is moving to {C} in {M}, so we want to visit before then.",
        "That is a big move. Do you want ideas for things to do in {C} together?",
    ),
    "lunch": (
        "I had lunch with {P} at a {A} cafe in {C} last {D}, the soup was great.",
        "Sounds lovely. Was that the place {P} had recommended?",
    ),
    "repair": (
        "The {T} broke again and the repair shop in {C} quoted {N} pounds to fix it.",
        "{N} pounds is a lot for a {T}. Is it still under warranty?",
    ),
    "book": (
        "{P} from work recommended the book {B} to me, I started it on {D}.",
        "{B} gets good reviews. Let me know what you think of it.",
    ),
    "trip": (
        "We booked flights to {C} with {P} for the second week of {M}.",
        "Nice. Should I make a packing list for {C} in {M}?",
    ),
    "lesson": (
        "I started {S} lessons with my {R} {P} every {D} evening.",
        "{S} is a great thing to share. How was the first lesson?",
    ),
    "bought": (
        "I finally bought a new {T} in {C} for {N} pounds after months of waiting.",
        "Congratulations on the new {T}! Did you keep the receipt for the warranty?",
    ),
}
# Questions per shape and set: first person, about someone else, in other words.
QUESTIONS = {
    "move": (
        "when is my {R} {P} moving to {C}",
        "where is {P} moving to in {M} this year",
        "which city will {P} be living in after the relocation",
    ),
    "lunch": (
        "where did I have lunch with {P} last {D}",
        "who had lunch at the {A} cafe in {C} last {D}",
        "which restaurant did {P} and I eat at together recently",
    ),
    "repair": (
        "how much did the repair shop in {C} quote me to fix the {T}",
        "what did the repair shop in {C} charge for fixing the {T}",
        "what was the price to mend my broken {T}",
    ),
    "book": (
        "which book did my colleague {P} recommend to me",
        "what book did {P} from work recommend reading",
        "what novel was I advised to pick up by someone at the office",
    ),
    "trip": (
        "when am I flying to {C} with {P}",
        "which month is {P} travelling to {C} on holiday",
        "what holiday abroad have I planned with {P} and when do we leave",
    ),
    "lesson": (
        "which day of the week do I have {S} lessons with {P}",
        "what lessons does {P} take every {D} evening",
        "what new hobby did I take up with {P} recently",
    ),
    "bought": (
        "how much did I pay for the new {T} I bought in {C}",
        "which shop in {C} sold the new {T} and for how much",
        "what did my latest big purchase in {C} cost me",
    ),
}
SETS = ("real_first", "real_third", "real_paraphrase", "real_never")

SMALL_TALK = (
    "thanks, that helps",
    "ok cool",
    "can you explain how {w} caching works in python?",
    "what do you think about the {w} idea?",
    "remind me to check the {w} numbers on Monday",
    "we talked about the {w} plan again",
)
REPLIES = (
    "Sure, here is how the {w} part could work.",
    "Happy to help with that.",
    "Do you want me to sketch the {w} table?",
)


def _book(rng: random.Random) -> str:
    return f"The {rng.choice(TITLE_WORDS)} {rng.choice(TITLE_NOUNS)}"


def fact_slots(rng: random.Random, people: dict[str, tuple[str, str]]) -> dict[str, str]:
    """A fact's slots: someone from ``people`` (first name -> (full name, relation)), a place,
    a thing, a month, a weekday, an amount, a skill, an adjective and a book title."""
    first = rng.choice(list(people))
    return {
        "P": first,
        "R": people[first][1],
        "C": rng.choice(PLACES),
        "T": rng.choice(THINGS).replace("-", " "),
        "M": rng.choice(MONTHS),
        "D": rng.choice(WEEKDAYS),
        "N": str(rng.randrange(40, 900)),
        "S": rng.choice(SKILLS),
        "A": rng.choice(ADJECTIVES),
        "B": _book(rng),
    }


def conversations(count: int, rng: random.Random, *, words: Sequence[str], per: int = 50) -> Corpus:
    """``count`` messages in conversations of ``per`` (the person and the assistant in turn),
    about a cast of people; ``words`` fill the small talk."""
    corpus = Corpus()
    for first in FIRST_NAMES:
        corpus.people[first] = (f"{first} {rng.choice(SURNAMES)}", rng.choice(RELATIONS))
    shapes = sorted(STATEMENTS)
    messages: list[tuple[str, str]] = []
    while len(messages) < count:
        if rng.random() < 0.5:
            shape = rng.choice(shapes)
            slots = fact_slots(rng, corpus.people)
            said, reply = STATEMENTS[shape]
            corpus.facts.append(Fact(shape, slots))
            messages += [("user", said.format(**slots)), ("assistant", reply.format(**slots))]
        else:
            w = rng.choice(words)
            corpus.said.append(w)
            messages += [
                ("user", rng.choice(SMALL_TALK).format(w=w)),
                ("assistant", rng.choice(REPLIES).format(w=w)),
            ]
    messages = messages[:count]
    corpus.conversations = [messages[i : i + per] for i in range(0, len(messages), per)]
    return corpus


def _never(slots: dict[str, str], rng: random.Random) -> dict[str, str]:
    return {
        **slots,
        "P": rng.choice(NEVER_NAMES),
        "C": rng.choice(NEVER_PLACES),
        "T": rng.choice(NEVER_THINGS),
    }


def question_sets(corpus: Corpus, count: int, rng: random.Random) -> Iterator[tuple[str, str]]:
    """``count`` questions of each set of :data:`SETS`, as ``(set, question)``, about facts
    drawn from ``corpus`` (the never-said ones in the same shapes, about what it never
    mentions)."""
    if not corpus.facts:
        return
    for n in range(count):
        fact = corpus.facts[rng.randrange(len(corpus.facts))]
        first, third, paraphrase = QUESTIONS[fact.shape]
        yield "real_first", first.format(**fact.slots)
        yield "real_third", third.format(**fact.slots)
        yield "real_paraphrase", paraphrase.format(**fact.slots)
        template = (first, third)[n % 2]
        yield "real_never", template.format(**_never(fact.slots, rng))
