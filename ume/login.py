"""Sign-in with throttling by account and by address.

Every attempt on an account is counted atomically before the password is checked (so parallel
guesses cannot slip past the count), and a success clears the account's count; failures are
also counted per client address. Past either limit the sign-in is refused with a clear message
and ``429`` for the rest of the window, even with the right password.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse

from memory.services.ratelimit import rate_hit, rate_peek, rate_reset


def client_address(request: HttpRequest) -> str:
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def _account_key(username: str) -> str:
    return "login-account:" + username.strip().casefold()[:150]


def _address_key(request: HttpRequest) -> str:
    return "login-address:" + client_address(request)


def _wait(seconds: int) -> str:
    minutes = (seconds + 59) // 60
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


class ThrottledAuthenticationForm(AuthenticationForm):
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


class ThrottledLoginView(auth_views.LoginView):
    form_class = ThrottledAuthenticationForm

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        retry_after = getattr(form, "throttled", None)
        if retry_after is not None:
            response.status_code = 429
            response["Retry-After"] = str(retry_after)
        return response
