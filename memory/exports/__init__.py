"""Taking a memory away: ume's export file and its import (docs/export.md).

:mod:`memory.exports.format` is the format (pure), :mod:`memory.exports.selectors` reads a
person's rows into it, :mod:`memory.exports.markdown` and :mod:`memory.exports.folder` write
the readable pages, :mod:`memory.exports.http` streams the file as a download and
:mod:`memory.exports.services` imports it.
"""
