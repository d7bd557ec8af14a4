"""A fast keyed hash for OAuth client secrets.

The secrets ume issues to clients are long random strings (the toolkit's generator), so a
slow password hash adds nothing against guessing them, while it made every registration, which
anyone may make, cost a password hash's worth of CPU. This hasher is one HMAC-SHA256 keyed with
``SECRET_KEY`` (and checked against ``SECRET_KEY_FALLBACKS``, so a key rotation keeps clients
working): a leaked database alone does not let anyone test guesses, even of a weak secret
someone typed in the admin.

It is listed last in ``PASSWORD_HASHERS``, so people's passwords keep Django's default; the
toolkit uses it for client secrets through ``CLIENT_SECRET_HASHER``. Secrets stored with an
older hasher keep verifying: Django picks the hasher from the stored value's prefix.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.hashers import BasePasswordHasher, mask_hash
from django.utils.crypto import constant_time_compare, salted_hmac

ALGORITHM = "ume_hmac_sha256"


def _mac(key: str, salt: str, secret: str) -> str:
    return salted_hmac(
        f"ume.client-secret:{salt}", secret, secret=key, algorithm="sha256"
    ).hexdigest()


class ClientSecretHasher(BasePasswordHasher):
    algorithm = ALGORITHM

    def encode(self, password: str, salt: str) -> str:
        if password is None or not salt or "$" in salt:
            raise ValueError("a secret and a salt without '$' are required")
        return f"{self.algorithm}${salt}${_mac(settings.SECRET_KEY, salt, password)}"

    def decode(self, encoded: str) -> dict[str, Any]:
        algorithm, salt, digest = encoded.split("$", 2)
        if algorithm != self.algorithm:
            raise ValueError(f"not a {self.algorithm} hash")
        return {"algorithm": algorithm, "salt": salt, "hash": digest}

    def verify(self, password: str, encoded: str) -> bool:
        decoded = self.decode(encoded)
        keys = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
        return any(
            constant_time_compare(_mac(key, decoded["salt"], password), decoded["hash"])
            for key in keys
        )

    def safe_summary(self, encoded: str) -> dict[Any, Any]:
        decoded = self.decode(encoded)
        return {
            "algorithm": decoded["algorithm"],
            "salt": mask_hash(decoded["salt"], show=2),
            "hash": mask_hash(decoded["hash"]),
        }

    def must_update(self, encoded: str) -> bool:
        return False

    def harden_runtime(self, password: str, encoded: str) -> None:
        return None
