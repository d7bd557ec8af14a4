"""The rules extractor: deterministic, offline, the default path every transcript takes.

Only the person's own turns are read. Each message is split into sentences, and each sentence
into clauses (a new clause starts where a new "I"/"my ..." subject takes over). A sentence that
is small talk, a question or a request to the assistant ("can you ...", "retry", "save this
conversation") is skipped whole. A "remember that ..." / "note:" / "don't forget ..." wrapper
is dropped and the rest is read like any statement.

Messages are read as text first (HTML and Markdown by :func:`memory.markup.markup_to_text`,
so evidence quotes stay readable). A short reply to the other speaker's question is read with
that question (``answers``: "What's your favourite pizza?" / "Pepperoni!"); the other speaker's
words are never a source of facts. A work request the assistant confirms as done is an event on
the component the person named ("fix the overflow in the invoice table renderer" / "Done").

Each clause is offered to the families of recognisers, one module each, in the order of
:data:`memory.extractors.rules.registry.RECOGNISERS`: ``health`` (conditions, medications with
dose and start, allergies, intolerances, measures), ``people`` (below, with pets: possessions,
or family when the person says so), ``work`` (roles are ``identity``, employers
``organization``, starts dated), ``life_events``, ``status`` (volunteering and routines are
habits), ``experiences`` (what the person did, dated: "I ran a charity race last Saturday"),
``projects``, ``tools`` (lists: "with dbt and Airflow"), ``decisions``, ``preferences`` (also
"I'm into ...", "I'd rather ..."), ``routines``, ``possessives``, ``goals`` (plans and wishes
with their time in the text: "a trip to Japan in April 2027") and ``notes`` ("Gym at 6"). The
first that understands a clause wins; people named with their relation anywhere in it ("...
with my sister Dana") are proposed beside it. A hedged clause is a goal only when nothing in it
is unsure, else a hedge. The older families, in detail:

1. hedges ("I might try tennis", "thinking about learning Rust") -> a ``CandidateProposal``
   (reason ``hedged``, confidence 0.6), nothing more;
2. other people: "my sister Meera lives in Bangalore" is about **Meera** (a node, the relation
   as a slice, and the durable rest as a slice or event on her); also "Meera is my sister",
   "my sister's name is Meera" and "Rahul joined my team" (a capitalised name followed by a
   verb we know). A tail about the same person ("... and she is visiting in December", "...
   and is a nurse") is read as its own fact, so it never swallows the one before it. A plan
   ("is visiting", "will ...") is kept as a slice, never a dated event, and only when it names
   a time that stays meaningful (a month, season, holiday, year or date); "next week",
   "tomorrow", "soon" go stale at once and are dropped;
3. life events: moved (an event on the place), married, born, diagnosed (on the condition),
   injured ("my knee" -> "Knee Injury"), recovered, broke up, joined/left an organisation;
4. status changes: started, stopped, quit, gave up, paused, resumed, finished, launched, took
   up, started learning. The subject is a project when the object says project/app/site/tool/
   system/... or names it ("I launched Atlas"), or is a proper name with the piece of work it
   names ("the Atlas beta", "the Orion launch": the whole phrase is the label, so finishing the
   beta does not complete Atlas; "French cooking" is no such name); a skill for learning or a
   gerund ("boxing"); a habit for everyday activities ("running", "coffee"); a project again
   for anything else that is *finished* ("the quarterly report"), else a habit. A schedule
   ("on Sunday mornings", "twice a week") is never part of the label nor a date: the event
   has no ``happened_at`` unless the clause also states one, and keeps the schedule in its text.
   What the person is doing these days, with no start stated, is a fact of progress on it: a
   course being taken or done ("I've been taking a poetry class", "we're doing a first-aid
   course") or one rarer word for an activity ("I'm doing kickboxing", not "the dishes");
5. projects: "my next project is X", "Atlas is my invoicing app", "I'm building X on Y";
6. tools: "X uses Y", "X runs on Y and stores data in Z", "I use Y for Z" -> a tool node for Y,
   an edge X -uses-> Y when X is named, else a slice on Y;
7. decisions: "let's go with X", "I switched to X", "we chose X" -> a decision slice on X;
8. preferences: "I prefer / like / love / hate / can't stand / don't like X", "my favourite
   X is Y" -> a preference slice. The subject rule: a theme ("dark mode") is "<Context> Theme"
   ("in my editor" -> "Editor Theme"); else an explicit context ("in Python" -> "Python");
   else talk about the assistant's answers -> "Response Style"; else the liked thing itself
   ("I love sushi" -> "Sushi", so a later "I hate sushi now" supersedes it); else
   "Preferences";
9. routines: a schedule for an activity the clause names -> a ``progress`` slice on the
   activity (so a new schedule supersedes the old one): "I train boxing three days a week" ->
   "Trains boxing three days a week" on Boxing; the verb may be the activity ("I row four
   mornings a week" -> Rowing) or carry it ("I go to the gym ...", "I do yoga ..."), or the
   activity leads ("Boxing three days a week now"). A schedule whose activity is not in the
   clause ("I train three days a week") is not guessed from earlier messages: nothing;
10. possessives: "<Name>'s <thing> is/are/falls ..." -> a slice on <Name> ("Meera's birthday
   is on 14 January" -> "Birthday is on 14 January" on Meera). A relation word names the
   relation node ("my sister's birthday", "Mom's birthday" -> Sister, Mom); "my sister
   Meera's ..." is Meera. The owner is a person for personal things (birthday, job, husband),
   a project for pieces of work (beta, backend), else ``other``; weekdays and "today" own
   nothing.

A remembered sentence that no recogniser understood still becomes a note: a short subject from
its clause (the named thing, the subject before "is", or the object after "I <verb>") and the
clause as an ``other`` slice. Every event carries the date of its clause from
:func:`memory.temporal.resolve_when`, anchored on the message's time or ``source_time``.

Every subject gets a ``NodeProposal`` beside its event or slice; the gate converges repeated
subjects by canonical key. A name the batch knows as family or a partner keeps that category
where another sentence only showed "a person" ("Meera's birthday ..."). Clear statements have
confidence 0.85.
"""

from __future__ import annotations

from memory.extractors.rules.base import Clause, Found
from memory.extractors.rules.registry import RECOGNISERS, extract, read_clause, read_sentence

__all__ = ["RECOGNISERS", "Clause", "Found", "extract", "read_clause", "read_sentence"]
