from __future__ import annotations

from typing import Any

from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "Memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.core import checks
        from django.db.models.signals import post_save

        from memory.checks import embeddings_check, minilm_check

        checks.register(embeddings_check, "embeddings")
        checks.register(minilm_check, "embeddings")
        from memory.services.cleanup import SWEEPS
        from memory.services.recall_vectors import recall_vectors_fill

        # what was written while the embedding endpoint was down gets its vector
        SWEEPS["recall_vectors_filled"] = lambda now, dry_run: recall_vectors_fill(dry_run=dry_run)

        post_save.connect(
            _barrier_with_the_user, sender=get_user_model(), dispatch_uid="memory-barrier"
        )


def _barrier_with_the_user(sender: Any, instance: Any, created: bool, raw: bool, **_: Any) -> None:
    """Every user gets a deletion barrier row when created, so that their first deletion has a
    row to lock (see ``memory.services.barrier``)."""
    if created and not raw:
        from memory.services.barrier import barrier_ensure

        barrier_ensure(instance)
