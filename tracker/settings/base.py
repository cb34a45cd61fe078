"""Django settings of the copyright-tracking platform, read from environment variables.

Every variable is optional; the defaults run everything on one machine with its data under
``TRACKER_VAR_DIR`` (default ``./var``). The README lists each variable. The service URLs
(``MONGO_URL``, ``REDIS_URL``) are read here once, but code must reach the services through
``core.connections`` (which reads these settings at call time), so that the test suite
can point the settings at the servers it starts after Django is configured.
"""

from __future__ import annotations

import os
import secrets
from email.utils import parseaddr
from pathlib import Path
from urllib.parse import urlsplit

import environ
from csp.constants import NONE, SELF, UNSAFE_INLINE

BASE_DIR = Path(__file__).resolve().parents[2]
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
    "core",
    "crawler",  # crawler issue: Celery tasks, signals, management commands
    "crawler.evidence",  # evidence captures of matched pages (WARC, screenshot, WACZ bundle)
    "dashboard.alerts",  # e-mail and webhook alerts of new matches (between dashboard and crawler)
    "axes",
    "rest_framework",  # the REST API (dashboard/api/)
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc served from local static files
    *env.list("TRACKER_EXTRA_APPS", default=[]),
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",  # Content-Security-Policy (django-csp), below
    "whitenoise.middleware.WhiteNoiseMiddleware",  # serves STATIC_ROOT under gunicorn
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "core.timezones.UserTimeZoneMiddleware",  # the user's own time zone (UserSettings)
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

# After login without a safe "next" (none, or one off this site): the dashboard's home, not
# Django's default /accounts/profile/, which this project has no page for.
LOGIN_REDIRECT_URL = "admin:index"

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

# The servers' URLs: DATABASE_URL (PostgreSQL), MONGO_URL and REDIS_URL from the environment;
# each one not set there is read from RUN_ENV_FILE, where `make run` (tracker.run) records the
# servers it started, so that a command in a second terminal uses them; else the default below.
# SERVER_SOURCES says where each came from (manage.py prints it).
RUN_ENV_FILE = VAR_DIR / "run.env"


def _run_env() -> dict[str, str]:
    """NAME=value lines of RUN_ENV_FILE (written by tracker.run), {} when there is none."""
    try:
        lines = RUN_ENV_FILE.read_text().splitlines()
    except OSError:
        return {}
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


_RUN_ENV = _run_env()
SERVER_SOURCES: dict[str, str] = {}


def _server_url(name: str, default: str) -> str:
    """The URL ``name`` from the environment, else RUN_ENV_FILE, else ``default``."""
    for source, values in (("environment", os.environ), (str(RUN_ENV_FILE), _RUN_ENV)):
        if values.get(name):
            SERVER_SOURCES[name] = source
            return values[name]
    SERVER_SOURCES[name] = "default"
    return default


def _server_list(name: str) -> list[str]:
    """The comma-separated list ``name`` as ``_server_url`` finds it ([] when unset)."""
    return [item.strip() for item in _server_url(name, "").split(",") if item.strip()]


# Django's own database: PostgreSQL (`make run` and the tests start one, lib.runtime.embedded).
# DATABASE_URL=sqlite:///PATH works for a single process only (no Celery workers beside it).
DATABASE_URL = _server_url("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tracker")
DATABASES = {"default": environ.Env.db_url_config(DATABASE_URL)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {"timeout": 30, "transaction_mode": "IMMEDIATE"}
else:
    # Seconds to wait for the server to accept a connection; connections kept open between
    # requests for DATABASE_CONN_MAX_AGE seconds, checked before reuse.
    DATABASES["default"]["OPTIONS"] = {"connect_timeout": env.int("DATABASE_CONNECT_TIMEOUT",
                                                                  default=5)}
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
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
LOCALE_PATHS = [BASE_DIR / "core" / "locale"]
TIME_ZONE = env.str("TIME_ZONE", default="Asia/Shanghai")
USE_I18N = True
USE_TZ = True
# Dashboard layout: one date-time format in both languages, "2026-11-25 11:54".
FORMAT_MODULE_PATH = ["tracker.formats"]

STATIC_URL = "static/"
STATIC_ROOT = env.str("STATIC_ROOT", default=str(VAR_DIR / "static"))
MEDIA_URL = "media/"
# Uploaded text waiting for ingestion is staged here; shared by web and workers in production.
MEDIA_ROOT = env.str("MEDIA_ROOT", default=str(VAR_DIR / "media"))
# Evidence bundles (crawler.evidence) go to the storage "evidence": files under
# EVIDENCE_DIR by default; in production S3-compatible object storage through django-storages
# (TRACKER_EVIDENCE_STORAGE=storages.backends.s3.S3Storage, with the AWS_* variables of
# django-storages and, for immutability, a bucket with Object Lock; docs/evidence.md).
EVIDENCE_DIR = Path(env.str("TRACKER_EVIDENCE_DIR", default=str(VAR_DIR / "evidence")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "evidence": {"BACKEND": env.str("TRACKER_EVIDENCE_STORAGE",
                                    default="crawler.evidence.storage.EvidenceFileStorage")},
}

# Uploads: the largest file or pasted text accepted, in bytes (TRACKER_UPLOAD_MAX_MB megabytes).
UPLOAD_MAX_BYTES = env.int("TRACKER_UPLOAD_MAX_MB", default=50) * 1024 * 1024
# An uploaded file is staged and read by a job in the worker (core.single_upload, task on
# QUEUE_INGEST): its reading stops after UPLOAD_EXTRACT_SECONDS (the job fails "timeout"; the
# task is killed UPLOAD_EXTRACT_KILL_GRACE_SECONDS later if it does not stop). A file refused as
# a duplicate stays staged KEPT_UPLOAD_SECONDS for "register anyway".
UPLOAD_EXTRACT_SECONDS = env.int("TRACKER_UPLOAD_EXTRACT_SECONDS", default=300)
UPLOAD_EXTRACT_KILL_GRACE_SECONDS = 30
# A job whose worker process died while reading (killed, out of memory) is delivered again
# (CELERY_TASK_ACKS_LATE); on its UPLOAD_MAX_ATTEMPTS + 1st start it fails instead.
UPLOAD_MAX_ATTEMPTS = 2
KEPT_UPLOAD_SECONDS = 3600
DATA_UPLOAD_MAX_MEMORY_SIZE = UPLOAD_MAX_BYTES + 1024 * 1024
# The longest text a work may have, in characters: uploads, pasted and appended texts over it
# are refused ("too_large"); the fingerprint engine is given the same limit (max_text_chars).
WORK_TEXT_MAX_CHARS = env.int("TRACKER_WORK_TEXT_MAX_CHARS", default=10_000_000)
# The most paragraphs (.docx), pages (PDF) or reading-order documents (EPUB) a reader walks
# through: blank ones add no text, so the character limit alone would not stop them.
WORK_TEXT_MAX_PARTS = env.int("TRACKER_WORK_TEXT_MAX_PARTS", default=1_000_000)
# Archives (.docx, .epub, .zip imports): the most bytes their entries may expand to, and the
# highest expansion ratio of one entry; above either the file is refused as an archive bomb.
ARCHIVE_MAX_UNCOMPRESSED_BYTES = env.int("TRACKER_ARCHIVE_MAX_MB", default=500) * 1024 * 1024
ARCHIVE_MAX_RATIO = env.int("TRACKER_ARCHIVE_MAX_RATIO", default=200)

# MongoDB holds the works' text and window fingerprints (and the crawled pages). A replica set
# is named by its URI: mongodb://HOST1:27017,HOST2:27017,HOST3:27017/?replicaSet=NAME.
MONGO_URL = _server_url("MONGO_URL", "mongodb://127.0.0.1:27017")
MONGO_DB = env.str("MONGO_DB", default="tracker")
# Write concern "w" of every MongoDB write: "majority" (a replica set acknowledges a write once
# most members have it, so a failover never rolls an acknowledged page version back; a single
# server acknowledges as with 1), or a number of members.
_MONGO_W = env.str("TRACKER_MONGO_WRITE_CONCERN", default="majority")
MONGO_WRITE_CONCERN: int | str = (int(_MONGO_W) if _MONGO_W.isascii() and _MONGO_W.isdigit()
                                   else _MONGO_W)
# Redis is Celery's broker and holds the crawl state (frontiers, politeness, robots.txt, locks)
# and, unless FINGERPRINT_INDEX_REDIS_URL names another server, the fingerprint index.
REDIS_URL = _server_url("REDIS_URL", "redis://127.0.0.1:6379/0")
FINGERPRINT_INDEX_PREFIX = env.str("FINGERPRINT_INDEX_PREFIX", default="fp")
# The fingerprint index's own Redis (empty: REDIS_URL's); with FINGERPRINT_INDEX_REDIS_CLUSTER
# it is one node of a Redis Cluster (redis://HOST:PORT/0), from which the client learns the rest.
FINGERPRINT_INDEX_REDIS_URL = env.str("FINGERPRINT_INDEX_REDIS_URL", default="")
FINGERPRINT_INDEX_REDIS_CLUSTER = env.bool("FINGERPRINT_INDEX_REDIS_CLUSTER", default=False)


def redis_cache_url(redis_url: str, database: int) -> str:
    """``redis_url`` with its database number replaced by ``database``."""
    return urlsplit(redis_url)._replace(path=f"/{database}").geturl()


# Django's cache (the API's throttle counts): Redis, so that every web process counts against
# one budget and a restart keeps the counts. Its own Redis database number, because clearing
# the cache (cache.clear(), FLUSHDB) must not touch the index or Celery's queues.
CACHE_REDIS_DB = env.int("TRACKER_CACHE_REDIS_DB", default=1)
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                      "LOCATION": redis_cache_url(REDIS_URL, CACHE_REDIS_DB)}}
# Seconds manage.py waits for each server to answer before a command that needs it runs, and
# /healthz for each server it reports.
SERVER_CHECK_TIMEOUT_SECONDS = env.float("TRACKER_SERVER_CHECK_TIMEOUT", default=3.0)

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL)
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=REDIS_URL)
CELERY_RESULT_EXPIRES = 24 * 3600  # seconds
CELERY_TIMEZONE = TIME_ZONE
# Celery queues, named here only: "ingest" fingerprints works, "crawl" fetches pages (and starts
# scans), "match" matches stored pages with the works; production runs one worker group per
# queue (docker-compose.yml), `make run` and the tests one worker on WORKER_QUEUES.
QUEUE_DEFAULT, QUEUE_INGEST, QUEUE_CRAWL, QUEUE_MATCH = "default", "ingest", "crawl", "match"
WORKER_QUEUES = [QUEUE_DEFAULT, QUEUE_INGEST, QUEUE_CRAWL, QUEUE_MATCH]
# Rendering: pages of target sites that need a browser are crawled on "render", by
# workers with Chromium and a small pool (each process runs one browser of a few hundred MB).
QUEUE_RENDER = "render"
WORKER_QUEUES.append(QUEUE_RENDER)
# Evidence captures (crawler.evidence): Chromium screenshots and bundles on a queue of their own,
# so that crawling is not slowed by them.
QUEUE_CAPTURE = "capture"
WORKER_QUEUES.append(QUEUE_CAPTURE)
CELERY_TASK_DEFAULT_QUEUE = QUEUE_DEFAULT
CELERY_TASK_ROUTES = {
    "evidence.*": {"queue": QUEUE_CAPTURE},
    "tracker.core.tasks.*": {"queue": QUEUE_INGEST},
    "crawler.start_scan": {"queue": QUEUE_CRAWL},
    "crawler.crawl_url": {"queue": QUEUE_CRAWL},
    "crawler.crawl_urls": {"queue": QUEUE_CRAWL},
    "crawler.match_page": {"queue": QUEUE_MATCH},
    "crawler.render_url": {"queue": QUEUE_RENDER},
    "dashboard.verify_takedowns": {"queue": QUEUE_CRAWL},
    "crawler.rematch_pending": {"queue": QUEUE_MATCH},
}
CELERY_TASK_ACKS_LATE = True  # a task whose worker dies is delivered again: nothing is lost
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Celery replaces the root logger's handlers (Django's console handler on stderr) with its log
# file, so that `celery -f FILE` (make run's var/log/celery-*.log) holds the log.
CELERY_WORKER_HIJACK_ROOT_LOGGER = True

# `python manage.py demo` runs these callables in order (dotted paths; each takes stdout and
# returns a dict for the summary): the main job of `make run`: register and index the demo
# works, then scan the bundled demo site for reprints of them.
DEMO_STEPS = env.list("TRACKER_DEMO_STEPS", default=["core.demo.ingest_demo_works",
                                                     "dashboard.alerts.demo.enable_demo_alerts",
                                                     "crawler.demo.scan_demo_site",
                                                     "crawler.demo.scan_demo_platform",
                                                     "dashboard.alerts.demo.report_demo_alerts"])
DEMO_WORKS_DIR = BASE_DIR / "demo" / "works"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}

# Security headers. Every response: X-Content-Type-Options: nosniff, Referrer-Policy:
# same-origin, X-Frame-Options: DENY and a Content-Security-Policy allowing scripts, styles,
# images and fonts from this site only (inline style attributes allowed; no inline script: the
# dashboard's scripts are files under dashboard/static). Behind TLS (TRACKER_HTTPS=true, the
# proxy sets X-Forwarded-Proto): plain-HTTP requests are redirected, HSTS for
# TRACKER_HSTS_SECONDS seconds (preload with TRACKER_HSTS_PRELOAD), and the session and CSRF
# cookies are sent over HTTPS only. Django's deployment checklist: `manage.py check --deploy`.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
CONTENT_SECURITY_POLICY = {"DIRECTIVES": {
    "default-src": [SELF], "script-src": [SELF], "style-src": [SELF, UNSAFE_INLINE],
    "img-src": [SELF, "data:"], "font-src": [SELF], "connect-src": [SELF],
    "object-src": [NONE], "base-uri": [SELF], "form-action": [SELF],
    "frame-ancestors": [NONE],
    # Redoc (/api/v1/redoc/) runs its search in a worker made from a blob: URL by its own script
    "worker-src": [SELF, "blob:"],
}}
if not DEBUG and env.bool("TRACKER_HTTPS", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # docker-compose's health check, over plain HTTP
    SECURE_HSTS_SECONDS = env.int("TRACKER_HSTS_SECONDS", default=365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("TRACKER_HSTS_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env.bool("TRACKER_HSTS_PRELOAD", default=False)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

# ---- Limits, timeouts, retries and lock lifetimes of the Django side, each named once here ----
# (The Django-free libraries keep theirs in their config dataclasses: fingerprint.EngineConfig,
# lib.crawl.config.CrawlConfig, the latter filled from CRAWLER below.)
#
# Retries while MongoDB or Redis is unreachable, all through lib.runtime.backoff.backoff_delay (the
# delay doubles per attempt from the base, stops at STORAGE_RETRY_MAX_SECONDS, and up to a
# quarter of it is taken off at random). Ingesting or removing a work retries without limit
# (the work shows "waiting for storage"); a crawl or match task CRAWL_STORAGE_RETRIES times,
# after which its URL counts as failed.
INGEST_RETRY_BASE_SECONDS = env.float("TRACKER_INGEST_RETRY_BASE", default=5.0)  # seconds
CRAWL_RETRY_BASE_SECONDS = env.float("TRACKER_CRAWL_RETRY_BASE", default=5.0)  # seconds
STORAGE_RETRY_MAX_SECONDS = env.float("TRACKER_STORAGE_RETRY_MAX", default=600.0)  # seconds
CRAWL_STORAGE_RETRIES = env.int("TRACKER_CRAWL_STORAGE_RETRIES", default=5)  # retries
# A crawled page is matched in its crawl task (True) instead of a match_page task on QUEUE_MATCH
# (False): the hand-off cost about 3.5 ms of worker CPU a page, most of it Celery messaging
# (bench/crawl_bench.py, crawler/README.md). With False, crawl and match scale as separate
# worker groups; the match queue serves the stored-page search either way.
CRAWL_MATCH_INLINE = env.bool("TRACKER_CRAWL_MATCH_INLINE", default=True)
# The URLs a crawled page admits go to the workers CRAWL_BATCH_URLS to a crawl_urls task (a
# count): one message and one task start for several pages instead of one each; each URL is
# still finished and counted on its own. 1 sends one task per URL.
CRAWL_BATCH_URLS = env.int("TRACKER_CRAWL_BATCH_URLS", default=8)
# A worker process keeps the site of the last SCAN_SITES_CACHED scans (a count; a scan's site
# never changes), so that recording a page's matches reads no scan row.
SCAN_SITES_CACHED = 1024
# While PostgreSQL, MongoDB or Redis is down, pages and API calls answer 503 with this
# Retry-After (seconds).
SERVER_DOWN_RETRY_AFTER_SECONDS = env.int("TRACKER_SERVER_DOWN_RETRY_AFTER", default=30)
# A MongoDB call gives up on an unreachable server after MONGO_SERVER_TIMEOUT_MS milliseconds;
# a Redis connection after REDIS_CONNECT_TIMEOUT_SECONDS, a Redis command after
# REDIS_SOCKET_TIMEOUT_SECONDS; an idle Redis connection is checked every
# REDIS_HEALTH_CHECK_SECONDS before use.
MONGO_SERVER_TIMEOUT_MS = env.int("TRACKER_MONGO_TIMEOUT_MS", default=5000)
# MongoDB acknowledges a write only once it is in its journal (write concern j): a mongod
# killed right after a write loses at most that write's failed call, never an acknowledged page
# version or fingerprint (without it, up to 100 ms of acknowledged writes). False only for a
# server run without a journal (the test suite's, --nojournal), which refuses such writes.
MONGO_JOURNALED_WRITES = env.bool("TRACKER_MONGO_JOURNAL", default=True)
REDIS_CONNECT_TIMEOUT_SECONDS = env.float("TRACKER_REDIS_CONNECT_TIMEOUT", default=5.0)
REDIS_SOCKET_TIMEOUT_SECONDS = env.float("TRACKER_REDIS_TIMEOUT", default=30.0)
REDIS_HEALTH_CHECK_SECONDS = 30
# Redis locks: one ingestion of a work at a time (lives at most INGEST_LOCK_TTL_SECONDS: a long
# novel takes seconds; a second ingestion waits INGEST_LOCK_WAIT_SECONDS for it, then retries),
# one scan of a site at a time (SCAN_LOCK_TTL_SECONDS: the longest scan expected; a crashed
# scan's lock expires after it).
INGEST_LOCK_TTL_SECONDS = env.int("TRACKER_INGEST_LOCK_TTL", default=900)
INGEST_LOCK_WAIT_SECONDS = env.int("TRACKER_INGEST_LOCK_WAIT", default=60)
SCAN_LOCK_TTL_SECONDS = env.int("TRACKER_SCAN_LOCK_TTL", default=12 * 3600)
# Sweeper (crawler.sweep_stuck, run by beat every SWEEP_INTERVAL_SECONDS): a running scan with
# no task finished for SCAN_STUCK_SECONDS (its workers died), or never started by a worker that
# long after it was recorded, is closed as failed with the reason; a work still "pending" or
# "waiting" WORK_PENDING_REQUEUE_SECONDS after its last change (its ingestion task lost or never
# queued, or its retry lost with the broker) is queued again. SCAN_STUCK_SECONDS stays above the
# longest legitimate pause of a scan (politeness horizon 60 s, retry backoff up to
# STORAGE_RETRY_MAX_SECONDS); WORK_PENDING_REQUEUE_SECONDS above STORAGE_RETRY_MAX_SECONDS (each
# retry of a waiting work touches it).
SWEEP_INTERVAL_SECONDS = env.int("TRACKER_SWEEP_INTERVAL", default=300)
SCAN_STUCK_SECONDS = env.int("TRACKER_SCAN_STUCK", default=3600)
WORK_PENDING_REQUEUE_SECONDS = env.int("TRACKER_WORK_PENDING_REQUEUE", default=900)
# Takedown verification (dashboard.verify_takedowns, queue "crawl"): every
# TAKEDOWN_CHECK_INTERVAL_SECONDS (daily) the URLs of the matches cited by sent notices, and by
# notices removed less than TAKEDOWN_WATCH_DAYS days ago (a removed copy may come back), are
# fetched again under the crawler's politeness, robots.txt and SSRF rules.
TAKEDOWN_CHECK_INTERVAL_SECONDS = env.int("TRACKER_TAKEDOWN_CHECK_INTERVAL", default=24 * 3600)
TAKEDOWN_WATCH_DAYS = env.int("TRACKER_TAKEDOWN_WATCH_DAYS", default=90)
# Stored pages searched for newly indexed works (crawler.rematch): works indexed within
# REMATCH_COALESCE_SECONDS of the first are searched for in one pass; a scheduled pass that
# never ran stops blocking the next after REMATCH_SCHEDULED_TTL_SECONDS; the job's progress row
# is updated every REMATCH_PROGRESS_EVERY_PAGES pages.
REMATCH_COALESCE_SECONDS = env.float("TRACKER_REMATCH_COALESCE", default=10.0)
REMATCH_SCHEDULED_TTL_SECONDS = 3600
REMATCH_PROGRESS_EVERY_PAGES = 1000
# With the engine's rewrite stage on, a stored page that the new works' window keys do not
# choose is cut into sentences and words for their rewrite keys (a rewritten copy, 洗稿) only
# when one new work holds at least REMATCH_REWRITE_MIN_PAIR_SHARE (0..1) of its distinct pairs
# of adjacent Han characters, leaving out pairs held by more than
# REMATCH_REWRITE_COMMON_PAIR_SHARE (0..1) of the new works (and by more than 2). Measured on
# 1,500-character windows of novel chapters: heavy rewrites keep 0.60-0.70 of them, other text
# passes 0.4 for 0-1.7% of pages (1, 20, 1,000 new works), at 50-300 µs a page instead of ~3 ms.
REMATCH_REWRITE_MIN_PAIR_SHARE = 0.4
REMATCH_REWRITE_COMMON_PAIR_SHARE = 0.05
# Fixed periodic tasks (beat copies them into its database schedule when it starts).
CELERY_BEAT_SCHEDULE = {
    "sweep-stuck": {"task": "crawler.sweep_stuck", "schedule": SWEEP_INTERVAL_SECONDS},
    "verify-takedowns": {"task": "dashboard.verify_takedowns",
                         "schedule": TAKEDOWN_CHECK_INTERVAL_SECONDS},
}
# Discovery of candidate sites (crawler.discovery; task crawler.discover_sites on the
# crawl queue, every DISCOVERY_INTERVAL_SECONDS): a domain that matched pages, or pages of sites
# with confirmed matches, link to DISCOVERY_MIN_LINKS times or more becomes a candidate; each pass
# samples at most DISCOVERY_MAX_SAMPLED new candidates, DISCOVERY_SAMPLE_PAGES pages each
# (robots.txt, politeness delay and SSRF guard as in a scan), and matches them with the works.
DISCOVERY_INTERVAL_SECONDS = env.float("TRACKER_DISCOVERY_INTERVAL", default=24 * 3600.0)
DISCOVERY_MIN_LINKS = env.int("TRACKER_DISCOVERY_MIN_LINKS", default=1)
DISCOVERY_MAX_SAMPLED = env.int("TRACKER_DISCOVERY_MAX_SAMPLED", default=20)
DISCOVERY_SAMPLE_PAGES = env.int("TRACKER_DISCOVERY_SAMPLE_PAGES", default=3)
# A candidate none of whose sample pages could be read is sampled again in the next passes, up
# to DISCOVERY_SAMPLE_ATTEMPTS passes in all, then marked "no page could be read".
DISCOVERY_SAMPLE_ATTEMPTS = env.int("TRACKER_DISCOVERY_SAMPLE_ATTEMPTS", default=3)
# A candidate keeps at most DISCOVERY_LINKED_FROM_KEPT of the pages linking to it as evidence.
DISCOVERY_LINKED_FROM_KEPT = 10
CELERY_BEAT_SCHEDULE["discover-sites"] = {"task": "crawler.discover_sites",
                                          "schedule": DISCOVERY_INTERVAL_SECONDS}
CELERY_TASK_ROUTES["crawler.discover_sites"] = {"queue": QUEUE_CRAWL}
# Takedown checks asked for now (a site's "check now"; a notice's: dashboard.check_notice).
CELERY_TASK_ROUTES["crawler.check_matches"] = {"queue": QUEUE_CRAWL}
CELERY_TASK_ROUTES["dashboard.check_notice"] = {"queue": QUEUE_CRAWL}
# Evidence capture (crawler.evidence, docs/evidence.md). A page version matching a work with a
# Match.score (the engine's score, 0..1) of CAPTURE_MIN_SCORE or more is captured once. The
# screenshot is CAPTURE_VIEWPORT_WIDTH CSS pixels wide and at most CAPTURE_MAX_HEIGHT tall; the
# page gets CAPTURE_RENDER_TIMEOUT_SECONDS to its load event (else: captured without screenshot).
# A capture task is stopped after CAPTURE_TIME_LIMIT_SECONDS. The sweeper
# (evidence.sweep_captures, every CAPTURE_SWEEP_SECONDS) sends again a capture pending or running
# for CAPTURE_STUCK_SECONDS (its task lost or its worker killed), after a backoff from
# CAPTURE_RETRY_BASE_SECONDS to CAPTURE_RETRY_MAX_SECONDS, and gives it up as failed, with the
# reason, after CAPTURE_MAX_ATTEMPTS attempts. Bundles are kept EVIDENCE_RETENTION_DAYS days
# (0: for ever, the default: nothing deletes them).
CAPTURE_MIN_SCORE = env.float("TRACKER_CAPTURE_MIN_SCORE", default=0.0)
CAPTURE_VIEWPORT_WIDTH = 1280
CAPTURE_MAX_HEIGHT = env.int("TRACKER_CAPTURE_MAX_HEIGHT", default=10_000)
CAPTURE_RENDER_TIMEOUT_SECONDS = env.float("TRACKER_CAPTURE_RENDER_TIMEOUT", default=30.0)
CAPTURE_TIME_LIMIT_SECONDS = env.int("TRACKER_CAPTURE_TIME_LIMIT", default=300)
CAPTURE_SWEEP_SECONDS = env.int("TRACKER_CAPTURE_SWEEP_INTERVAL", default=300)
CAPTURE_STUCK_SECONDS = env.int("TRACKER_CAPTURE_STUCK", default=900)
CAPTURE_RETRY_BASE_SECONDS = env.float("TRACKER_CAPTURE_RETRY_BASE", default=60.0)
CAPTURE_RETRY_MAX_SECONDS = env.float("TRACKER_CAPTURE_RETRY_MAX", default=3600.0)
CAPTURE_MAX_ATTEMPTS = env.int("TRACKER_CAPTURE_MAX_ATTEMPTS", default=5)
EVIDENCE_RETENTION_DAYS = env.int("TRACKER_EVIDENCE_RETENTION_DAYS", default=0)
CELERY_BEAT_SCHEDULE["sweep-captures"] = {"task": "evidence.sweep_captures",
                                          "schedule": CAPTURE_SWEEP_SECONDS}
# Each capture records its environment (lib.evidence.environment): the clock's offset from
# NTP_SERVER ("host" or "host:port"; '' records "not checked"), asked for NTP_TIMEOUT_SECONDS.
NTP_SERVER = env.str("TRACKER_NTP_SERVER", default="")
NTP_TIMEOUT_SECONDS = env.float("TRACKER_NTP_TIMEOUT", default=2.0)
# Verifying an uploaded bundle (dashboard evidence view, API evidence/verify/): the upload is
# streamed to disk and refused (413) over EVIDENCE_VERIFY_UPLOAD_MAX_BYTES; its entries are read
# under the archive limits of uploaded works (ARCHIVE_MAX_*), a JSON file of it parsed only up
# to EVIDENCE_VERIFY_JSON_MAX_BYTES.
EVIDENCE_VERIFY_UPLOAD_MAX_BYTES = env.int("TRACKER_EVIDENCE_VERIFY_MAX_MB", default=200) * 2**20
EVIDENCE_VERIFY_JSON_MAX_BYTES = 16 * 2**20
# A new target site is scanned daily at this hour (0-23) of TIME_ZONE: the sites' quiet hours.
SCAN_DEFAULT_HOUR = env.int("TRACKER_SCAN_HOUR", default=3)
# Seconds `make run` and the tests wait for a Celery worker to answer a ping (about 3 s idle).
WORKER_READY_TIMEOUT_SECONDS = env.float("TRACKER_WORKER_READY_TIMEOUT", default=90.0)
# Seconds `manage.py demo` waits for the workers to index the demo works, and for its scan.
DEMO_INGEST_TIMEOUT_SECONDS = env.float("TRACKER_DEMO_INGEST_TIMEOUT", default=600.0)
DEMO_SCAN_TIMEOUT_SECONDS = env.float("TRACKER_DEMO_SCAN_TIMEOUT", default=600.0)
# Seconds `manage.py scan --wait` waits for the scan by default (--timeout).
SCAN_WAIT_TIMEOUT_SECONDS = 3600.0
# Evidence view: a page text up to EVIDENCE_PAGE_FULL_CHARS characters is shown whole, a longer
# one EVIDENCE_PAGE_CONTEXT_CHARS characters around each passage; the work (a novel may run to a
# million characters) EVIDENCE_WORK_CONTEXT_CHARS characters around each passage.
EVIDENCE_PAGE_FULL_CHARS = 200_000
EVIDENCE_PAGE_CONTEXT_CHARS = 2_000
EVIDENCE_WORK_CONTEXT_CHARS = 400
# Character-level comparison of a passage (dashboard.comparison): the most work the alignment
# may take, in cells (the longer passage's characters × the edit distance): any pair up to
# 20,000 characters fits; 4 * 10**8 cells take 1-3 s on one loaded core (bench/README.md,
# comparison_bench). A longer, more different pair is shown as not compared.
EVIDENCE_DIFF_MAX_CELLS = 400_000_000
# Crawl library settings: CrawlConfig field NAME (upper case) -> value, each taken from the
# environment variable CRAWLER_<NAME> when set (crawler/README.md lists them; the dataclass holds
# the defaults). An unknown CRAWLER_ name or a bad value stops the crawler with its name.
CRAWLER = {name.removeprefix("CRAWLER_"): value for name, value in os.environ.items()
           if name.startswith("CRAWLER_")}

# REST API (dashboard/api/, under /api/v1/): Bearer tokens (dashboard.models.ApiToken) or the
# browser's session; requests per token (per user) and per anonymous IP address, DRF rate
# strings ("N/second|minute|hour|day"); page size of lists (rows).
API_THROTTLE_USER_RATE = env.str("TRACKER_API_USER_RATE", default="1200/hour")
API_THROTTLE_ANON_RATE = env.str("TRACKER_API_ANON_RATE", default="120/hour")
API_PAGE_SIZE = 50
API_PAGE_SIZE_MAX = 500
# Bytes of a raw API token (secrets.token_urlsafe) and the characters kept as its visible prefix.
API_TOKEN_BYTES = 32
API_TOKEN_PREFIX_CHARS = 8
# Bulk registration (JSON Lines): at most this many lines (works) per request.
API_BULK_MAX_LINES = 1000
# Match lists and exports (crawler.provenance, dashboard.list_exports, manage.py matches) read
# their rows EXPORT_CHUNK_ROWS matches per query, prefetches included.
EXPORT_CHUNK_ROWS = 500
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "dashboard.api.auth.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": ["dashboard.api.throttling.TokenRateThrottle",
                                 "rest_framework.throttling.AnonRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"user": API_THROTTLE_USER_RATE, "anon": API_THROTTLE_ANON_RATE},
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend",
                                "rest_framework.filters.OrderingFilter"],
    "DEFAULT_PAGINATION_CLASS": "dashboard.api.pagination.Pagination",
    "EXCEPTION_HANDLER": "dashboard.api.errors.exception_handler",
    "DATETIME_FORMAT": "iso-8601",
}
SPECTACULAR_SETTINGS = {
    # English message ids: dashboard.api.schema shows them in the reader's language
    "TITLE": "Copyright tracker API",
    "DESCRIPTION": "Register works, review matches, draft takedown notices, run scans. Send "
                   "your token as `Authorization: Bearer <token>`; every answer is JSON, error "
                   "messages in the language of Accept-Language (zh-hans or en).",
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "dashboard.api.schema.translated_info"],
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "WorkKindEnum": "core.models.WorkKind",
        "AuditKindEnum": "core.models.AuditEvent.Kind",
        "ReviewStatusEnum": "crawler.models.ReviewStatus",
        "WorkStatusEnum": "core.models.WorkStatus",
        "WorkLanguageEnum": "core.models.WorkLanguage",
        "NoticeStatusEnum": "dashboard.models.NoticeStatus",
        "NoticeLanguageEnum": "dashboard.models.NoticeLanguage",
        "AlertLanguageEnum": "django.conf.settings.LANGUAGES",  # alert e-mails and webhooks
        "MatchKindEnum": "crawler.models.MatchKind",
    },
}

# ---- Alerts (dashboard/alerts/): e-mail through Django's backends, signed webhooks, a daily digest ----
# E-mail: SMTP configured from the environment (EMAIL_URL-style variables are not used: each
# is its own variable); `make run` sets EMAIL_BACKEND to the file backend writing to
# EMAIL_FILE_PATH (var/mail/).
EMAIL_BACKEND = env.str("EMAIL_BACKEND", default="django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = env.str("EMAIL_HOST", default="localhost")
EMAIL_PORT = env.int("EMAIL_PORT", default=25)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=False)
EMAIL_USE_SSL = env.bool("EMAIL_USE_SSL", default=False)
EMAIL_TIMEOUT = env.float("EMAIL_TIMEOUT", default=10.0)  # seconds per SMTP operation
EMAIL_FILE_PATH = env.str("EMAIL_FILE_PATH", default=str(VAR_DIR / "mail"))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL",
                             default="Copyright tracker <alerts@copyright-tracker.localhost>")
# Absolute base of the links in mails and webhooks (evidence views, unsubscribe).
# From the environment, else RUN_ENV_FILE (`make run` records its port there), else port 8000.
SITE_URL = env.str("SITE_URL", default=_RUN_ENV.get("SITE_URL")
                   or "http://127.0.0.1:8000").rstrip("/")
# The alert tasks run on QUEUE_DEFAULT (CELERY_TASK_DEFAULT_QUEUE).
# Retries of one delivery (SMTP down, webhook timeout, connection error or 5xx) through
# lib.runtime.backoff.backoff_delay from ALERT_RETRY_BASE_SECONDS up to ALERT_RETRY_MAX_SECONDS;
# a webhook endpoint is disabled after ALERT_WEBHOOK_MAX_FAILURES failed deliveries in a row.
ALERT_MAX_RETRIES = env.int("TRACKER_ALERT_MAX_RETRIES", default=8)
ALERT_RETRY_BASE_SECONDS = env.float("TRACKER_ALERT_RETRY_BASE", default=30.0)
ALERT_RETRY_MAX_SECONDS = env.float("TRACKER_ALERT_RETRY_MAX", default=3600.0)
ALERT_WEBHOOK_TIMEOUT_SECONDS = env.float("TRACKER_WEBHOOK_TIMEOUT", default=10.0)
ALERT_WEBHOOK_MAX_FAILURES = env.int("TRACKER_WEBHOOK_MAX_FAILURES", default=5)
# The daily digest is sent at this hour (0-23) of TIME_ZONE; at most this many matches are
# listed in one digest mail (the rest are counted and come in the next one).
ALERT_DIGEST_HOUR = env.int("TRACKER_DIGEST_HOUR", default=8)
ALERT_DIGEST_MAX_MATCHES = 500
# Seconds `manage.py demo` waits for the alert mails of the demo scan's new matches.
DEMO_ALERT_TIMEOUT_SECONDS = 60.0

# Lost tasks (see the fault drills). Tasks are acknowledged after they finish
# (CELERY_TASK_ACKS_LATE, all are idempotent) and given back at once when a pool process dies
# (CELERY_TASK_REJECT_ON_WORKER_LOST). A whole worker killed by SIGKILL cannot give its
# unacknowledged tasks back: Redis delivers them again after the visibility timeout, in
# seconds. It must exceed the longest countdown a task is held for (Celery's Redis transport
# redelivers a task held past it a second time), hence the longest retry delay plus 10 min.
BROKER_VISIBILITY_TIMEOUT_SECONDS = env.int(
    "TRACKER_VISIBILITY_TIMEOUT",
    default=int(max(ALERT_RETRY_MAX_SECONDS, STORAGE_RETRY_MAX_SECONDS)) + 600)
# Every BROKER_RESTORE_INTERVAL_SECONDS each worker gives back the tasks unacknowledged for
# longer than the visibility timeout (kombu's default: a scan every 10th call of 10 s).
BROKER_RESTORE_INTERVAL_SECONDS = env.int("TRACKER_UNACKED_RESTORE_INTERVAL", default=10)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": BROKER_VISIBILITY_TIMEOUT_SECONDS,
                                   "unacked_restore_interval": BROKER_RESTORE_INTERVAL_SECONDS,
                                   "unacked_restore_throttle": 1}

# ---- Live scan progress: the scan run page and the overview poll the scans'
# figures (crawler.progress) every SCAN_PROGRESS_POLL_SECONDS while a scan runs; after a failed
# poll the wait doubles up to SCAN_PROGRESS_POLL_MAX_SECONDS. One poll asks for at most
# SCAN_PROGRESS_MAX_SCANS scans (the overview lists as many).
SCAN_PROGRESS_POLL_SECONDS = 2
SCAN_PROGRESS_POLL_MAX_SECONDS = 60
SCAN_PROGRESS_MAX_SCANS = 20
# A work's ingestion status on the works list and its page is polled as often (seconds) while
# it is pending or waiting for storage (core.work_status).
WORK_STATUS_POLL_SECONDS = 2

# ---- Duplicate and conflicting registrations (core/conflicts.py) ----
# A new text and a registered work are "the same text" when the larger of the two containments
# (Engine.verify's score: share of the new text found in the work, or of the work found in the
# new text) is at least this (0..1). Same holder: the upload is refused unless confirmed;
# another holder: a RightsConflict is flagged for staff.
DUPLICATE_MIN_CONTAINMENT = 0.90
# Characters of each shared passage quoted on the rights conflict page.
CONFLICT_QUOTE_CHARS = 300
# Import jobs (core/import_jobs.py, task on QUEUE_INGEST): a dashboard .zip import or
# one uploaded file. A running job whose progress row did not move for this many seconds is
# failed (worker lost; above UPLOAD_EXTRACT_SECONDS + UPLOAD_EXTRACT_KILL_GRACE_SECONDS); the
# page polls its progress every IMPORT_POLL_MS milliseconds.
IMPORT_STUCK_SECONDS = 900
IMPORT_POLL_MS = 1000
# Tries of one work of an import when the database answers a deadlock or a serialization
# failure (its transaction rolled back, then run again).
IMPORT_ITEM_ATTEMPTS = 5
# Times a stalled archive import (its worker lost, its task lost) is queued again by the
# sweeper before it is failed; each run goes on after the last file committed.
IMPORT_RESUME_ATTEMPTS = 3

# ---- Trusted time and signatures of evidence (lib.evidence) ----
# RFC 3161 time-stamping authorities (TSAs), tried in this order (comma-separated URLs). None by
# default: evidence is then made without a trusted timestamp and says so. `make run` sets the
# demo TSA on loopback (lib.evidence.demo_tsa, not accredited; its folder DEMO_TSA_DIR).
# One attempt waits at most TSA_TIMEOUT_SECONDS for the whole answer; on a transient failure
# (connection error, timeout, HTTP 5xx or 429, garbage) a TSA is asked TSA_RETRIES more times,
# pausing (lib.runtime.backoff.backoff_delay) from TSA_RETRY_BASE_SECONDS up to
# TSA_RETRY_MAX_SECONDS, then the next TSA is asked. An answer longer than
# TSA_MAX_RESPONSE_BYTES bytes is refused.
TSA_URLS = _server_list("TRACKER_TSA_URLS")
TSA_TIMEOUT_SECONDS = env.float("TRACKER_TSA_TIMEOUT", default=10.0)
TSA_RETRIES = env.int("TRACKER_TSA_RETRIES", default=2)
TSA_RETRY_BASE_SECONDS = env.float("TRACKER_TSA_RETRY_BASE", default=1.0)
TSA_RETRY_MAX_SECONDS = env.float("TRACKER_TSA_RETRY_MAX", default=30.0)
TSA_MAX_RESPONSE_BYTES = 256 * 1024
# PEM files of the root certificates the TSAs' tokens must chain to (comma-separated paths).
# Both are read like the servers' URLs, so that a command in a second terminal trusts the TSA
# that `make run` started.
TSA_TRUSTED_CERTS = _server_list("TRACKER_TSA_TRUSTED_CERTS")
# URLs (comma-separated) of the TSAs that are accredited: only their tokens are shown as a
# trusted timestamp (可信时间戳); the others are shown with the name from their certificate.
TSA_ACCREDITED = env.list("TRACKER_TSA_ACCREDITED", default=[])
DEMO_TSA_DIR = VAR_DIR / "demo-tsa"
# The platform's key and certificate signing the evidence reports (PAdES B-LTA, PEM files):
# production sets both paths (and the issuing CAs' certificates in TRACKER_SIGNING_CHAIN);
# otherwise a self-signed pair is made in EVIDENCE_SIGNING_DIR on first use (key mode 0600).
EVIDENCE_SIGNING_DIR = VAR_DIR / "signing"
EVIDENCE_SIGNING_KEY = env.str("TRACKER_SIGNING_KEY", default="")
EVIDENCE_SIGNING_CERT = env.str("TRACKER_SIGNING_CERT", default="")
EVIDENCE_SIGNING_CHAIN = env.list("TRACKER_SIGNING_CHAIN", default=[])

# Cases (crawler.cases, dashboard.case_admin): pages (and takedown checks) listed per page of
# the case page, in rows.
CASE_PAGES_PER_PAGE = 50
# The overview's case funnel counts the cases opened in the last CASE_FUNNEL_DAYS days (days),
# beside as many days before; the reader may choose another period among CASE_FUNNEL_PERIODS
# (days).
CASE_FUNNEL_DAYS = 30
CASE_FUNNEL_PERIODS = (7, 30, 90)
# The overview lists at most CASES_STILL_UP_LISTED cases noticed and not yet removed (rows,
# oldest notice first).
CASES_STILL_UP_LISTED = 8
# The overview charts the matches of the last OVERVIEW_DAYS days (days, at least 30: its figure
# of the last 30 days is counted from the chart's), lists OVERVIEW_TOP_ROWS rows of the top
# domains and most copied works, the OVERVIEW_LATEST_ROWS newest unreviewed matches, and the
# scans started in the last OVERVIEW_SCAN_DAYS days (days; at most SCAN_PROGRESS_MAX_SCANS of
# them, the most one progress poll asks for). The headings say the days.
OVERVIEW_DAYS = 90
OVERVIEW_TOP_ROWS = 10
OVERVIEW_LATEST_ROWS = 8
OVERVIEW_SCAN_DAYS = 7
# Takedown contacts (crawler.contacts): the search for a site's addresses (task
# crawler.find_contacts, queue "crawl") fetches at most CONTACT_SEARCH_MAX_PAGES pages of one
# registered domain (its /.well-known/security.txt, home page, contact pages, up to
# CONTACT_SEARCH_MATCHED_PAGES of its matched pages) under the crawler's robots.txt, politeness
# delay and SSRF guard. A search still "searching" CONTACT_SEARCH_STUCK_SECONDS after it was asked
# (its task lost) is queued again by the sweeper (crawler.sweep_stuck), up to
# CONTACT_SEARCH_MAX_ATTEMPTS attempts, then recorded as failed with the reason.
CONTACT_SEARCH_MAX_PAGES = env.int("TRACKER_CONTACT_SEARCH_MAX_PAGES", default=8)
CONTACT_SEARCH_MATCHED_PAGES = 2
CONTACT_SEARCH_STUCK_SECONDS = env.int("TRACKER_CONTACT_SEARCH_STUCK", default=1800)
CONTACT_SEARCH_MAX_ATTEMPTS = 3
CELERY_TASK_ROUTES["crawler.find_contacts"] = {"queue": QUEUE_CRAWL}
# Takedown notices sent by e-mail (dashboard.notice_mail, task dashboard.send_notice_mail on
# QUEUE_DEFAULT): an SMTP server down or answering 4xx is retried after
# lib.runtime.backoff.backoff_delay from NOTICE_MAIL_RETRY_BASE_SECONDS up to
# NOTICE_MAIL_RETRY_MAX_SECONDS, NOTICE_MAIL_MAX_RETRIES times, then recorded as failed; a 5xx
# refusal is final at once. The sweeper (dashboard.sweep_notice_mails, every
# SWEEP_INTERVAL_SECONDS) queues again a mail queued or retrying whose last attempt is older than
# NOTICE_MAIL_STUCK_SECONDS (its task lost), and fails it after NOTICE_MAIL_MAX_RETRIES attempts.
# A mail attaches the evidence report PDF of at most NOTICE_MAIL_MAX_REPORTS pages, and no more
# than NOTICE_MAIL_MAX_ATTACHMENT_BYTES bytes of them in all (the rest are named as not attached);
# its link to a page's evidence bundle is valid NOTICE_BUNDLE_LINK_DAYS days. The mail is From the
# rights holder (its name and e-mail) with DEFAULT_FROM_EMAIL as Sender (RFC 5322 3.6.2) and the
# SMTP envelope sender, when the holder has an e-mail address.
NOTICE_MAIL_MAX_RETRIES = env.int("TRACKER_NOTICE_MAIL_MAX_RETRIES", default=8)
NOTICE_MAIL_RETRY_BASE_SECONDS = env.float("TRACKER_NOTICE_MAIL_RETRY_BASE", default=60.0)
NOTICE_MAIL_RETRY_MAX_SECONDS = env.float("TRACKER_NOTICE_MAIL_RETRY_MAX", default=3600.0)
NOTICE_MAIL_STUCK_SECONDS = env.int("TRACKER_NOTICE_MAIL_STUCK",
                                    default=int(NOTICE_MAIL_RETRY_MAX_SECONDS) + 600)
NOTICE_MAIL_MAX_REPORTS = env.int("TRACKER_NOTICE_MAIL_MAX_REPORTS", default=3)
NOTICE_MAIL_MAX_ATTACHMENT_BYTES = env.int("TRACKER_NOTICE_MAIL_MAX_ATTACHMENT_MB",
                                           default=10) * 1024 * 1024
NOTICE_BUNDLE_LINK_DAYS = 180
# A takedown notice (dashboard.notices) quotes at most NOTICE_PASSAGES_PER_URL passages of each
# infringing URL, NOTICE_EXCERPT_CHARS characters of each passage (then "…").
NOTICE_PASSAGES_PER_URL = 3
NOTICE_EXCERPT_CHARS = 160
CELERY_BEAT_SCHEDULE["sweep-notice-mails"] = {"task": "dashboard.sweep_notice_mails",
                                              "schedule": SWEEP_INTERVAL_SECONDS}
# Reminders (dashboard.remind_notices, beat every NOTICE_REMINDER_CHECK_SECONDS): a sent notice
# whose page is still up NOTICE_REMINDER_DAYS days after it was sent reminds the staff by
# e-mail, once per period of NOTICE_REMINDER_DAYS days; a reminder the SMTP server did not take
# is tried again at the next pass, at most NOTICE_REMINDER_MAX_ATTEMPTS times.
NOTICE_REMINDER_DAYS = env.int("TRACKER_NOTICE_REMINDER_DAYS", default=7)
NOTICE_REMINDER_CHECK_SECONDS = env.int("TRACKER_NOTICE_REMINDER_CHECK", default=3600)
NOTICE_REMINDER_MAX_ATTEMPTS = 5
CELERY_BEAT_SCHEDULE["remind-notices"] = {"task": "dashboard.remind_notices",
                                          "schedule": NOTICE_REMINDER_CHECK_SECONDS}
# Escalation (dashboard.escalate_notices, beat every NOTICE_ESCALATE_CHECK_SECONDS): a sent
# notice whose confirmed pages are still up NOTICE_ESCALATE_DAYS days after it was sent has its
# escalation drafted to the next rung (site -> hosting provider -> registrar -> platform).
NOTICE_ESCALATE_DAYS = env.int("TRACKER_NOTICE_ESCALATE_DAYS", default=14)
NOTICE_ESCALATE_CHECK_SECONDS = env.int("TRACKER_NOTICE_ESCALATE_CHECK", default=3600)
CELERY_BEAT_SCHEDULE["escalate-notices"] = {"task": "dashboard.escalate_notices",
                                            "schedule": NOTICE_ESCALATE_CHECK_SECONDS}
# A work's page (dashboard.work_figures): at most WORK_PAGE_CASES cases listed (rows, most pages
# first), WORK_PAGE_SITES sites and WORK_PAGE_CHAPTERS most-copied chapters charted (bars).
WORK_PAGE_CASES = 20
WORK_PAGE_SITES = 10
WORK_PAGE_CHAPTERS = 10
# Domain moves (crawler.domain_moves; task crawler.check_site_moved on QUEUE_CRAWL after each
# closed scan): a target site whose start URL or root, or MOVE_MIN_REDIRECTS pages (count), answer
# a permanent redirect to another registered domain has that domain proposed as "moved from" it;
# a site whose last MOVE_SILENT_SCANS scans (count) read no page has MOVE_SAMPLE_PAGES of its
# stored pages (count) fetched at the same paths on up to MOVE_MAX_CANDIDATES open candidate
# sites (count, newest first): one serving MOVE_SAME_PAGES of them (count) the same (same title,
# or texts sharing MOVE_SAME_TEXT of their 5-character shingles, a fraction 0..1) is proposed.
MOVE_MIN_REDIRECTS = env.int("TRACKER_MOVE_MIN_REDIRECTS", default=2)
MOVE_SILENT_SCANS = env.int("TRACKER_MOVE_SILENT_SCANS", default=3)
MOVE_SAMPLE_PAGES = env.int("TRACKER_MOVE_SAMPLE_PAGES", default=5)
MOVE_SAME_PAGES = env.int("TRACKER_MOVE_SAME_PAGES", default=2)
MOVE_MAX_CANDIDATES = env.int("TRACKER_MOVE_MAX_CANDIDATES", default=10)
MOVE_SAME_TEXT = env.float("TRACKER_MOVE_SAME_TEXT", default=0.8)
# A proposal keeps at most MOVE_EVIDENCE_KEPT redirects or pages as its evidence.
MOVE_EVIDENCE_KEPT = 10
CELERY_TASK_ROUTES["crawler.check_site_moved"] = {"queue": QUEUE_CRAWL}

# Search-engine discovery (crawler.search_discovery, docs/crawler.md). SEARCH_PROVIDERS: the
# providers asked, in order, "kind=URL" comma-separated (kinds: searxng, brave, serpapi,
# google_cse; lib.crawl.search.providers); their keys come from the environment variables of
# SEARCH_KEYS (a provider needing a key it lacks is shown disabled, with why). Each provider
# answers at most SEARCH_DAILY_BUDGETS[name] queries a day (UTC; name: the kind, or
# serpapi:<engine>), counted in Redis. A work gets SEARCH_QUERIES_PER_SECTION phrases a chapter
# (at most SEARCH_MAX_QUERIES_PER_WORK); a phrase asked within SEARCH_REPEAT_DAYS is not asked
# again by the daily run (new works and chapters go first). Each query takes the first
# SEARCH_RESULTS_PER_QUERY results; a provider's request waits SEARCH_TIMEOUT_SECONDS and is
# tried SEARCH_RETRIES more times on a timeout, 429, 5xx or garbage, after the provider's
# Retry-After or a backoff from SEARCH_RETRY_BASE_SECONDS (capped at SEARCH_RETRY_MAX_SECONDS).
# A result page is read like a scan's, waiting at most SEARCH_FETCH_WAIT_SECONDS for its host's
# politeness slot, with up to SEARCH_PAGE_PARTS next parts of a chapter split over pages.
# Beat starts a run every SEARCH_INTERVAL_SECONDS on QUEUE_SEARCH; the sweeper fails a run
# without progress for SEARCH_RUN_STUCK_SECONDS. `make run` records its demo search engine in
# RUN_ENV_FILE, read here when the environment sets none (a command in a second terminal).
SEARCH_PROVIDERS = _server_url("TRACKER_SEARCH_PROVIDERS", "")
SEARCH_KEYS = {name: env.str(name, default="") for name in (
    "TRACKER_SEARCH_SEARXNG_KEY", "TRACKER_SEARCH_BRAVE_KEY", "TRACKER_SEARCH_SERPAPI_KEY",
    "TRACKER_SEARCH_GOOGLE_CSE_KEY", "TRACKER_SEARCH_GOOGLE_CSE_CX")}
SEARCH_DAILY_BUDGETS = {"searxng": 5000, "brave": 2000, "serpapi:baidu": 250,
                        "serpapi:google": 250, "serpapi:bing": 250, "google_cse": 100,
                        **env.dict("TRACKER_SEARCH_DAILY_BUDGETS", cast={"value": int}, default={})}
SEARCH_QUERIES_PER_SECTION = env.int("TRACKER_SEARCH_QUERIES_PER_SECTION", default=3)
SEARCH_MAX_QUERIES_PER_WORK = env.int("TRACKER_SEARCH_MAX_QUERIES_PER_WORK", default=10)
SEARCH_REPEAT_DAYS = env.int("TRACKER_SEARCH_REPEAT_DAYS", default=7)
SEARCH_RESULTS_PER_QUERY = env.int("TRACKER_SEARCH_RESULTS_PER_QUERY", default=10)
SEARCH_TIMEOUT_SECONDS = env.float("TRACKER_SEARCH_TIMEOUT", default=10.0)
SEARCH_RETRIES = env.int("TRACKER_SEARCH_RETRIES", default=3)
SEARCH_RETRY_BASE_SECONDS = env.float("TRACKER_SEARCH_RETRY_BASE", default=2.0)
SEARCH_RETRY_MAX_SECONDS = env.float("TRACKER_SEARCH_RETRY_MAX", default=60.0)
SEARCH_FETCH_WAIT_SECONDS = env.float("TRACKER_SEARCH_FETCH_WAIT", default=30.0)
SEARCH_PAGE_PARTS = 4
SEARCH_INTERVAL_SECONDS = env.float("TRACKER_SEARCH_INTERVAL", default=24 * 3600.0)
SEARCH_RUN_STUCK_SECONDS = env.int("TRACKER_SEARCH_RUN_STUCK", default=3600)
# A run's phrases are chosen rare against the text of the SEARCH_REFERENCE_WORKS newest indexed
# works (count); a work's phrases avoid text of its holder's SEARCH_HOLDER_WORKS_AVOIDED newest
# other indexed works (count: a series' shared preface would find the other works' copies).
SEARCH_REFERENCE_WORKS = 500
SEARCH_HOLDER_WORKS_AVOIDED = 50
# A web search run's page lists its first SEARCH_RUN_PAGES_LISTED result pages (count), those
# copying a work first.
SEARCH_RUN_PAGES_LISTED = 200
QUEUE_SEARCH = "search"
WORKER_QUEUES.append(QUEUE_SEARCH)
CELERY_TASK_ROUTES["crawler.search_web"] = {"queue": QUEUE_SEARCH}
CELERY_TASK_ROUTES["crawler.search_web_daily"] = {"queue": QUEUE_SEARCH}
CELERY_TASK_ROUTES["crawler.sweep_search_runs"] = {"queue": QUEUE_SEARCH}
CELERY_BEAT_SCHEDULE["search-web"] = {"task": "crawler.search_web_daily",
                                      "schedule": SEARCH_INTERVAL_SECONDS}
CELERY_BEAT_SCHEDULE["sweep-search-runs"] = {"task": "crawler.sweep_search_runs",
                                             "schedule": SWEEP_INTERVAL_SECONDS}

# Web-archive scans (crawler.archives, manage.py scan_archive): one task per WARC/WET file, or
# per byte range of one (a CDX capture), on QUEUE_ARCHIVE, which every worker consumes unless
# started with its own -Q list (docs/operations.md: a crawl shared by N hosts). A task commits its
# progress (next record's byte offset, records, bytes) every ARCHIVE_PROGRESS_RECORDS records;
# a scan "running" without progress for ARCHIVE_STALE_SECONDS (its worker died) is sent again
# by the sweeper, and resumes at its committed offset, up to ARCHIVE_MAX_ATTEMPTS starts, after
# which it fails; one still queued ARCHIVE_QUEUED_RESEND_SECONDS after it was sent (its message
# lost with the broker) is sent again (a crawl's 90,000 files may wait hours in the queue). An HTTP(S) archive source waits at most ARCHIVE_READ_TIMEOUT_SECONDS for a
# connection or between two chunks. Common Crawl: ARCHIVE_CDX_URL is the CDX index of a crawl
# ("{crawl}" becomes its id, e.g. CC-MAIN-2024-10), ARCHIVE_DATA_URL the server of the files the
# index and WET path lists name; ARCHIVE_CDX_MAX_CAPTURES captures at most per domain or prefix.
# `scan_archive --wait` waits ARCHIVE_WAIT_TIMEOUT_SECONDS at most (--timeout).
QUEUE_ARCHIVE = "archive"
WORKER_QUEUES.append(QUEUE_ARCHIVE)
CELERY_TASK_ROUTES["crawler.scan_archive_file"] = {"queue": QUEUE_ARCHIVE}
ARCHIVE_PROGRESS_RECORDS = env.int("TRACKER_ARCHIVE_PROGRESS_RECORDS", default=1000)
ARCHIVE_STALE_SECONDS = env.int("TRACKER_ARCHIVE_STALE", default=900)
ARCHIVE_MAX_ATTEMPTS = env.int("TRACKER_ARCHIVE_MAX_ATTEMPTS", default=3)
ARCHIVE_QUEUED_RESEND_SECONDS = env.int("TRACKER_ARCHIVE_QUEUED_RESEND", default=24 * 3600)
ARCHIVE_READ_TIMEOUT_SECONDS = env.float("TRACKER_ARCHIVE_READ_TIMEOUT", default=60.0)
ARCHIVE_CDX_URL = env.str("TRACKER_ARCHIVE_CDX_URL",
                          default="https://index.commoncrawl.org/{crawl}-index")
ARCHIVE_DATA_URL = env.str("TRACKER_ARCHIVE_DATA_URL", default="https://data.commoncrawl.org/")
ARCHIVE_CDX_MAX_CAPTURES = env.int("TRACKER_ARCHIVE_CDX_MAX_CAPTURES", default=10_000)
ARCHIVE_WAIT_TIMEOUT_SECONDS = env.float("TRACKER_ARCHIVE_WAIT_TIMEOUT", default=24 * 3600.0)
# A task matches the records it reads in batches of ARCHIVE_BATCH_RECORDS records, or fewer
# once their payloads reach ARCHIVE_BATCH_BYTES: one index lookup (one Redis round trip) a
# batch; progress is committed between batches (bench/README.md, "Web-archive scans").
ARCHIVE_BATCH_RECORDS = env.int("TRACKER_ARCHIVE_BATCH_RECORDS", default=200)
ARCHIVE_BATCH_BYTES = env.int("TRACKER_ARCHIVE_BATCH_MB", default=16) * 1024 * 1024

# Takedown summaries (dashboard.alerts.summary; beat runs alerts.send_summaries every
# SUMMARY_CHECK_SECONDS): each user who chose weekly or monthly gets, once per period (a week from
# Monday, a calendar month, in the user's time zone), a mail per the holders it may see. A site
# "ignores notices" when a case's notice was sent SUMMARY_IGNORED_AFTER_DAYS days or more before
# the period's end and its copies are still up; at most SUMMARY_IGNORING_SITES_LISTED sites are
# listed per holder. A summary still pending SUMMARY_REQUEUE_AFTER_SECONDS after it was created
# (its task lost) is queued again; sending retries as the alert mails (ALERT_MAX_RETRIES).
SUMMARY_CHECK_SECONDS = env.int("TRACKER_SUMMARY_CHECK", default=3600)
SUMMARY_IGNORED_AFTER_DAYS = env.int("TRACKER_SUMMARY_IGNORED_AFTER_DAYS", default=14)
SUMMARY_IGNORING_SITES_LISTED = 20
SUMMARY_REQUEUE_AFTER_SECONDS = 3600
CELERY_BEAT_SCHEDULE["send-summaries"] = {"task": "alerts.send_summaries",
                                          "schedule": SUMMARY_CHECK_SECONDS}

# Contacts beyond the site (crawler.rdap_contacts, lib.crawl.rdap, lib.crawl.platforms). The
# RDAP lookup (task crawler.find_rdap_contacts, QUEUE_CRAWL) reads the IANA bootstrap files
# (RFC 9224: dns.json, ipv4.json, ipv6.json) under RDAP_BOOTSTRAP_URL, asks the registrar's RDAP
# server for the case's domain and the network's for each of at most RDAP_MAX_ADDRESSES IP
# addresses of its hosts, each request waiting RDAP_TIMEOUT_SECONDS at most. A timeout, 429, 5xx
# or malformed answer is retried after backoff_delay from RDAP_RETRY_BASE_SECONDS up to
# RDAP_RETRY_MAX_SECONDS (or the server's longer Retry-After, capped there), RDAP_MAX_RETRIES
# times, then recorded as failed; a lookup whose task was lost is swept as the site search is
# (CONTACT_SEARCH_STUCK_SECONDS, CONTACT_SEARCH_MAX_ATTEMPTS).
# PLATFORM_REGISTRY_PATH: the platforms' registry (TOML, checked when Django starts); its demo
# entries are read only when PLATFORM_REGISTRY_DEMO (set by `make run`).
# Rights documents a holder uploads for complaint packages: RIGHTS_DOCUMENT_MAX_BYTES each at
# most (bytes), of the file types RIGHTS_DOCUMENT_TYPES (lower-case extensions). A complaint
# package holds the signed reports and WACZ bundles of COMPLAINT_PACKAGE_MAX_PAGES pages at most.
RDAP_BOOTSTRAP_URL = env.str("TRACKER_RDAP_BOOTSTRAP_URL", default="https://data.iana.org/rdap/")
RDAP_TIMEOUT_SECONDS = env.float("TRACKER_RDAP_TIMEOUT", default=10.0)
RDAP_MAX_RETRIES = env.int("TRACKER_RDAP_MAX_RETRIES", default=4)
RDAP_RETRY_BASE_SECONDS = env.float("TRACKER_RDAP_RETRY_BASE", default=30.0)
RDAP_RETRY_MAX_SECONDS = env.float("TRACKER_RDAP_RETRY_MAX", default=1800.0)
RDAP_MAX_ADDRESSES = 4
CELERY_TASK_ROUTES["crawler.find_rdap_contacts"] = {"queue": QUEUE_CRAWL}
PLATFORM_REGISTRY_PATH = env.str("TRACKER_PLATFORM_REGISTRY",
                                 default=str(BASE_DIR / "crawler" / "data" / "platforms.toml"))
PLATFORM_REGISTRY_DEMO = env.bool("TRACKER_PLATFORM_REGISTRY_DEMO", default=False)
RIGHTS_DOCUMENT_MAX_BYTES = env.int("TRACKER_RIGHTS_DOCUMENT_MAX_BYTES", default=20 * 1024 * 1024)
RIGHTS_DOCUMENT_TYPES = (".pdf", ".jpg", ".jpeg", ".png")
COMPLAINT_PACKAGE_MAX_PAGES = 20

# Rewrite stage of the engine (洗稿: fingerprint.rewrite, docs/decisions/rewrite-stage.md): a page
# the letter stage matches nothing in is aligned sentence by sentence with the works its keys
# and the rewrite keys (Redis prefix FINGERPRINT_INDEX_PREFIX + "-rw") hit. A work is reported
# "rewritten" when at least REWRITE_MIN_PAIRS of its sentences and REWRITE_MIN_SHARE of them
# (0..1, also the match's score) pair with the page's, a pair sharing at least
# REWRITE_PAIR_SCORE (0..1) of the work sentence's synonym classes and characters.
REWRITE_STAGE = env.bool("TRACKER_REWRITE_STAGE", default=True)
REWRITE_MIN_SHARE = env.float("TRACKER_REWRITE_MIN_SHARE", default=0.35)
REWRITE_PAIR_SCORE = env.float("TRACKER_REWRITE_PAIR_SCORE", default=0.5)
REWRITE_MIN_PAIRS = env.int("TRACKER_REWRITE_MIN_PAIRS", default=4)

# Witnessed captures (crawler.evidence.capture, docs/evidence.md): with CAPTURE_WITNESSED the page
# is visited in Chromium through a recording proxy (warcprox, run by CAPTURE_RECORDER_PYTHON, the
# interpreter of the virtual environment `make install` makes for it; its CA, made on first use,
# is CAPTURE_RECORDER_CA_FILE), which writes every request and response of the visit to the WARC.
# It records at most CAPTURE_MAX_BYTES bytes of response bodies per capture (the rest is cut, and
# the cut recorded). Page requisites are fetched even where robots.txt disallows them unless
# CAPTURE_REQUISITES_OBEY_ROBOTS. A proxy that does not start within CAPTURE_RECORDER_START_SECONDS
# or dies during the visit is started again, CAPTURE_RECORDER_ATTEMPTS times in all per attempt
# of the capture, before that attempt fails with the reason.
CAPTURE_WITNESSED = env.bool("TRACKER_CAPTURE_WITNESSED", default=True)
CAPTURE_RECORDER_PYTHON = env.str("TRACKER_CAPTURE_RECORDER_PYTHON",
                                  default=str(BASE_DIR / ".venv-recorder" / "bin" / "python"))
CAPTURE_RECORDER_CA_FILE = env.str("TRACKER_CAPTURE_RECORDER_CA_FILE",
                                   default=str(VAR_DIR / "recorder-ca.pem"))
CAPTURE_MAX_BYTES = env.int("TRACKER_CAPTURE_MAX_BYTES", default=50 * 1024 * 1024)
CAPTURE_REQUISITES_OBEY_ROBOTS = env.bool("TRACKER_CAPTURE_REQUISITES_OBEY_ROBOTS", default=False)
CAPTURE_RECORDER_START_SECONDS = env.float("TRACKER_CAPTURE_RECORDER_START", default=20.0)
CAPTURE_RECORDER_ATTEMPTS = env.int("TRACKER_CAPTURE_RECORDER_ATTEMPTS", default=2)
# With CAPTURE_SCREEN_RECORDING (on in `make run`) a witnessed visit is also filmed (Chromium's
# screencast, at most CAPTURE_RECORDING_MAX_FRAMES frames) into an MP4 of CAPTURE_RECORDING_FPS
# frames a second, the address and the capture clock in a band above the page, the last frame
# held CAPTURE_RECORDING_TAIL_SECONDS.
CAPTURE_SCREEN_RECORDING = env.bool("TRACKER_CAPTURE_SCREEN_RECORDING", default=False)
CAPTURE_RECORDING_MAX_FRAMES = env.int("TRACKER_CAPTURE_RECORDING_MAX_FRAMES", default=600)
CAPTURE_RECORDING_FPS = env.int("TRACKER_CAPTURE_RECORDING_FPS", default=10)
CAPTURE_RECORDING_TAIL_SECONDS = 1.0

# The evidence report's screenshot (dashboard.report_parts): cut into tiles of
# REPORT_TILE_HEIGHT_PX pixels (about one A4 page at the 1280 px capture width), each overlapping
# the one before by REPORT_TILE_OVERLAP_PX, at most REPORT_MAX_TILES (the report says where it
# stops).
REPORT_TILE_HEIGHT_PX = 1700
REPORT_TILE_OVERLAP_PX = 40
REPORT_MAX_TILES = env.int("TRACKER_REPORT_MAX_TILES", default=12)


# DKIM signatures of notice mails sent over SMTP (dashboard.dkim_signing, dkimpy): on when
# NOTICE_DKIM_KEY names a PEM private key file, with its selector and signing domain.
NOTICE_DKIM_KEY = env.str("TRACKER_DKIM_KEY", default="")
NOTICE_DKIM_SELECTOR = env.str("TRACKER_DKIM_SELECTOR", default="")
NOTICE_DKIM_DOMAIN = env.str("TRACKER_DKIM_DOMAIN", default="")


# The recipient's page of a takedown notice (dashboard.recipient_page; its link is valid
# NOTICE_BUNDLE_LINK_DAYS days): a link that opens nothing names the notice's holder to ask,
# else this address of the platform's operator (default: DEFAULT_FROM_EMAIL's address).
RECIPIENT_CONTACT_EMAIL = env.str("TRACKER_RECIPIENT_CONTACT_EMAIL",
                                  default=parseaddr(DEFAULT_FROM_EMAIL)[1])
# ReplayWeb.page's ui.js and sw.js under /replay/ (dashboard.replay_assets): cached by browsers
# this many seconds.
REPLAY_ASSET_MAX_AGE_SECONDS = 3600

# The similarity report of a work (dashboard.similarity): a work of up to
# SIMILARITY_FULL_CHARS characters is shown whole; a longer one keeps SIMILARITY_CONTEXT_CHARS
# characters on each side of every copied span and says how many it leaves out. At most
# SIMILARITY_MAX_SOURCES sites are coloured one by one; the others share one colour.
SIMILARITY_FULL_CHARS = env.int("TRACKER_SIMILARITY_FULL_CHARS", default=200_000)
SIMILARITY_CONTEXT_CHARS = 300
SIMILARITY_MAX_SOURCES = 10
