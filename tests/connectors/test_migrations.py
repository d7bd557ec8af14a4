"""0002_consent keeps a live connection's tokens working and leaves a revoked one's dead."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone
from oauth2_provider.models import get_application_model, get_refresh_token_model

from connectors.models import Connection
from memory.models import AccessToken

pytestmark = pytest.mark.django_db(transaction=True)
BEFORE = [("connectors", "0001_initial")]
AFTER = [("connectors", "0002_consent")]


def test_live_connections_keep_the_families_issued_after_the_last_revocation() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    # Only connectors is rolled back: every other table, and Connection's, is as it is now.
    user = User.objects.create(username="ada")
    app = get_application_model().objects.create(
        name="Hosted assistant", client_type="public", authorization_grant_type="authorization-code"
    )
    token_model = AccessToken
    connection_model = Connection
    refresh_model = get_refresh_token_model()
    now = timezone.now()

    def connect(name: str, revoked_at: datetime | None) -> Connection:
        token = token_model.objects.create(
            owner=user, name=name, prefix=name, secret_sha256=name * 8, revoked_at=revoked_at
        )
        return connection_model.objects.create(
            owner=user, application=app, token=token, resource="http://testserver/mcp"
        )

    def family(created: datetime) -> uuid.UUID:
        row = refresh_model.objects.create(
            user=user, application=app, token_family=uuid.uuid4(), token_checksum=uuid.uuid4().hex
        )
        refresh_model.objects.filter(pk=row.pk).update(created=created)
        return row.token_family

    connect("oldconn1", revoked_at=now - timedelta(hours=1))
    live = connect("liveconn", revoked_at=None)
    dead = family(now - timedelta(hours=2))  # issued under the revoked connection
    kept = family(now - timedelta(minutes=5))

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    redemptions = apps.get_model("connectors", "Redemption").objects.all()
    assert [(r.connection_id, r.token_family, r.code_sha256) for r in redemptions] == [
        (live.pk, kept, None)
    ]
    assert dead not in {r.token_family for r in redemptions}
