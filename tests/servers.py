"""ume served as docs/deploy.md says: the web unit's gunicorn command line, run on a loopback
port, and what its workers hold (their PostgreSQL connections, read from /proc)."""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import httpx

from ume.settings import BASE_DIR

HOST = "127.0.0.1"


def documented_web_command() -> list[str]:
    """The ``ExecStart`` of ``ume-web.service`` in docs/deploy.md, as an argument list."""
    text = (BASE_DIR / "docs" / "deploy.md").read_text(encoding="utf-8")
    unit = text.split("`/etc/systemd/system/ume-web.service`", 1)[1]
    match = re.search(r"^ExecStart=(.*?[^\\])$", unit, re.MULTILINE | re.DOTALL)
    assert match, "docs/deploy.md lost the web unit's ExecStart"
    return shlex.split(match.group(1).replace("\\\n", " "))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _replace_option(argv: list[str], names: tuple[str, ...], value: str) -> list[str]:
    out = list(argv)
    for i, arg in enumerate(out):
        if arg in names:
            out[i + 1] = value
            return out
    raise AssertionError(f"the documented command has none of {names}")


class DocumentedServer:
    """gunicorn started with the documented command line (its binary replaced by this
    interpreter's, the bind address by a free loopback port, the worker count by ``workers``,
    the connection cap by ``worker_connections`` if given);
    stopped on leaving the ``with`` block. Its stderr goes to ``log_path``."""

    def __init__(
        self,
        env: dict[str, str],
        *,
        workers: int,
        log_path: Path,
        worker_connections: int | None = None,
    ) -> None:
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        argv = documented_web_command()
        assert Path(argv[0]).name == "gunicorn", argv
        argv = _replace_option(argv, ("--workers", "-w"), str(workers))
        argv = _replace_option(argv, ("--bind", "-b"), f"{HOST}:{self.port}")
        if worker_connections is not None:
            argv = _replace_option(argv, ("--worker-connections",), str(worker_connections))
        self.argv = [sys.executable, "-m", "gunicorn", *argv[1:]]
        self.env = env
        self.workers_wanted = workers
        self.log_path = log_path
        self._log: IO[bytes] | None = None
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> DocumentedServer:
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            self.argv,
            cwd=BASE_DIR,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log()
            try:
                ready = httpx.get(self.url + "/healthz", timeout=2).status_code == 200
            except httpx.TransportError:
                ready = False
            if ready and len(self.workers()) == self.workers_wanted:
                return self
            time.sleep(0.2)
        self.__exit__(None, None, None)
        raise AssertionError("gunicorn did not answer within 90 s:\n" + self.log())

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        if self._log is not None:
            self._log.close()

    def log(self) -> str:
        if self._log is not None:
            self._log.flush()
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def workers(self) -> list[int]:
        assert self.proc is not None
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        try:
            return [int(pid) for pid in children.read_text().split()]
        except OSError:
            return []


def _socket_inodes(pid: int) -> set[int]:
    inodes: set[int] = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        fds = list(fd_dir.iterdir())
    except OSError:
        return inodes
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def _tcp_inodes_to(port: int) -> set[int]:
    """Inodes of the established TCP sockets on this machine whose remote port is ``port``."""
    inodes: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            remote_port = int(fields[2].rsplit(":", 1)[1], 16)
            established = fields[3] == "01"
            if remote_port == port and established:
                inodes.add(int(fields[9]))
    return inodes


def database_connections_per_process(pids: list[int], db_port: int) -> dict[int, int]:
    """How many connections to the database server each process holds open."""
    to_db = _tcp_inodes_to(db_port)
    return {pid: len(_socket_inodes(pid) & to_db) for pid in pids}


def pg_connections(admin_url: str, application_name: str) -> int:
    """Backends PostgreSQL has open for ``application_name``."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        row: Any = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
            [application_name],
        ).fetchone()
    return int(row[0])
