"""What a delete-all erased stays erased: the same conversation sent again is not read again.

A delete-all (``memory.services.erase``) that keeps suppressions (the default) first records,
for every conversation it erases, a digest of its messages: an HMAC keyed on ``SECRET_KEY``
(``SECRET_KEY_FALLBACKS`` also checked) of each message's role and words in order, never the
words themselves, so the table cannot be read back and a guess cannot be confirmed without the
key. Timestamps, ids and the file's shape do not count: the same messages as a plain
transcript, in a Claude or ChatGPT export or posted to the API are one conversation. A save
whose messages have such a digest is refused (``rejected_input``) and its transcript is not
kept; a new conversation, even one that says some of the same sentences, is read as new (the
fresh start is kept). A delete-all that also removes suppressions removes these too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from django.conf import settings
from django.utils.crypto import salted_hmac

from memory.models import ErasedConversation, Transcript
from memory.owned import Person
from memory.transcripts import Message, TranscriptError, parse_transcript

_SALT = "ume.erased-conversation"


def _canonical(messages: Sequence[Message]) -> str:
    return json.dumps([[m.role, " ".join(m.content.split())] for m in messages], ensure_ascii=False)


def conversation_digests(messages: Sequence[Message]) -> list[str]:
    """The digests of ``messages`` under the current key and every fallback key (the first is
    the one to store); none for a conversation without a word."""
    if not any(m.content.strip() for m in messages):
        return []
    text = _canonical(messages)
    keys = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return [salted_hmac(_SALT, text, secret=key, algorithm="sha256").hexdigest() for key in keys]


def _messages_of(transcript: Transcript) -> list[Message]:
    """The messages of a stored transcript (none for a batch of proposals, or one that cannot
    be read: there is nothing said to match)."""
    try:
        return parse_transcript(transcript.text, name=transcript.name)
    except (TranscriptError, ValueError, RecursionError):
        return []


def erased_conversations_record(owner: Person, transcripts: Iterable[Transcript]) -> int:
    """Record the digests of ``transcripts`` (being erased) for ``owner``; how many are new."""
    rows = {
        digests[0]
        for t in transcripts
        for digests in [conversation_digests(_messages_of(t))]
        if digests
    }
    created = ErasedConversation.objects.bulk_create(
        [ErasedConversation(owner=owner, digest=d) for d in sorted(rows)], ignore_conflicts=True
    )
    return len(created)


def conversation_erased(owner: Person, messages: Sequence[Message]) -> bool:
    """Whether a delete-all of ``owner`` erased this very conversation (one query; none for a
    conversation without a word)."""
    digests = conversation_digests(messages)
    return bool(digests) and (
        ErasedConversation.objects.for_owner(owner).filter(digest__in=digests).exists()
    )
