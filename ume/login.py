"""Sign-in with throttling by account and by address.

Every attempt on an account is counted atomically before the password is checked (so parallel
guesses cannot slip past the count), and a success clears the account's count; failures are
also counted per client address. Past either limit the sign-in is refused with a clear message
and ``429`` for the rest of the window, even with the right password. The admin's sign-in
(``/admin/login/``) is throttled the same way, on the same counters.

The account is counted under its normalised name: NFKC (what Django's username field applies
before looking the user up, so full-width ``ｄｅｍｏ`` and other compatibility forms sign in as
``demo``) then casefold, so every spelling that can reach one account shares its count.
Look-alikes from other scripts (a Cyrillic ``е`` in ``dеmo``) are different characters to
Django as well: they name another account (or none), cannot sign in as ``demo``, and so are
counted apart; the per-address count still holds for them.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse

from memory.services.ratelimit import rate_hit, rate_peek, rate_reset


def client_address(request: HttpRequest) -> str:
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def account_name(username: str) -> str:
    """The name an account's sign-ins are counted under (see the module docstring)."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", username).casefold())
    return folded.strip()


def _account_key(username: str) -> str:
    return "login-account:" + account_name(username)[:150]


def _address_key(request: HttpRequest) -> str:
    return "login-address:" + client_address(request)


def _wait(seconds: int) -> str:
    minutes = (seconds + 59) // 60
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


class _Throttled(AuthenticationForm):
    """The throttle, in front of a sign-in form's own ``clean`` (ours or the admin's)."""

    def clean(self) -> dict[str, Any]:
        request = self.request
        assert request is not None
        window = int(settings.UME_LOGIN_WINDOW_SECONDS)
        username = str(self.data.get("username") or "")
        address = rate_peek(_address_key(request), window=window)
        if address.count >= int(settings.UME_LOGIN_FAILURES_PER_ADDRESS):
            raise self._throttled("from this address", address.retry_after)
        account = rate_hit(_account_key(username), window=window)
        if account.count > int(settings.UME_LOGIN_ATTEMPTS_PER_ACCOUNT):
            raise self._throttled("for this account", account.retry_after)
        try:
            cleaned = super().clean()
        except ValidationError:
            rate_hit(_address_key(request), window=window)
            raise
        rate_reset(_account_key(username))
        return cleaned

    def _throttled(self, scope: str, retry_after: int) -> ValidationError:
        self.throttled = retry_after
        return ValidationError(
            f"Too many failed sign-ins {scope}. Try again in {_wait(retry_after)}.",
            code="throttled",
        )


class ThrottledAuthenticationForm(_Throttled):
    pass


class ThrottledAdminAuthenticationForm(_Throttled, AdminAuthenticationForm):
    """The admin's sign-in form (staff only) behind the same throttle."""


def _answer_throttled(response: HttpResponse, form: Any) -> HttpResponse:
    retry_after = getattr(form, "throttled", None)
    if retry_after is not None:
        response.status_code = 429
        response["Retry-After"] = str(retry_after)
    return response


class ThrottledLoginView(auth_views.LoginView):
    form_class = ThrottledAuthenticationForm

    def form_invalid(self, form: Any) -> HttpResponse:
        return _answer_throttled(super().form_invalid(form), form)


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin site's own sign-in page, with its form throttled (``ume.urls`` gives the
    admin site ``ThrottledAdminAuthenticationForm``) and ``429`` when it is."""
    response = admin.site.login(request)
    form = (getattr(response, "context_data", None) or {}).get("form")
    return _answer_throttled(response, form)
