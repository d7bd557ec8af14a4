"""Text helpers for the rules extractor: splitting, what is never a memory, and labels.

Everything here is pure string work. :mod:`memory.extractors.rules` decides what a clause
means; this module decides where clauses start and end, which sentences are talk to the
assistant rather than facts about a life, and how a phrase becomes a label.

Label rule (documented because the gate converges on it): articles, possessives and "new" are
trimmed ("my new bike" -> "Bike"); "X called Y" and "<descriptor> <Name>" ("my side project
Atlas") keep the name; words already carrying a capital ("UML", "iPhone", "Zoë") are kept as
written, other words are capitalised except short joiners ("Strange Day at Work"). A label of
pronouns or fillers, a request phrase, or longer than :data:`MAX_LABEL_WORDS` words is refused.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory.policy import label_rejection

MAX_LABEL_WORDS = 6


@lru_cache(maxsize=8192)
def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``pattern`` compiled, once per process: for patterns built around a name or a word
    ("Juniper" said as someone's, "tidepool" typed in lower case). ``re``'s own cache keeps
    512, which an import's names outrun, so each was compiled again for every sentence."""
    return re.compile(pattern, flags)


# --- splitting ----------------------------------------------------------------------------

_FENCED_CODE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_ABBREVIATIONS = frozenset(
    "dr mr mrs ms prof st jr sr vs etc eg ie e.g i.e a.m p.m approx dept mt no".split()
)
# Chat ends a sentence with an emoji as often as with a stop: "annyeong 😆 been learning
# korean since may" is two.
_EMOJI = "\U0001f300-\U0001faff\u2600-\u27bf"
_EMOJIS = re.compile("[" + _EMOJI + "\ufe0f]")  # no part of a label: "Cello 🙃" is Cello
_SENTENCE_END = re.compile(r"(?<=[.!?…" + _EMOJI + r"])[\"'”’)\]\ufe0f]*\s+|\n+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
# A new clause starts where a new first-person (or "my ...") subject takes over, after a
# conjunction or a reason ("bit of a pain because my dad was just diagnosed with ...").
_CLAUSE_BREAK = re.compile(
    r"\s*;\s*|,?\s+(?:and|but|so|then|and then|plus|while|whereas|because|cos|coz|cuz)\s+"
    r"(?=(?:I|i|we|We|my|My)\b)|"
    r",\s+(?=(?:I|We|My|my)\b(?!'d\s+rather))|,\s+which\s+(?=(?:we|I)\b)"
)
# Where a conjunction hands the sentence to someone or something else, hedged or not ("I was
# put on warfarin in May, so perhaps the nurse meant that"): what she meant is hers, and so is
# its hedge.
_OTHER_TAKES_OVER = re.compile(
    r",?\s+(?:and|but|so|then)\s+(?=(?:(?:maybe|perhaps|probably|possibly)\s+)?"
    r"(?:he|she|they|(?:the|his|her|their)\s+\w+)\b)",
    re.IGNORECASE,
)


def split_sentences(text: str) -> list[str]:
    """Sentences of a message, code blocks dropped, abbreviations ("Dr.") kept whole."""
    text = _FENCED_CODE.sub(" ", text)
    # A numbered or bulleted line loses its marker first, so "1. My physio is ..." is not
    # cut after "1.".
    text = "\n".join(_BULLET.sub("", line) for line in text.split("\n"))
    pieces: list[str] = []
    for raw in _SENTENCE_END.split(text):
        piece = _BULLET.sub("", raw).strip()
        if not piece:
            continue
        previous = pieces[-1] if pieces else ""
        last_word = previous.rsplit(" ", 1)[-1].rstrip(".").lower() if previous else ""
        initials = re.search(r"(?:^|\s)(?:[A-Z]\.){1,3}$", previous)  # "J.R. Tolkien"
        if previous.endswith(".") and (
            last_word in _ABBREVIATIONS or len(last_word) == 1 or initials
        ):
            pieces[-1] = f"{previous} {piece}"
        else:
            pieces.append(piece)
    return [part for piece in pieces for part in _cut_long(piece)]


# A sentence longer than this (dictation typed without a stop, a pasted run-on) is read in
# pieces cut at a space: a quote, a fact or an event holds at most MAX_TEXT characters, and
# one such sentence must not fail a whole transcript's extraction.
MAX_SENTENCE = 1000


def _cut_long(sentence: str) -> list[str]:
    """``sentence`` in pieces of at most :data:`MAX_SENTENCE` characters, each cut at the last
    space before the limit (or at the limit, in a run without spaces): substrings of it."""
    pieces = []
    rest = sentence
    while len(rest) > MAX_SENTENCE:
        at = rest.rfind(" ", 0, MAX_SENTENCE + 1)
        at = at if at > 0 else MAX_SENTENCE
        pieces.append(rest[:at].strip())
        rest = rest[at:].strip()
    return [*pieces, rest] if rest else pieces


# A second thing the speaker did, said with "and" and no subject of its own: "I quit crossfit
# in May and started swimming" is two changes, each the speaker's.
_AND_DID = re.compile(
    r",?\s+and\s+(?:then\s+)?(?=(?:started|took\s+up|joined|quit|stopped|gave\s+up|began|"
    r"moved|signed\s+up)\b)",
    re.IGNORECASE,
)
_SPEAKER_LEADS = re.compile(r"^(?P<who>i|we)\b", re.IGNORECASE)


def split_clauses(sentence: str) -> list[str]:
    out = []
    for clause in _CLAUSE_BREAK.split(sentence):
        clause = clause.strip(" ,") if clause else ""
        if not clause:
            continue
        leads = _SPEAKER_LEADS.match(clause)
        parts = _AND_DID.split(clause) if leads else [clause]
        out.append(parts[0])
        out += [f"{leads.group('who')} {part.strip(' ,')}" for part in parts[1:] if leads]
    return out


_JOINED_ON = re.compile(
    r"[\s,;]*(?:\b(?:and then|and|but|so|then|plus|while|whereas|which)\b)?[\s,;]*$"
)


def before_hedge(sentence: str, hedge: re.Pattern[str]) -> str | None:
    """The clauses of ``sentence`` before the first that ``hedge`` finds, when the first is
    not hedged ("we moved to Leeds in May and I might get a dog": we moved to Leeds), else
    None."""
    clauses = [
        part.strip(" ,")
        for clause in split_clauses(sentence)
        for part in _OTHER_TAKES_OVER.split(clause)
        if part.strip(" ,")
    ]
    for at, clause in enumerate(clauses):
        if hedge.search(clause):
            if at == 0:
                return None
            end = sentence.find(clause)
            return _JOINED_ON.sub("", sentence[:end]) if end > 0 else None
    return None


# --- what is never a memory ---------------------------------------------------------------

SMALLTALK = frozenset(
    """hi hello hey heya hiya yo sup morning evening afternoon night good gn gm thanks thank
    you thx ty tysm cheers ok okay k kk okey alright right cool nice great awesome amazing
    perfect sweet lovely sure yes yeah yep yup yea no nope nah lol lmao haha hahaha hehe wow
    oh ah hmm hm um uh got it sounds makes sense fair enough understood bye goodbye see ya later
    cya much so a lot very really that's thats this is that it was all for now np welcome
    appreciate appreciated brilliant fantastic excellent indeed true exactly agreed absolutely
    totally fine neat interesting please the there ok. done noted""".split()
)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)
_CONTROL = re.compile(
    r"^(?:please\s+)?(?:"
    r"save\s+(?:this|that|it|the)\b(?!.*\bfor\s+later\b)|"
    r"(?:re-?try|try\s+again|continue|go\s+on|keep\s+going|carry\s+on|proceed|start\s+over|"
    r"regenerate|redo|undo|never\s*mind|nvm|forget\s+(?:it|that|this)|stop|cancel|again)\b|"
    r"(?:send|give|show)\s+(?:me\s+)?(?:the|that|this|your)\s+"
    r"(?:prompt|code|answer|output|result|file|link|text|summary)\b|"
    r"summari[sz]e\s+(?:this|that|it|the)\b|"
    r"(?:don'?t|do\s+not)\s+(?:save|remember|store|keep)\b"
    r")",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^(?:(?:can|could|would|will|should|shall|do|does|did|is|are|was|were|have|has|may|might)"
    r"\s+(?:you|u|it|we|i|there|this|that|they|he|she)\b|"
    r"(?:what|how|why|where|who|whom|which|whose|when)(?:'s|'re|\s+(?:is|are|was|were|do|does|"
    r"did|can|could|would|should|will|about|if|to|kind|type|should)\b)|"
    r"any\s+(?:idea|ideas|thoughts|suggestions|tips)\b|i\s+wonder\b)",
    re.IGNORECASE,
)
_IMPERATIVE = re.compile(
    r"^(?:please\s+|pls\s+|now\s+|ok\s+|okay\s+|so\s+|and\s+)?(?:give|send|show|write|make|create|"
    r"generate|explain|summari[sz]e|translate|fix|help|tell|list|draft|rewrite|check|find|"
    r"search|look|continue|retry|try|repeat|redo|regenerate|save|stop|go|do|compare|convert|"
    r"run|print|copy|paste|format|add|remove|delete|update|change|use|read|open|describe|"
    r"suggest|recommend|proceed|undo|cancel|answer|respond|reply|calculate|define|implement|"
    r"refactor|review|debug|test|draw|code|build|paraphrase|expand|shorten|simplify|outline|"
    r"brainstorm|analy[sz]e|edit|improve|correct|proofread|share|export|store|keep|"
    r"don'?t|do\s+not|let\s+me\s+know)\b",
    re.IGNORECASE,
)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def word_set(text: str) -> set[str]:
    """``set(words(text))``, each word lowered once however often the text repeats it."""
    return set(map(str.lower, set(_WORD.findall(text))))


def is_smalltalk(sentence: str) -> bool:
    """Greetings, thanks, acknowledgements: every word is small talk (or there are none)."""
    tokens = words(sentence.replace("’", "'"))
    return all(token in SMALLTALK for token in tokens)


def is_request(sentence: str) -> bool:
    """A question, request or control message addressed to the assistant."""
    text = sentence.strip().replace("’", "'")
    if text.endswith("?"):
        return True
    return bool(_CONTROL.match(text) or _QUESTION_START.match(text) or _IMPERATIVE.match(text))


def is_control(sentence: str) -> bool:
    """A control message to the assistant ("don't save this", "try again", "summarise it")."""
    return bool(_CONTROL.match(sentence.strip().replace("’", "'")))


_QUESTION_WORD = re.compile(
    r"^(?:should|shall|would|could|can|is|are|was|were|do|does|did|will|what|how|why|where|who|"
    r"which|when|whether)\b",
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    """Phrased as a question (whatever its punctuation)."""
    text = text.strip()
    return bool(_QUESTION_WORD.match(text) or _QUESTION_START.match(text))


# Where a question may start inside a typed sentence: after a comma, a semicolon, a dash or
# an emoji ("my greenhouse got smashed last night, can I claim on the insurance?").
_ASK_BREAK = re.compile(r"(?:[,;]|\s[-–—]+|[\U0001F300-\U0001FAFF\u2600-\u27BF]+)\s+")


# The ask after what was told may be a few words only: "normal?", "gift ideas?", "choke or
# battery?".
_SHORT_ASK = 4


def told(sentence: str) -> str:
    """What the person tells in a sentence that also asks. Before the question they go on to
    ask in the same sentence
    ("our gecko didn't shed properly, do i soak her?": "our gecko didn't shed properly";
    "grandma's 85th is on sunday, gift ideas?"), else the sentence. Only a sentence that ends
    in a question mark is cut: at the first break whose rest is phrased as a question, else
    at the last break when what follows it is a few words only; what comes before must be
    three words or more and no question itself. After the question or request it opens with,
    when it does not end in a question mark (:func:`_told_after_asking`)."""
    if not sentence.rstrip().endswith("?"):
        return _told_after_asking(sentence)
    breaks = list(_ASK_BREAK.finditer(sentence))
    cut = next((b for b in breaks if is_question(sentence[b.end() :])), None)
    if cut is None and breaks and len(words(sentence[breaks[-1].end() :])) <= _SHORT_ASK:
        cut = breaks[-1]
    if cut is None:
        return sentence
    head = sentence[: cut.start()].strip()
    if len(words(head)) < 3 or is_question(head) or _offers_choice(head):
        # "is it better in Leith, or in Portobello?", "we could go to the zoo, or stay in,
        # what do you think?": a question throughout
        return sentence
    return head


def _offers_choice(text: str) -> bool:
    """Whether ``text`` goes on after a break with "or": one choice of a question."""
    return any(_ASK_GOES_ON.match(text[cut.end() :]) for cut in _ASK_BREAK.finditer(text))


# A topic typed before a question or a request, as people ask an assistant: "docker: how do
# i see the logs", "SQL: find duplicate rows".
TOPIC = re.compile(r"^\s*[\w.+#/ -]{1,24}:\s+")


# The words of a request that hand over material to work on: "rewrite this: ...", "translate
# the following", "can you make it shorter".
HANDED_OVER = re.compile(r"\b(?:this|these|the\s+following|below|above|it)\b", re.IGNORECASE)


# A request to compose something: what the sentence goes on to say is what to write.
_COMPOSE = re.compile(
    r"\b(?:write|draft|compose|reword|rewrite|reply|respond|translate|summari[sz]e|proofread|"
    r"edit|polish)\b",
    re.IGNORECASE,
)


# Words a question may open with before it asks ("also do you know if ...", "so what should I
# ...", "btw can I ...").
ASK_LEAD_IN = re.compile(
    r"^\s*(?:(?:also|and|so|ok|okay|oh|btw|but|anyway|hey|well|plus|then)\b[,\s]*)+",
    re.IGNORECASE,
)
# What goes on asking after a break: "should I take the job, or stay where I am".
_ASK_GOES_ON = re.compile(r"^(?:or|either|nor)\b", re.IGNORECASE)


def asks(text: str) -> bool:
    """Phrased as a question or a request, after the words it may open with."""
    text = ASK_LEAD_IN.sub("", text, count=1) or text
    return is_request(text) or is_question(text)


def _told_after_asking(sentence: str) -> str:
    """What the person tells after the question or request a sentence opens with ("how do u
    get the sourdough to rise, Odile (neighbour) swears by a warm oven": "Odile (neighbour)
    swears by a warm oven"; "how do I bleed a radiator, the boiler was serviced in May"; what follows a topic
    typed as if it asked: "update for you: we sold the campervan"), else the sentence:
    the rest after the first break that is three words or more, neither asks nor goes on
    asking ("..., or stay where I am"), unless the request hands material over ("translate
    this, ...": :data:`HANDED_OVER`) or asks for something written ("write a note to my
    landlord, the lease says ...": what follows is what to write)."""
    if not asks(sentence):
        return sentence
    topic = TOPIC.match(sentence)
    if topic and not HANDED_OVER.search(topic.group(0)) and not asks(sentence[topic.end() :]):
        return sentence[topic.end() :]  # "update for you: we sold the campervan"
    for cut in _ASK_BREAK.finditer(sentence):
        rest = sentence[cut.end() :].strip()
        if len(words(rest)) >= 3 and not asks(rest) and not _ASK_GOES_ON.match(rest):
            # "translate this, my wife ...", "write a note to my landlord saying ..., the
            # lease says ...": what follows is the material, not told
            asking = sentence[: cut.start()]
            return sentence if HANDED_OVER.search(asking) or _COMPOSE.search(asking) else rest
    return sentence


# "Remember that ...", "Note: ...", "Don't forget that ...", "Save this for later: ...".
_REMEMBER = re.compile(
    r"^(?:(?:please|pls|ok|okay|also|and|hey|oh|btw|so)[,\s]+)*(?:can\s+you\s+|could\s+you\s+)?"
    r"(?:(?:always\s+)?remember|note|keep\s+in\s+mind|don'?t\s+forget|do\s+not\s+forget|"
    r"make\s+a\s+note|for\s+(?:the\s+)?record|fyi|save\s+this(?:\s+\w+)?\s+for\s+later|"
    r"note\s+to\s+self|memo|important)"
    r"(?:\s+(?:that|this|of\s+this|the\s+following))?\s*(?::|-|–|,|\s)\s*",
    re.IGNORECASE,
)


def unwrap_remember(sentence: str) -> tuple[str, bool]:
    """Drop a "remember that" wrapper: (the rest, True), or (the sentence, False)."""
    text = sentence.replace("’", "'").strip()
    match = _REMEMBER.match(text)
    if not match or match.end() >= len(text):
        return sentence, False
    rest = text[match.end() :].strip()
    if rest.lower() in {"this", "that", "it"} or rest.lower().startswith(("to ", "me ")):
        # "remember this" has no content; "remember to ..." is a to-do, not a fact.
        return sentence, False
    return rest, True


_LEAD_FILLER = re.compile(
    r"^(?:(?:also|and|so|oh|ok|okay|well|yes|yeah|yep|no|actually|anyway|anyways|btw|by\s+the\s+way|"
    r"fyi|update|quick\s+update|just\s+so\s+you\s+know|for\s+context|for\s+now|these\s+days|"
    r"nowadays|at\s+the\s+moment|"
    r"honestly|basically|fun\s+fact|news|big\s+news|guess\s+what|oh\s+and|also\s+fyi)"
    r"\s*[,:!\-–—]?\s+)+",
    re.IGNORECASE,
)
# A subjectless report ("Started boxing last week.") is the speaker's own.
_SUBJECTLESS = re.compile(
    r"^(?:(?:just|finally|also|recently|only)\s+)?(?:started|began|stopped|quit|gave\s+up|paused|resumed|finished|completed|launched|"
    r"shipped|moved|relocated|got|took\s+up|picked\s+up|broke|injured|sprained|tore|hurt|"
    r"recovered|joined|left|switched|been|went|had|took|visited|attended|lost|graduated|passed|"
    r"participated|ran|hiked|celebrated)\b",
    re.IGNORECASE,
)


# "im" and "ive" as chat types them, for the rules that read "I'm" and "I've".
_BARE_I = re.compile(r"\b[iI](m|ve)\b")


def strip_fillers(clause: str) -> str:
    """Drop discourse fillers ("Also,", "Actually no,"), spell "im" and "ive" out, and give
    subjectless reports an "I"."""
    text = _LEAD_FILLER.sub("", clause.strip().replace("’", "'")).strip()
    text = _BARE_I.sub(lambda m: "I'" + m.group(1), text)
    text = text.rstrip(" .!;:?")
    if _SUBJECTLESS.match(text):
        text = f"I {text[0].lower()}{text[1:]}"
    return text


# A hedge on an amount ("she ate maybe half a bar", "it's probably 50 hours a week",
# "probably 5 years ago") hedges the amount, not whether it happened.
AMOUNT_AFTER = (
    r"(?!\s+(?:[£$€]?\d|(?:half|a\s+(?:few|couple|dozen|third|quarter|hundred)|about|around|"
    r"like|once|twice|several|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"twenty|thirty|forty|fifty)\b))"
)
HEDGE = re.compile(
    r"\b(?:might|(?:maybe|perhaps|possibly|probably)" + AMOUNT_AFTER + r"|"
    r"thinking\s+(?:about|of)|considering|"
    r"not\s+sure|i\s+guess|i\s+wonder|want\s+to|wants\s+to|wanna|would\s+like\s+to|'d\s+like\s+to|"
    r"hoping\s+to|hope\s+to|planning\s+to|plan\s+to|may\s+(?:try|start|take|learn|join|move|"
    r"switch|quit|stop|give|pick|get))\b",
    re.IGNORECASE,
)
FUTURE = re.compile(
    r"\b(?:will|won't|'ll|going\s+to|gonna|next\s+(?:week|month|year|time)|tomorrow|tonight|"
    r"soon|later\s+(?:today|this)|this\s+(?:weekend|coming)|is\s+(?:visiting|coming)|"
    r"are\s+(?:visiting|coming))\b",
    re.IGNORECASE,
)

# --- labels -------------------------------------------------------------------------------

_DETERMINERS = frozenset(
    "a an the my our your his her their its this that these those some new own another".split()
)
# Words after which a capitalised name is the real label: "my side project Atlas", "Project
# Moonbeam". Capitalised after a capitalised word, it is inside the name ("Senior Product
# Manager", "Galway Book Club").
DESCRIPTORS = frozenset(
    """project app application site website tool product startup company business service
    library package plugin bot game book blog podcast channel newsletter repo repository
    system platform api extension framework band team club brand shop store""".split()
)
# The particles other languages write in lower case between the words of a name
# ("Universidade de Lisboa", "Museo del Mar", "Joost van Dam"): a label keeps them as written.
NAME_PARTICLES = frozenset("de del della di da du van von der den la".split())
_SMALL_WORDS = frozenset("of and in on for to at with the a an or by from vs".split())
# Things a person does or goes to once: "a charity race", "the Snowdon hike", "a pride parade".
EXPERIENCE_NOUNS = frozenset(
    """race marathon half-marathon 10k 5k triathlon ultra hike trek walk ride swim climb
    concert gig festival show play match game wedding funeral party retreat workshop
    conference meetup group class session course exhibition exam interview trip holiday
    vacation tour ceremony fundraiser tournament competition audition appointment parade march
    rally protest vigil fair gala screening lecture talk reading picnic barbecue bbq cookout
    potluck convention reunion recital expedition birthday anniversary meeting event test
    run""".split()
)
# Of those, the ones that say nothing on their own: "a council meeting", "a marching event", "my
# driving test" are experiences; "a meeting", "an event", "the test" are not.
EXPERIENCE_NEEDS_KIND = frozenset("meeting event test run".split())
# What one takes or does as a course: "a creative writing class", "a coding bootcamp".
COURSES = frozenset(
    """class classes course courses lesson lessons workshop workshops seminar bootcamp
    apprenticeship diploma degree""".split()
)
# How a person eats or drinks, said of themselves ("I went pescatarian last year"): the
# labels :func:`memory.extractors.rules.preferences.diet` files, kept as they are though one
# word in lower case reads to the embedding model as a quality.
DIETS = frozenset(
    """vegetarian vegan pescatarian pescetarian teetotal teetotaller plant-based gluten-free
    dairy-free halal kosher keto paleo""".split()
)
DIET_LABELS = DIETS - {"pescetarian", "teetotaller"}  # filed by their other spelling

# Verbs that name no pastime on their own (English's light verbs and their like): their
# gerund alone ("Working", "Supporting", "Making") is a verb cut from its object, and "I like
# to use Vim" likes Vim, not using.
LIGHT_VERBS = frozenset(
    "do make get go have take try use help support work keep start begin look find give put"
    " come think feel see know say tell let want need seem become bring stay deal handle"
    " manage".split()
)
_QUOTES = "\"'“”‘’`«»()[]{}"
_CALLED = re.compile(r"\b(?:called|named|titled)\s+(.+)$", re.IGNORECASE)


def _capitalised(word: str) -> bool:
    return bool(word) and word[0].isupper()


def title_word(word: str, first: bool) -> str:
    if any(ch.isupper() or ch.isdigit() for ch in word):
        return word
    if not first and word in _SMALL_WORDS:
        return word
    return word[:1].upper() + word[1:]


def _particle(parts: list[str], at: int) -> bool:
    """Whether ``parts[at]`` is a particle between two capitalised words of a name."""
    return (
        0 < at < len(parts) - 1
        and parts[at] in NAME_PARTICLES
        and _capitalised(parts[at - 1])
        and _capitalised(parts[at + 1])
    )


def title_case(phrase: str) -> str:
    parts = phrase.split()
    return " ".join(
        w if _particle(parts, i) else title_word(w, i == 0) for i, w in enumerate(parts)
    )


# What a pastime is to the person, said after it in lower case: no part of its name.
_WHAT_IT_IS_TO_ME = frozenset("passion passions hobby hobbies obsession".split())


def make_label(phrase: str) -> str | None:
    """A phrase -> a label by the module's label rule, or ``None`` if it is not a name."""
    text = _EMOJIS.sub("", phrase).strip().strip(_QUOTES + " .,;:!?-–—").strip()
    called = _CALLED.search(text)
    if called:
        text = called.group(1).strip(_QUOTES + " .,;:!?")
    # "Meera's birthday" drops its "'s"; "St. Brigid's Hospital" is a name and keeps it.
    parts = re.sub(r"'s (?![A-Z])", " ", text).split()
    while parts and parts[0].lower() in _DETERMINERS and parts[0] != "New":
        parts = parts[1:]  # "New York" keeps its "New"; "my new bike" does not
    parts = [p.strip(_QUOTES) for p in parts if p.strip(_QUOTES)]
    for index in range(len(parts) - 1):
        inside = index > 0 and _capitalised(parts[index]) and _capitalised(parts[index - 1])
        descriptor = parts[index].lower() in DESCRIPTORS and not inside
        if descriptor and all(_capitalised(p) for p in parts[index + 1 :]):
            parts = parts[index + 1 :]
            break
    if len(parts) > 1 and parts[-1] in _WHAT_IT_IS_TO_ME:
        parts = parts[:-1]  # "my dancing passion", "my baking hobby": dancing, baking
    if not parts or len(parts) > MAX_LABEL_WORDS:
        return None
    label = title_case(" ".join(parts))
    return None if label_rejection(label) else label


def is_name(phrase: str) -> bool:
    """A proper name as written: every word capitalised (or a quoted phrase)."""
    stripped = phrase.strip()
    if stripped[:1] in "\"“'" and stripped[-1:] in "\"”'":
        return True
    parts = stripped.split()
    return (
        bool(parts)
        and all(
            _capitalised(p) or p.lower() in _SMALL_WORDS or _particle(parts, i)
            for i, p in enumerate(parts)
        )
        and (_capitalised(parts[0]))
    )


def gerund(verb: str) -> str:
    """English -ing form, for labels such as "to run" -> "Running"."""
    verb = verb.lower()
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        return verb[:-1] + "ing"
    vowels = "aeiou"
    short = (
        len(verb) >= 3
        and verb[-1] not in vowels + "wxy"
        and verb[-2] in vowels
        and verb[-3] not in vowels
        and len(verb) <= 4
    )
    return verb + verb[-1] + "ing" if short else verb + "ing"
