"""The page policy, and the one origin a page may add to ``form-action`` for its redirect."""

from __future__ import annotations

import pytest

from ume.csp import POLICY, origin_source, policy_allowing_form_redirect


@pytest.mark.parametrize(
    ("uri", "source"),
    [
        ("http://127.0.0.1:53682/callback?x=1", "http://127.0.0.1:53682"),
        ("http://localhost:8080/cb", "http://localhost:8080"),
        ("https://claude.ai/api/mcp/auth_callback", "https://claude.ai"),
        ("https://Chatgpt.com:443/connector/oauth/x", "https://chatgpt.com:443"),
        ("http://[::1]:8080/cb", None),  # CSP's host-source has no form for IP literals
        ("javascript:alert(1)", None),
        ("cursor://anysphere.cursor-retrieval/oauth/callback", None),
        ("https://a.example;script-src *", None),
        ("https://a.example:99999/cb", None),
        ("https:///nohost", None),
    ],
)
def test_origin_source(uri: str, source: str | None) -> None:
    assert origin_source(uri) == source


def test_only_form_action_changes() -> None:
    allowed = policy_allowing_form_redirect("http://127.0.0.1:53682/callback")
    assert allowed == POLICY.replace(
        "form-action 'self'", "form-action 'self' http://127.0.0.1:53682"
    )
    assert policy_allowing_form_redirect("http://[::1]:1/cb") == POLICY
