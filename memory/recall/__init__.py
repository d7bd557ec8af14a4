"""Recall: what an assistant gets back when it asks ume about something.

:func:`recall` is the one entry point (:mod:`memory.recall.engine`). It reads the owner's
memory in a fixed number of queries through the loaders (:mod:`memory.recall.loaders`, the
selectors), then ranks with pure functions over those rows, so the same rows give the same
answer on SQLite and PostgreSQL:

1. **Gate** (:mod:`memory.recall.query`). Greetings, thanks, acknowledgements and
   self-contained utility questions ("what is 2+2", "how do I reverse a list in python")
   return nothing, with ``no_recall`` and a reason. "Who is Rahul?" and "what is Atlas?" are
   recall questions: the subject is a capitalised name, or names something in memory. Recall
   phrasing ("what do you remember about" ...) is stripped, leaving the subject.
2. **Broad profile** ("what are my projects", "my health") returns the nodes of the mapped
   categories (:func:`memory.recall.lanes.profile_lane`).
3. **Named lane.** Canonical labels and aliases found in the subject, longest first: a name
   inside a longer name ("UML" inside "UML College Society") does not count on its own.
4. **Lexical lane.** BM25 over labels, aliases, summaries, current slices, events and pages,
   with stop words removed and the Porter stemmer (:mod:`memory.recall.text`). Words already
   used by a name do not score again, so identities that merely share words with a named one
   are not returned; a query whose content words match nothing returns nothing.

5. **Episode lane.** What was said in conversations, after confirmed memories
   (:mod:`memory.recall.episodes`, loaded by :mod:`memory.recall.episode_loaders`): never a
   message that mentions a label the person asked ume to forget.

6. **Confidence** (:mod:`memory.recall.confidence`). Every item carries a confidence in 0..1
   read from the evidence of its match, and from whether the answer holds what the question
   asks for (:mod:`memory.recall.slots`); when the best is under
   ``UME_RECALL_MIN_CONFIDENCE`` the answer is ``no_recall`` with reason ``nothing_close``.

Ranking and fusion live in :mod:`memory.recall.ranking`. Superseded slices never feed ranking
or context.
"""

from __future__ import annotations

import os

# One BLAS thread: a worker answers a request per thread, and the semantic lane's products are
# small enough that BLAS's own threads only contend with the others (3x slower under load).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from memory.recall.engine import recall  # noqa: E402
from memory.recall.items import (  # noqa: E402
    MAX_LIMIT,
    EpisodeItem,
    EventView,
    RecallItem,
    RecallResult,
    SliceView,
)
from memory.recall.query import (
    REASON_EMPTY,
    REASON_MATCHED,
    REASON_NO_MATCH,
    REASON_NOTHING_CLOSE,
    REASON_PROFILE,
    REASON_SMALLTALK,
    REASON_UTILITY,
    Parsed,
    parse_query,
)

__all__ = [
    "MAX_LIMIT",
    "REASON_EMPTY",
    "REASON_MATCHED",
    "REASON_NO_MATCH",
    "REASON_NOTHING_CLOSE",
    "REASON_PROFILE",
    "REASON_SMALLTALK",
    "REASON_UTILITY",
    "EpisodeItem",
    "EventView",
    "Parsed",
    "RecallItem",
    "RecallResult",
    "SliceView",
    "parse_query",
    "recall",
]
