from __future__ import annotations

from django.apps import AppConfig


class EvalConfig(AppConfig):
    """The evals and the benchmarks: golden sets, the commands that score ume on them
    (``eval_retrieval``, ``eval_extraction``, ``eval_conversations``), ``python -m eval.bench``
    and ``python -m eval.loadtest``. It has no models; it uses the domain's services and
    selectors like any other interface (docs/architecture.md, "Layers")."""

    name = "eval"
    verbose_name = "Evals"
