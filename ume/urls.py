from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from api import api_not_found, api_urls
from ume.health import healthz, readyz
from ume.login import ThrottledAdminAuthenticationForm, ThrottledLoginView, admin_login

admin.site.login_form = ThrottledAdminAuthenticationForm

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    # Receipts moved into the domain app (memory), and the admin files a model under its
    # app: bookmarks of the old receipt admin pages keep working.
    re_path(
        r"^admin/receipts/receipt/(?P<rest>.*)$",
        RedirectView.as_view(url="/admin/memory/receipt/%(rest)s", query_string=True),
    ),
    # The admin's sign-in, throttled like the dashboard's (ume/login.py).
    path("admin/login/", admin_login),
    path("admin/", admin.site.urls),
    # The API's root has no route of its own: JSON 404 like any unknown API path (django-ninja
    # would answer its HTML one).
    path("v1/", api_not_found),
    path("v1/", api_urls()),
    re_path(r"^v1/", api_not_found),
    path("login/", ThrottledLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", RedirectView.as_view(pattern_name="review:queue"), name="home"),
    path("review/", include("review.urls")),
    path("saves/", include("receipts.urls")),
    path("memory/", include("browser.urls")),
    path("connections/", include("connectors.urls")),
    path("", include("connectors.oauth_urls")),
]
