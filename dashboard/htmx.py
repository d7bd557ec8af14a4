"""The request type of the dashboard views: Django's, with django-htmx's ``request.htmx``, and
the signed-in person (every dashboard view is behind ``login_required``)."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

from memory.owned import Person


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
    user: Person  # login_required: never AnonymousUser here
