"""What a web worker does once it has loaded the application (``ume.wsgi``, ``ume.asgi``).

A worker imports Django, the MCP SDK, pydantic, numpy and the stemmers: about 175,000
objects that live as long as the process. Python's full garbage collection walks every one
of them each time it runs, which it does every few hundred requests: 80 to 110 ms on the
benchmark machine, added to whichever request set it off (``make bench`` saw it as one
recall in thirty taking 120 ms instead of 15). :func:`freeze_loaded_objects` moves what is
alive at the end of start-up out of the collector's reach (``gc.freeze``, the remedy
Python documents for long-lived objects); what requests create is collected as before."""

from __future__ import annotations

import gc


def freeze_loaded_objects() -> int:
    """Collect once, then freeze every object alive now; returns how many were frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
