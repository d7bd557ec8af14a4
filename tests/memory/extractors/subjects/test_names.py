"""Names the default extractor proposes (issue 25): a name in a sentence a rule already read
is a card of its own, a titled person is one person, and what is no one's news as today, a
hypothetical or a name said after a negation, is not proposed."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.extractors.subjects import extract
from memory.gate import Snapshot, plan_writes
from memory.keys import canonical_key
from memory.proposals import CandidateProposal, NodeProposal
from memory.transcripts import Message
from memory.vocab import Category

SAID = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
NOW = datetime(2026, 5, 5, tzinfo=UTC)


def subjects(*said: str) -> dict[str, str]:
    """Every card and memory proposed for the person's messages, label -> category."""
    messages = [Message(f"M{i}", "user", text, SAID) for i, text in enumerate(said)]
    return {
        p.label: p.category
        for p in extract(messages)
        if isinstance(p, (CandidateProposal, NodeProposal))
    }


def cards(*said: str) -> set[str]:
    """The labels the write gate keeps as new cards (it folds spellings of one subject)."""
    messages = [Message(f"M{i}", "user", text, SAID) for i, text in enumerate(said)]
    plan = plan_writes(extract(messages), Snapshot.empty(now=NOW))
    return {c.label for c in plan.new_candidates} | {n.label for n in plan.new_nodes}


def test_a_name_in_a_sentence_a_rule_read_is_a_card_of_its_own() -> None:
    found = subjects("I swim with the Larkspur Masters Club on Thursdays.")
    assert "Swimming" in found  # the rule's subject stays
    assert found.get("Larkspur Masters Club") == Category.ORGANIZATION.value


def test_the_name_of_a_place_a_rule_read_is_not_cut_in_two() -> None:
    found = subjects("I go bouldering at the Granite Climbing Barn on Tuesdays.")
    assert "Granite Climbing Barn" in found
    assert not {"Granite", "Barn"} & set(found)


def test_a_sentence_a_rule_read_gives_only_names_and_no_piece_of_the_rules_label() -> None:
    # The rule's subject names the city: the city is not proposed again on its own.
    assert set(subjects("We hope to buy a flat in Glasgow within three years.")) == {
        "Flat in Glasgow"
    }
    # No common noun of a rule's sentence becomes a card of its own.
    assert set(subjects("I do yoga every morning before work.")) == {"Yoga"}


def test_a_name_that_ends_with_the_rules_person_is_that_person_not_a_second_card() -> None:
    # The rule reads the person; the name said with their role before it is the same person.
    assert set(subjects("My GP Amira Castell is on leave until June.")) == {"Amira Castell"}
    # A name that only holds the rule's word inside it is a place of its own.
    found = subjects("I do pilates at Juniper Pilates Loft on Saturdays.")
    assert "Pilates" in found and "Juniper Pilates Loft" in found


def test_a_titled_person_doing_something_for_the_speaker_is_a_person_card() -> None:
    found = subjects("Mr Dominic Achterberg is handling my divorce paperwork.")
    assert found.get("Mr Dominic Achterberg") == Category.PERSON.value


def test_a_name_with_who_they_are_is_a_person_card() -> None:
    found = subjects("Wiremu Tane, who walks my dogs, is away in March.")
    assert found.get("Wiremu Tane") == Category.PERSON.value


def test_two_people_sharing_a_surname_stay_two_cards() -> None:
    kept = {
        canonical_key(label)
        for label in cards("Mrs Ferreira and Mr Ferreira next door feed my cat.")
    }
    assert {"mrs ferreira", "mr ferreira"} <= kept
    kept = {
        canonical_key(label)
        for label in cards(
            "I walk with Lena Marsh on Saturdays.", "I play chess with Ruth Marsh on Mondays."
        )
    }
    assert {"lena marsh", "ruth marsh"} <= kept
    # The rule holds her under her title; he is not folded into her card.
    kept = {
        canonical_key(label)
        for label in cards(
            "My neighbour Mrs Ferreira waters my plants when I travel.",
            "I had tea with Mr Ferreira on Sunday.",
        )
    }
    assert {"mrs ferreira", "mr ferreira"} <= kept


def test_a_hypothetical_or_someone_elses_news_proposes_no_name() -> None:
    assert subjects("If Dr Ferreira took me on as a patient I would be so relieved.") == {}
    assert subjects("Apparently Colm Breathnach is moving to Galway next spring.") == {}
    assert subjects("My cousin's friend said the Pemberton Arms is closing.") == {}
    # Told to the person, or done for someone else of theirs: the news is not theirs today.
    assert subjects("Mr Okonkwo texted me that his shop in Leeds is closing.") == {}
    assert subjects("Colm Breathnach told my sister he is moving to Galway.") == {}
    assert subjects("Mrs Abara fixed my brother's bike on Sunday.") == {}


def test_a_name_said_right_after_a_negation_is_not_the_persons() -> None:
    found = subjects("I have lived in Dundee for years but never in Aberdeen.")
    assert "Dundee" in found and "Aberdeen" not in found
    found = subjects("I edit photos in Darktable rather than Lightroom.")
    assert "Darktable" in found and "Lightroom" not in found


def test_someone_of_another_persons_in_a_sentence_of_the_persons_life_is_a_card() -> None:
    said = (
        "Cathal has been with his girlfriend of nine years, Sinéad, forever and I've been "
        "roped into giving the speech."
    )
    assert "Sinéad" in subjects(said)


def test_someone_of_another_persons_in_their_own_news_is_not_a_card() -> None:
    # the speaker is not in the sentence: someone else's news, until it is said again
    assert "Sinéad" not in subjects("Cathal has been with his girlfriend of nine years, Sinéad.")


def test_a_name_after_a_title_of_trade_or_a_relation_is_whom_the_word_says() -> None:
    # "with" reads organisations ("with Acme"), but a title of trade says a person.
    found = subjects("I'm doing a six-week pasta course with Chef Benedetta Rinaldi.")
    assert found.get("Chef Benedetta Rinaldi") == Category.PERSON.value
    found = subjects("My mum's best friend Folake Adeyemi is sewing my wedding dress.")
    assert found.get("Folake Adeyemi") == Category.PERSON.value
    # The word before says what kind: a pet's name is no person.
    found = subjects("We walk our dog Biscuit along the Tamarind Canal every morning.")
    assert found.get("Biscuit") == Category.POSSESSION.value
    # A title before common words is no one ("Captain" of a team, a trip by coach).
    found = subjects("I booked the Coach Trip to Bruges for my sister's birthday.")
    assert "Coach Trip" in found and found["Coach Trip"] != Category.PERSON.value


def test_a_name_after_a_word_of_where_is_a_place() -> None:
    found = subjects(
        "we kept bees above Llanwrda for forty years",
        "I teach at a small village school outside Kilcolgan",
    )
    assert found.get("Llanwrda") == Category.PLACE.value
    assert found.get("Kilcolgan") == Category.PLACE.value
