"""The receipts chain's line on the Saves page, loaded after the page (one HTMX partial):
it verifies only the receipts since the point last verified (docs/architecture.md,
"Receipts chain"), so a long chain costs one walk once, not one walk per view."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from dashboard.htmx import HtmxHttpRequest
from memory.services.receipt_chain import chain_verify_new

CHAIN = "receipts/chain.html"


@login_required
@require_GET
def chain_state(request: HtmxHttpRequest) -> HttpResponse:
    report = chain_verify_new(request.user)
    return render(request, f"{CHAIN}#chain-state" if request.htmx else CHAIN, {"chain": report})
