"""A label's form (memory/extractors/subjects/forms.py): words that cannot name a thing are
held back, and the noun phrases that look like them are not, each way round."""

from __future__ import annotations

import pytest

from memory.extractors.subjects.forms import fault


@pytest.mark.parametrize(
    ("label", "said", "kind"),
    [
        # a verb phrase: a gerund or a verb with an article, a possessive, a pronoun, a
        # particle or no object after it, or a verb after "to" / a modal / "help"
        (
            "Making a Change",
            "honestly i just want to feel like im making a change at work",
            "doing",
        ),
        ("Growing My Network", "growing my network is the whole point of the conference", "doing"),
        ("Cheering Others", "she says i'm good at cheering others on", "doing"),
        ("Keeping Calm", "keeping calm is hard with two toddlers", "doing"),
        ("Giving Up", "giving up sugar for lent this year", "doing"),
        ("Spending Time", "we love spending time at my aunt's place", "doing"),
        ("Raise Awareness", "we hope to raise awareness about the canal clean-up", "doing"),
        ("Try Harder", "i should try harder with my french", "doing"),
        # a word the lexicon reads as a noun, where only a verb can stand: after a modal or
        # "help", after "and" that goes on from "to" and a verb, as an -s form after "it",
        # and an adjective after a copula with a gerund
        ("Tackle Problems", "the course taught me to slow down and tackle problems", "doing"),
        ("Spread Kindness", "we try to stand up for each other and spread kindness", "doing"),
        ("Face Setbacks", "you will face setbacks, everyone does", "doing"),
        ("Helps Families", "the food bank is great, it helps families all winter", "doing"),
        ("Fight Loneliness", "we hope to fight loneliness in the village", "doing"),
        ("Support Carers", "the council wants us to support carers more", "doing"),
        ("Lending Hand", "i'm lending a hand at the allotment on sundays", "doing"),
        ("Made Day", "your message honestly made my day", "doing"),
        ("Busy Knitting", "i've been busy knitting all week", "doing"),
        ("Keeping Healthy Habits", "keeping healthy habits is tough on night shifts", "doing"),
        ("Trusting Life", "some days it comes down to trusting life", "doing"),
        # a light verb's gerund alone names no pastime: its object was cut off
        ("Working", "i'm thinking of working with refugees next year", "doing"),
        ("Helping", "i love helping out at the community garden", "doing"),
        # a gerund label made from the verb the person wrote is judged as that verb
        ("Supporting", "I'd love to support carers in the village one day", "doing"),
        ("Making", "I make a lot of my own stuff", "doing"),
        # a clause, two phrases run together, a quantifier leading, a plural and then a verb
        # with its object or nothing after it
        ("Parents Worry", "that school makes parents worry.", "clause"),
        ("Volunteers Need", "honestly the shelter volunteers need our help", "clause"),
        ("Bills Keep", "the gas bills keep going up", "clause"),
        ("Kids Playing Outside", "i love seeing the kids playing outside", "clause"),
        ("Neighbours a Card", "we sent the neighbours a card", "clause"),
        ("All the Little Things", "it's all the little things that get me", "clause"),
        # one word: a verb, a weekday, the family, letters for a word, a plural class
        ("Reminds", "that song reminds me of summer", "verb"),
        ("Believe", "don't worry, believe in yourself", "verb"),
        ("Weds", "choir is on Weds now", "time"),
        ("Thursday", "see you Thursday at the allotment", "time"),
        ("Family", "family comes first for me", "group"),
        ("Wknd", "big wknd coming up", "shorthand"),
        ("Hills", "we walked in the hills all day", "plural"),
        ("Books", "my books are everywhere in this flat", "plural"),
        # a rarer plural said only of others or in passing: after an article, an adjective,
        # "and" ending a list, "in"; and what ends on a word for people in general
        ("Volunteers", "the volunteers were so kind to us", "plural"),
        ("Setbacks", "setbacks are part of it, honestly", "plural"),
        ("Journeys", "we talked about our similar journeys", "plural"),
        ("Coaches", "my parents, teachers and coaches pushed me", "plural"),
        ("Suburbs", "rents are lower in suburbs these days", "plural"),
        ("Young People", "the charity works with young people in the town", "people"),
        ("Local Folks", "the local folks at the market were lovely", "people"),
        ("Smth", "can you suggest smth to read on the train", "shorthand"),
        # how much, not what
        ("Ton", "it's all a process and I'm learning a ton", "measure"),
        ("Loads", "learnt loads on the course this week", "measure"),
        # a slip for a word that names no thing, after a copula as anywhere
        ("Anxous", "trying not to be anxous about the move", "slip"),
        ("Anxous", "so anxous about the move tbh", "slip"),
        # a possessive is the word's own: "fam's" is "fam"
        ("Family", "my fam's been amazing this week", "group"),
        # a word that stands for what is liked, said elsewhere
        ("Favourites", "knitting socks is one of my faves", "liking"),
        ("Favourite", "the lemon drizzle is still my favourite", "liking"),
    ],
)
def test_words_that_cannot_name_a_thing(label: str, said: str, kind: str) -> None:
    assert fault(label, [said]) == kind


@pytest.mark.parametrize(
    ("label", "said"),
    [
        # a gerund as a modifier in a noun phrase, or an activity of its own
        ("Sailing Club", "i joined a sailing club in Cowes"),
        ("Hiking Boots", "my hiking boots finally gave up"),
        ("Baking Bread", "baking bread every sunday is my thing"),
        ("Volunteering", "i started volunteering at the food bank"),
        ("Climbing", "we go climbing twice a week"),
        ("Running", "I run before work most days"),
        ("Painting", "I Paint on Sundays"),
        # a plural before a word that can be a verb is a noun phrase after an article or a
        # preposition, or with more said after it; a phrase after "and" with no "to" before
        # it, or after "to" alone (it leads places too), is a thing
        ("Girls Trip", "planning a girls trip to Porto"),
        ("Farmers Market", "we went to farmers market on saturday"),
        ("Kids Club", "she loves kids club at the leisure centre"),
        ("Face Masks", "I bought soap and face masks"),
        ("Dance Class", "I go to dance class on tuesdays"),
        ("Dance Class", "i'm going to dance class tonight"),
        ("Cooking Classes", "i'm taking cooking classes at the college"),
        # a noun phrase with a preposition and an article
        ("Trip to the Lakes", "we are planning a trip to the lakes"),
        ("Retraining as a Plumber", "at 50 i'm retraining as a plumber"),
        # a name is its own, however it reads
        ("Make-A-Wish", "I volunteer with Make-A-Wish"),
        ("Believe Academy", "my son goes to Believe Academy"),
        # one word that names a thing: an activity in -ics, a thing, a word with a vowel
        ("Gymnastics", "my daughter does gymnastics on saturdays"),
        ("Allotment", "the allotment is finally producing courgettes"),
        ("Gym", "i joined a gym last month"),
        ("Son", "my son starts school in september"),
        # a word that can be a verb is a noun after an article or a possessive
        ("Promotion", "i'm going for a promotion in the spring"),
        ("Catch", "my catch of the day was a pike"),
        ("Raise", "i'm asking my boss for a raise in june"),
        # a slip for a thing is that thing, misspelt
        ("Pottey", "i signed up for a pottey class"),
        # letters after a preposition are named there: a tool, not shorthand
        ("Npm", "the frontend is built with npm and Vite"),
        # a rarer plural is often what a person keeps or lives with
        ("Ferrets", "we keep ferrets, three of them"),
        ("Headaches", "i get headaches most afternoons"),
        ("Pigeons", "my grandad raced pigeons for forty years"),
        ("Crosswords", "ive been into crosswords since lockdown"),
        ("Orchids", "my orchids finally flowered"),
        # the gerund of a verb that names a pastime on its own
        ("Running", "running is what keeps me sane"),
        ("Sewing", "i taught myself sewing with youtube"),
        # a name in another script is one word ("Almería" is not "Almer a")
        ("Almería", "I grew up in Almería, near the sea"),
        ("Łódź", "my cousin lives in Łódź and teaches there"),
    ],
)
def test_noun_phrases_and_names_are_not_faulted(label: str, said: str) -> None:
    assert fault(label, [said]) is None


def test_a_weekday_is_time_even_written_as_a_name() -> None:
    assert fault("Tues", ["we meet every Tues"]) == "time"


def test_a_label_written_as_a_name_everywhere_is_not_judged() -> None:
    assert fault("Raise Awareness", ["We run Raise Awareness, a small charity"]) is None


def test_a_label_respelled_from_a_clipping_is_judged_as_the_person_wrote_it() -> None:
    # the label "Family" was typed "fam": written in lower case all the same
    assert fault("Family", ["out with the fam for sunday lunch"]) == "group"
    # a label that keeps the clipping is read as the full word where the sentence says it
    said = ["the allotment and biz ventures need the hours i put in"]
    assert fault("Biz Ventures Need", said) == fault("Business Ventures Need", said) == "clause"


@pytest.mark.parametrize(
    ("label", "said"),
    [
        ("Setbacks", "Setbacks can teach you a lot."),
        ("Setbacks", "Oh well. Setbacks happen to everyone!"),
    ],
)
def test_a_word_capitalised_only_to_open_a_sentence_is_judged(label: str, said: str) -> None:
    assert fault(label, [said]) is not None


def test_a_name_opening_a_sentence_is_still_a_name() -> None:
    assert fault("Maisie", ["Maisie came over for tea."]) is None


def test_no_words_no_fault() -> None:
    assert fault("", ["anything"]) is None
