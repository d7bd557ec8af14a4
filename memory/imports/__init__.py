"""Reading chat exports (ChatGPT, Claude, JSON Lines, Gemini, Claude's memories): pure, no
database.

:mod:`memory.imports.jsonstream` streams a big JSON array one element at a time (ijson),
:mod:`memory.imports.formats` turns elements into conversations, :mod:`memory.imports.gemini`
and :mod:`memory.imports.claude_memories` read the vendors' other shapes. Storing them is
:mod:`memory.services.imports` (through the ingest verbs of :mod:`memory.services.ingest`);
an import's progress is read by :mod:`memory.import_selectors`.
"""
