"""Suppression writes in ``memory.services.nodes`` that the admin calls."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memory.models import Suppression
from memory.services.nodes import suppression_save, suppressions_lift
from tests.factories import make_suppression

pytestmark = pytest.mark.django_db


def test_suppressions_lift_lifts_the_active_ones_and_keeps_when_the_others_were_lifted(
    owner: User, other_user: User
) -> None:
    earlier = timezone.now() - timedelta(days=3)
    piano = make_suppression(owner=owner, label="Piano")
    chess = make_suppression(owner=other_user, label="Chess")
    lifted = make_suppression(owner=owner, label="Golf", lifted_at=earlier)
    untouched = make_suppression(owner=owner, label="Rowing")

    count = suppressions_lift(
        suppressions=Suppression.objects.filter(pk__in=[piano.pk, chess.pk, lifted.pk])
    )

    assert count == 2
    for row in (piano, chess, lifted, untouched):
        row.refresh_from_db()
    assert piano.lifted_at is not None and chess.lifted_at is not None
    assert lifted.lifted_at == earlier
    assert untouched.lifted_at is None


def test_suppression_save_keys_the_label_whatever_key_was_typed(owner: User) -> None:
    row = Suppression(owner=owner, label="  Sofía   Almeida ", canonical_key="typed", kind="node")
    suppression_save(suppression=row)
    row.refresh_from_db()
    assert row.canonical_key == "sofia almeida"


def test_the_admin_lift_action_reports_what_it_lifted(admin_client: Client, owner: User) -> None:
    active = make_suppression(owner=owner, label="Piano")
    make_suppression(owner=owner, label="Golf", lifted_at=timezone.now())
    response = admin_client.post(
        reverse("admin:memory_suppression_changelist"),
        {
            "action": "lift",
            "_selected_action": list(Suppression.objects.values_list("pk", flat=True)),
        },
        follow=True,
    )
    assert "Lifted 1 suppression." in response.content.decode()
    active.refresh_from_db()
    assert active.lifted_at is not None
