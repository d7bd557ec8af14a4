"""Health: conditions, medications with dose and start, allergies, intolerances, measures."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.health import health
from tests.memory.rules.helpers import clause, events, nodes, slices


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I'm lactose intolerant", "Lactose Intolerance"),
        ("Oh and I'm gluten intolerant, so pasta is out", "Gluten Intolerance"),
        ("I'm allergic to peanuts, properly allergic", "Peanut Allergy"),
        ("I have a shellfish allergy", "Shellfish Allergy"),
        ("my blood pressure is high", "High Blood Pressure"),
        ("My cholesterol is a bit low", "Low Cholesterol"),
        ("I have asthma", "Asthma"),
        ("I suffer from migraines when I skip meals", "Migraines"),
        ("I live with rheumatoid arthritis", "Rheumatoid Arthritis"),
        ("I have coeliac disease", "Coeliac Disease"),
        # had, since or for a while: still a condition of theirs
        ("I've had type 2 diabetes since 2019", "Type 2 Diabetes"),
        ("I have had eczema for years", "Eczema"),
        # "got" as people say "have"; a clause after it is no part of it
        ("I've got endometriosis and it wipes me out", "Endometriosis"),
        ("the doctor confirmed I've got type 2 diabetes", "Type 2 Diabetes"),
        # the verb that names one, not the first verb ("got" names no condition here)
        ("I got told last week I have restless legs syndrome", "Restless Legs Syndrome"),
    ],
)
def test_conditions_allergies_and_measures_are_health(text: Any, label: Any) -> None:
    assert nodes(health(clause(text))) == [(label, "health")]


def test_a_medication_keeps_its_dose_and_its_dated_start() -> None:
    found = health(clause("my doctor put me on Lisinopril 10mg in February"))
    assert nodes(found) == [("Lisinopril", "health")]
    assert [s.text for s in slices(found)] == ["Takes Lisinopril 10mg"]
    (started,) = events(found)
    assert started.action == "started"
    assert started.happened_at is not None
    assert started.happened_at.strftime("%Y-%m") == "2026-02"


@pytest.mark.parametrize(
    ("text", "sentence", "label", "dose"),
    [
        # as chat leaves the speaker out, a dose later in the sentence still its own
        (
            "been on lamotrigine since 2023",
            "been on lamotrigine since 2023, 200mg",
            "Lamotrigine",
            "200mg",
        ),
        ("taking omeprazole most mornings now", None, "Omeprazole", ""),
        ("started on Rivaroxaban in march", None, "Rivaroxaban", ""),
    ],
)
def test_a_medication_said_without_its_speaker_is_health(
    text: str, sentence: str | None, label: str, dose: str
) -> None:
    found = health(clause(f"I {text}" if text.startswith("been") else text, sentence))
    assert nodes(found) == [(label, "health")]
    assert [s.text for s in slices(found)] == [f"Takes {label} {dose}".strip()]


def test_a_dose_later_in_a_sentence_of_two_drugs_is_not_given_to_either() -> None:
    sentence = "I been on omeprazole for years and on sertraline, 50mg"
    found = health(clause("I been on omeprazole for years", sentence))
    assert [s.text for s in slices(found)] == ["Takes Omeprazole"]


def test_stopping_a_medication_stops_it() -> None:
    (stopped,) = events(health(clause("I stopped taking sertraline 50mg last month")))
    assert (stopped.on, stopped.action, stopped.happened_at_precision) == (
        "Sertraline",
        "stopped",
        "month",
    )


@pytest.mark.parametrize(
    "text",
    [
        "I have a meeting at noon",
        "I have a dog",
        "I'm taking the train",
        "I take it back",
        "I'm on holiday next week",
        "I have two kids",
        "I'm taking Caroline to the zoo",
        "I take chocolate to work",
        "I'm on Slack all day",
        # the speaker left out, as chat does
        "been on nights since monday, 12 hours each",
        "taking the kids to the pool at 10",
    ],
)
def test_ordinary_sentences_are_not_health(text: Any) -> None:
    assert health(clause(text)) == []


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I'm on metformin", "Metformin"),
        ("I take ibuprofen for my back", "Ibuprofen"),
        ("I've been taking melatonin", "Melatonin"),
    ],
)
def test_a_drug_named_without_a_dose_is_recognised_by_its_form(text: Any, label: Any) -> None:
    assert nodes(health(clause(text))) == [(label, "health")]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("unrelated but my asthma is playing up with the pollen", "Asthma"),
        ("my type 1 diabetes is a mess on night shifts", "Type 1 Diabetes"),
        ("so my daughter set this up and my eczema is back", "Eczema"),
        ("honestly my migraines are worse in winter", "Migraines"),
        ("my coeliac disease makes eating out hard", "Coeliac Disease"),
    ],
)
def test_a_condition_said_as_the_persons_own_is_health(text: str, label: str) -> None:
    assert (label, "health") in nodes(health(clause(text)))


@pytest.mark.parametrize(
    "text",
    [
        "my dad's arthritis is bad again",  # another's
        "my son asthma is worse in spring",
        "my little brother's asthma is worse",
        "my partner Sam's diabetes is well controlled",
        "my asthma is not the problem here",  # denied
        "my anxiety about the exam is through the roof",  # a feeling as much as a condition
        "I have got my hip replacement booked for February",  # an operation to come
        "I won my trophy at the county show",  # a medical ending alone says too little
        "my car insurance is up for renewal",
    ],
)
def test_what_is_not_the_persons_condition_after_my_is_not_health(text: str) -> None:
    assert health(clause(text)) == []


@pytest.mark.parametrize(
    ("text", "label", "dated"),
    [
        # a procedure the person has had on a part of their body: dated when the clause says
        ("I had knee surgery in March", "Knee Surgery", True),
        ("I've had a hip replacement", "Hip Replacement", False),
        ("I just had my ACL reconstruction", "ACL Reconstruction", False),
    ],
)
def test_a_procedure_the_person_had_is_health(text: str, label: str, dated: bool) -> None:
    found = health(clause(text))
    assert nodes(found) == [(label, "health")]
    assert bool(events(found)) == dated and all(e.happened_at for e in events(found))


@pytest.mark.parametrize(
    "text",
    [
        # someone else's, one to come, a part that is no body's, or no part named
        "my dad had a hip replacement last year",
        "my shoulder op is next week",
        "I'm having knee surgery in June",
        "the surgery went well",
        "I had a phone screen replacement",
    ],
)
def test_what_is_no_procedure_the_person_had(text: str) -> None:
    assert health(clause(text)) == []


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # a drug named by its salt or its acid, or a vitamin by its letter, is both words
        ("my GP put me on ferrous fumarate", "Ferrous Fumarate"),
        ("I take folic acid 400mcg every morning", "Folic Acid"),
        ("I've been taking vitamin D 1000iu since October", "Vitamin D"),
        ("I was started on magnesium citrate, 200mg at night", "Magnesium Citrate"),
    ],
)
def test_a_medication_of_two_words_keeps_both(text: str, label: str) -> None:
    assert nodes(health(clause(text))) == [(label, "health")]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # a condition back or flaring, said with "the" as chat says it
        ("the gout's back and my toe is killing me", "Gout"),
        ("the eczema has flared up again", "Eczema"),
        # what a person was told they have
        ("I was told in March that I have atrial fibrillation", "Atrial Fibrillation"),
    ],
)
def test_a_condition_said_as_chat_says_it_is_the_persons(text: str, label: str) -> None:
    assert nodes(health(clause(text))) == [(label, "health")]


def test_a_thing_playing_up_is_no_condition() -> None:
    assert health(clause("the printer is playing up again")) == []


@pytest.mark.parametrize(
    ("text", "label", "dose"),
    [
        ("the consultant placed me on bisoprolol 2.5mg", "Bisoprolol", "2.5mg"),
        ("my GP switched me to mirtazapine last month", "Mirtazapine", ""),
        ("she has me on prednisolone 10mg for now", "Prednisolone", "10mg"),
        ("I'm on 75mg of clopidogrel every morning", "Clopidogrel", "75mg"),
    ],
)
def test_a_drug_put_or_switched_on_or_dosed_first_is_a_medication(
    text: str, label: str, dose: str
) -> None:
    found = health(clause(text))
    assert (label, "health") in nodes(found)
    assert any(s.text == f"Takes {label} {dose}".strip() for s in slices(found))


@pytest.mark.parametrize("text", ["they moved me to nights", "the boss has me on weekends"])
def test_being_moved_to_what_is_no_drug_is_not_a_medication(text: str) -> None:
    assert health(clause(text)) == []


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # chat leaves out "I have": a condition with since when is the person's
        ("bursitis in my right hip since the spring", "Bursitis"),
        ("slipped disc at L4 since last year so no heavy lifting", "Slipped Disc"),
        # the condition a drug was given for
        ("the GP put me on allopurinol for chronic gout", "Gout"),
        # a treatment named by the condition
        ("I still use the psoriasis cream twice a day", "Psoriasis"),
        # what a doctor says it is
        ("the rheumatologist reckons it's frozen shoulder", "Frozen Shoulder"),
        ("consultant thinks it's Meniere's disease", "Meniere Disease"),
        ("bloods came back borderline, prediabetes since the summer", "Prediabetes"),
    ],
)
def test_a_condition_named_without_i_have_is_the_persons_own(text: str, label: str) -> None:
    assert (label, "health") in nodes(health(clause(text)))


@pytest.mark.parametrize(
    "text",
    [
        "my uncle Dev had the same angina for years",  # another's, named by relation
        "her psoriasis has cleared up since June",
        "Priya's colitis came back in March",
        "I'm walking ten miles for cancer research",  # a cause, not a condition
        "I work on the dementia ward since April",  # a place of work
        "I listened to a podcast about narcolepsy",  # a topic
        "does eczema run in families?",  # a question
        "I don't have gout, it was a sprain",  # denied
        "sciatica is common after long drives",  # nobody's, no since, no doctor
    ],
)
def test_a_condition_that_is_not_the_persons_own_is_not_health(text: str) -> None:
    assert health(clause(text)) == []
