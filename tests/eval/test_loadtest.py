"""``make loadtest`` at a tiny size, so that it cannot rot: the whole run (fresh database,
gunicorn, API and MCP clients, the 1 MB saver, the rate-limit check, a worker SIGKILL, the
drain and the database check) in a few seconds. Its figures are not asserted, only that it
ran, found nothing lost or half-written and no 5xx."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parents[2]


def test_a_tiny_loadtest_runs_clean(tmp_path: Path) -> None:
    # The drain stops as soon as the queue is empty; its limit is generous so that a slow
    # machine (a 1 MB save takes seconds to process) cannot leave a save queued.
    args = ["--duration", "2", "--clients", "2", "--rate-limit", "20", "--drain", "240", "--json"]
    env = dict(os.environ)
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        # A fresh database of its own on the same server, dropped afterwards.
        env["LOADTEST_PG"] = urlunparse(urlparse(url)._replace(path="/postgres"))
    else:
        args += ["--database-url", f"sqlite:///{tmp_path / 'load.sqlite3'}"]
    result = subprocess.run(
        [sys.executable, "-m", "eval.loadtest", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["lost"] == 0 and out["half_written"] == 0, out["half_written_by_check"]
    assert out["requests"] > 0 and out["latency"]["recall_api"]["n"] > 0
    assert out["latency"]["save_1mb"]["n"] >= 1
    # the floor the latency targets are measured against, from the same run
    # (a tenth of the requests, drawn at random: a two-second run may draw none)
    if out["latency"]["healthz"]["n"]:
        # the ratios come from the unrounded p95s, which the output rounds to 0.1 ms, and are
        # themselves rounded to 0.01: each must lie in what the rounded figures allow
        floor = out["floor_p95_ms"]
        for name in ("recall", "save"):
            p95 = out[f"{name}_p95_ms"]
            low = (p95 - 0.05) / (floor + 0.05) - 0.005
            high = (p95 + 0.05) / max(floor - 0.05, 1e-9) + 0.005
            assert low <= out[f"{name}_p95_ratio"] <= high, (name, p95, floor, out)
    else:
        assert out["recall_p95_ratio"] is None and out["save_p95_ratio"] is None
    assert not [s for s in out["errors_by_status"] if int(s) >= 500]
    assert out["rate_limit"]["allowed"] == 20
    # a killed worker is replaced and answers again within the load test's window; how fast
    # is a figure the load test prints against its 5 s target, not something a test times
    # (on a loaded machine it took longer, with nothing wrong)
    assert out["kill_recovered_s"] is not None
