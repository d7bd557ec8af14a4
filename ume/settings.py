"""ume settings: one module, driven by environment variables only.

Every knob is read through the strict helpers below, so a typo such as ``DEBUG=ture`` fails
loudly at start-up instead of silently meaning something else.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
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
    "memory",
    "receipts",
    "review",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
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
                "memory.context_processors.dashboard",
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("UME_DB_CONN_MAX_AGE", 0))
}
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
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("UME_SECURE_COOKIES", not DEBUG and env_bool("UME_HTTPS", False))
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("UME_LOG_LEVEL", "WARNING")},
}

# --- ume's own settings (documented in the README) -----------------------------------------
UME_MAX_TRANSCRIPT_BYTES = env_int("UME_MAX_TRANSCRIPT_BYTES", 5 * 1024 * 1024, minimum=1)
UME_INLINE_UPLOAD_BYTES = env_int("UME_INLINE_UPLOAD_BYTES", 64 * 1024, minimum=0)
UME_DEFAULT_EXTRACTOR = env_str("UME_EXTRACTOR", "rules")
UME_LLM_BASE_URL = env_str("UME_LLM_BASE_URL")
UME_LLM_MODEL = env_str("UME_LLM_MODEL")
UME_LLM_API_KEY = env_str("UME_LLM_API_KEY")
UME_LLM_TIMEOUT = env_float("UME_LLM_TIMEOUT", 30.0)
UME_CANDIDATE_TTL_DAYS = env_int("UME_CANDIDATE_TTL_DAYS", 30, minimum=1)
UME_AUTO_CONFIDENCE = env_float("UME_AUTO_CONFIDENCE", 0.8)
UME_MIN_CONFIDENCE = env_float("UME_MIN_CONFIDENCE", 0.5)
UME_UNDO_SECONDS = env_int("UME_UNDO_SECONDS", 300, minimum=1)
UME_DEMO_USERNAME = env_str("UME_DEMO_USERNAME", "demo")
UME_DEMO_PASSWORD = env_str("UME_DEMO_PASSWORD", "demo-memory-2026")
UME_RECALL_CONTEXT_CHARS = env_int("UME_RECALL_CONTEXT_CHARS", 2400, minimum=200)
UME_RECALL_VECTOR_CACHE_MB = env_int("UME_RECALL_VECTOR_CACHE_MB", 256, minimum=1)
UME_API_RATE_LIMIT = env_int("UME_API_RATE_LIMIT", 120, minimum=1)  # requests per minute per token
UME_MCP_ALLOWED_HOSTS = env_list("UME_MCP_ALLOWED_HOSTS", ["127.0.0.1:*", "localhost:*", "[::1]:*"])
UME_MCP_ALLOWED_ORIGINS = env_list(
    "UME_MCP_ALLOWED_ORIGINS", ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
)
