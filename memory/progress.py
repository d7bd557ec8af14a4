"""A one-line progress bar for long commands.

Shown only on a terminal: under ``--json``, or when stderr is piped or redirected (cron,
systemd, a log file), it writes nothing, so machine-read output stays clean.
"""

from __future__ import annotations

import time
from typing import Any, TextIO


class Progress:
    """``step(label)`` after each unit of work (``step(label, n)`` after ``n`` of them);
    ``total`` may grow with ``add(n)``."""

    WIDTH = 30

    def __init__(self, total: int, stream: TextIO | Any, *, enabled: bool) -> None:
        self.total, self.stream, self.enabled, self.done = max(0, total), stream, enabled, 0
        self.started = time.monotonic()
        self._finished = False

    @classmethod
    def for_command(cls, total: int, stream: Any, *, as_json: bool) -> Progress:
        """Enabled only when the command is not printing JSON and ``stream`` is a terminal.

        ``stream`` may be a management command's ``self.stderr``; the bar writes to the stream
        it wraps, because the wrapper would end every write with a newline.
        """
        raw = getattr(stream, "_out", stream)
        isatty = getattr(raw, "isatty", None)
        on_terminal = bool(isatty and isatty())
        return cls(total, raw, enabled=on_terminal and not as_json)

    def clear(self) -> None:
        """Wipe the bar's line before the command prints a line of its own."""
        if self.enabled and self.done and not self._finished:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def line(self, text: str) -> None:
        """A line of its own above the bar (on a terminal only), with the time so far."""
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        self.stream.write(f"\r\033[K{text} ({elapsed:.1f} s)\n")
        self.stream.flush()

    def add(self, n: int) -> None:
        self.total += n

    def step(self, label: str = "", n: int = 1) -> None:
        self.done += n
        if self.total < self.done:
            self.total = self.done
        if not self.enabled:
            return
        filled = int(self.WIDTH * self.done / max(1, self.total))
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        elapsed = time.monotonic() - self.started
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {elapsed:5.0f}s {label[:40]:<40}")
        if self.done == self.total:
            self.finish()
        else:
            self.stream.flush()

    def finish(self) -> None:
        """End the bar's line (once), so later output starts on a fresh line."""
        if self.enabled and self.done and not self._finished:
            self.stream.write("\n")
            self.stream.flush()
            self._finished = True
