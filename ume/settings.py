"""ume settings: one module, driven by environment variables only.

Every knob is read through the strict helpers below, so a typo such as ``DEBUG=ture`` fails
loudly at start-up instead of silently meaning something else.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.conf import global_settings
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from exc
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {value}")
    return value


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from exc


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if DEBUG or env_bool("UME_INSECURE_DEV_KEY", False):
        SECRET_KEY = "ume-insecure-development-key-do-not-use-in-production"
    else:
        raise ImproperlyConfigured("SECRET_KEY is required when DEBUG is off")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "template_partials",
    "ninja",
    "oauth2_provider",
    "memory",
    "mcp_server",
    "dashboard",
    "browser",
    "receipts",
    "review",
    "connectors",
    "eval",
]

MIDDLEWARE = [
    "ume.logs.RequestLogMiddleware",  # first, so the access log times the whole request
    "django.middleware.security.SecurityMiddleware",
    "ume.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "memory.middleware.HistoryActorMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "ume.urls"
WSGI_APPLICATION = "ume.wsgi.application"
ASGI_APPLICATION = "ume.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "dashboard.context_processors.dashboard",
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
UME_DB_CONN_MAX_AGE = env_int("UME_DB_CONN_MAX_AGE", 0, minimum=0)
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=UME_DB_CONN_MAX_AGE)}
# PostgreSQL: each process (a web worker, an ingest worker, cleanup) keeps its own pool of at
# most UME_DB_POOL_MAX connections (psycopg's pool). A request borrows one for as long as it
# runs and gives it back when it ends, so connections are reused however many threads the ASGI
# server runs requests in; a request that finds none free waits up to UME_DB_POOL_TIMEOUT
# seconds, then gets 503. UME_DB_POOL_MAX=0 turns the pool off (one connection per request,
# e.g. behind PgBouncer).
UME_DB_POOL_MAX = env_int("UME_DB_POOL_MAX", 8, minimum=0)
UME_DB_POOL_MIN = env_int("UME_DB_POOL_MIN", 1, minimum=0)
UME_DB_POOL_TIMEOUT = env_float("UME_DB_POOL_TIMEOUT", 10.0)
UME_DB_POOL = DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and (
    UME_DB_POOL_MAX > 0
)
if UME_DB_POOL:
    if UME_DB_CONN_MAX_AGE:
        # Django refuses persistent connections with a pool: the pool is what keeps them.
        raise ImproperlyConfigured(
            "UME_DB_CONN_MAX_AGE must be 0 while the connection pool is on "
            f"(UME_DB_POOL_MAX={UME_DB_POOL_MAX}): the pool keeps connections open and reuses "
            "them; set UME_DB_POOL_MAX=0 to turn the pool off instead"
        )
    if UME_DB_POOL_MIN > UME_DB_POOL_MAX:
        raise ImproperlyConfigured(
            f"UME_DB_POOL_MIN ({UME_DB_POOL_MIN}) must not be above "
            f"UME_DB_POOL_MAX ({UME_DB_POOL_MAX})"
        )
    if UME_DB_POOL_TIMEOUT <= 0:
        raise ImproperlyConfigured(f"UME_DB_POOL_TIMEOUT must be > 0, got {UME_DB_POOL_TIMEOUT}")
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": UME_DB_POOL_MIN,
        "max_size": UME_DB_POOL_MAX,
        "timeout": UME_DB_POOL_TIMEOUT,
    }
    # The pool checks a connection before lending it, so one the server dropped (a restart,
    # an idle timeout) is replaced instead of failing a request.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL plus a busy timeout lets a web process and an ingest command share the file.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"}
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The cache holds the API's per-token rate-limit counters. "locmem" counts per process;
# "database" shares the counters between every process on the same database (run
# `manage.py createcachetable` once; `make run` and `make serve` do).
UME_CACHE = env_str("UME_CACHE", "locmem")
if UME_CACHE == "locmem":
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
elif UME_CACHE == "database":
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "ume_cache",
        }
    }
else:
    raise ImproperlyConfigured(f"UME_CACHE must be locmem or database, got {UME_CACHE!r}")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "review:queue"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": env_str(
            "UME_STATICFILES_STORAGE", "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# Uploads: transcripts are read into memory and stored as text rows, never as files on disk.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("UME_MAX_REQUEST_BYTES", 12 * 1024 * 1024, minimum=1024)
# The largest body a dashboard form other than uploads accepts (login, review, edits); refused
# before it is read (ume/guard.py).
UME_MAX_FORM_BYTES = env_int("UME_MAX_FORM_BYTES", 1024 * 1024, minimum=1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE

# Production (DEBUG off) is HTTPS by default and passes ``manage.py check --deploy``: redirect
# to HTTPS, HSTS, Secure cookies. UME_HTTPS=0 serves plain HTTP (a local `make serve`, tests).
UME_HTTPS = env_bool("UME_HTTPS", not DEBUG)
SECURE_SSL_REDIRECT = UME_HTTPS
SECURE_REDIRECT_EXEMPT = [r"^healthz/?$", r"^readyz/?$"]
SECURE_HSTS_SECONDS = env_int("UME_HSTS_SECONDS", 31536000 if UME_HTTPS else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("UME_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("UME_HSTS_PRELOAD", True)
if env_bool("UME_BEHIND_PROXY", False):
    # Behind a TLS-terminating proxy that sets X-Forwarded-Proto (and strips the client's).
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("UME_SECURE_COOKIES", UME_HTTPS)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

# UME_LOG_FORMAT=json: one JSON object per line (ume/logs.py), with the access log of every
# request and the workers' lines at INFO. "text" keeps Django's plain lines.
UME_LOG_FORMAT = env_str("UME_LOG_FORMAT", "text")
if UME_LOG_FORMAT not in {"text", "json"}:
    raise ImproperlyConfigured(f"UME_LOG_FORMAT must be text or json, got {UME_LOG_FORMAT!r}")
_LOG_LEVEL = env_str("UME_LOG_LEVEL", "WARNING")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "ume.logs.RequestIdFilter"},
        "request_record": {"()": "ume.logs.RequestRecordFilter"},
    },
    "formatters": {"json": {"()": "ume.logs.JsonFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id", "request_record"],
            **({"formatter": "json"} if UME_LOG_FORMAT == "json" else {}),
        }
    },
    "root": {"handlers": ["console"], "level": _LOG_LEVEL},
    "loggers": (
        {
            name: {"level": "INFO", "handlers": ["console"], "propagate": False}
            for name in ("ume.request", "ume.worker")
        }
        if UME_LOG_FORMAT == "json"
        else {}
    ),
}

# --- ume's own settings (documented in the README) -----------------------------------------
# The web worker (ume/server.py): seconds a client has to send a request's headers, and to
# send its body (plus one second per KB received); slower clients get 408 and are closed.
UME_HTTP_HEADER_TIMEOUT = env_float("UME_HTTP_HEADER_TIMEOUT", 10.0)
UME_HTTP_BODY_TIMEOUT = env_float("UME_HTTP_BODY_TIMEOUT", 30.0)
if UME_HTTP_HEADER_TIMEOUT <= 0 or UME_HTTP_BODY_TIMEOUT <= 0:
    raise ImproperlyConfigured("UME_HTTP_HEADER_TIMEOUT and UME_HTTP_BODY_TIMEOUT must be > 0")
UME_MAX_TRANSCRIPT_BYTES = env_int("UME_MAX_TRANSCRIPT_BYTES", 5 * 1024 * 1024, minimum=1)
UME_INLINE_UPLOAD_BYTES = env_int("UME_INLINE_UPLOAD_BYTES", 64 * 1024, minimum=0)
# A whole chat export (ChatGPT's or Claude's conversations.json): read as a stream, one
# conversation at a time; each conversation is still held to UME_MAX_TRANSCRIPT_BYTES.
UME_MAX_IMPORT_BYTES = env_int("UME_MAX_IMPORT_BYTES", 512 * 1024 * 1024, minimum=1024)
# A save with more messages than this goes to the pending workers, like a large upload.
UME_INLINE_MESSAGES = env_int("UME_INLINE_MESSAGES", 200, minimum=1)
# "Delete all my memory" of up to this many rows runs in its request; a larger memory is
# deleted by the `ingest --pending` workers, in chunks (writes are refused meanwhile).
UME_INLINE_ERASE_ROWS = env_int("UME_INLINE_ERASE_ROWS", 5000, minimum=0)
# How long a claim on a transcript holds without finishing; after that a retry takes it over.
UME_CLAIM_LEASE_SECONDS = env_int("UME_CLAIM_LEASE_SECONDS", 60, minimum=1)
# The time a pending worker may spend on one transcript before giving up on it.
UME_INGEST_BUDGET_SECONDS = env_int("UME_INGEST_BUDGET_SECONDS", 45, minimum=1)
UME_DEFAULT_EXTRACTOR = env_str("UME_EXTRACTOR", "rules")
UME_LLM_BASE_URL = env_str("UME_LLM_BASE_URL")
UME_LLM_MODEL = env_str("UME_LLM_MODEL")
UME_LLM_API_KEY = env_str("UME_LLM_API_KEY")
UME_LLM_TIMEOUT = env_float("UME_LLM_TIMEOUT", 30.0)
UME_CANDIDATE_TTL_DAYS = env_int("UME_CANDIDATE_TTL_DAYS", 30, minimum=1)
UME_AUTO_CONFIDENCE = env_float("UME_AUTO_CONFIDENCE", 0.8)
UME_MIN_CONFIDENCE = env_float("UME_MIN_CONFIDENCE", 0.5)
UME_UNDO_SECONDS = env_int("UME_UNDO_SECONDS", 300, minimum=1)
# A one-off, low-value guess (said in one conversation, at most twice, below
# UME_AUTO_CONFIDENCE) expires this many days after ume last saw it; 0: never early.
UME_ONE_OFF_DAYS = env_int("UME_ONE_OFF_DAYS", 14, minimum=0)
# How close in meaning (cosine of the local model's vectors) a new name, or a word of a
# message, must be to something the person asked to forget to be held for them ("looks like
# something you asked to forget") or hidden from recall. Chosen on eval_forgetting: see
# docs/architecture.md, "Tombstones".
UME_FORGET_MEANING_FLOOR = env_float("UME_FORGET_MEANING_FLOOR", 0.5)
# Every change records a revision (memory.services.history). Off only to measure what history
# costs (make bench); with it off nothing has a history to show or roll back to.
UME_HISTORY = env_bool("UME_HISTORY", True)
# How long the first result of a write sent with an idempotency key is kept for its retries.
UME_IDEMPOTENCY_HOURS = env_int("UME_IDEMPOTENCY_HOURS", 24, minimum=1)
UME_DEMO_USERNAME = env_str("UME_DEMO_USERNAME", "demo")
UME_DEMO_PASSWORD = env_str("UME_DEMO_PASSWORD", "demo-memory-2026")
UME_RECALL_CONTEXT_CHARS = env_int("UME_RECALL_CONTEXT_CHARS", 2400, minimum=200)
# Recall answers nothing ("nothing_close") when its best item's confidence is under this
# (0..1; 0 turns the gate off). Chosen on the team's conversation set and LoCoMo's dev
# conversations: docs/recall-quality.md has the trade-off curve.
UME_RECALL_MIN_CONFIDENCE = env_float("UME_RECALL_MIN_CONFIDENCE", 0.0)
if not 0.0 <= UME_RECALL_MIN_CONFIDENCE <= 1.0:
    raise ImproperlyConfigured(
        f"UME_RECALL_MIN_CONFIDENCE must be between 0 and 1, got {UME_RECALL_MIN_CONFIDENCE}"
    )
# Sign-in throttling (ume/login.py): attempts per account, failures per address, per window.
UME_LOGIN_ATTEMPTS_PER_ACCOUNT = env_int("UME_LOGIN_ATTEMPTS_PER_ACCOUNT", 5, minimum=1)
UME_LOGIN_FAILURES_PER_ADDRESS = env_int("UME_LOGIN_FAILURES_PER_ADDRESS", 20, minimum=1)
UME_LOGIN_WINDOW_SECONDS = env_int("UME_LOGIN_WINDOW_SECONDS", 900, minimum=1)
# Failed bearer tokens an address may send a minute before it is refused with 429.
UME_BAD_TOKENS_PER_ADDRESS = env_int("UME_BAD_TOKENS_PER_ADDRESS", 30, minimum=1)
UME_RECALL_VECTOR_CACHE_MB = env_int("UME_RECALL_VECTOR_CACHE_MB", 256, minimum=1)
# Where recall's vectors come from (docs/embeddings.md): the bundled wordllama model, the
# optional local all-MiniLM-L6-v2 sentence model (minilm: `make minilm` installs it), or an
# OpenAI-compatible /v1/embeddings endpoint (Ollama, LM Studio, vLLM, a hosted one) by its base
# URL, model and key. The dimension is learned from the first answer unless set. After a
# failure the endpoint is left alone for UME_EMBEDDINGS_RETRY_SECONDS (recall and saves go on
# without vectors; `reindex --missing` fills them later).
UME_EMBEDDINGS_PROVIDER = env_str("UME_EMBEDDINGS_PROVIDER", "wordllama").strip().lower()
UME_EMBEDDINGS_URL = env_str("UME_EMBEDDINGS_URL").strip()
UME_EMBEDDINGS_MODEL = env_str("UME_EMBEDDINGS_MODEL").strip()
UME_EMBEDDINGS_KEY = env_str("UME_EMBEDDINGS_KEY")
UME_EMBEDDINGS_TIMEOUT_SECONDS = env_float("UME_EMBEDDINGS_TIMEOUT_SECONDS", 10.0)
UME_EMBEDDINGS_BATCH = env_int("UME_EMBEDDINGS_BATCH", 64, minimum=1)
UME_EMBEDDINGS_DIM = env_int("UME_EMBEDDINGS_DIM", 0, minimum=0)
UME_EMBEDDINGS_RETRY_SECONDS = env_float("UME_EMBEDDINGS_RETRY_SECONDS", 30.0)
if UME_EMBEDDINGS_PROVIDER not in ("wordllama", "minilm", "openai"):
    raise ImproperlyConfigured(
        "UME_EMBEDDINGS_PROVIDER must be wordllama, minilm or openai, got "
        f"{UME_EMBEDDINGS_PROVIDER!r}"
    )
if UME_EMBEDDINGS_PROVIDER == "openai":
    if not UME_EMBEDDINGS_URL.startswith(("http://", "https://")):
        raise ImproperlyConfigured(
            "UME_EMBEDDINGS_URL must be the endpoint's http(s) base URL (for Ollama: "
            "http://127.0.0.1:11434/v1) when UME_EMBEDDINGS_PROVIDER is openai"
        )
    if not UME_EMBEDDINGS_MODEL or len(UME_EMBEDDINGS_MODEL) > 64:
        raise ImproperlyConfigured(
            "UME_EMBEDDINGS_MODEL must name the model (at most 64 characters) when "
            "UME_EMBEDDINGS_PROVIDER is openai"
        )
    if UME_EMBEDDINGS_TIMEOUT_SECONDS <= 0:
        raise ImproperlyConfigured("UME_EMBEDDINGS_TIMEOUT_SECONDS must be more than 0")
UME_API_RATE_LIMIT = env_int("UME_API_RATE_LIMIT", 120, minimum=1)  # requests per minute per token
# /mcp's tool threads per process, and how many of them one person's requests may hold at once
# (one more is a 429 "busy"): below the pool, so one person's waiting calls leave threads free.
UME_MCP_THREADS = env_int("UME_MCP_THREADS", 16, minimum=2)
UME_MCP_CALLS_PER_PERSON = env_int("UME_MCP_CALLS_PER_PERSON", 4, minimum=1)
if UME_MCP_CALLS_PER_PERSON >= UME_MCP_THREADS:
    raise ImproperlyConfigured(
        f"UME_MCP_CALLS_PER_PERSON ({UME_MCP_CALLS_PER_PERSON}) must be below UME_MCP_THREADS "
        f"({UME_MCP_THREADS}): one person's calls must leave threads for everyone else"
    )
UME_MCP_ALLOWED_HOSTS = env_list("UME_MCP_ALLOWED_HOSTS", ["127.0.0.1:*", "localhost:*", "[::1]:*"])
UME_MCP_ALLOWED_ORIGINS = env_list(
    "UME_MCP_ALLOWED_ORIGINS", ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
)

# --- OAuth 2.1 for remote MCP connectors (connectors/, django-oauth-toolkit) ----------------
# UME_PUBLIC_URL fixes the issuer and the /mcp resource identifier (e.g.
# https://memory.example.org); unset, both are derived from each request's Host.
UME_PUBLIC_URL = env_str("UME_PUBLIC_URL").rstrip("/")
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
# Generated client secrets get a fast keyed hash (connectors/hashers.py); people's passwords
# keep Django's default, the first of the list.
PASSWORD_HASHERS = [*global_settings.PASSWORD_HASHERS, "connectors.hashers.ClientSecretHasher"]
UME_OAUTH_ACCESS_TOKEN_SECONDS = env_int("UME_OAUTH_ACCESS_TOKEN_SECONDS", 3600, minimum=60)
UME_OAUTH_REFRESH_TOKEN_DAYS = env_int("UME_OAUTH_REFRESH_TOKEN_DAYS", 30, minimum=1)
# Desktop clients receive the code on http://127.0.0.1:<port>/... (RFC 8252); hosted
# connectors use https callbacks. ume accepts http only for loopback hosts, and by default only
# when it is itself served over plain HTTP (so production defaults pass check --deploy).
UME_OAUTH_LOOPBACK_REDIRECTS = env_bool("UME_OAUTH_LOOPBACK_REDIRECTS", not UME_HTTPS)
# Registration is open (connectors register before anyone signs in): each address may register
# this many clients an hour, and a client nobody authorized within UME_OAUTH_UNUSED_CLIENT_HOURS
# is deleted by `manage.py cleanup`.
UME_OAUTH_REGISTRATIONS_PER_HOUR = env_int("UME_OAUTH_REGISTRATIONS_PER_HOUR", 20, minimum=1)
UME_OAUTH_UNUSED_CLIENT_HOURS = env_int("UME_OAUTH_UNUSED_CLIENT_HOURS", 24, minimum=1)
# A refresh token presented again this soon after it was rotated (a client's concurrent or
# retried refresh) is refused without revoking its family; later, reuse revokes the family.
UME_OAUTH_REFRESH_GRACE_SECONDS = env_int("UME_OAUTH_REFRESH_GRACE_SECONDS", 10, minimum=0)
# Client ID Metadata Documents: a client whose client_id is an https URL is described by the
# JSON document at that URL, which ume fetches (connectors.fetch) when a signed-in person opens
# the consent page for it. Off: such a client_id is an unknown client, and only registration
# remains.
UME_OAUTH_CLIENT_METADATA_DOCUMENTS = env_bool("UME_OAUTH_CLIENT_METADATA_DOCUMENTS", True)
UME_OAUTH_CLIENT_METADATA_TIMEOUT_SECONDS = env_float(
    "UME_OAUTH_CLIENT_METADATA_TIMEOUT_SECONDS", 5.0
)
if not 0 < UME_OAUTH_CLIENT_METADATA_TIMEOUT_SECONDS <= 30:
    raise ImproperlyConfigured("UME_OAUTH_CLIENT_METADATA_TIMEOUT_SECONDS must be in (0, 30]")
# For tests only: also fetch metadata documents over plain http from this machine's loopback
# addresses (a local test server). Never in production: refused under UME_HTTPS, and
# `check --deploy` reports it (connectors.E001).
UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA = env_bool(
    "UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA", False
)
if UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA and UME_HTTPS:
    raise ImproperlyConfigured(
        "UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA is for tests on a plain-HTTP ume only; "
        "it cannot be on with UME_HTTPS"
    )
OAUTH2_PROVIDER = {
    "SCOPES": {
        "memory:read": "Read your memories: recall, search and list them",
        "memory:write": "Save new memories and conversations, and change or forget them",
    },
    "DEFAULT_SCOPES": ["memory:read"],
    "READ_SCOPE": "memory:read",
    "WRITE_SCOPE": "memory:write",
    "OAUTH2_VALIDATOR_CLASS": "connectors.oauth.UmeOAuth2Validator",
    "CLIENT_SECRET_HASHER": "ume_hmac_sha256",
    "PKCE_REQUIRED": True,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ACCESS_TOKEN_EXPIRE_SECONDS": UME_OAUTH_ACCESS_TOKEN_SECONDS,
    "REFRESH_TOKEN_EXPIRE_SECONDS": UME_OAUTH_REFRESH_TOKEN_DAYS * 86400,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    # 0: the toolkit's grace answers with the old pair, which hashed storage cannot do; ume's
    # own grace (connectors.oauth, UME_OAUTH_REFRESH_GRACE_SECONDS) refuses without revoking.
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "REQUEST_APPROVAL_PROMPT": "force",
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"]
    if UME_OAUTH_LOOPBACK_REDIRECTS
    else ["https"],
    "ALLOWED_SCHEMES": ["https", "http"] if UME_OAUTH_LOOPBACK_REDIRECTS else ["https"],
    "ALLOW_LOCALHOST_LOOPBACK": UME_OAUTH_LOOPBACK_REDIRECTS,
    "ALLOW_URI_WILDCARDS": False,
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,  # S256 only
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,  # tokens hashed at rest
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
    "DCR_ENABLED": True,
    # Off on purpose: the toolkit's own resolver would fetch a document whenever an unknown
    # URL client_id reaches any endpoint, the token endpoint included (anonymous). ume fetches
    # only for a signed-in person's consent page (connectors.services.metadata_client_resolve)
    # and advertises the support itself (connectors.views.AuthorizationServerMetadata).
    "CIMD_ENABLED": False,
    # Connectors register themselves before anyone signs in (RFC 7591 open registration);
    # a client gets nothing until a signed-in person approves it on the consent page.
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": [
        "none",
        "client_secret_basic",
        "client_secret_post",
    ],
    "OAUTH2_PROTECTED_RESOURCE_NAME": "ume memory (MCP)",
    "OIDC_ISS_ENDPOINT": UME_PUBLIC_URL,
    "OAUTH2_PROTECTED_RESOURCE_IDENTIFIER": f"{UME_PUBLIC_URL}/mcp" if UME_PUBLIC_URL else "",
}
