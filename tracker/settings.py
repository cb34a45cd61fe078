"""Django settings of the copyright-tracking platform, read from environment variables.

Every variable is optional; the defaults run everything on one machine with its data under
``TRACKER_VAR_DIR`` (default ``./var``). The README lists each variable. The service URLs
(``MONGO_URL``, ``REDIS_URL``) are read here once, but code must reach the services through
``tracker.core.connections`` (which reads these settings at call time), so that the test suite
can point the settings at the servers it starts after Django is configured.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()
if env.str("TRACKER_ENV_FILE", default=""):
    environ.Env.read_env(env.str("TRACKER_ENV_FILE"))

VAR_DIR = Path(env.str("TRACKER_VAR_DIR", default=str(BASE_DIR / "var"))).resolve()


def _secret_key() -> str:
    """SECRET_KEY from the environment, else one generated once and kept in VAR_DIR."""
    key = env.str("SECRET_KEY", default="")
    if key:
        return key
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "dashboard",  # before the admin: its templates override the admin's (base_site, index)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_celery_beat",
    "tracker.core",
    "crawler",  # crawler issue: Celery tasks, signals, management commands
    "axes",
    *env.list("TRACKER_EXTRA_APPS", default=[]),
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # serves STATIC_ROOT under gunicorn
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes requires
]

# Login brute-force protection (django-axes, dashboard/auth.py): after AXES_FAILURE_LIMIT failed
# logins for one username from one IP address, that pair is locked for AXES_COOLOFF_TIME hours.
AUTHENTICATION_BACKENDS = [
    "dashboard.auth.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_HOURS", default=0.25)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "dashboard/lockout.html"

ROOT_URLCONF = "tracker.urls"
WSGI_APPLICATION = "tracker.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Django's own database: SQLite under VAR_DIR by default, PostgreSQL in production.
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server, the Celery workers and beat share the file: wait for locks (seconds)
    # instead of failing, take the write lock up front, and let readers run beside a writer.
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    })
    # A file, not ":memory:", so that Celery workers started by the tests see the test data;
    # tests/conftest.py moves it into the session's temporary folder.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The admin in Simplified Chinese and English, chosen by the browser (Accept-Language) or by
# the user (the language cookie set by django.views.i18n.set_language at /i18n/setlang/).
LANGUAGE_CODE = env.str("LANGUAGE_CODE", default="zh-hans")
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "tracker" / "locale"]
TIME_ZONE = env.str("TIME_ZONE", default="Asia/Shanghai")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.str("STATIC_ROOT", default=str(VAR_DIR / "static"))
MEDIA_URL = "media/"
# Uploaded text waiting for ingestion is staged here; shared by web and workers in production.
MEDIA_ROOT = env.str("MEDIA_ROOT", default=str(VAR_DIR / "media"))

# Uploads: the largest file or pasted text accepted, in bytes (TRACKER_UPLOAD_MAX_MB megabytes).
UPLOAD_MAX_BYTES = env.int("TRACKER_UPLOAD_MAX_MB", default=50) * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = UPLOAD_MAX_BYTES + 1024 * 1024
# Archives (.docx, .epub, .zip imports): the most bytes their entries may expand to, and the
# highest expansion ratio of one entry; above either the file is refused as an archive bomb.
ARCHIVE_MAX_UNCOMPRESSED_BYTES = env.int("TRACKER_ARCHIVE_MAX_MB", default=500) * 1024 * 1024
ARCHIVE_MAX_RATIO = env.int("TRACKER_ARCHIVE_MAX_RATIO", default=200)

# MongoDB holds the works' text and window fingerprints (and the crawled pages).
MONGO_URL = env.str("MONGO_URL", default="mongodb://127.0.0.1:27017")
MONGO_DB = env.str("MONGO_DB", default="tracker")
# Redis holds the fingerprint index and is Celery's broker.
REDIS_URL = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")
FINGERPRINT_INDEX_PREFIX = env.str("FINGERPRINT_INDEX_PREFIX", default="fp")

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL)
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=REDIS_URL)
CELERY_RESULT_EXPIRES = 24 * 3600  # seconds
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {"tracker.core.tasks.*": {"queue": "ingest"}}
CELERY_TASK_ACKS_LATE = True  # a task whose worker dies is delivered again: nothing is lost
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# `python manage.py demo` runs these callables in order (dotted paths; each takes stdout and
# returns a dict for the summary): the main job of `make run`: register and index the demo
# works, then scan the bundled demo site for reprints of them.
DEMO_STEPS = env.list("TRACKER_DEMO_STEPS", default=["tracker.core.demo.ingest_demo_works",
                                                     "crawler.demo.scan_demo_site"])
DEMO_WORKS_DIR = BASE_DIR / "demo" / "works"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}

if not DEBUG and env.bool("TRACKER_SECURE_COOKIES", default=False):
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

# Ingestion retries while MongoDB or Redis is down: first delay in seconds, doubled per attempt.
INGEST_RETRY_BASE = env.float("TRACKER_INGEST_RETRY_BASE", default=5.0)
