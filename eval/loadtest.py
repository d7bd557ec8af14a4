"""``python -m eval.loadtest`` (``make loadtest``): ume in its production shape under load.

What it does, bounded in count and time (it stops by itself):

1. creates a fresh PostgreSQL database (``--database-url``, default a new ``ume_loadtest_*``
   database on ``LOADTEST_PG``, else ``postgres://postgres@127.0.0.1:5432``), migrates it and
   seeds one user and one token per client with a few memories each;
2. starts gunicorn with ``--workers`` uvicorn workers (default 2) on a free loopback port;
3. runs ``--clients`` concurrent clients (default 32) for ``--duration`` seconds (default 60):
   85% recalls (two thirds over the HTTP API, one third as MCP ``recall_memory`` calls), 15%
   saves over the HTTP API, and one more client sending 1 MB saves back to back, one a second;
4. prints throughput, p50/p95/p99 per kind of request and the errors by status, and recall's
   and saves' p95 as a ratio of the p95 of ``GET /healthz`` (a request that does nothing,
   a tenth of every client's requests) in the same run (targets: 2x and 3x);
5. checks the per-token rate limit on a second server start: 20 parallel clients on one token
   with a limit of ``--rate-limit``; the number let through must be within 1% of the limit;
6. SIGKILLs one worker in the middle of a burst and measures how long until the server answers
   again (target: within 5 s);
7. drains the pending saves for up to ``--drain`` seconds and checks the database: every 2xx
   save has exactly one receipt (or, if queued, its transcript), nothing half-written, no
   orphans. The last line is ``lost: N half_written: N``.

Traffic goes to 127.0.0.1 only. Exit status 1 when anything was lost or half-written or a
request got a 5xx; latency targets are reported as PASS or MISS. With a ``sqlite:///`` URL the
same run works on one worker (the fast test uses that); the figures that matter come from
PostgreSQL.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
BIG_SAVE_BYTES = 1024 * 1024
# Against the p95 of a request that does nothing, under the same load at the same time: this
# machine's floor. ``GET /healthz`` is that request: it passes the guard, every middleware and
# the access log like the others, and reads no database, token or body.
TARGETS = {"recall_p95_ratio": 2.0, "save_p95_ratio": 3.0}
# Of each client's requests, drawn at random so that the floor is not only the cold start.
FLOOR_SHARE = 0.1

TOPICS = [
    ("boxing", "I started boxing last month and train on Tuesdays."),
    ("cello", "I have been learning the cello since March with my teacher Ana."),
    ("atlas", "I am building Atlas, a budgeting app, with Django and PostgreSQL."),
    ("running", "I run 5 km every Sunday morning along the river."),
    ("pottery", "I took up pottery at the community studio this spring."),
    ("spanish", "I practise Spanish on Duolingo every evening."),
]
QUERIES = ["boxing", "cello", "Atlas", "what do I do on Sundays", "pottery", "Spanish", "chess"]


@dataclass
class Results:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    saved: list[dict[str, Any]] = field(default_factory=list)  # what every 2xx save answered
    transport_errors: Counter[str] = field(default_factory=Counter)

    def record(self, kind: str, status: int, took: float) -> None:
        self.statuses[(kind, status)] += 1
        if 200 <= status < 300:
            self.latencies[kind].append(took * 1000)


# --- database --------------------------------------------------------------------------------


def _fresh_postgres_url(base: str) -> str:
    import psycopg

    parsed = urlparse(base)
    name = f"ume_loadtest_{uuid.uuid4().hex[:10]}"
    admin = urlunparse(parsed._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunparse(parsed._replace(path=f"/{name}"))


def _drop_postgres(url: str) -> None:
    import psycopg

    parsed = urlparse(url)
    admin = urlunparse(parsed._replace(path="/postgres"))
    name = parsed.path.lstrip("/")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _env(database_url: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": database_url,
            "SECRET_KEY": env.get("SECRET_KEY") or uuid.uuid4().hex * 2,
            "UME_HTTPS": "0",
            "UME_LOG_LEVEL": "CRITICAL",
            "ALLOWED_HOSTS": HOST,
            "UME_MCP_ALLOWED_HOSTS": f"{HOST}:*",
            "DEBUG": "false",
        }
    )
    env.update(extra)
    return env


def _setup_django(database_url: str) -> None:
    for key, value in _env(database_url).items():
        os.environ[key] = value
    os.environ["DJANGO_SETTINGS_MODULE"] = "ume.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def _seed(clients: int) -> list[str]:
    """One user and token per client (plus one for the big saves), each with a few memories."""
    from django.contrib.auth import get_user_model

    from memory.services.ingest import ingest_messages
    from memory.services.review import candidate_promote
    from memory.services.tokens import token_create

    secrets = []
    for n in range(clients + 1):
        user = get_user_model().objects.create_user(f"load{n}", password=uuid.uuid4().hex)
        secrets.append(token_create(owner=user, name="loadtest")[1])
        messages = [{"role": "user", "content": text} for _topic, text in TOPICS]
        ingest_messages(owner=user, messages=messages, name="seed", source="command")
        from memory.models import Candidate
        from memory.vocab import CandidateStatus

        for candidate in Candidate.objects.for_owner(user).filter(status=CandidateStatus.PENDING)[
            :4
        ]:
            candidate_promote(candidate=candidate, by=user)
    return secrets


def _fresh_token() -> str:
    """A token nothing has counted against yet (for the rate-limit check)."""
    from django.contrib.auth import get_user_model

    from memory.services.tokens import token_create

    user = get_user_model().objects.create_user(f"rate-{uuid.uuid4().hex[:8]}")
    return token_create(owner=user, name="rate check")[1]


# --- the server ------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class Server:
    def __init__(self, database_url: str, *, workers: int, rate_limit: int) -> None:
        self.port = _free_port()
        self.url = f"http://{HOST}:{self.port}"
        env = _env(database_url, UME_API_RATE_LIMIT=str(rate_limit))
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "ume.asgi:application",
                "-k",
                "ume.server.UvicornWorker",
                "-w",
                str(workers),
                "-b",
                f"{HOST}:{self.port}",
                "--graceful-timeout",
                "5",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 60) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"gunicorn exited: {self.proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                if httpx.get(self.url + "/v1/", timeout=2).status_code == 404:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise SystemExit("the server did not answer within a minute")

    def workers(self) -> list[int]:
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        try:
            return [int(pid) for pid in children.read_text().split()]
        except OSError:
            return []

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


# --- the clients -----------------------------------------------------------------------------


def _mcp_recall(query: str, n: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": "recall_memory", "arguments": {"query": query}},
    }


MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def _request(http: Any, results: Results, kind: str, method: str, url: str, **kw: Any) -> Any:
    began = time.perf_counter()
    try:
        response = await http.request(method, url, **kw)
    except Exception as exc:  # a transport error is an error too: count it, keep going
        results.transport_errors[f"{kind}: {type(exc).__name__}"] += 1
        return None
    took = time.perf_counter() - began
    status = response.status_code
    if kind == "recall_mcp" and status == 200 and response.json().get("result", {}).get("isError"):
        status = 599  # a tool error answered with 200: counted as a failure
    results.record(kind, status, took)
    return response


async def _client(base: str, secret: str, n: int, until: float, results: Results) -> None:
    import httpx

    rng = random.Random(n)
    auth = {"Authorization": f"Bearer {secret}"}
    async with httpx.AsyncClient(base_url=base, headers=auth, timeout=30) as http:
        i = 0
        while time.monotonic() < until:
            i += 1
            if rng.random() < FLOOR_SHARE:
                await _request(http, results, "healthz", "GET", "/healthz")
                continue
            roll = rng.random()
            if roll < 0.85:
                query = rng.choice(QUERIES)
                if rng.random() < 2 / 3:
                    await _request(
                        http, results, "recall_api", "POST", "/v1/recall", json={"query": query}
                    )
                else:
                    await _request(
                        http,
                        results,
                        "recall_mcp",
                        "POST",
                        "/mcp",
                        json=_mcp_recall(query, i),
                        headers=MCP_HEADERS,
                    )
            else:
                topic, text = rng.choice(TOPICS)
                body = {"text": f"{text} Note {n}-{i}: the {topic} plan {uuid.uuid4().hex[:8]}."}
                response = await _request(http, results, "save", "POST", "/v1/memories", json=body)
                if response is not None and 200 <= response.status_code < 300:
                    results.saved.append({**response.json(), "http_status": response.status_code})


async def _big_saver(base: str, secret: str, until: float, results: Results) -> None:
    import httpx

    auth = {"Authorization": f"Bearer {secret}"}
    sentence = "I started learning the cello last week and I practise every morning. "
    async with httpx.AsyncClient(base_url=base, headers=auth, timeout=60) as http:
        i = 0
        while time.monotonic() < until:
            i += 1
            started = time.monotonic()
            text = f"Save {i} {uuid.uuid4().hex}. " + sentence * (BIG_SAVE_BYTES // len(sentence))
            response = await _request(
                http, results, "save_1mb", "POST", "/v1/memories", json={"text": text}
            )
            if response is not None and 200 <= response.status_code < 300:
                results.saved.append({**response.json(), "http_status": response.status_code})
            await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - started)))


async def _load(
    base: str, secrets: list[str], duration: float, clients: int, big_saves: bool = True
) -> tuple[Results, float]:
    results = Results()
    began = time.monotonic()
    until = began + duration
    tasks = [_client(base, secrets[n], n, until, results) for n in range(clients)]
    if big_saves:
        tasks.append(_big_saver(base, secrets[clients], until, results))
    await asyncio.gather(*tasks)
    return results, time.monotonic() - began


# --- rate limit and kill phases ----------------------------------------------------------------


async def _rate_burst(base: str, secret: str, clients: int, each: int) -> Counter[int]:
    import httpx

    statuses: Counter[int] = Counter()

    async def one() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            for _ in range(each):
                response = await http.get(
                    "/v1/rules", headers={"Authorization": f"Bearer {secret}"}
                )
                statuses[response.status_code] += 1

    # A window is one minute: start early enough in it that the burst does not straddle two.
    if time.time() % 60 > 45:
        await asyncio.sleep(61 - time.time() % 60)
    await asyncio.gather(*(one() for _ in range(clients)))
    return statuses


async def _kill_and_recover(server: Server, secret: str, results: Results) -> float | None:
    """SIGKILL one worker in the middle of a burst; seconds until a recall answers 200 again.
    The burst's saves join ``results`` so the database check covers them too."""
    import httpx

    workers = server.workers()
    if not workers:
        return None
    victim = workers[0]
    until = time.monotonic() + 3
    burst = asyncio.gather(
        *(_client(server.url, secret, 900 + n, until, results) for n in range(4))
    )
    await asyncio.sleep(1)
    os.kill(victim, signal.SIGKILL)
    killed_at = time.monotonic()
    answered: float | None = None
    async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
        while time.monotonic() - killed_at < 10:
            try:
                response = await http.post(
                    "/v1/recall",
                    json={"query": "boxing"},
                    headers={"Authorization": f"Bearer {secret}"},
                )
                if response.status_code == 200:
                    answered = time.monotonic() - killed_at
                    break
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)
    await burst
    return answered


# --- figures and checks ------------------------------------------------------------------------


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def _drain(seconds: float) -> tuple[int, int]:
    """Process queued saves like ``ingest --pending`` would, for at most ``seconds``.

    Every server has stopped by now, so a save that a killed worker had claimed is taken over
    as a pending worker takes it over once the claim's lease runs out (the lease is shortened
    here instead of waiting ``UME_CLAIM_LEASE_SECONDS``)."""
    from django.test import override_settings

    from memory.models import Transcript
    from memory.services.ingest import ingest_pending
    from memory.vocab import TranscriptStatus

    deadline = time.monotonic() + seconds
    processed = 0
    with override_settings(UME_CLAIM_LEASE_SECONDS=1):
        if Transcript.objects.filter(status=TranscriptStatus.PROCESSING).exists():
            time.sleep(1.1)
        while time.monotonic() < deadline:
            done = ingest_pending(limit=1)
            if not done:
                break
            processed += len(done)
    return processed, Transcript.objects.filter(status=TranscriptStatus.PENDING).count()


def _check(saved: list[dict[str, Any]]) -> dict[str, Any]:
    """Every 2xx save against the database. Returns the counts the last line prints, and under
    ``half_written_by_check`` which check found what (a few row ids each), so that a failure
    says where to look."""
    from django.db.models import Count

    from memory.models import Candidate, Evidence, Node, Receipt, Transcript
    from memory.vocab import TranscriptStatus

    receipts = {r.pk: r for r in Receipt.objects.all()}
    lost = 0
    for answer in saved:
        if answer["http_status"] == 202:
            if not Transcript.objects.filter(pk=answer["transcript"]["id"]).exists():
                lost += 1
        elif answer.get("receipt_id") not in receipts:
            lost += 1
    found: dict[str, list[Any]] = {}
    # Exactly one processing receipt per transcript: count receipts naming each transcript.
    per_transcript: Counter[int] = Counter()
    for receipt in receipts.values():
        tid = (receipt.detail or {}).get("transcript")
        if tid and receipt.outcome in {"wrote", "meaningful_no_write"}:
            per_transcript[tid] += 1
    found["transcript_with_two_receipts"] = [t for t, n in per_transcript.items() if n > 1]
    # A receipt that says it wrote N candidates has them, and every row has its receipt.
    made = dict(
        Candidate.objects.values("created_receipt")
        .annotate(n=Count("id"))
        .values_list("created_receipt", "n")
    )
    found["receipt_candidates_mismatch"] = [
        {"receipt": r.pk, "says": (r.counts or {}).get("candidates", 0), "has": made.get(r.pk, 0)}
        for r in receipts.values()
        if r.outcome == "wrote" and made.get(r.pk, 0) != (r.counts or {}).get("candidates", 0)
    ]
    found["candidate_without_receipt"] = list(
        Candidate.objects.filter(created_receipt__isnull=True).values_list("pk", flat=True)
    )
    found["extracted_node_without_receipt"] = list(
        Node.objects.filter(created_receipt__isnull=True, origin="extracted").values_list(
            "pk", flat=True
        )
    )
    found["evidence_with_missing_receipt"] = list(
        Evidence.objects.filter(receipt__isnull=False)
        .exclude(receipt__in=list(receipts))
        .values_list("pk", flat=True)
    )
    # Nothing left claimed and never finished.
    found["transcript_left_processing"] = list(
        Transcript.objects.filter(status=TranscriptStatus.PROCESSING).values_list("pk", flat=True)
    )
    by_check = {name: rows[:5] for name, rows in found.items() if rows}
    half = sum(len(rows) for rows in found.values())
    return {"lost": lost, "half_written": half, "half_written_by_check": by_check}


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.clients < 1 or args.duration <= 0:
        parser.error("--clients must be >= 1 and --duration > 0")

    fresh = not args.database_url
    base = os.environ.get("LOADTEST_PG", "postgres://postgres@127.0.0.1:5432/postgres")
    database_url = _fresh_postgres_url(base) if fresh else args.database_url
    sqlite = database_url.startswith("sqlite")
    workers = 1 if sqlite else args.workers
    out: dict[str, Any] = {"clients": args.clients, "workers": workers, "duration_s": args.duration}
    try:
        _setup_django(database_url)
        secrets = _seed(args.clients)
        server = Server(database_url, workers=workers, rate_limit=10**9)
        try:
            server.wait_ready()
            results, elapsed = asyncio.run(
                _load(server.url, secrets, args.duration, args.clients, not args.no_big_saves)
            )
            burst = Results()
            kill = (
                None if args.no_kill else asyncio.run(_kill_and_recover(server, secrets[0], burst))
            )
            results.saved += burst.saved
        finally:
            server.stop()
        rate_secret = _fresh_token()
        rate_server = Server(database_url, workers=workers, rate_limit=args.rate_limit)
        try:
            rate_server.wait_ready()
            each = args.rate_limit * 2 // 20 + 1
            rate = asyncio.run(_rate_burst(rate_server.url, rate_secret, 20, each))
        finally:
            rate_server.stop()
        processed, waiting = _drain(args.drain)
        checked = _check(results.saved)
    finally:
        if fresh:
            from django.db import connections

            connections.close_all()
            _drop_postgres(database_url)

    five_xx, figures = _figures(results, elapsed, rate, args.rate_limit, kill)
    out.update({**figures, "drained": processed, "still_queued": waiting, **checked})
    if args.json:
        print(json.dumps(out))
    else:
        _print(out)
    failed = checked["lost"] or checked["half_written"] or five_xx or results.transport_errors
    return 1 if failed else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m eval.loadtest", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load (default 60)")
    parser.add_argument("--clients", type=int, default=32, help="concurrent clients (default 32)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--rate-limit", type=int, default=300, help="the limit the rate check uses")
    parser.add_argument("--drain", type=float, default=30.0, help="seconds to process queued saves")
    parser.add_argument(
        "--database-url", default="", help="an existing database (else a fresh PostgreSQL one)"
    )
    parser.add_argument("--no-kill", action="store_true", help="skip the SIGKILL phase")
    parser.add_argument("--no-big-saves", action="store_true", help="no client sending 1 MB saves")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    return parser


def _figures(
    results: Results,
    elapsed: float,
    rate: dict[int, int],
    rate_limit: int,
    kill: float | None,
) -> tuple[int, dict[str, Any]]:
    """The run's figures: latency per kind of request, errors, the rate limit's accuracy and
    the recovery after the kill; and how many 5xx answers there were."""
    total = sum(results.statuses.values())
    by_status: Counter[int] = Counter()
    for (_kind, status), count in results.statuses.items():
        by_status[status] += count
    kinds = {}
    for kind in ("healthz", "recall_api", "recall_mcp", "save", "save_1mb"):
        values = results.latencies.get(kind, [])
        kinds[kind] = {
            "n": len(values),
            "p50_ms": round(_pct(values, 50), 1),
            "p95_ms": round(_pct(values, 95), 1),
            "p99_ms": round(_pct(values, 99), 1),
        }
    recall_p95 = _pct(results.latencies["recall_api"] + results.latencies["recall_mcp"], 95)
    save_p95 = _pct(results.latencies["save"] + results.latencies["save_1mb"], 95)
    floor_p95 = _pct(results.latencies["healthz"], 95)
    allowed = rate.get(200, 0)
    five_xx = sum(count for status, count in by_status.items() if status >= 500)
    return five_xx, {
        "requests": total,
        "throughput_rps": round(total / elapsed, 1) if elapsed else 0.0,
        "latency": kinds,
        "recall_p95_ms": round(recall_p95, 1),
        "save_p95_ms": round(save_p95, 1),
        "floor_p95_ms": round(floor_p95, 1),
        "recall_p95_ratio": round(recall_p95 / floor_p95, 2) if floor_p95 else None,
        "save_p95_ratio": round(save_p95 / floor_p95, 2) if floor_p95 else None,
        "errors_by_status": {str(k): v for k, v in sorted(by_status.items()) if k >= 400},
        "transport_errors": dict(results.transport_errors),
        "rate_limit": {
            "limit": rate_limit,
            "allowed": allowed,
            "sent": sum(rate.values()),
        },
        "rate_limit_off_pct": round(abs(allowed - rate_limit) / rate_limit * 100, 2),
        "kill_recovered_s": None if kill is None else round(kill, 2),
    }


def _print(out: dict[str, Any]) -> None:
    def verdict(ok: bool) -> str:
        return "PASS" if ok else "MISS"

    print(f"{out['clients']} clients, {out['workers']} workers, {out['duration_s']:g} s")
    print(f"throughput: {out['throughput_rps']} requests/s ({out['requests']} requests)")
    for kind, figures in out["latency"].items():
        print(
            f"  {kind:<11} n={figures['n']:<6} p50={figures['p50_ms']:>7} ms  "
            f"p95={figures['p95_ms']:>7} ms  p99={figures['p99_ms']:>7} ms"
        )
    print(f"do-nothing p95 (GET /healthz, the floor): {out['floor_p95_ms']} ms")
    for name in ("recall", "save"):
        ratio, target = out[f"{name}_p95_ratio"], TARGETS[f"{name}_p95_ratio"]
        ok = ratio is not None and ratio <= target
        print(
            f"{name} p95: {out[f'{name}_p95_ms']} ms = {ratio}x the floor "
            f"(target <= {target:g}x: {verdict(ok)})"
        )
    print(f"errors by status: {out['errors_by_status'] or 'none'}")
    if out["transport_errors"]:
        print(f"transport errors: {out['transport_errors']}")
    rate = out["rate_limit"]
    print(
        f"rate limit: {rate['allowed']} of {rate['sent']} let through with a limit of "
        f"{rate['limit']} ({out['rate_limit_off_pct']}% off; {verdict(out['rate_limit_off_pct'] <= 1)})"
    )
    if out["kill_recovered_s"] is not None:
        ok = out["kill_recovered_s"] <= 5
        print(f"worker SIGKILL: answering again after {out['kill_recovered_s']} s ({verdict(ok)})")
    print(f"queued saves processed: {out['drained']}, still queued: {out['still_queued']}")
    for name, rows in out["half_written_by_check"].items():
        print(f"  half-written ({name}): {rows}")
    print(f"lost: {out['lost']} half_written: {out['half_written']}")


if __name__ == "__main__":
    sys.exit(main())
