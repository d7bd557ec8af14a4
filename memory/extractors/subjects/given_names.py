"""Given names the world over, for names English's own lists do not know.

The nickname lists (:func:`memory.tombstones._given_name`) know English given names and their
pet forms: "Dan", "Kate", "Max". People talk of Felipe, Priya, Arjun, Ngozi, Siobhan and
Lennart too, and a capitalised word the lists do not know was read as a place, a habit or a
company by what the sentence was about ("Felipe" in a sentence about baking: a habit).

The first names of Faker's person providers (about 26,000 names from some 90 locales, from
Irish and Welsh to Hindi, Yoruba and Vietnamese) fill the gap. Faker is maintained (MIT),
ships its lists inside the wheel and reads nothing from the network; its person modules are
imported once, on first use, and only their name lists are kept. Its lists hold words that
are also English words or places ("Hope", "Summer", "Paris", "Georgia"), so a word counts
here only when English does not know it as a word of its own: the tagger's lexicon has no
lower-case entry for it, and it is not as common as an everyday word or a well-known place
(:data:`EVERYDAY_ZIPF`). A rarer place that is also a given name ("Florence", "Chester") is
read as the name.

Pure once loaded: no database, no model.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache, lru_cache

from memory.extractors.subjects.phrases import lexical_tag, zipf

# A word this common in English is that word, whatever a list of names says ("Will", "Hope").
EVERYDAY_ZIPF = 4.0
_ATTRIBUTES = ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary")


def _names_of(provider: type) -> set[str]:
    out: set[str] = set()
    for attribute in _ATTRIBUTES:
        for klass in provider.__mro__:
            value = klass.__dict__.get(attribute)
            if value is not None:
                break
        if isinstance(value, dict):
            value = list(value)
        if not isinstance(value, (list, tuple)):
            continue  # a property (a locale that builds its names) or nothing
        lowered = (name.lower() for name in value if isinstance(name, str))
        out |= {name for name in lowered if name.isalpha()}
    return out


@cache
def world_names() -> frozenset[str]:
    """Every first name of Faker's person providers, in lower case."""
    import faker.providers.person as people

    names: set[str] = set()
    for module in pkgutil.iter_modules(people.__path__):
        try:
            provider = importlib.import_module(f"{people.__name__}.{module.name}").Provider
        except (ImportError, AttributeError):
            continue
        names |= _names_of(provider)
    return frozenset(names)


@lru_cache(maxsize=16384)
def world_given_name(word: str) -> bool:
    """Whether ``word`` (any case) is a given name somewhere that English does not know as a
    word or a place of its own: "felipe", "priya", "siobhan"; not "hope", "paris", "will"."""
    lowered = word.lower()
    return (
        len(lowered) >= 3
        and lowered.isalpha()
        and lowered in world_names()
        and not lexical_tag(lowered)
        and zipf(lowered) < EVERYDAY_ZIPF
    )
