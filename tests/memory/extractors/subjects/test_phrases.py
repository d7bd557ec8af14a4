"""Names as people write them (issue 25): a title before a name, every word of a name with a
capital, a name the tagger cuts at a word it also knows as a verb, an apostrophe or a letter
outside ASCII, and a name followed by who it is."""

from __future__ import annotations

import pytest

from memory.extractors.subjects.phrases import phrases, tag


def named(sentence: str) -> dict[str, bool]:
    return {p.label: p.is_name for p in phrases(sentence)}


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("Mrs Adaeze Nwosu marks my essays now.", "Mrs Adaeze Nwosu"),
        ("Dr Kowalczyk checked my shoulder again.", "Dr Kowalczyk"),
        ("Prof Lindqvist supervises my dissertation.", "Prof Lindqvist"),
        ("I met Ms Harrow at the school gate.", "Ms Harrow"),
    ],
)
def test_a_title_before_a_capitalised_name_is_part_of_the_name(sentence: str, label: str) -> None:
    assert named(sentence).get(label) is True


def test_a_title_alone_or_a_common_word_first_in_a_sentence_is_not_a_name() -> None:
    assert named("Mister, you dropped this.").get("Mister") is not True
    # A common word with a capital because it starts the sentence is no name.
    assert named("Swimming is what keeps me sane.").get("Swimming") is not True
    assert not any(named("Library books are due back on Friday.").values())


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        # A capitalised word no dictionary knows and a capitalised common noun, whichever of
        # them the tagger reads as a proper noun.
        ("We rehearse with the Farrowdale Orchestra every Tuesday.", "Farrowdale Orchestra"),
        ("I sing in the Pendleford Choir.", "Pendleford Choir"),
        ("My plot is at Oakhurst Allotments.", "Oakhurst Allotments"),
        # A word of a name the tagger takes for a verb ("Rowing", "Running").
        ("I train at the Kestrel Rowing Club on Sundays.", "Kestrel Rowing Club"),
        ("I volunteer at the Marlow Running Track.", "Marlow Running Track"),
    ],
)
def test_a_capitalised_phrase_in_mid_sentence_is_one_name(sentence: str, label: str) -> None:
    found = named(sentence)
    assert found.get(label) is True
    assert all(other == label or other not in label for other in found)  # not cut in two


def test_a_capitalised_verb_after_a_name_is_not_part_of_it() -> None:
    assert named("I spotted Ines Running late for her bus.").get("Ines") is True


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("My landlord is Gérard Lévêque and he never answers.", "Gérard Lévêque"),
        ("I had dinner with Caoimhe O'Brien last night.", "Caoimhe O'Brien"),
        ("My neighbour Declan O'Hare feeds my cat.", "Declan O'Hare"),
    ],
)
def test_a_name_is_read_whole_with_accents_and_apostrophes(sentence: str, label: str) -> None:
    assert named(sentence).get(label) is True


def test_the_name_keeps_its_spelling_and_its_verb_stays_a_verb() -> None:
    words = [(w, pos) for w, pos, _chunk in tag("Declan O'Hare feeds my cat.")[0]]
    assert ("O'Hare", "NNP") in words
    assert ("feeds", "VBZ") in words


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("Tomasz Wierzbicki, who fixes my car, is retiring soon.", "Tomasz Wierzbicki"),
        ("Halima Yusuf, my physio, has moved clinics.", "Halima Yusuf"),
        # what it is to the speaker, with no verb after it
        ("This is Quernstone, my side project.", "Quernstone"),
        ("So this is Quernstone, our little bakery, at last!", "Quernstone"),
    ],
)
def test_a_name_followed_by_who_it_is_is_not_said_to_the_listener(
    sentence: str, label: str
) -> None:
    assert named(sentence).get(label) is True


@pytest.mark.parametrize(
    "sentence",
    [
        "Thanks Ottilie, you are a star.",
        "Ottilie, can you check this for me?",
        "Cheers, Ottilie!",
        "Hi Ottilie, my name is Ana.",
    ],
)
def test_a_name_said_to_the_listener_is_still_no_subject(sentence: str) -> None:
    assert "Ottilie" not in named(sentence)


def test_a_name_joined_by_an_ampersand_to_a_capitalised_common_noun_is_one_name() -> None:
    assert named("My brother runs a deli called Crust & Barrel in Hull.").get("Crust & Barrel")


@pytest.mark.parametrize(
    ("sentence", "people"),
    [
        ("my nieces Ayla & Freya are staying over", ("Ayla", "Freya")),
        ("the grandkids (Otto & Greta) broke the swing", ("Otto", "Greta")),
    ],
)
def test_an_ampersand_between_two_given_names_joins_two_people(
    sentence: str, people: tuple[str, str]
) -> None:
    found = named(sentence)
    assert all(found.get(name) for name in people)
    assert not any("&" in label for label in found)


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        # a given name and a common noun, a name of two words, a name with a possessive
        ("I started at Hale & Sons Joinery in May.", "Hale & Sons Joinery"),
        ("we bought a tub of Ben & Jerry's on the way home", "Ben & Jerry"),
        ("Jana Holm & Ivo run the stall next to mine", "Jana Holm & Ivo"),
    ],
)
def test_an_ampersand_inside_one_name_keeps_it_whole(sentence: str, label: str) -> None:
    assert named(sentence).get(label)


def test_a_subject_pronoun_after_a_name_starts_a_clause_of_its_own() -> None:
    assert named("My nephew Anselm he loves trains.").get("Anselm")


def test_a_possessive_starts_a_phrase_of_its_own() -> None:
    found = named("Ffion my aunt grows the best tomatoes.")
    assert found.get("Ffion") is True
    assert not any("Aunt" in label and "Ffion" in label for label in found)


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("I traced it to my grandmother, Edith Polglase, a lacemaker.", "Edith Polglase"),
        ("She is marrying her partner of ten years, Oluwaseun, in May.", "Oluwaseun"),
    ],
)
def test_a_name_set_off_after_someone_of_theirs_is_said_of_them(sentence: str, label: str) -> None:
    assert named(sentence).get(label) is True


@pytest.mark.parametrize(
    "sentence",
    [
        "Thanks for your patience, Margaret, it finally works.",
        # A given name alone ending the sentence after something of the speaker's (a given
        # name the nickname lists know: the others are read as naming what comes before).
        "It has been a rough month with my business, Margaret.",
        "I value our chats too, Margaret.",
    ],
)
def test_a_name_set_off_at_the_end_is_still_said_to_the_listener(sentence: str) -> None:
    assert "Margaret" not in named(sentence)


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("I sell prints on my Etsy shop Harbour Lights Prints.", "Harbour Lights Prints"),
        ("We joined the running club Penarth Plodders last spring.", "Penarth Plodders"),
    ],
)
def test_a_thing_said_then_named_is_the_name(sentence: str, label: str) -> None:
    assert named(sentence).get(label) is True


def test_a_name_whose_words_are_capitalised_stays_whole() -> None:
    assert named("We climb at the Vega Climbing Wall on Fridays.").get("Vega Climbing Wall")


def test_a_place_set_off_after_something_of_theirs_is_said_of_it() -> None:
    assert named("This scarf came from my home town, Trondheim.").get("Trondheim") is True


def test_a_given_name_first_in_a_sentence_is_a_name_but_a_common_word_is_not() -> None:
    assert named("Tom reckons the fence needs replacing.").get("Tom") is True
    assert "Mark" not in named("Mark the date in your calendar.")
    assert "Will" not in named("Will the shop be open on Sunday?")


@pytest.mark.parametrize(
    ("sentence", "label", "is_name"),
    [
        # a name typed with the kind of place it is in lower case after it
        ("I volunteer at the Oxfam bookshop on Saturdays", "Oxfam Bookshop", True),
        ("my op is booked at Morriston hospital", "Morriston Hospital", True),
        # a shop of a kind English names by its trade
        ("I get my bread from Hartley Sisters deli on Mill Lane", "Hartley Sisters Deli", True),
        ("we order the turkey from Pengelly butchers", "Pengelly Butchers", True),
        # first in the sentence, or a head that is no place, it is not read so
        ("Tesco store was heaving", "Tesco Store", False),
    ],
)
def test_a_name_with_its_kind_of_place_in_lower_case_is_one_name(
    sentence: str, label: str, is_name: bool
) -> None:
    assert named(sentence).get(label) is is_name


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("My Fitbit stats are all over the place this week.", "Fitbit"),
        ("I finally fixed my Duolingo streak.", "Duolingo"),
        ("We bought the Ikea shelves for the hallway.", "Ikea"),
    ],
)
def test_a_brands_name_before_what_of_it_is_spoken_of_is_the_subject(
    sentence: str, name: str
) -> None:
    assert named(sentence).get(name) is True


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("My lungs hate me after the Snowdon hike.", "Snowdon Hike"),  # done there once
        ("I volunteer at the Oxfam bookshop.", "Oxfam Bookshop"),  # the kind of place it is
        ("Her thesis is on Orkney seals.", "Orkney Seals"),  # a place the lexicon knows
        ("I joined an LGBTQ support group.", "LGBTQ Support Group"),  # an acronym
        ("We watched the Perseid meteor shower.", "Perseid Meteor Shower"),  # two nouns after
    ],
)
def test_other_names_before_a_common_noun_stay_whole(sentence: str, label: str) -> None:
    assert label in named(sentence)


def test_a_word_english_uses_is_no_brand_before_its_noun() -> None:
    assert "Christmas" not in named("We put up the Christmas tree on Sunday.")


@pytest.mark.parametrize(
    ("sentence", "idiom", "subject"),
    [
        ("I was in awe of the northern lights.", "Awe", "Northern Lights"),
        ("I'm in charge of the allotment rota now.", "Charge", "Allotment Rota"),
    ],
)
def test_a_bare_noun_between_in_and_of_is_a_piece_of_an_idiom(
    sentence: str, idiom: str, subject: str
) -> None:
    found = named(sentence)
    assert idiom not in found
    assert subject in found


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("the allotment and biz ventures need the hours i put in", "Biz Ventures"),
        ("honestly the shelter volunteers need our help", "Shelter Volunteers"),
    ],
)
def test_a_plural_and_its_verb_before_an_object_end_the_phrase_before_the_verb(
    sentence: str, label: str
) -> None:
    found = named(sentence)
    assert label in found
    assert not any(key.endswith(" Need") for key in found)


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        # a particle other languages write in lower case is inside the name, and stays lower
        ("I start at Universidade de Coimbra in the autumn.", "Universidade de Coimbra"),
        ("We ate at Casa del Rio on the harbour.", "Casa del Rio"),
        # a month's short form after the particle is a word of the name, not a date
        ("We had lunch at Museo del Mar with the kids.", "Museo del Mar"),
        ("My landlord is Joost van Dam.", "Joost van Dam"),
    ],
)
def test_a_lower_case_particle_between_capitalised_words_is_part_of_the_name(
    sentence: str, label: str
) -> None:
    assert named(sentence).get(label) is True


def test_a_particle_word_outside_a_name_joins_nothing() -> None:
    # "de" with no capital after it joins nothing
    assert not any(" de " in label for label in named("Paris de nuit is a song I love."))


@pytest.mark.parametrize(
    ("word", "meant"),
    [("finallyyy", "finally"), ("sooo", "so"), ("looong", "long"), ("qxxxz", "qxxxz")],
)
def test_a_stretched_word_is_read_as_english_writes_it(word: str, meant: str) -> None:
    from memory.extractors.subjects.phrases import unstretched

    assert unstretched(word) == meant


def test_a_stretched_word_after_a_name_is_no_part_of_it() -> None:
    assert "Holloway College" in named("got my offer from Holloway College finallyyy")
