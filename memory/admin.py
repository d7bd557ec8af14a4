"""Django admin for every model. Tokens show their secret once; suppressions can be lifted."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.defaultfilters import pluralize
from django.utils import timezone

from memory.models import (
    AccessToken,
    Alias,
    Candidate,
    DeletionBarrier,
    Edge,
    Episode,
    Event,
    Evidence,
    IdempotencyKey,
    MemoryRule,
    Node,
    Page,
    Receipt,
    Revision,
    Slice,
    Suppression,
    Transcript,
)
from memory.services.erase import account_delete
from memory.services.history import MODELS as HISTORY_MODELS
from memory.services.history import History, delete_tree, record
from memory.services.nodes import suppression_save, suppressions_lift
from memory.services.recall_index import recall_index_refresh
from memory.services.rules import MAX_TERM_CHARS, MAX_TERMS, RulesError, clean_terms
from memory.services.tokens import TokenError, normalise_scopes, token_create
from memory.vocab import SCOPES, RevisionAction


def _indexed(rows: Any) -> dict[int, dict[str, set[int]]]:
    """The recall documents ``rows`` belong to, by owner: a node's (its own, or that of its
    slice, event or alias), a page's, an episode's."""
    refs: dict[int, dict[str, set[int]]] = {}
    for row in rows:
        if row is None:
            continue
        kinds = refs.setdefault(row.owner_id, {"nodes": set(), "pages": set(), "episodes": set()})
        if isinstance(row, Node):
            kinds["nodes"].add(row.pk)
        elif isinstance(row, Slice | Event | Alias):
            kinds["nodes"].add(row.node_id)
        elif isinstance(row, Page):
            kinds["pages"].add(row.pk)
        elif isinstance(row, Episode):
            kinds["episodes"].add(row.pk)
    return refs


def _refresh(*groups: dict[int, dict[str, set[int]]]) -> None:
    for refs in groups:
        for owner_id, kinds in refs.items():
            recall_index_refresh(owner_id=owner_id, **kinds)


def _has_history(obj: Any) -> bool:
    return type(obj) in HISTORY_MODELS.values()


class HistoryAdmin(admin.ModelAdmin):
    """Edits made here record their revision, as the services' writes do (by the signed-in
    staff person, see ``memory.services.history``); deletions record the final one."""

    @transaction.atomic
    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change and _has_history(obj):
            obj.revision += 1
        super().save_model(request, obj, form, change)
        if _has_history(obj):
            record(obj, RevisionAction.UPDATED if change else RevisionAction.CREATED)

    @transaction.atomic
    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        _record_deleted([obj])
        super().delete_model(request, obj)

    @transaction.atomic
    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        _record_deleted(list(queryset))
        super().delete_queryset(request, queryset)


def _record_deleted(rows: list[Any]) -> None:
    for row in rows:
        if not _has_history(row):
            continue
        history = History(owner_id=row.owner_id, reason="deleted in the admin")
        if isinstance(row, Node):
            delete_tree(row.owner_id, [row.pk], history)
        else:
            history.deleted(row)
        history.flush()


class RecallIndexedAdmin(HistoryAdmin):
    """Edits made here keep recall's index in step, as the services' writes do: the row's
    document before and after the change is rewritten."""

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        before = _indexed([type(obj).objects.filter(pk=obj.pk).first()]) if change else {}
        super().save_model(request, obj, form, change)
        _refresh(before, _indexed([obj]))

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        _refresh(_indexed([form.instance]))  # inline aliases

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        refs = _indexed([obj])
        super().delete_model(request, obj)
        _refresh(refs)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        refs = _indexed(list(queryset))
        super().delete_queryset(request, queryset)
        _refresh(refs)


class AliasInline(admin.TabularInline):
    model = Alias
    extra = 0
    fields = ("alias", "canonical_key")
    readonly_fields = ("canonical_key",)


@admin.register(Node)
class NodeAdmin(RecallIndexedAdmin):
    list_display = ("label", "category", "state", "owner", "origin", "mention_count", "updated_at")
    list_filter = ("category", "state", "origin")
    search_fields = ("label", "canonical_key", "aliases__alias")
    readonly_fields = ("canonical_key", "created_receipt", "created_at", "updated_at")
    raw_id_fields = ("owner",)
    inlines = [AliasInline]


@admin.register(Slice)
class SliceAdmin(RecallIndexedAdmin):
    list_display = ("text", "node", "kind", "is_current", "created_at")
    list_filter = ("kind", "is_current")
    search_fields = ("text", "node__label")
    raw_id_fields = ("owner", "node", "created_receipt")


@admin.register(Event)
class EventAdmin(RecallIndexedAdmin):
    list_display = ("text", "node", "action", "happened_at", "happened_at_precision", "created_at")
    list_filter = ("action", "importance", "happened_at_source")
    search_fields = ("text", "node__label")
    raw_id_fields = ("owner", "node", "created_receipt")


@admin.register(Edge)
class EdgeAdmin(HistoryAdmin):
    list_display = ("from_node", "type", "to_node", "owner", "created_at")
    list_filter = ("type",)
    raw_id_fields = ("owner", "from_node", "to_node", "created_receipt")


@admin.register(Candidate)
class CandidateAdmin(admin.ModelAdmin):
    list_display = (
        "label_guess",
        "category_guess",
        "status",
        "confidence",
        "mention_count",
        "last_seen_at",
    )
    list_filter = ("status", "category_guess")
    search_fields = ("label_guess", "canonical_key")
    raw_id_fields = (
        "owner",
        "possible_existing_node",
        "promoted_node",
        "reviewed_by",
        "created_receipt",
    )


@admin.register(Suppression)
class SuppressionAdmin(admin.ModelAdmin):
    list_display = (
        "label",
        "kind",
        "reason",
        "owner",
        "active",
        "suppressed_until",
        "hit_count",
        "last_hit_at",
        "created_at",
    )
    list_filter = ("kind", "reason")
    search_fields = ("label", "canonical_key")
    readonly_fields = ("canonical_key", "hit_count", "last_hit_at", "lifted_at")
    raw_id_fields = ("owner",)
    actions = ["lift"]

    @admin.display(boolean=True)
    def active(self, obj: Suppression) -> bool:
        return obj.is_active_at(timezone.now())

    @admin.action(description="Lift the selected suppressions")
    def lift(self, request: HttpRequest, queryset: QuerySet[Suppression]) -> None:
        count = suppressions_lift(suppressions=queryset)
        self.message_user(request, f"Lifted {count} suppression{pluralize(count)}.")

    def save_model(self, request: HttpRequest, obj: Suppression, form: Any, change: bool) -> None:
        suppression_save(suppression=obj)


@admin.register(Transcript)
class TranscriptAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "status", "source", "size_bytes", "created_at", "processed_at")
    list_filter = ("status", "source")
    search_fields = ("name",)
    readonly_fields = ("sha256", "size_bytes", "receipt", "claimed_at", "processed_at", "attempts")
    raw_id_fields = ("owner",)


@admin.register(Evidence)
class EvidenceAdmin(admin.ModelAdmin):
    list_display = ("quote", "source", "message_id", "created_at")
    list_filter = ("source",)
    search_fields = ("quote",)
    raw_id_fields = (
        "owner",
        "transcript",
        "receipt",
        "node",
        "slice",
        "event",
        "edge",
        "candidate",
    )


@admin.register(Page)
class PageAdmin(RecallIndexedAdmin):
    list_display = ("title", "owner", "topic", "updated_at")
    search_fields = ("title", "summary")
    raw_id_fields = ("owner", "node", "created_receipt")


class TermsField(forms.CharField):
    """A list of terms typed one per line or separated by commas (not JSON)."""

    widget = forms.Textarea(attrs={"rows": 3})

    def __init__(self, *args: Any, rule: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rule = rule  # held to the memory rules' limits under this name, if given

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            return "\n".join(str(term) for term in value)
        return value

    def to_python(self, value: Any) -> list[str]:  # type: ignore[override]
        text = super().to_python(value) or ""
        terms: list[str] = []
        for line in text.replace(",", "\n").splitlines():
            term = " ".join(line.split())
            if term and term.casefold() not in {t.casefold() for t in terms}:
                terms.append(term)
        for term in terms:
            if len(term) > 200:
                raise forms.ValidationError(f"“{term[:40]}…” is over 200 characters")
        if self.rule:
            try:
                return clean_terms(self.rule, terms)
            except RulesError as exc:
                raise forms.ValidationError(str(exc).removeprefix(f"{self.rule}: ")) from exc
        return terms


class MemoryRuleForm(forms.ModelForm):
    includes = TermsField(
        required=False,
        help_text="One term per line, or separated by commas. If any, only matching memories "
        "are kept.",
    )
    excludes = TermsField(
        required=False,
        help_text="One term per line, or separated by commas. Matching memories are never kept "
        "(wins over includes).",
    )
    custom_categories = TermsField(
        required=False,
        rule="custom_categories",
        help_text=f"One category per line, or separated by commas (at most {MAX_TERMS}, each "
        f"at most {MAX_TERM_CHARS} characters).",
    )

    class Meta:
        model = MemoryRule
        fields = (
            "owner",
            "custom_instructions",
            "includes",
            "excludes",
            "custom_categories",
            "capture_default",
            "auto_collect",
            "episodes",
            "retention_days",
            "created_at",
            "updated_at",
        )


@admin.register(Episode)
class EpisodeAdmin(RecallIndexedAdmin):
    list_display = ("said_at", "owner", "role", "short_text", "transcript", "message_id")
    list_filter = ("role",)
    search_fields = ("text",)
    raw_id_fields = ("owner", "transcript")
    date_hierarchy = "said_at"

    @admin.display(description="text")
    def short_text(self, obj: Episode) -> str:
        return obj.text[:80]


@admin.register(MemoryRule)
class MemoryRuleAdmin(admin.ModelAdmin):
    list_display = (
        "__str__",
        "capture_default",
        "auto_collect",
        "episodes",
        "retention_days",
        "updated_at",
    )
    list_filter = ("capture_default", "episodes")
    list_select_related = ("owner",)
    search_fields = ("owner__username",)
    form = MemoryRuleForm

    def get_readonly_fields(self, request: HttpRequest, obj: MemoryRule | None = None) -> Any:
        return ("owner",) if obj is not None else ()

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "owner":
            # Each person has one rule: offer only those without one, so the add form cannot
            # be filled in for someone whose rule exists (edit that rule instead).
            kwargs["queryset"] = get_user_model().objects.filter(memory_rule__isnull=True)
            kwargs["help_text"] = (
                "People who already have rules are not listed: edit their rule instead."
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(ReadOnlyAdmin):
    """Written by API and MCP writes sent with a key; cleanup removes expired ones."""

    list_display = ("key", "scope", "owner", "status", "created_at", "expires_at")
    search_fields = ("key", "scope")


@admin.register(Revision)
class RevisionAdmin(ReadOnlyAdmin):
    """History is read-only: it is written by the services, and only retention and delete
    all remove it."""

    list_display = ("kind", "object_id", "number", "action", "actor", "actor_name", "created_at")
    list_filter = ("kind", "action", "actor")
    search_fields = ("actor_name", "reason")
    raw_id_fields = ("owner", "token", "receipt")


@admin.register(DeletionBarrier)
class DeletionBarrierAdmin(admin.ModelAdmin):
    list_display = ("owner", "barrier_at")
    readonly_fields = ("owner", "barrier_at")


class AccessTokenForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(
        choices=[(s, s) for s in SCOPES],
        initial=list(SCOPES),
        widget=forms.CheckboxSelectMultiple,
        help_text="memory:write implies memory:read.",
    )

    class Meta:
        model = AccessToken
        fields = ("owner", "name", "scopes", "expires_at")

    def clean_scopes(self) -> list[str]:
        try:
            return normalise_scopes(self.cleaned_data["scopes"])
        except TokenError as exc:
            raise forms.ValidationError(str(exc)) from exc


@admin.register(AccessToken)
class AccessTokenAdmin(admin.ModelAdmin):
    """Create a token here: its secret is shown once, in the success message, never again."""

    list_display = (
        "name",
        "owner",
        "prefix",
        "scopes",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked_at",
    )
    list_filter = ("revoked_at",)
    search_fields = ("name", "prefix", "owner__username")
    fields = (
        "owner",
        "name",
        "scopes",
        "expires_at",
        "prefix",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    readonly_fields = ("prefix", "created_at", "last_used_at", "revoked_at")
    autocomplete_fields = ("owner",)
    actions = ["revoke"]
    form = AccessTokenForm

    def get_readonly_fields(self, request: HttpRequest, obj: AccessToken | None = None) -> Any:
        if obj is not None:  # a token's owner and scopes never change after it is issued
            return (*self.readonly_fields, "owner", "scopes")
        return self.readonly_fields

    def save_model(self, request: HttpRequest, obj: AccessToken, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        try:
            scopes = normalise_scopes(obj.scopes or [])
        except TokenError as exc:
            raise ValueError(str(exc)) from exc
        token, secret = token_create(
            owner=obj.owner, name=obj.name, scopes=scopes, expires_at=obj.expires_at
        )
        obj.pk = token.pk
        obj.prefix, obj.secret_sha256, obj.scopes, obj.created_at = (
            token.prefix,
            token.secret_sha256,
            token.scopes,
            token.created_at,
        )
        obj._state.adding = False
        messages.warning(
            request, f"Token created. Copy the secret now, it will not be shown again: {secret}"
        )

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[AccessToken]) -> None:
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"Revoked {count} token{pluralize(count)}.")


@admin.register(Receipt)
class ReceiptAdmin(admin.ModelAdmin):
    """Receipts are a ledger: read-only in the admin."""

    list_display = ("id", "owner", "source", "outcome", "summary", "duration_ms", "created_at")
    list_filter = ("outcome", "source")
    search_fields = ("subject", "summary", "error")
    date_hierarchy = "created_at"

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class PersonAdmin(UserAdmin):  # type: ignore[type-arg]
    """Django's user admin, except that deleting a person deletes their memory in chunks
    first (``memory.services.erase.account_delete``): Django's cascade alone fails on a
    memory of more than about 32,000 rows on SQLite (65,000 on PostgreSQL)."""

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        account_delete(obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        for user in queryset:
            account_delete(user)


if admin.site.is_registered(get_user_model()):
    admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), PersonAdmin)
