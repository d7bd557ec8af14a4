"""The settings helpers are strict: a typo fails at start-up instead of meaning something else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from ume.settings import BASE_DIR, env_bool, env_float, env_int, env_list


def test_env_bool(monkeypatch: pytest.MonkeyPatch) -> None:
    for raw, value in [
        ("1", True),
        ("TRUE", True),
        ("on", True),
        ("0", False),
        ("no", False),
        ("", True),
    ]:
        monkeypatch.setenv("X_FLAG", raw)
        assert env_bool("X_FLAG", True) is value
    monkeypatch.setenv("X_FLAG", "ture")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG must be a boolean"):
        env_bool("X_FLAG", False)


def test_env_int_and_float(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X_N", "42")
    assert env_int("X_N", 1) == 42
    monkeypatch.setenv("X_N", "4k")
    with pytest.raises(ImproperlyConfigured, match="X_N must be an integer"):
        env_int("X_N", 1)
    monkeypatch.setenv("X_N", "0")
    with pytest.raises(ImproperlyConfigured, match="X_N must be >= 1"):
        env_int("X_N", 5, minimum=1)
    monkeypatch.setenv("X_F", "0.75")
    assert env_float("X_F", 0.1) == 0.75
    monkeypatch.setenv("X_F", "high")
    with pytest.raises(ImproperlyConfigured, match="X_F must be a number"):
        env_float("X_F", 0.1)


def test_env_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X_L", " a.example , b.example,,")
    assert env_list("X_L", ["z"]) == ["a.example", "b.example"]
    monkeypatch.delenv("X_L")
    assert env_list("X_L", ["z"]) == ["z"]


def test_secret_key_is_required_without_debug(tmp_path: Path) -> None:
    import subprocess
    import sys

    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "ume.settings", "DEBUG": "false"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env,
        capture_output=True,
        text=True,
        cwd=BASE_DIR,
    )
    assert result.returncode != 0 and "SECRET_KEY is required when DEBUG is off" in result.stderr
    env["SECRET_KEY"] = "a-real-secret-for-this-test"
    assert (
        subprocess.run(
            [sys.executable, "-c", "import django; django.setup()"], env=env, cwd=BASE_DIR
        ).returncode
        == 0
    )


def test_production_defaults_pass_check_deploy() -> None:
    import secrets
    import subprocess
    import sys

    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "ume.settings",
        "SECRET_KEY": secrets.token_urlsafe(60),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        capture_output=True,
        text=True,
        cwd=BASE_DIR,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.django_db
def test_dashboard_pages_carry_a_content_security_policy_that_fits_htmx(client: Client) -> None:
    from tests.factories import make_user

    client.force_login(make_user("csp"))
    response = client.get("/review/")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    html = response.content.decode()
    # htmx would otherwise add an inline <style> the policy blocks.
    assert '"includeIndicatorStyles":false' in html
    assert "<script>" not in html and "style=" not in html


def _variables_read(path: Any) -> set[str]:
    """Names of the environment variables a module reads: ``env_*("NAME", ...)``,
    ``os.environ.get("NAME")``, ``os.getenv("NAME")`` and ``os.environ["NAME"]``."""
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            reads = (
                name.startswith("env_")
                or name == "getenv"
                or (name == "get" and ast.unparse(func).endswith("environ.get"))
            )
            first = node.args[0]
            if reads and isinstance(first, ast.Constant) and isinstance(first.value, str):
                names.add(first.value)
        elif (
            isinstance(node, ast.Subscript)
            and ast.unparse(node.value).endswith("environ")
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            names.add(node.slice.value)
    return names


def test_the_readme_settings_table_lists_every_variable_the_code_reads() -> None:
    """Every environment variable the project's own code reads has a row in the README's
    settings table (Django's own ``DJANGO_*`` variables aside)."""
    readme = (BASE_DIR / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| variable | default | meaning |") :]
    table = table[: table.index("\n\n")]
    read: set[str] = set()
    folders = ("ume", "memory", "api", "mcp_server", "dashboard", "browser")
    for folder in (*folders, "receipts", "review", "connectors", "eval"):
        for path in (BASE_DIR / folder).rglob("*.py"):
            if "migrations" not in path.parts:
                read |= _variables_read(path)
    read = {name for name in read if not name.startswith("DJANGO_")}
    assert {"DATABASE_URL", "UME_TOKEN", "UME_DB_CONN_MAX_AGE"} <= read  # the walk finds them
    missing = sorted(name for name in read if f"`{name}`" not in table)
    assert missing == []


@pytest.mark.parametrize(
    ("raw", "refused"), [("0", True), ("31", True), ("-1", True), ("0.5", False), ("30", False)]
)
def test_the_metadata_document_timeout_is_bounded(raw: str, refused: bool) -> None:
    import subprocess
    import sys

    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "ume.settings",
        "UME_INSECURE_DEV_KEY": "1",
        "UME_OAUTH_CLIENT_METADATA_TIMEOUT_SECONDS": raw,
    }
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env,
        capture_output=True,
        text=True,
        cwd=BASE_DIR,
    )
    assert (result.returncode != 0) is refused
    if refused:
        assert "UME_OAUTH_CLIENT_METADATA_TIMEOUT_SECONDS must be in (0, 30]" in result.stderr
