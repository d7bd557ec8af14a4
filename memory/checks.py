"""``manage.py check``: what the embedding setting means for the vectors already stored.

Warns (``memory.W001``) when people's indexes are served by another model than the configured
one (recall keeps using their old vectors, or only words when that model is gone, until
``reindex`` moves them), and (``memory.W002``) when documents have no vector of the model
serving them (written while it could not answer: ``reindex --missing`` fills them). Silent
before the tables exist (a fresh database, before ``migrate``). Errs (``memory.E001``) when
the configured model is the optional local one and it cannot be loaded (not installed, or its
weights fail their checksum): recall would run on words only."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning
from django.db import DatabaseError
from django.db.models import Count


def minilm_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    if settings.UME_EMBEDDINGS_PROVIDER != "minilm":
        return []
    from memory.recall import minilm

    loaded, why = minilm.available()
    if loaded:
        return []
    return [
        Error(
            f"UME_EMBEDDINGS_PROVIDER is minilm, but the model cannot be loaded: {why}",
            hint="Run `make minilm` (docs/embeddings.md), or choose wordllama.",
            id="memory.E001",
        )
    ]


def embeddings_check(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    from memory.models import RecallDoc, RecallStats
    from memory.recall.provider import configured, for_model

    wanted = configured().name
    try:
        served = list(
            RecallStats.objects.exclude(model__in=("", wanted))
            .values("model")
            .annotate(people=Count("owner", distinct=True))
            .order_by("model")
        )
        missing = RecallDoc.objects.filter(vector__isnull=True).count()
    except DatabaseError:
        return []
    messages: list[CheckMessage] = []
    for row in served:
        gone = for_model(row["model"]) is None
        messages.append(
            Warning(
                f"{row['people']} people's recall vectors are of {row['model']}, but the "
                f"configured embedding model is {wanted}: recall never mixes them, and "
                + (
                    "that model is no longer configured, so their recall uses words only"
                    if gone
                    else "their recall keeps using the old vectors"
                ),
                hint="Run `manage.py reindex` to move them to the configured model "
                "(docs/embeddings.md).",
                id="memory.W001",
            )
        )
    if missing:
        messages.append(
            Warning(
                f"{missing} recall documents have no vector (written while the embedding "
                "model could not answer): recall finds them by their words only.",
                hint="Run `manage.py reindex --missing` when the endpoint answers.",
                id="memory.W002",
            )
        )
    return messages
