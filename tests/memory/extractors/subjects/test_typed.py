"""Names typed in lower case, read from where they stand: after one of the person's ("my mate
maisie", "our dog biscuit"), after a title ("dr halloran"), or leading a clause and doing
something ("felipe is driving"); and what stands there and is no name (a common word, a word
cut short, a contraction typed bare, chat shorthand, a word the listener also writes)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extractors.subjects import extract
from memory.extractors.subjects.typed import typed_names
from memory.proposals import CandidateProposal, NodeProposal
from memory.transcripts import Message
from tests.memory.extractors.subjects.chats import chat

SAID = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


def _chat(*turns: str) -> list[Message]:
    return chat(*turns, at=SAID)


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("my friend jess is moving to leeds", "jess"),
        ("my mate maisie is doing it too on her horse", "maisie"),
        ("our dog biscuit ate my sandwich", "biscuit"),
        # a word said between them and what they do
        ("my husband tobiasz also thinks so", "tobiasz"),
        ("our son kofi always wins at cards", "kofi"),
        ("baby malia was born feb 9, my sis did amazing", "malia"),
        ("ok we are at the clinic, felipe is driving", "felipe"),
        ("she ate the chocolate that felipe left on the couch", "felipe"),
        ("update: paçoca is fine now", "paçoca"),
        ("bola (the new mechanic) said the same thing", "bola"),
        ("river cruise = boat = arjun dies", "arjun"),
        # set off before what it is to the person, or after a kind of thing and "is"
        ("this is quernstone, my side thing, a log parser", "quernstone"),
        ("day job is brightwell, nothing to do with this", "brightwell"),
    ],
)
def test_a_lower_case_name_where_only_a_name_stands(said: str, name: str) -> None:
    names = typed_names(_chat(said))
    assert names[name] == name.capitalize()


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("back in portland my mum still keeps the bees", "portland"),
        ("we're off to dublin for the long weekend, i'm excited", "dublin"),
        ("i grew up near cornwall so the coast is home", "cornwall"),
    ],
)
def test_a_word_written_only_as_a_name_typed_in_lower_case(said: str, name: str) -> None:
    assert typed_names(_chat(said))[name] == name.capitalize()


@pytest.mark.parametrize(
    ("said", "name"),
    [
        # a word English does not know, right where one lives, moved or works
        ("we stay in ruhengeri w my parents for now", "ruhengeri"),
        ("im based in kuopio, remote mostly", "kuopio"),
        ("moved to viljandi in the spring", "viljandi"),
        ("i work at glovoz since june", "glovoz"),
    ],
)
def test_an_unknown_word_where_one_lives_or_works_is_a_name(said: str, name: str) -> None:
    assert typed_names(_chat(said))[name] == name.capitalize()


def test_a_word_english_knows_where_one_lives_is_no_name() -> None:
    assert typed_names(_chat("i live in hope and work at home")) == {}


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("miss beatriz and the dogs so much", "miss beatriz"),
        ("i really miss grandad eifion", "miss grandad"),
    ],
)
def test_miss_where_it_can_be_the_verb_is_no_title(said: str, name: str) -> None:
    assert name not in typed_names(_chat(said))


def test_miss_after_someones_word_is_the_title() -> None:
    assert typed_names(_chat("my form tutor miss okonedo moved schools"))["miss okonedo"] == (
        "Miss Okonedo"
    )


def test_a_message_typed_with_its_capitals_keeps_its_lower_case_words() -> None:
    # Whoever capitalises their sentences means the word they wrote small.
    assert "dublin" not in typed_names(_chat("We drove past the dublin exit. It was late."))
    # a word English also writes in lower case is a word ("china", "turkey")
    assert typed_names(_chat("i broke the good china at christmas")).keys() <= {"christmas"}


def test_a_title_goes_with_the_name() -> None:
    names = typed_names(_chat("my supervisor dr halloran said the argument is buried"))
    assert names["dr halloran"] == "Dr Halloran"


@pytest.mark.parametrize(
    "said",
    [
        "my friend group is tiny",  # a common word after a relation
        "my cat litter is everywhere",  # a common word rarer, still no name
        "our dog food is running out",
        "my dog walker is late",
        "my friend said it was fine",  # a verb after the relation
        "chem is the worst, bio is fine",  # a word cut short
        "righto thats all from me",  # a word of chat before a contraction typed bare
        "imo is overrated, ngl is worse",  # shorthand
        "shes great and hes fine",  # contractions typed bare
        "the mochi is sitting on the counter",  # a word after "the" leads no clause
        "i ate mochi yesterday",  # no name's place: after a verb
        "Idris's brithday is next week",  # after someone's possessive: a thing of theirs
        "my sister's wedfing was lovely",
    ],
)
def test_what_stands_there_and_is_no_name(said: str) -> None:
    assert typed_names(_chat(said)) == {}


def test_a_word_the_listener_also_writes_in_lower_case_is_no_name() -> None:
    chat = _chat("ok so tokio is spawning too many tasks", "A: In tokio, spawn returns a handle.")
    assert typed_names(chat) == {}


def test_a_capitalised_name_is_left_to_the_name_readers() -> None:
    assert typed_names(_chat("my friend Jess is moving to Leeds")) == {}


def _labels(*turns: str) -> set[str]:
    return {
        p.label for p in extract(_chat(*turns)) if isinstance(p, (NodeProposal, CandidateProposal))
    }


def test_the_name_typed_in_lower_case_is_a_card() -> None:
    assert "Maisie" in _labels(
        "my mate maisie is doing the show too so we're sharing the lorry, i'm so nervous"
    )


def test_a_common_word_after_a_relation_is_no_card() -> None:
    assert not {"Group", "Friend Group"} & _labels("my friend group is tiny and i love them")


def test_a_lower_case_name_set_off_as_the_persons_own_is_a_card_of_its_kind() -> None:
    found = extract(_chat("this is quernstone, my side project, a static site generator"))
    cards = {p.label: p.category for p in found if isinstance(p, (CandidateProposal, NodeProposal))}
    assert cards.get("Quernstone") == "project"


def test_a_name_set_off_stays_a_name_when_the_listener_echoes_it_in_lower_case() -> None:
    # an assistant often keeps a coder's lower case; the person said what it is
    chat = _chat(
        "this is quernstone, my side project, a static site generator",
        "A: If quernstone grows, you could split the renderer out.",
    )
    assert typed_names(chat) == {"quernstone": "Quernstone"}
    found = extract(chat)
    cards = {p.label: p.category for p in found if isinstance(p, (CandidateProposal, NodeProposal))}
    assert cards.get("Quernstone") == "project"
