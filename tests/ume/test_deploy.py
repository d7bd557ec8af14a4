"""docs/deploy.md's production environment passes ``manage.py check --deploy`` with no issue."""

from __future__ import annotations

import re
import secrets
import subprocess
import sys

from ume.settings import BASE_DIR


def documented_environment() -> dict[str, str]:
    """The ``ini`` block of section 2 of docs/deploy.md, as environment variables."""
    text = (BASE_DIR / "docs" / "deploy.md").read_text(encoding="utf-8")
    section = text.split("## 2. The production environment", 1)[1]
    block = re.search(r"```ini\n(.*?)```", section, re.DOTALL)
    assert block, "docs/deploy.md lost its production environment block"
    env = {}
    for line in block.group(1).splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            env[name.strip()] = value.strip()
    return env


def test_the_documented_production_environment_passes_check_deploy() -> None:
    env = documented_environment()
    assert env["DEBUG"] == "false" and env["UME_HTTPS"] == "true"
    env["SECRET_KEY"] = secrets.token_urlsafe(64)  # the placeholder tells people to replace it
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "DEBUG"],
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        cwd=BASE_DIR,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_without_https_the_same_check_fails_so_the_test_above_can_fail() -> None:
    env = documented_environment()
    env["SECRET_KEY"] = secrets.token_urlsafe(64)
    env["UME_HTTPS"] = "false"
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        cwd=BASE_DIR,
        timeout=120,
    )
    assert result.returncode != 0
    assert "security.W008" in result.stderr + result.stdout


def test_the_test_only_local_metadata_setting_never_runs_under_production_settings() -> None:
    env = documented_environment()
    env["SECRET_KEY"] = secrets.token_urlsafe(64)
    env["UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA"] = "true"
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        cwd=BASE_DIR,
        timeout=120,
    )
    assert result.returncode != 0
    assert "UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA is for tests on a plain-HTTP ume only" in (
        result.stderr
    )
    # Without UME_HTTPS it starts, and the deployment check names it as an error.
    env["UME_HTTPS"] = "false"
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        cwd=BASE_DIR,
        timeout=120,
    )
    assert result.returncode != 0
    assert "connectors.E001" in result.stderr + result.stdout
