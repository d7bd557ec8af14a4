"""Whole chat exports (ChatGPT, Claude, JSON Lines) -> one transcript per conversation.

:mod:`memory.imports.formats` reads the files (pure), :mod:`memory.imports.services` stores
the conversations and :mod:`memory.imports.selectors` reports an import's progress.
"""
