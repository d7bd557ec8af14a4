"""The Saves page's "Download all my memory": the signed-in person's export, streamed
(docs/export.md). A plain link: it works without JavaScript, and the browser saves the file
as it arrives."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import StreamingHttpResponse
from django.views.decorators.http import require_GET

from dashboard.htmx import HtmxHttpRequest
from memory.exports.http import export_response


@login_required
@require_GET
def export_download(request: HtmxHttpRequest) -> StreamingHttpResponse:
    return export_response(request, request.user)
