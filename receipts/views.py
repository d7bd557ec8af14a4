"""The Saves page: every receipt, filterable, with a chart of saves per day by outcome."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from dashboard.htmx import HtmxHttpRequest
from memory.models import Receipt
from memory.selectors import receipt_get, receipt_list, receipt_written, receipts_per_day
from receipts.chart import stacked_chart
from receipts.forms import SavesFilterForm

SAVES = "receipts/saves.html"
PAGE_SIZE = 25


def receipt_or_404(request: HtmxHttpRequest, receipt_id: int) -> Receipt:
    """The signed-in owner's receipt, or 404 (another user's row is never shown)."""
    receipt = receipt_get(request.user, receipt_id)
    if receipt is None:
        raise Http404("No such receipt")
    return receipt


@login_required
@require_GET
def saves(request: HtmxHttpRequest) -> HttpResponse:
    form = SavesFilterForm(request.GET)
    if not form.is_valid():
        # HTMX swaps #saves-results: answer with that region (carrying the error), not a page.
        return render(
            request, f"{SAVES}#saves-results" if request.htmx else SAVES, {"form": form}, status=400
        )
    filters = {k: v for k, v in form.cleaned_data.items() if v}
    page = Paginator(receipt_list(request.user, **filters), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    start, end = form.chart_range()
    per_day = receipts_per_day(
        request.user,
        start=start,
        end=end,
        outcome=filters.get("outcome", ""),
        source=filters.get("source", ""),
    )
    context = {"form": form, "page": page, "chart": stacked_chart(per_day, start, end)}
    return render(request, f"{SAVES}#saves-results" if request.htmx else SAVES, context)


@login_required
@require_GET
def receipt_detail(request: HtmxHttpRequest, receipt_id: int) -> HttpResponse:
    receipt = receipt_or_404(request, receipt_id)
    context = {"receipt": receipt, "written": receipt_written(request.user, receipt)}
    return render(request, "receipts/detail.html", context)
