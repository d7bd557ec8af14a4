"""The proposer's tagger, lexicon and stemmer, loaded without TextBlob's and NLTK's packages
whole, are the ones those packages give."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap

import pytest

from memory.extractors.subjects.history import heard

# The module, not the function of the same name that its package exports.
phrases = importlib.import_module("memory.extractors.subjects.phrases")


def test_tagging_and_stemming_import_neither_package_whole() -> None:
    # A fresh interpreter: this one may have imported them already.
    code = textwrap.dedent(
        """
        import os, sys
        import django
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ume.settings")
        django.setup()
        from memory.extractors.subjects.phrases import lexical_tag, stem, tag
        tagged = tag("My sister Ana took the greyhound to Aberdeen")
        assert ("greyhound", "NN", "I-NP") in tagged[0], tagged
        assert stem("classes") == "class" and stem("dancing") == "danc"
        assert lexical_tag("show") == "NN"
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("nltk", "textblob"))
        print(loaded)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_lexicon_is_the_one_textblob_reads() -> None:
    ours = dict(phrases._english().lexicon)
    from textblob._text import Lexicon  # the package whole, here

    theirs = Lexicon(path=phrases._english().lexicon.path)
    theirs.load()
    assert len(ours) > 90_000
    assert ours == dict(theirs)


def test_the_stemmer_is_nltks_porter() -> None:
    from nltk.stem.porter import PorterStemmer

    porter = PorterStemmer()
    words = "classes dancing pottery adoption agencies generously hopping ponies sky".split()
    assert [phrases.stem(w) for w in words] == [porter.stem(w) for w in words]


def test_what_the_packages_import_from_elsewhere_stays_imported() -> None:
    code = textwrap.dedent(
        """
        import os, sys
        import django
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ume.settings")
        django.setup()
        from memory.extractors.subjects.phrases import stem, tag
        tag("We adopted a retired greyhound")
        stem("greyhounds")
        # Imported by the tagger's code: it stays, one module, not a second copy later.
        print("xml.etree.ElementTree" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


def test_a_package_imported_whole_later_is_the_real_one() -> None:
    phrases.tag("We adopted a retired greyhound")
    phrases.stem("greyhounds")
    import textblob

    assert hasattr(textblob, "TextBlob")


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        # Two messages of one conversation: it counts once; the other conversation's too.
        (
            [(1, "I love my pottery class."), (1, "My pottery is drying."), (2, "We did pottery.")],
            2,
        ),
        # Named but not by the person ("I", "my", "we"), or only as a longer word's prefix.
        ([(1, "Pottery is old."), (2, "I like potatoes.")], 0),
    ],
)
def test_heard_counts_conversations_said_in_first_person(
    texts: list[tuple[int, str]], expected: int
) -> None:
    key = phrases.stem("pottery")
    found = heard(texts, [], {key: "potter", "aberdeen": "aberdeen"})
    assert (found[key].conversations if key in found else 0) == expected
    assert "aberdeen" not in found
