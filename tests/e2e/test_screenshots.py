"""Screenshots of the dashboard on the demo data, for the README.

Run with ``UME_SCREENSHOTS=1`` to refresh the committed PNGs in ``docs/``:

    UME_SCREENSHOTS=1 .venv/bin/python -m pytest tests/e2e/test_screenshots.py

Without it the same pages are rendered and shot into a temporary folder, so CI checks that
every page the README shows still renders in a real browser, without touching the repository.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db.models import Count

from memory.models import Node
from tests.e2e.conftest import sign_in

pytestmark = pytest.mark.browser
DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_screenshots(
    page: Any, transactional_db: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("seed_demo")
    capsys.readouterr()
    out = DOCS if os.environ.get("UME_SCREENSHOTS") == "1" else tmp_path
    sign_in(page, settings.UME_DEMO_USERNAME, settings.UME_DEMO_PASSWORD)
    page.set_viewport_size({"width": 1200, "height": 800})
    # the demo memory with the longest timeline: when things happened apart from when ume
    # learned them is what the node page is for
    richest = (
        Node.objects.filter(owner__username=settings.UME_DEMO_USERNAME)
        .annotate(n=Count("events", distinct=True))
        .order_by("-n", "label")
        .first()
    )
    assert richest is not None
    shots = {
        "queue.png": "/review/",
        "saves.png": "/saves/",
        "node.png": f"/memory/nodes/{richest.pk}/",
        "graph.png": "/memory/graph/",
    }
    for name, path in shots.items():
        response = page.goto(path)
        assert response is not None and response.status == 200, path
        if name == "saves.png":
            page.locator("ol.receipts details").first.locator("summary").click()
        page.screenshot(path=str(out / name), animations="disabled")
        assert (out / name).stat().st_size > 10_000
