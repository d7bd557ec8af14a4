"""The dashboard's deletions: undo one ingest from its receipt, and delete all my memory.

Both ask first: undo shows what it would delete on a confirmation page; delete-all needs the
word DELETE typed in. Both are plain POST forms that redirect, so they work without JavaScript.
A delete-all of a large memory is done by the pending workers: the form then redirects to its
progress page, which htmx refreshes until it is done.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.htmx import HtmxHttpRequest
from memory.models import Receipt, Source
from memory.selectors import erasure_get
from memory.services.erase import (
    EraseError,
    memory_erase_request,
    receipt_undo,
    receipt_undo_preview,
)
from receipts.views import receipt_or_404

CONFIRM_WORD = "DELETE"


class UndoForm(forms.Form):
    suppress = forms.BooleanField(
        required=False,
        initial=True,
        label="Also suppress these labels, so the same conversation cannot bring them back",
    )


class EraseAllForm(forms.Form):
    confirm = forms.CharField(max_length=20, label=f"Type {CONFIRM_WORD} to confirm")
    keep_suppressions = forms.BooleanField(
        required=False,
        initial=True,
        label="Keep my suppression list, so a fresh start does not re-learn what I refused",
    )

    def clean_confirm(self) -> str:
        value = self.cleaned_data["confirm"].strip()
        if value != CONFIRM_WORD:
            raise forms.ValidationError(f"Type {CONFIRM_WORD} in capitals to confirm.")
        return value


@login_required
@require_GET
def undo_confirm(request: HtmxHttpRequest, receipt_id: int) -> HttpResponse:
    receipt = receipt_or_404(request, receipt_id)
    try:
        preview = receipt_undo_preview(receipt=receipt)
    except EraseError as exc:
        messages.error(request, str(exc))
        return redirect("receipts:detail", receipt.pk)
    context = {"receipt": receipt, "preview": preview, "form": UndoForm()}
    return render(request, "receipts/undo_confirm.html", context)


@login_required
@require_POST
def undo(request: HtmxHttpRequest, receipt_id: int) -> HttpResponse:
    receipt = receipt_or_404(request, receipt_id)
    form = UndoForm(request.POST)
    form.is_valid()  # a checkbox: always valid; unchecked means False
    try:
        result = receipt_undo(
            receipt=receipt, suppress=form.cleaned_data["suppress"], source=Source.REVIEW
        )
    except EraseError as exc:
        messages.error(request, str(exc))
        return redirect("receipts:detail", receipt.pk)
    messages.success(request, result.summary)
    return redirect("receipts:detail", result.pk)


@login_required
@require_http_methods(["GET", "POST"])
def delete_all(request: HtmxHttpRequest) -> HttpResponse:
    form = EraseAllForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        if form.is_valid():
            done = memory_erase_request(
                owner=request.user,
                keep_suppressions=form.cleaned_data["keep_suppressions"],
                source=Source.REVIEW,
            )
            if isinstance(done, Receipt):
                messages.success(request, done.summary)
                return redirect("receipts:list")
            return redirect("receipts:erasure", done.pk)
        return render(request, "receipts/delete_all.html", {"form": form}, status=400)
    return render(request, "receipts/delete_all.html", {"form": form})


@login_required
@require_GET
def erasure_progress(request: HtmxHttpRequest, erasure_id: int) -> HttpResponse:
    """A delete-all left to the workers: its progress, polled by htmx until it is done."""
    erasure = erasure_get(request.user, erasure_id)
    if erasure is None:
        raise Http404("No such deletion")
    template = "receipts/erasure.html"
    return render(
        request, f"{template}#erasure" if request.htmx else template, {"erasure": erasure}
    )
