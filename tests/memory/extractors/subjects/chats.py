"""A chat written as turns for the subject proposer's tests: "A: ..." is the assistant's."""

from __future__ import annotations

from datetime import datetime

from memory.transcripts import Message


def chat(*turns: str, at: datetime) -> list[Message]:
    """One message per turn, said at ``at``; a turn starting "A: " is the assistant's."""
    return [
        Message(f"M{i}", "assistant", t[3:], at)
        if t.startswith("A: ")
        else Message(f"M{i}", "user", t, at)
        for i, t in enumerate(turns)
    ]
