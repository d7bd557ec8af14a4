"""OAuth endpoints with ume's MCP profile, and the Connections page of the dashboard."""

from __future__ import annotations

import json
from typing import Any, cast
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.models import get_application_model
from oauth2_provider.views import (
    AuthorizationView,
    DynamicClientRegistrationManagementView,
    DynamicClientRegistrationView,
    OAuthProtectedResourceMetadataView,
    OAuthServerMetadataView,
)
from oauthlib.oauth2.rfc6749.errors import CustomOAuth2Error

from connectors import selectors
from connectors.metadata import MetadataRefused, is_metadata_url
from connectors.oauth import MCP_PATH, canonical, mcp_resource
from connectors.registration import MAX_BODY_BYTES, metadata_problem, registration_answer
from connectors.services import access_revoke, metadata_client_resolve
from dashboard.htmx import HtmxHttpRequest
from memory.services.ratelimit import rate_hit
from ume import csp
from ume.login import client_address

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# The value of the "Approve read-only" button: the toolkit's form reads any value of "allow"
# other than false as approval; ume then grants memory:read alone.
READ_ONLY = "read-only"


class AuthorizationServerMetadata(OAuthServerMetadataView):
    """RFC 8414 metadata, saying whether a client may use its metadata document's URL as its
    client_id (the toolkit's own flag is tied to its own resolver, which ume leaves off)."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = super().get(request, *args, **kwargs)
        data = json.loads(response.content)
        data["client_id_metadata_document_supported"] = bool(
            settings.UME_OAUTH_CLIENT_METADATA_DOCUMENTS
        )
        return JsonResponse(data, status=response.status_code)


class ProtectedResourceMetadata(OAuthProtectedResourceMetadataView):
    """RFC 9728 metadata for /mcp, at the root and at the path-component form alike."""

    def get_resource(self, request: HttpRequest) -> str:
        return mcp_resource(request)


class Register(DynamicClientRegistrationView):
    """RFC 7591 registration, limited to what an MCP connector needs (see
    :mod:`connectors.registration`) and throttled per client address: registration is open,
    so each one is counted before any work is done."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        hit = rate_hit(f"oauth-register:{client_address(request)}", window=3600)
        if hit.count > int(settings.UME_OAUTH_REGISTRATIONS_PER_HOUR):
            minutes = (hit.retry_after + 59) // 60
            response = JsonResponse(
                {
                    "error": "too_many_requests",
                    "error_description": "too many client registrations from this address; "
                    f"try again in {minutes} minute{'s' if minutes != 1 else ''}",
                },
                status=429,
            )
            response["Retry-After"] = str(hit.retry_after)
            return response
        refused = _metadata_refusal(request)
        if refused is not None:
            return refused
        return _answered(request, super().post(request, *args, **kwargs))


class RegistrationManagement(DynamicClientRegistrationManagementView):
    """RFC 7592 client configuration: an update is held to the same policy as a registration
    (the toolkit's own checks allow grants and redirect URIs ume refuses)."""

    def put(self, request: HttpRequest, client_id: str, *args: Any, **kwargs: Any) -> HttpResponse:
        refused = _metadata_refusal(request)
        if refused is not None:
            return refused
        return _answered(request, super().put(request, client_id, *args, **kwargs))

    def get(self, request: HttpRequest, client_id: str, *args: Any, **kwargs: Any) -> HttpResponse:
        return _answered(request, super().get(request, client_id, *args, **kwargs), read=True)


def _answered(request: HttpRequest, response: HttpResponse, *, read: bool = False) -> HttpResponse:
    """A registration answer (RFC 7591/7592) completed by
    :func:`connectors.registration.registration_answer`, and never cached: it carries the
    client secret or the registration access token. Errors pass through unchanged."""
    if response.status_code in (200, 201):
        data = {} if read else json.loads(request.body)
        offered = cast(dict[str, str], settings.OAUTH2_PROVIDER["SCOPES"])
        answer = registration_answer(data, json.loads(response.content), scopes=offered)
        response = JsonResponse(answer, status=response.status_code)
    response["Cache-Control"] = "no-store"
    response["Pragma"] = "no-cache"
    return response


def _metadata_refusal(request: HttpRequest) -> JsonResponse | None:
    """The ``400 invalid_client_metadata`` for a body ume refuses, or None."""
    too_big = _registration_error(f"the client metadata must be at most {MAX_BODY_BYTES} bytes")
    declared = str(request.META.get("CONTENT_LENGTH") or "0")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        return too_big  # refused unread
    if len(request.body) > MAX_BODY_BYTES:  # no length declared (chunked)
        return too_big
    try:
        data = json.loads(request.body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return _registration_error("the request body must be valid JSON")
    problem = metadata_problem(data, loopback_redirects=bool(settings.UME_OAUTH_LOOPBACK_REDIRECTS))
    return _registration_error(problem) if problem else None


def _registration_error(description: str) -> JsonResponse:
    return JsonResponse(
        {"error": "invalid_client_metadata", "error_description": description}, status=400
    )


class Consent(AuthorizationView):
    """The consent page: the signed-in person sees the client and the scopes it asks for, and
    approves or denies. Every grant is bound to this server's /mcp (RFC 8707)."""

    template_name = "connectors/consent.html"

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        refused = self._metadata_document_refusal(request)
        if refused is not None:
            return refused
        try:  # client, redirect URI and PKCE first: a bad one is never redirected to
            _scopes, credentials = self.validate_authorization_request(request)
        except OAuthToolkitError as error:
            return self.error_response(error, application=None)
        if credentials.get("code_challenge_method", "plain") != "S256":
            # The toolkit refuses "plain" only when the code is made, after the person
            # approved; refuse before asking them.
            return self._refuse(
                credentials, "invalid_request", 'PKCE code_challenge_method must be "S256"'
            )
        asked = request.GET.getlist("resource")
        ours = mcp_resource(request)
        if not asked:
            query = request.GET.copy()
            query.setlist("resource", [ours])
            request.GET = query  # type: ignore[assignment]  # the toolkit reads it from here
        elif any(canonical(r) != canonical(ours) for r in asked):
            return self._invalid_target(credentials, ours)
        if "approval_prompt" in request.GET:
            # "auto" would hand out a code without asking, on the strength of any earlier
            # token; every authorization here is asked for.
            query = request.GET.copy()
            del query["approval_prompt"]
            request.GET = query  # type: ignore[assignment]
        response = super().get(request, *args, **kwargs)
        if response.status_code == 200:  # the consent page itself, for a validated redirect
            response.headers["Content-Security-Policy"] = csp.policy_allowing_form_redirect(
                credentials["redirect_uri"]
            )
        return response

    def _metadata_document_refusal(self, request: HttpRequest) -> HttpResponse | None:
        """For a client_id that is a metadata document's URL: fetch (or reuse) the document
        before the toolkit looks the client up; a document that cannot be used is explained
        on the page, and the client is never redirected to (its redirect URIs are unknown)."""
        client_id = request.GET.get("client_id", "")
        local = bool(settings.UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA)
        if not settings.UME_OAUTH_CLIENT_METADATA_DOCUMENTS or not is_metadata_url(
            client_id, local=local
        ):
            return None
        try:
            metadata_client_resolve(client_id=client_id, now=timezone.now())
        except MetadataRefused as refused:
            where = urlsplit(client_id).netloc or client_id[:100]
            return self._page_error(
                "invalid_client",
                f"ume could not use this application's metadata document at {where}: {refused}",
            )
        return None

    def _page_error(self, code: str, description: str) -> HttpResponse:
        """The consent page saying why the request cannot be used; nothing is redirected."""
        error = {"error": code, "description": description}
        return render(self.request, self.template_name, {"error": error}, status=400)

    def form_valid(self, form: Any) -> HttpResponse:
        client_id = form.cleaned_data.get("client_id")
        if not get_application_model().objects.filter(client_id=client_id).exists():
            # Only a forged or stale form gets here (the page was shown for a known client);
            # the toolkit would fail with a 500 looking it up.
            return self._page_error("invalid_client", "this application is not known here")
        if self.request.POST.get("allow") == READ_ONLY:
            form.cleaned_data["scope"] = "memory:read"
        ours = mcp_resource(self.request)
        resources = str(form.cleaned_data.get("resource") or "").split()
        if [canonical(r) for r in resources] != [canonical(ours)]:
            credentials = {
                "redirect_uri": form.cleaned_data.get("redirect_uri"),
                "state": form.cleaned_data.get("state"),
                "client_id": form.cleaned_data.get("client_id"),
            }
            return self._invalid_target(credentials, ours)
        return super().form_valid(form)

    def _invalid_target(self, credentials: dict[str, Any], ours: str) -> HttpResponse:
        return self._refuse(
            credentials, "invalid_target", f"this server grants access only to {ours}"
        )

    def _refuse(self, credentials: dict[str, Any], code: str, description: str) -> HttpResponse:
        """Send the client back to its (already validated) redirect URI with an error."""
        application = (
            get_application_model().objects.filter(client_id=credentials.get("client_id")).first()
        )
        error = OAuthToolkitError(
            error=CustomOAuth2Error(
                error=code, description=description, state=credentials.get("state")
            ),
            redirect_uri=credentials.get("redirect_uri"),
        )
        return self.error_response(error, application)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["mcp_path"] = MCP_PATH
        context["scopes_descriptions_pairs"] = list(
            zip(context.get("scopes") or [], context.get("scopes_descriptions") or [], strict=False)
        )
        redirect_uri = context.get("redirect_uri") or ""
        context["redirect_host"] = urlsplit(redirect_uri).netloc
        # The spec asks the page to say so when the answer goes to a program on this machine:
        # any program here may listen on a loopback port.
        redirect_host = urlsplit(redirect_uri).hostname or ""
        context["redirect_loopback"] = redirect_host in _LOOPBACK
        context.update(_name_source(context.get("application"), redirect_host))
        context["offers_read_only"] = "memory:write" in (context.get("scopes") or [])
        context["read_only"] = READ_ONLY
        return context


def _name_source(application: Any, redirect_host: str) -> dict[str, Any]:
    """Where the consent page says the client's name comes from: the metadata document's host
    (and whether the answer goes to another host), an administrator, or the client's own
    registration (the default)."""
    if application is None:
        return {}
    source = str(getattr(application, "registration_source", "") or "")
    if source != application.RegistrationSource.CIMD:
        return {"name_source": source}
    document = urlsplit(application.client_id)
    elsewhere = bool(redirect_host) and redirect_host not in _LOOPBACK
    return {
        "name_source": source,
        "metadata_host": document.netloc,
        "redirect_elsewhere": elsewhere and redirect_host != (document.hostname or ""),
    }


# --- the Connections page -------------------------------------------------------------------


@login_required
@require_GET
def connections(request: HtmxHttpRequest) -> HttpResponse:
    return render(
        request,
        "connectors/connections.html",
        {
            "tokens": selectors.access_tokens(request.user),
            "mcp_url": mcp_resource(request),
            "now": timezone.now(),
        },
    )


@login_required
@require_POST
def token_revoke(request: HtmxHttpRequest, token_id: int) -> HttpResponse:
    token = selectors.access_token_get(request.user, token_id)
    if token is None:
        raise Http404("No such token")
    access_revoke(token=token)
    if request.htmx:
        token = selectors.access_token_get(request.user, token_id)
        context = {"t": token, "now": timezone.now()}
        return render(request, "connectors/connections.html#token-row", context)
    messages.success(request, f"Revoked {token.name}.")
    return redirect("connectors:list")
