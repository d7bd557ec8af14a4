"""The OAuth endpoints, in the toolkit's URL namespace (its metadata reverses these names).

Metadata lives at the origin's root (RFC 8414, RFC 9728); the endpoints under /oauth/.
"""

from __future__ import annotations

from django.urls import path
from oauth2_provider import views as oauth_views

from connectors import views

app_name = "oauth2_provider"

urlpatterns = [
    path(
        ".well-known/oauth-authorization-server",
        views.AuthorizationServerMetadata.as_view(),
        name="oauth-server-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource",
        views.ProtectedResourceMetadata.as_view(),
        name="oauth-resource-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource/mcp",
        views.ProtectedResourceMetadata.as_view(),
        name="oauth-resource-metadata-path",
    ),
    path("oauth/authorize/", views.Consent.as_view(), name="authorize"),
    path("oauth/token/", oauth_views.TokenView.as_view(), name="token"),
    path("oauth/revoke/", oauth_views.RevokeTokenView.as_view(), name="revoke-token"),
    path("oauth/register/", views.Register.as_view(), name="dcr-register"),
    path(
        "oauth/register/<str:client_id>/",
        views.RegistrationManagement.as_view(),
        name="dcr-register-management",
    ),
]
