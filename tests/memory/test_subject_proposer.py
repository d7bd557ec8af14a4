"""The subject proposer: each signal on its own, and subjects found in wordings no rule knows."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from memory.confidence import Evidence, confidence
from memory.extractors.subjects import (
    FLOOR,
    ONCE,
    REASON,
    Heard,
    extract,
    judged,
    kind_of_thing,
    propose,
    scored,
)
from memory.extractors.subjects.framing import (
    categories,
    first_person,
    led_here,
    life_scores,
    mentions_self,
)
from memory.extractors.subjects.history import heard, names_it
from memory.extractors.subjects.phrases import (
    ALL_OF,
    Phrase,
    label_keys,
    needle,
    phrases,
    rarity,
    said_again_key,
    topic_key,
)
from memory.gate import RulesRef, Snapshot, SuppressionRef, plan_writes
from memory.keys import canonical_key
from memory.proposals import CandidateProposal, EventProposal, NodeProposal, SliceProposal
from memory.transcripts import Message
from memory.vocab import CaptureDefault

SAID = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
NOW = datetime(2026, 3, 3, tzinfo=UTC)


def chat(*turns: str) -> list[Message]:
    """Turns alternate person/assistant when prefixed "A: "; the rest are the person's."""
    return [
        Message(f"M{i}", "assistant", t[3:], SAID)
        if t.startswith("A: ")
        else Message(f"M{i}", "user", t, SAID)
        for i, t in enumerate(turns)
    ]


def labels(*turns: str) -> set[str]:
    return {p.label for p in propose(chat(*turns)) if isinstance(p, CandidateProposal)}


def said_before(needles: dict[str, str]) -> dict[str, Heard]:
    """Every subject of the batch was said in one earlier conversation."""
    return {key: Heard(conversations=1) for key in needles}


def cards(*turns: str, snapshot: Snapshot | None = None, again: bool = False) -> dict[str, Any]:
    found = extract(chat(*turns), history=said_before if again else None)
    plan = plan_writes(found, snapshot or Snapshot.empty(now=NOW))
    return {canonical_key(c.label): c for c in plan.new_candidates}


def possible(*turns: str) -> set[str]:
    """The keys of every subject the person says of themselves, card or not yet."""
    return {canonical_key(s.label) for e, s in scored(chat(*turns)) if e.first_person > 0}


# --- names and rare noun phrases -------------------------------------------------------------


def test_names_and_rare_phrases_are_possible_subjects() -> None:
    found = {p.label: p for p in phrases("I'm moving to Rotterdam for a job at Van Oord.")}
    assert found["Rotterdam"].is_name and found["Van Oord"].is_name
    found = {p.label: p for p in phrases("I signed up for a wheel throwing course.")}
    assert "Wheel Throwing Course" in found and not found["Wheel Throwing Course"].is_name


@pytest.mark.parametrize(
    "sentence",
    [
        "I had a lot of fun with my friends the other day.",
        "It was a really good time for all of us.",
        "We talked for a while about the whole thing.",
    ],
)
def test_everyday_phrases_are_not_subjects(sentence: str) -> None:
    assert phrases(sentence) == []


def test_rarity_ranks_specific_words_above_everyday_ones() -> None:
    assert rarity(("greyhound",)) > rarity(("dog",)) > rarity(("time",))
    assert rarity(()) == 0.0


@pytest.mark.parametrize(
    ("sentence", "found"),
    [
        # a month or a day named with a capitalised adjective is a name of its own
        ("We're doing Sober October at work", ["Sober October"]),
        ("we queued all night for Black Friday", ["Black Friday"]),
        # a model's name of letters and digits
        ("my Canon R6 keeps fogging up", ["Canon R6"]),
        # a day said after a name, or a time, is when
        ("visiting Grandma Saturday for lunch", ["Grandma"]),
        ("we walked in the New Forest last Friday", ["New Forest"]),
        # a day, a week or a month the calendar names is a date, not a subject, and no word
        # of it is one alone; a name that holds one stays whole
        ("I volunteered on Earth Day at the beach", []),
        ("the library does a display for Black History Month", []),
        ("Sal is running the Harbour Day Festival", ["Sal", "Harbour Day Festival"]),
        ("i lifted 83kg in the gym at 5pm", []),
    ],
)
def test_names_with_a_day_or_digits_in_them(sentence: str, found: list[str]) -> None:
    assert [p.label for p in phrases(sentence)] == found


@pytest.mark.parametrize(
    ("sentence", "found"),
    [
        # a word of how the speaker feels about a thing is no part of its name
        ("we shared some precious memories of the lighthouse keeper", ["Lighthouse Keeper"]),
        ("it was a meaningful experience volunteering at the hospice", ["Hospice"]),
        # a word that says what kind of thing it is stays
        ("i bought an acoustic guitar", ["Acoustic Guitar"]),
        ("my aunt made me a beautiful quilt", ["Quilt"]),
    ],
)
def test_a_speakers_adjective_leading_a_phrase_is_dropped(sentence: str, found: list[str]) -> None:
    assert [p.label for p in phrases(sentence)] == found


def test_a_time_word_ends_the_phrase_and_a_contraction_is_no_noun() -> None:
    found = [p.label for p in phrases("We adopted a retired greyhound last week.")]
    assert found == ["Greyhound"]
    assert [p.label for p in phrases("I'm reading about volcanoes.")] == ["Volcanoes"]


@pytest.mark.parametrize(
    "sentence", ["Hey Mel! Great news.", "Cool, thanks Jon!", "That's lovely to hear, Priya."]
)
def test_a_name_said_to_the_listener_is_not_a_subject(sentence: str) -> None:
    assert not any(p.is_name for p in phrases(sentence))


def test_the_topic_of_something_read_or_watched_is_not_a_subject() -> None:
    assert phrases("I read an article comparing Postgres and MySQL.") == []
    assert phrases("We watched a documentary about Antarctica.") == []


def test_the_topic_of_the_persons_own_work_is_theirs() -> None:
    found = {
        p.label for p in phrases("i'm stuck on my dissertation chapter about the Orkney seals")
    }
    assert found == {"Dissertation Chapter", "Orkney Seals"}


def test_words_of_a_list_are_subjects_of_their_own() -> None:
    found = {p.label for p in phrases("Our twins Milo and Ada start nursery soon.")}
    assert {"Milo", "Ada"} <= found and "Milo Ada" not in found
    # with "the" before each, two names
    found = {p.label for p in phrases("I met the Okoros and the Brennans at the fair.")}
    assert {"Okoros", "Brennans"} <= found


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("I'm starting a masters at the University of Leicester.", "University of Leicester"),
        ("We spent a week on the Isle of Mull.", "Isle of Mull"),
        ("My cousin got a job at Fortnum & Mason.", "Fortnum & Mason"),
        ("I volunteer at the Museum of Science and Industry.", "Museum of Science"),
        # "and" inside a name said with "the", as pubs are named
        ("I play darts at the Plough and Harrow on Fridays.", "Plough and Harrow"),
        ("We had lunch at the Swan and Anchor in Ely.", "Swan and Anchor"),
    ],
)
def test_capitalised_names_joined_by_of_or_ampersand_are_one_name(sentence: str, name: str) -> None:
    found = [p for p in phrases(sentence) if p.label == name]
    assert found and found[0].is_name
    parts = {w for w in name.split() if w not in ("of", "&", "and")}
    assert not parts & {p.label for p in phrases(sentence)}


def test_of_between_a_common_word_and_a_name_joins_nothing() -> None:
    assert {p.label for p in phrases("We saw the rest of Portugal by train.")} == {"Portugal"}
    assert "Jonah" in {p.label for p in phrases("I told Jonah of my plans to move.")}
    assert "Jonah of" not in {p.label for p in phrases("I told Jonah of my plans to move.")}


@pytest.mark.parametrize(
    ("sentence", "subjects"),
    [
        # A slip in a common word is the word meant, not a rare word, and a typed time word
        # ends the phrase, as the spelled one does.
        ("dinner with marguerite tonihgt at the new place", {"Marguerite"}),
        ("picking up the canoe tmrw morning", {"Canoe"}),
        # A slip in a rare word is that word, spelled as meant (one card with the others).
        ("we camped on a pltaeau in the hills", {"Plateau"}),
        ("been waknig up at dawn all week", set()),
        ("we joined a sailing club but the schedlue is a mess", {"Sailing Club"}),
        # Contractions typed without the apostrophe are not names or nouns.
        ("shes been my best friend since school", set()),
        ("im so tired and hasnt stopped raining", set()),
        # A word in capitals for emphasis is no part of a name; initials stay
        ("Biscuit HATES the hoover", {"Biscuit", "Hoover"}),
        ("Dr Boateng REALLY wants me to cut down on salt", {"Dr Boateng"}),
        ("the MOT is due and the NHS letter came", {"MOT", "NHS Letter"}),
    ],
)
def test_how_people_type_does_not_make_subjects(sentence: str, subjects: set[str]) -> None:
    assert {p.label for p in phrases(sentence)} == subjects


@pytest.mark.parametrize(
    ("sentence", "subjects"),
    [
        # an activity named with a gerund the tagger cuts off: a gerund the lexicon does not
        # know before the noun it names the kind of, or a noun and a gerund after a verb or a
        # preposition with no object after it
        ("my inburgering exam for speaking is 14 may", {"Inburgering Exam"}),
        ("omg my first ever showjumping comp is next sat", {"Showjumping Comp"}),
        ("the dads got me into sea swimming with a group", {"Dads", "Sea Swimming"}),
        ("I started weight lifting with Tom", {"Tom", "Weight Lifting"}),
        # a gerund alone after "doing", "into" or a verb of liking, with nothing after it
        ("I've been doing bouldering at the Depot", {"Bouldering", "Depot"}),
        ("been really into birdwatching lately", {"Birdwatching"}),
        ("I love showjumping", {"Showjumping"}),
        ("I keep forgetting things", set()),
        # not a participle the lexicon knows, nor a gerund after an article or a possessive
        ("our growing allotment society needs a treasurer", {"Allotment Society", "Treasurer"}),
        ("I saw a dog running in the park", set()),
        ("my sister running late again", set()),
        # a model's number after its name, and a number that says which one, are part of it
        ("I'm on a pump (Omnipod 5)", {"Omnipod 5"}),
        ("my Pixel 7 keeps crashing", {"Pixel 7"}),
        # a model's code the tagger reads as a common noun
        ("my old Motorola Moto G7 is dying", {"Motorola Moto G7"}),
        ("we upgraded to Windows 11 at work", {"Windows 11"}),
        ("I've had type 1 diabetes since i was 12.", {"Type 1 Diabetes"}),
        ("I passed my grade 5 piano exam", {"Grade 5 Piano Exam"}),
        # a count or a year is not
        ("I went to Paris 3 times", {"Paris"}),
        ("I met Tom 2 years ago", {"Tom"}),
        ("we moved to Leeds in 2019", {"Leeds"}),
        ("I have 2 kids and a dog", set()),
    ],
)
def test_a_phrase_is_read_whole(sentence: str, subjects: set[str]) -> None:
    assert {p.label for p in phrases(sentence)} == subjects


@pytest.mark.parametrize(
    ("sentence", "kept", "gone"),
    [
        # what follows "but" is what is
        (
            "if i had more time id learn the cello, but for now im sticking with my saturday"
            " pottery class at Clayworks",
            {"Clayworks"},
            {"Cello"},
        ),
        ("If I won the lottery I'd buy a farm in Wales", set(), {"Wales"}),
        ("if we lived in Bristol I'd join the Clifton Rowing Club", set(), {"Bristol"}),
        ("Imagining a week at the Skellig Retreat makes me calm", set(), {"Skellig Retreat"}),
        # someone of theirs is theirs whatever is supposed; a condition may well be met
        ("I wish I had a dog like my friend Kate's spaniel Bramble", {"Kate"}, set()),
        ("if my sister Ana visits we'll go to Porto", {"Ana"}, set()),
    ],
)
def test_what_is_not_so_is_not_proposed(sentence: str, kept: set[str], gone: set[str]) -> None:
    got = {p.label for p in extract(chat(sentence)) if hasattr(p, "label")}  # cards and nodes
    assert kept <= got
    assert not gone & got


def test_a_capitalised_word_one_slip_from_a_common_word_stays_a_name() -> None:
    assert "Bakery" not in {p.label for p in phrases("We bought bread from Bakerey in town.")}


# --- first-person framing --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "own"),
    [
        ("I moved to Bergen in May.", True),
        ("We adopted a cat.", True),
        ("My garden is finally done.", True),
        ("My friend lives in Paris.", False),
        ("She said I should try it.", False),
        ("Meera's flight is tomorrow.", False),
        # the speaker leads a later clause run on without stops, as speech is typed
        ("so here goes I am Desmond I drove the number 4 bus in Swansea", True),
        ("the nurse said I could go home", False),
        # a sentence that opens on someone else is theirs, whatever the speaker says after:
        # the friend's move is not the speaker's
        ("My friend Amara is moving to Tallinn in March, so we want to visit before then.", False),
        # whoever of theirs opens it: a friend in chat's words, a grandparent, a flatmate; but
        # the speaker with them is the speaker
        ("my best mate is moving to Perth in the summer", False),
        ("My nan is having her cataract done at Ninewells.", False),
        ("my bestie got a job at Ocado", False),
        ("My partner and I are moving to Ghent in June.", True),
        ("my dog loves the beach at Saunton", True),
        # someone who serves the person, and a baby: what they do is the person's matter
        ("My vet said Biscuit needs a dental next spring.", True),
        ("my pastor asked me to run the youth choir", True),
        ("my baby girl started at Little Acorns nursery this week", True),
        ("My little brother is graduating from Exeter in July.", False),
        # chat leaves the subject out: a sentence opening with a verb in the past or a gerund
        ("got offered a place at Brunel for september", True),
        ("just been told i need a filling", True),
        ("Booked the ferry to Orkney last night", True),
        ("practising scales every morning before work", True),
        ("want to try sea kayaking round Skye", True),
        ("love my new road bike", True),
        # a gerund that is the subject, or a verb whose subject reached the speaker
        ("knitting keeps her calm", False),
        ("sounds like a plan", False),
        ("suggest a route round Skye", False),
    ],
)
def test_first_person_is_the_speaker_as_the_subject(sentence: str, own: bool) -> None:
    assert first_person(sentence) is own


@pytest.mark.parametrize(
    ("before", "sentence", "own"),
    [
        # a sentence without a subject goes on with the one before it: someone else's
        ("My sister adopted a whippet.", "Moved to Leeds with him in May.", False),
        ("she started at the bakery last week", "loving it so far apparently", False),
        ("Our neighbour had a fall on Sunday.", "Broke her wrist in two places.", False),
        # or the speaker's, or the speaker's with someone
        ("I adopted a whippet.", "Moved to Leeds with him in May.", True),
        ("My sister and I went to Rome.", "Ate far too much gelato.", True),
        ("The boiler packed in again.", "Called a plumber this morning.", True),
        # a sentence with its own subject is read alone
        ("My sister adopted a whippet.", "I moved to Leeds in May.", True),
        ("I adopted a whippet.", "My sister moved to Leeds in May.", False),
    ],
)
def test_a_sentence_without_a_subject_goes_on_with_the_one_before(
    before: str, sentence: str, own: bool
) -> None:
    assert first_person(sentence, before) is own


@pytest.mark.parametrize(
    ("sentence", "words", "own"),
    [
        # a run-on that someone else opens and the speaker goes on in
        (
            "my son set up the laptop for me so here goes I taught maths in Dundee for years",
            ("Dundee",),
            True,
        ),
        ("That photo reminded me of a trip we took to Crete", ("Crete",), True),
        # what comes before the speaker's "I", or after someone else's subject, is not theirs
        ("My sister moved to Leeds and I helped her pack", ("Leeds",), False),
        ("I reckon my brother will love Lisbon", ("Lisbon",), False),
        ("I was chatting to Maya and she is off to Oslo", ("Oslo",), False),
        ("My cousin lives in Bergen", ("Bergen",), False),
        # where the speaker is: "here" always, "back in" when no one else is the subject
        ("she finally slept, its 9pm here in Montreal", ("Montreal",), True),
        ("back in Portland at last!!", ("Portland",), True),
        ("My sister is back in Portland", ("Portland",), False),
    ],
)
def test_the_nearest_subject_before_a_phrase_says_whose_it_is(
    sentence: str, words: tuple[str, ...], own: bool
) -> None:
    assert led_here(sentence, words) is own


def test_a_run_on_opened_by_someone_else_is_the_persons_where_they_go_on() -> None:
    said = (
        "ok so my granddaughter put this on my phone and said to just type so I ran the post "
        "office in Tenby for twenty years and now I have my cataract op booked"
    )
    assert "Tenby" in labels(said, "A: Thanks for telling me.")
    assert "Tenby" not in labels(
        "ok so my granddaughter ran the post office in Tenby for twenty years",
        "A: Thanks for telling me.",
    )


def test_a_sentence_a_rule_took_only_a_relation_from_is_still_the_persons() -> None:
    from memory.extractors.rules import extract as rules

    # (an operation booked for May is a rule's own now: a trip is not an event it names)
    messages = chat("my son is 12 and my kayak trip is booked for May")
    found = rules(messages)
    assert {getattr(p, "label", None) for p in found} - {None} == {"Son"}
    keys = {canonical_key(s.label) for _e, s in scored(messages, found=found)}
    assert canonical_key("Kayak Trip") in keys


def test_a_plea_or_a_question_first_does_not_hide_what_the_person_goes_on_to_say() -> None:
    reply = "A: Call your vet now."
    plea = "HELP my cat got out!!! we live in Harrogate and she has never been outside"
    assert "Harrogate" in labels(plea, reply)
    # a request that hands over material: what follows is the material
    handed = "Rewrite this: we live in Harrogate and she has never been outside"
    assert "Harrogate" not in labels(handed, reply)


def test_a_question_after_a_word_that_leads_in_is_still_a_question() -> None:
    reply = "A: Good question."
    assert "Quickbooks" not in labels(
        "Also do you know if I can put this through Quickbooks", reply
    )
    assert "Quickbooks" not in labels("so can I run payroll in Quickbooks", reply)
    assert "Quickbooks" in labels("Also I use Quickbooks for the shop", reply)


def test_a_hedge_on_an_amount_still_says_it_happened() -> None:
    reply = "A: Nice."
    assert "Harrogate" in labels("we moved to Harrogate maybe 5 years ago", reply)
    assert "Harrogate" not in labels("maybe we will move to Harrogate one day", reply)


def test_what_someone_else_did_is_not_the_persons_own() -> None:
    # "Started at Airbus" goes on with the sister: not a subject of the person's life
    assert "airbus" not in possible("My sister got a new job. Started at Airbus last week.")
    assert "airbus" in possible("Got a new job at last. Started at Airbus last week.")


def test_a_question_with_its_topic_typed_first_is_still_a_question() -> None:
    # as people ask an assistant: "topic: question", with or without a question mark
    assert possible("kubernetes: how do i read the events of a pod that keeps crashing") == set()
    assert possible("Excel: sum the cells of a column when the row says paid") == set()
    assert "lisbon" in possible("house stuff: we finally moved to Lisbon in the spring")


def test_a_subject_told_before_a_question_is_proposed() -> None:
    assert "Ottilie" in labels("my niece Ottilie starts nursery on monday, how do I stop crying?")
    assert "Madeira" in labels("booked a week in Madeira - what should I pack?")


def test_mentions_self_finds_the_speaker_anywhere() -> None:
    assert mentions_self("Milo has an allergy so I briefed the staff.")
    assert not mentions_self("The reef is the largest living structure.")


def test_a_subject_never_said_with_the_speaker_is_not_proposed() -> None:
    assert labels("The Great Barrier Reef is the largest living structure on the planet.") == set()
    assert "Rotterdam" in labels("I'm moving to Rotterdam in January.")


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        # a given name the lists know, before any verb
        ("Margaret starts her new job on Monday, fingers crossed.", "Margaret"),
        ("so the move went fine, Oliver carried most of the boxes.", "Oliver"),
        # with the speaker, or with someone else, still someone of theirs
        ("me and Priya had a great time at the lido.", "Priya"),
        # one they do not know (nor the tagger: "cathal" reads as an adjective by its
        # ending), before a verb only a person does; in lower case as typed
        ("the party was lovely, cathal cried (obviously), speeches went down well.", "Cathal"),
        ("Zuzia say the bath with oatmeal is like porridge haha.", "Zuzia"),
        # what is said of them in brackets or between commas comes before the verb
        ("bola (the new mechanic, started last week, shes great) said the same", "Bola"),
        ("Margaret, from next door, says the fence is hers.", "Margaret"),
    ],
)
def test_someone_spoken_of_by_first_name_is_proposed(sentence: str, name: str) -> None:
    assert name in labels(sentence)
    assert name in {p.label for p in extract(chat(sentence)) if isinstance(p, CandidateProposal)}


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("Meera's flight is tomorrow.", "Meera"),  # her news, not her doing
        ("did Oliver ever call back?", "Oliver"),  # asked about
        ("Ed Sheeran played three encores.", "Ed Sheeran"),  # a full name: anyone's
        ("Quillbridge raised another round.", "Quillbridge"),  # a company does no crying
        ("Lisbon was gorgeous in the sun.", "Lisbon"),
        ("the best part was when Oliver the tour guide fell in.", "Oliver"),  # not leading
        # who the listener was with is the listener's news
        ("wow, sounds like you and Priya had a great time!", "Priya"),
        ("so you and Oliver finally went camping?", "Oliver"),
    ],
)
def test_a_name_that_does_not_lead_what_it_did_is_not_a_person_of_theirs(
    sentence: str, name: str
) -> None:
    assert name not in labels(sentence)


def test_notes_without_a_verb_in_a_message_about_the_speaker_are_theirs() -> None:
    notes = (
        "- Party: 14 March, Penhallow Boathouse (Kingston)\n"
        "Booked so far:\n1. cake (Bramble Bakes)\n2. band"
    )
    mine = f"Planning help pls. Context:\n{notes}\n- Budget: 2k, we're nearly there"
    assert {"Penhallow Boathouse", "Bramble Bakes"} <= labels(mine)
    # the same lines pasted with nothing of the speaker's around them: anyone's
    assert labels(notes) == set()


# --- the embedding model: life and category --------------------------------------------------


def test_life_score_is_higher_for_a_life_than_for_talk_about_the_chat() -> None:
    life, chat_talk = life_scores(
        ["My daughter started school and we moved house.", "The code output in the prompt."]
    )
    assert 0.0 <= chat_talk < life <= 1.0


def test_categories_from_the_word_before_a_name_and_from_meaning() -> None:
    (place,) = [p for p in phrases("We moved to Utrecht.") if p.label == "Utrecht"]
    (hobby,) = [p for p in phrases("I took up pottery classes.") if p.label == "Pottery Classes"]
    got = categories([(place, "to", "We moved to Utrecht."), (hobby, "", "I took up pottery.")])
    assert got[0] == "place"
    assert got[1] in ("habit", "skill", "interest")


@pytest.mark.parametrize(
    ("sentence", "name", "category"),
    [
        # "to" makes a name a place after a word of going, a person after one of saying
        ("We're heading back to Galway on Friday.", "Galway", "place"),
        ("We took the train down to Penzance.", "Penzance", "place"),
        ("I wrote a long letter to Oduya about the move.", "Oduya", "person"),
        ("We had to say goodbye to Pepper last week.", "Pepper", "person"),
    ],
)
def test_to_before_a_name_is_a_place_only_after_going(
    sentence: str, name: str, category: str
) -> None:
    (phrase,) = [p for p in phrases(sentence) if p.label == name]
    assert categories([(phrase, "to", sentence)]) == [category]


@pytest.mark.parametrize(
    ("sentence", "name", "category"),
    [
        # "from" makes a name a place after coming back, a person after hearing or receiving
        ("We only just got back from Tromsø.", "Tromsø", "place"),
        ("I finally heard back from Oduya about the flat.", "Oduya", "person"),
        ("Got a lovely postcard from Ngozi this morning.", "Ngozi", "person"),
    ],
)
def test_from_before_a_name_is_a_place_only_after_coming_back(
    sentence: str, name: str, category: str
) -> None:
    (phrase,) = [p for p in phrases(sentence) if p.label == name]
    assert categories([(phrase, "from", sentence)]) == [category]


@pytest.mark.parametrize(
    ("sentence", "name", "category"),
    [
        # what a name is to the speaker, set off before it as after it
        ("I'd love to do more for my old estate, Pennwick, one day.", "Pennwick", "place"),
        ("We still miss our village, Ashcombe Parva, every spring.", "Ashcombe Parva", "place"),
        ("Ashcombe Parva, our village, has a new bakery.", "Ashcombe Parva", "place"),
        ("I met my husband, Tobiah, on a ferry.", "Tobiah", "relationship"),
        ("my side project, Lanternfish, is nearly done", "Lanternfish", "project"),
        ("We got Pip, our guinea pig, a bigger hutch.", "Pip", "possession"),
        # a name ending in a kind of place on a map is a place; led by a given name, someone
        ("Our new flat is right on Kestrel Road.", "Kestrel Road", "place"),
        ("I swim off Porthcurno Beach most mornings.", "Porthcurno Beach", "place"),
        ("I had lunch with Priya Lane from work.", "Priya Lane", "person"),
        # a kind of thing said to be called by the name
        ("My shop is called Sable Lane, on the high street.", "Sable Lane", "organization"),
        ("I run a little bakery named Crumbwell.", "Crumbwell", "organization"),
        ("our band's name is Saltmarsh and we gig on Fridays", "Saltmarsh", "organization"),
        # a place of worship, however its name ends
        (
            "Our family goes to the Sri Murugan Temple at new year.",
            "Sri Murugan Temple",
            "organization",
        ),
    ],
)
def test_what_a_name_is_said_to_be_beside_it(sentence: str, name: str, category: str) -> None:
    (phrase,) = [p for p in phrases(sentence) if p.label == name]
    assert categories([(phrase, "", sentence)]) == [category]


@pytest.mark.parametrize(
    ("sentence", "before", "name", "category"),
    [
        # a name said with an animal's care or body is a pet's, whatever people share it
        (
            "Took Maisie to the vet this morning, she has an ear infection.",
            "took",
            "Maisie",
            "possession",
        ),
        ("Dexter won't stop scratching, I think it's fleas.", "", "Dexter", "possession"),
        ("We had Hugo neutered last week.", "had", "Hugo", "possession"),
        ("Molly had her booster jabs at the vets today.", "", "Molly", "possession"),
        # a vet's job, someone met there, an animal's owner: people
        ("Rosie is training to be a vet.", "", "Rosie", "person"),
        ("I met Tom at the vet's waiting room.", "met", "Tom", "person"),
        ("Went to the vet with Priya and her labrador.", "with", "Priya", "person"),
        ("Dan's dog had to go to the vet again.", "", "Dan", "person"),
    ],
)
def test_a_name_said_with_an_animals_care_is_a_pet(
    sentence: str, before: str, name: str, category: str
) -> None:
    (phrase,) = [p for p in phrases(sentence) if p.label == name]
    assert categories([(phrase, before, sentence)]) == [category]


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        (
            "I spend every Saturday morning at Thornbury Wheelers, rain or shine.",
            "Thornbury Wheelers",
        ),
        ("We finally signed with Brackenfold for the roof.", "Brackenfold"),
        ("My sister swears by Glimmerline for her hair.", "Glimmerline"),
    ],
)
def test_a_name_is_never_a_habit_a_skill_or_a_goal(sentence: str, name: str) -> None:
    (phrase,) = [p for p in phrases(sentence) if p.label == name]
    (category,) = categories([(phrase, "", sentence)])
    assert category not in ("habit", "skill", "goal", "identity")


# --- repetition as evidence ------------------------------------------------------------------


def test_repetition_across_messages_raises_confidence() -> None:
    once = chat("I signed up for a wheel throwing course.")
    twice = chat(
        "I signed up for a wheel throwing course.",
        "A: Fun!",
        "The wheel throwing course is on Wednesdays, I love it.",
    )
    (one,) = [e for e, s in scored(once) if s.phrase.label == "Wheel Throwing Course"]
    (two,) = [e for e, s in scored(twice) if s.phrase.label == "Wheel Throwing Course"]
    assert (one.mentions, one.messages) == (1, 1)
    assert two.mentions == 2 and two.messages >= 2
    assert confidence(two) > confidence(one)


def test_the_listener_taking_a_subject_up_counts_as_a_message() -> None:
    alone = chat("We took in a rescue greyhound called Biscuit.")
    echoed = chat("We took in a rescue greyhound called Biscuit.", "A: How is Biscuit settling in?")
    (a,) = [e for e, s in scored(alone) if s.phrase.label == "Biscuit"]
    (b,) = [e for e, s in scored(echoed) if s.phrase.label == "Biscuit"]
    assert b.messages == a.messages + 1


def test_a_subject_said_in_an_earlier_conversation_is_evidence() -> None:
    turns = chat("I spent the evening at the allotment again.")
    (before,) = [e for e, s in scored(turns) if s.phrase.label == "Allotment"]
    (again,) = [
        e
        for e, s in scored(turns, recurring=lambda keys: keys & {"allotment"})
        if s.phrase.label == "Allotment"
    ]
    assert (before.sessions, again.sessions) == (1, 2)
    assert confidence(again) > confidence(before)


# --- dates for events, and what is held ------------------------------------------------------


def test_a_dated_sentence_is_held_as_an_event_and_others_as_facts() -> None:
    found = propose(chat("We scattered her ashes at Dooagh beach on Achill Island last Saturday."))
    events = [p for p in found if isinstance(p, EventProposal) and p.on == "Achill Island"]
    assert events and events[0].happened_at == datetime(2026, 2, 28, tzinfo=UTC)
    facts = propose(chat("I grew up near Achill Island, my gran still lives there."))
    assert any(isinstance(p, SliceProposal) and p.on == "Achill Island" for p in facts)


def test_a_neighbouring_sentence_about_someone_else_is_not_held() -> None:
    turns = chat("We took him to the Kelvingrove museum. He loves the dinosaur hall.")
    found = propose(turns, history=said_before)
    held = [p.text for p in found if isinstance(p, (SliceProposal, EventProposal))]
    assert held and not any("dinosaur" in text for text in held)


# --- through the gate ------------------------------------------------------------------------


def test_every_subject_is_a_card_for_review_even_with_automatic_capture() -> None:
    auto = Snapshot.empty(now=NOW, rules=RulesRef(capture_default=CaptureDefault.AUTO.value))
    plan = plan_writes(extract(chat("I'm moving to Rotterdam in January.")), auto)
    assert "rotterdam" in {c.key for c in plan.new_candidates}
    assert "rotterdam" not in {n.key for n in plan.new_nodes}
    (card,) = [c for c in plan.new_candidates if c.key == "rotterdam"]
    assert card.reason == REASON and card.held


def test_a_suppressed_subject_is_not_proposed_again() -> None:
    snapshot = Snapshot.empty(
        now=NOW, suppressions=(SuppressionRef(id=1, kind="label", key="rotterdam"),)
    )
    assert "rotterdam" not in cards("I'm moving to Rotterdam in January.", snapshot=snapshot)


def test_the_identity_guard_holds_for_proposed_subjects() -> None:
    found = cards(
        "I'm the treasurer of the UML College Society.",
        "A: Nice!",
        "I also have to learn UML for my exams.",
        again=True,
    )
    assert {"uml", "uml college society"} <= set(found)


# --- one card per subject --------------------------------------------------------------------


def test_spellings_of_one_subject_are_one_card_with_every_sentence() -> None:
    found = cards(
        "Honestly my pottery classes keep me sane.",
        "A: How are they going?",
        "My pottery class teacher says my bowls are getting better.",
        "A: Lovely.",
        "We glazed mugs at pottery on Monday, mine cracked.",
        again=True,
    )
    (card,) = [c for k, c in found.items() if "pottery" in k]
    assert len({h.text for h in card.held}) == 3


def test_two_names_sharing_a_word_are_never_one_subject() -> None:
    def key(label: str, *, name: bool = True) -> str:
        words = tuple(label.split())
        return topic_key(Phrase(words, label, name, rarity(words), 3))

    # Both directions: the longer name does not fold into the shorter, nor the shorter into it,
    # whether the short one was read as a name or as a noun ("learn UML").
    society = key("UML College Society")
    assert society not in {key("UML"), key("UML", name=False)}
    assert key("UML") == key("UML", name=False) == key("UML Course", name=False)
    ana, ana_lopez, ana_ruiz = key("Ana"), key("Ana Lopez"), key("Ana Ruiz")
    assert len({ana, ana_lopez, ana_ruiz}) == 3
    found = cards(
        "I had lunch with Ana Lopez at work.",
        "A: Nice.",
        "Ana Ruiz from my choir rang me.",
        again=True,
    )
    assert {"ana lopez", "ana ruiz"} <= set(found)
    # and a card waiting for one is never taken for the other, either way
    written = "I joined the UML College Society"
    assert key("UML") in label_keys("UML")
    assert key("UML") not in label_keys("UML College Society", written)
    assert key("UML") not in label_keys("UML College Society")
    assert society not in label_keys("UML") and society in label_keys("UML College Society")
    assert ana not in label_keys("Ana Lopez") and ana_lopez not in label_keys("Ana Ruiz")


def test_inflections_and_a_head_word_are_one_subject_both_ways() -> None:
    def keys(sentence: str) -> set[str]:
        return {topic_key(p) for p in phrases(sentence)}

    one = keys("I take pottery classes on Mondays.")
    assert one == keys("My pottery class was cancelled.") == keys("I love doing pottery.")
    # A card waiting as "Pottery", or as "Pottery Classes" written in lower case, takes every
    # phrase about pottery.
    assert one <= label_keys("Pottery") and one <= label_keys(
        "Pottery Classes", "my pottery classes"
    )


# --- evidence before a card ------------------------------------------------------------------


def test_a_weak_subject_said_once_waits_and_is_a_card_when_said_again() -> None:
    turn = "My lungs hate me after the Snowdon hike lol"
    assert "snowdon hike" in possible(turn)
    assert "snowdon hike" not in cards(turn)  # said once, not a name: it waits
    card = cards(turn, again=True)["snowdon hike"]
    assert FLOOR <= card.confidence < ONCE


def test_a_name_the_person_uses_is_a_card_the_first_time() -> None:
    found = cards("We adopted a retired greyhound last week and named her Pepper.")
    assert "pepper" in found and found["pepper"].confidence >= ONCE


def test_feelings_and_qualities_are_not_subjects() -> None:
    found = possible(
        "Honestly the encouragement from everyone gave me so much inner strength.",
        "I felt such joy and gratitude at the end.",
    )
    assert not found & {"encouragement", "inner strength", "gratitude", "joy"}


def test_what_the_person_hears_of_is_the_others_news() -> None:
    assert "bramble" not in cards("Rowan, I'm so sorry to hear about Bramble.")
    assert "bramble" not in cards("I was glad to hear of Bramble's recovery.")
    assert "bramble" not in cards("I'm so sorry about Bramble, Rowan.")
    assert "bramble" in cards("We had to say goodbye to Bramble last week.")


def test_a_rare_word_the_model_hardly_knows_is_not_judged_a_feeling() -> None:
    # the model reads "mahjong" and "cribbage" nearer a feeling than a thing; a word this rare
    # is no feeling or quality of everyday English, so its reading does not drop it
    found = extract(chat("I've started playing mahjong with my neighbours."))
    assert "Mahjong" in {getattr(p, "label", "") for p in found}
    assert not judged("Mahjong") and not judged("Cribbage")
    assert judged("Peace") and judged("Contentment") and judged("Inner Calm")
    assert judged("Inclusivity") and judged("Motivators")  # an abstract noun, a plural


def test_a_quoted_title_and_its_author_are_not_subjects() -> None:
    found = possible('I just finished "The Salt Road" by Imogen Hale and cried.')
    assert not found & {"salt road", "imogen hale"}


def test_what_was_said_before_counts_only_the_persons_own_sentences() -> None:
    needles = {"potteri": "potter", "rotterdam": "rotterdam"}
    texts = [
        (1, "I signed up for pottery at the community centre."),
        (2, "Rotterdam is a big port."),  # not the person's own: no "I", "my", "we"
        (3, "We finally visited Rotterdam!"),
        (3, "My pottery teacher is strict."),
    ]
    waiting = [("UML College Society", "I joined the UML College Society"), ("Pottery", "")]
    got = heard(texts, waiting, needles)
    assert got["potteri"] == Heard(conversations=2, waiting="Pottery")
    assert got["rotterdam"] == Heard(conversations=1, waiting=None)
    assert names_it("The potters wheel", "potter") and not names_it("A spotter", "potter")


def test_a_phrase_whose_stem_is_a_function_words_is_keyed_by_its_words() -> None:
    # "canned" stems to "can": every "I can" the person typed must not count as saying it
    (canned,) = [p for p in phrases("We dropped off canned food at the shelter.") if p.words]
    assert topic_key(canned) == needle(canned) == "canned food"
    texts = [(1, "I can help on Friday."), (2, "We can go later.")]
    assert heard(texts, [], {topic_key(canned): needle(canned)}) == {}
    # a phrase whose stem is no function word's is still keyed by its stem
    (pottery,) = phrases("I take pottery classes on Mondays.")
    assert topic_key(pottery) == "potteri"


def test_the_card_confidence_is_computed_not_fixed() -> None:
    found = cards(
        "I'm moving to Rotterdam in January.",
        "A: Exciting!",
        "We took in a rescue axolotl called Biscuit.",
        "A: How is Biscuit?",
        "Biscuit sleeps all day, I adore her.",
    )
    values = {found[k].confidence for k in ("rotterdam", "biscuit")}
    assert len(values) == 2 and all(FLOOR <= v <= 1.0 for v in values)
    assert found["biscuit"].confidence > found["rotterdam"].confidence


# --- not bound to templates: wordings no recogniser was written for --------------------------


@pytest.mark.parametrize(
    ("turn", "subject"),
    [
        (
            "Spent the whole weekend repainting the hull of the Marigold, our little sailboat.",
            "marigold",
        ),
        ("Finally got the keys to our flat in Utrecht!", "utrecht"),
        ("Me and Tomas have been learning the accordion together.", "tomas"),
        ("honestly the highlight of my month was the ceilidh at Aunt Rosa's farm", "aunt rosa"),
        ("We adopted a retired greyhound last week and named her Pepper.", "pepper"),
        ("I'm moving to Rotterdam in January for a job at Van Oord.", "van oord"),
        ("My lungs hate me after the Snowdon hike lol", "snowdon hike"),
    ],
)
def test_subjects_are_found_in_new_wordings(turn: str, subject: str) -> None:
    # Found in any wording; a card once it is a name or said again (see below).
    assert subject in possible(turn)
    assert subject in cards(turn, again=True)


@pytest.mark.parametrize(
    "turn",
    [
        "Can you summarise the article about Kubernetes?",
        "I read a review of the new Dune film.",
        "Thanks so much, Mel!",
        "If I won the lottery I'd buy a vineyard, just daydreaming.",
        "Your painting is stunning, the colours are so vibrant!",
    ],
)
def test_nothing_is_proposed_from_requests_media_thanks_or_compliments(turn: str) -> None:
    assert not [p for p in propose(chat(turn)) if isinstance(p, CandidateProposal)]


def test_evidence_confidence_is_monotonic_in_each_signal() -> None:
    base = Evidence(first_person=1.0, specificity=0.5)
    assert confidence(Evidence(mentions=3, messages=3, first_person=1.0, specificity=0.5)) > (
        confidence(base)
    )
    assert confidence(Evidence(first_person=1.0, specificity=0.5, name=True)) > confidence(base)
    assert confidence(Evidence(first_person=1.0, specificity=0.9)) > confidence(base)


def test_a_subject_keyed_by_an_everyday_word_needs_all_its_words_to_be_said_again() -> None:
    (loving,) = [
        p for p in phrases("I want to give a loving home to a cat.") if p.label == "Loving Home"
    ]
    key = said_again_key(loving)
    assert key is not None and set(key.split(ALL_OF)) == {"love", "home"}
    texts = [
        (1, "I love my job."),  # its topic word's stem alone
        (2, "We want a loving home for her."),
        (3, "Home is where my loving family is."),  # both words, another order
    ]
    assert heard(texts, [], {key: "lov"})[key] == Heard(conversations=2, waiting=None)
    # a rare topic word, a name and a single word are said again by their key alone
    (pottery,) = phrases("I take pottery classes on Mondays.")
    assert said_again_key(pottery) is None
    (juniper,) = [p for p in phrases("We took Juniper Cove Kayaks out.") if p.is_name]
    assert said_again_key(juniper) is None


@pytest.mark.parametrize(
    ("turns", "key", "kind"),
    [
        (("We hit some cool national parks.",), "park", True),
        (("It's inspiring to work with our young dancers.",), "dancer", True),
        (("I took the canoe out on Lake Bala.",), "lake bala", False),
        (("We love going for long hikes.", "The hikes up Cadair Idris were hard."), "hike", True),
        # said in the singular too, it is one thing: "my pottery classes", "my pottery class"
        (
            ("Honestly my pottery classes keep me sane.", "My pottery class teacher is strict."),
            "potteri",
            False,
        ),
    ],
)
def test_a_subject_only_said_as_a_plural_common_noun_is_a_kind_of_thing(
    turns: tuple[str, ...], key: str, kind: bool
) -> None:
    subjects = {topic: s for _e, s in scored(chat(*turns)) for topic in [topic_key(s.phrase)]}
    assert kind_of_thing(subjects[key]) is kind


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("I need some budgeting tips for my new flat.", "Budgeting"),
        ("Got great sourdough advice from my neighbour.", "Sourdough"),
        ("I emailed Citizens Advice about my deposit.", "Citizens Advice"),  # a name, whole
    ],
)
def test_what_is_asked_for_is_no_part_of_the_subject(sentence: str, label: str) -> None:
    found = {p.label for p in phrases(sentence)}
    assert label in found


@pytest.mark.parametrize(
    "sentence",
    [
        "I rang my aunt for adoption advice.",
        "any gift ideas for my brother?",
        "She sent me some travel tips.",
    ],
)
def test_what_is_asked_for_about_an_everyday_thing_is_no_subject(sentence: str) -> None:
    found = {p.label for p in phrases(sentence)}
    assert not {label for label in found if label.split()[-1] in ("Advice", "Ideas", "Tips")}
    assert not found & {"Adoption", "Gift", "Travel"}


@pytest.mark.parametrize(
    ("sentence", "found"),
    [
        # a work the person makes, and its name
        ("I host a podcast called The Dead Letter Office", ["Dead Letter Office"]),
        ("I'm writing a novel called The Glass Orchard", ["Glass Orchard"]),
        # what they read or watched is not theirs, nor what it is called
        ("I read an article called The Dead Letter Office", []),
    ],
)
def test_a_work_the_person_makes_is_named_after_it(sentence: str, found: list[str]) -> None:
    assert [p.label for p in phrases(sentence)] == found


def test_an_adverb_after_a_noun_ends_the_phrase() -> None:
    # the chunker reads "dancers really shine" as one noun phrase
    assert [p.label for p in phrases("our coaching helps young dancers really shine")] == [
        "Young Dancers"
    ]


def test_a_name_given_to_the_persons_new_pet_is_the_card() -> None:
    assert labels("our rescue spaniel came home on saturday, shes called Clementine") == {
        "Clementine"
    }
    assert labels("we brought a kitten home on sunday. he's called Biscotti") == {"Biscotti"}


def test_a_name_given_to_someone_elses_pet_is_not_the_persons() -> None:
    assert "Tofu" not in labels("my brother got a kitten, she's called Tofu")


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        # "in other news" moves on to the next thing told, it is no news read
        (
            "oh and in other news i joined Kestrel Rowing Club on saturday",
            "Kestrel Rowing Club",
        ),
        # a gerund that leaves its subject out, as chat does
        ("heading to Ljubljana with the kids in may, what should we pack?", "Ljubljana"),
        # a name typed in lower case, then a pronoun that starts the next clause
        ("my son tadeusz he turned 9 and only talks about trains", "Tadeusz"),
    ],
)
def test_what_chat_tells_in_its_own_way_is_proposed(sentence: str, label: str) -> None:
    assert label in labels(sentence)


@pytest.mark.parametrize(
    ("text", "label", "category"),
    [
        # a kind said right after the name, which the label leaves out, says what it is
        ("I count my steps with the Zepp app.", "Zepp", "tool"),
        ("I track my sleep with the Withings app", "Withings", "tool"),
    ],
)
def test_a_kind_said_after_a_name_gives_its_category(text: str, label: str, category: str) -> None:
    found = extract([Message(id="m1", role="user", content=text)])
    assert (label, category) in [
        (p.label, p.category) for p in found if isinstance(p, (NodeProposal, CandidateProposal))
    ]
