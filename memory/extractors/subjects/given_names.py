"""Given names the world over, for names English's own lists do not know.

The nickname lists (:func:`memory.tombstones._given_name`) know English given names and their
pet forms: "Dan", "Kate", "Max". People talk of Felipe, Priya, Arjun, Ngozi, Siobhan and
Lennart too, and a capitalised word the lists do not know was read as a place, a habit or a
company by what the sentence was about ("Felipe" in a sentence about baking: a habit).

The first names of Faker's person providers (about 26,000 names from some 90 locales, from
Irish and Welsh to Hindi, Yoruba and Vietnamese) fill the gap. Faker is maintained (MIT),
ships its lists inside the wheel and reads nothing from the network. Its person providers'
source is read once, on first use, for the name lists it assigns, and never imported: only the
names stay in memory (about 3 MB; importing the modules kept 18 MB). Its lists hold words that
are also English words or places ("Hope", "Summer", "Paris", "Georgia"), so a word counts
here only when English does not know it as a word of its own: the tagger's lexicon has no
lower-case entry for it, and it is not as common as an everyday word or a well-known place
(:data:`EVERYDAY_ZIPF`). A rarer place that is also a given name ("Florence", "Chester") is
read as the name.

Pure once loaded: no database, no model.
"""

from __future__ import annotations

import ast
import importlib.util
from functools import cache, lru_cache
from pathlib import Path

from memory.extractors.subjects.phrases import lexical_tag, zipf

# A word this common in English is that word, whatever a list of names says ("Will", "Hope").
EVERYDAY_ZIPF = 4.0
_ATTRIBUTES = ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary")


def _literal_names(node: ast.AST) -> set[str]:
    """The names of a list, tuple or set literal, of a dict's keys or of its pairs (a list
    weighted by how common each name is, often an ``OrderedDict`` of pairs); a list made from
    others (``a + b``) holds theirs, read already."""
    if isinstance(node, ast.Call) and node.args:
        return _literal_names(node.args[0])  # OrderedDict((("Aoife", 0.1), ...))
    if isinstance(node, ast.Dict):
        items: list[ast.expr | None] = list(node.keys)
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = list(node.elts)
    else:
        return set()
    out = set()
    for item in items:
        if isinstance(item, ast.Tuple) and item.elts:
            item = item.elts[0]  # a name and its weight
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            name = item.value.lower()
            if name.isalpha():
                out.add(name)
    return out


def _names_in(source: str) -> set[str]:
    """The first names a person provider's source assigns, in its module or its classes'
    bodies (where providers assign them): the statements are read, not every node of the
    tens of thousands of names in their literals."""
    names: set[str] = set()
    statements = list(ast.parse(source).body)
    while statements:
        node = statements.pop()
        if isinstance(node, ast.ClassDef):
            statements.extend(node.body)
            continue
        if isinstance(node, ast.Assign):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            targets = [node.target.id]
        else:
            continue
        if any(t in _ATTRIBUTES for t in targets) and node.value is not None:
            names |= _literal_names(node.value)
    return names


@cache
def world_names() -> frozenset[str]:
    """Every first name of Faker's person providers, in lower case. Read from the providers'
    source, not imported: only the names stay in memory."""
    spec = importlib.util.find_spec("faker")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the faker package is not installed")
    folder = Path(next(iter(spec.submodule_search_locations))) / "providers" / "person"
    names: set[str] = set()
    for source in sorted(folder.glob("*/__init__.py")):
        names |= _names_in(source.read_text(encoding="utf-8"))
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
