"""Settings for GPU Guide, read from the environment (see .env.example and docs/operations.md).
A value that cannot work stops the process with one line (``exit_with``)."""

import os
import re
import warnings
from datetime import timedelta
from ipaddress import ip_network
from pathlib import Path
from string import Formatter
from urllib.parse import urlsplit

import environ
from django.http.request import validate_host
from django.utils.translation import gettext_lazy as _

from gpuguide.lib.config import exit_with, redact_url

# --- Paths and environment ----------------------------------------------------------------

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
# A local .env is read if present; real environment variables win. ENV_FILE names another file,
# or none when empty (tests set it so).
_ENV_FILE = os.environ.get("ENV_FILE", str(BASE_DIR / ".env"))
if _ENV_FILE:
    if Path(_ENV_FILE).is_file():
        environ.Env.read_env(_ENV_FILE, overwrite=False)
    elif "ENV_FILE" in os.environ:
        exit_with(f"ENV_FILE names {_ENV_FILE}, which is not a file (set it empty to read none).")

DEBUG = env.bool("DEBUG", default=False)

# --- Security and hosts -------------------------------------------------------------------

SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        exit_with(
            "SECRET_KEY is not set. Production (DEBUG off) needs one: generate it with "
            "`python -c 'import secrets; print(secrets.token_urlsafe(50))'`, "
            "or set DEBUG=true for local development."
        )
    SECRET_KEY = "django-insecure-development-only-key-never-use-in-production"

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# Production is served over HTTPS behind a TLS proxy, which says so in X-Forwarded-Proto.
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
# Load balancers and Prometheus reach each app server over plain HTTP inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]

# --- Applications -------------------------------------------------------------------------

INSTALLED_APPS = [
    "modeltranslation",  # before the admin, so that its admin classes win
    "accounts.apps.AccountsAdminConfig",  # our admin site (a second factor at sign-in)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "ninja",  # so that its API docs serve Swagger UI from our static files, not a CDN
    "corsheaders",
    "reversion",
    "pricing",
    "guides",
    # Sign-in: login throttling, two-factor codes (TOTP), staff roles.
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "accounts",
    "csp",  # for its system checks
    "django_tasks",
    "django_tasks_db",
]

# --- Middleware ---------------------------------------------------------------------------

MIDDLEWARE = [
    # Outermost: every answer and every log line of the request carries its id.
    "gpuguide.lib.request_ids.RequestIdMiddleware",
    # Next, so that its latency counts the time of all the others (gzip included).
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    # Before any middleware that reads the query (a quick 400 for too many fields, DEBUG too).
    "gpuguide.lib.query_fields.parsed_first",
    # Outermost of the rest, so that it compresses what every other middleware produced.
    "django.middleware.gzip.GZipMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Right after SecurityMiddleware, so that every answer below it carries the policies.
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    # Above WhiteNoise and CommonMiddleware, which answer on their own: those carry CORS too.
    "corsheaders.middleware.CorsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "guides.pagecache.versions.checked_once_per_request",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",  # after authentication: user.is_verified()
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "gpuguide.lib.rate_limits.RateLimitMiddleware",
    # After it: a client over its limit takes no slot.
    "gpuguide.lib.rate_limits.ComputeCapMiddleware",
    # Its latency per view is the view's own time.
    "gpuguide.lib.metrics.PrometheusAfterMiddleware",
    "gpuguide.lib.outages.DatabaseUnavailableMiddleware",
    # Last, as django-axes asks: its lockout page then gets the headers every page gets.
    "axes.middleware.AxesMiddleware",
]

# --- URLs and templates -------------------------------------------------------------------

ROOT_URLCONF = "gpuguide.urls"

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
                "django.template.context_processors.i18n",
                "guides.context_processors.public_face",
            ],
        },
    },
]

WSGI_APPLICATION = "gpuguide.wsgi.application"

# --- Database -----------------------------------------------------------------------------

_DATABASE_URL = env.str("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
_SUPPORTED_ENGINES = {"django.db.backends.sqlite3", "django.db.backends.postgresql"}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # environ warns about unknown engines; we explain below
    try:
        _database = environ.Env.db_url_config(_DATABASE_URL)
    except Exception as exc:  # django-environ raises several types for bad URLs
        exit_with(f"DATABASE_URL is malformed ({redact_url(_DATABASE_URL)}): {exc}")
if _database.get("ENGINE") not in _SUPPORTED_ENGINES or not _database.get("NAME"):
    exit_with(
        f"DATABASE_URL is not a usable database ({redact_url(_DATABASE_URL)}): use "
        "sqlite:///path/to/file.sqlite3 or postgres://user:password@host:5432/name"
    )
# Kept open: every visit asks the database one question (the page cache's version check), and
# opening a connection would cost more than the rest of a cached visit. 0 behind PgBouncer.
_database.setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
_database.setdefault("CONN_HEALTH_CHECKS", True)
if _database["ENGINE"] == "django.db.backends.sqlite3":
    # Writers take the lock when their transaction begins and wait for it (up to 20 s) instead
    # of failing with "database is locked" when two saves meet.
    _database.setdefault("OPTIONS", {}).update({"transaction_mode": "IMMEDIATE", "timeout": 20})
DATABASES = {"default": _database}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache and the page cache (see guides/pagecache/ and docs/performance.md) ------------

try:
    _cache = env.cache_url("CACHE_URL", default="locmemcache://")
except Exception as exc:
    exit_with(f"CACHE_URL is malformed: {exc}")
if _cache["BACKEND"] == "django_redis.cache.RedisCache":  # what django-environ picks for redis://
    # An outage reads as a cache that holds nothing (gpuguide/lib/redis_cache.py); short
    # timeouts, then Redis is left alone for REDIS_RETRY_SECONDS. CACHE_URL's query options win.
    _cache["OPTIONS"] = {
        "CLIENT_CLASS": "gpuguide.lib.redis_cache.Client",
        "REDIS_CLIENT_CLASS": "gpuguide.lib.redis_cache.Redis",
        "IGNORE_EXCEPTIONS": True,
        "SOCKET_CONNECT_TIMEOUT": 0.25,
        "SOCKET_TIMEOUT": 0.5,
        **_cache.get("OPTIONS", {}),
    }
REDIS_RETRY_SECONDS = env.float("REDIS_RETRY_SECONDS", default=2.0)
CACHES = {"default": _cache}

# Pages as of a past day (?as_of=) are stored only for the last this many days.
PAGE_CACHE_PAST_DAYS = env.int("PAGE_CACHE_PAST_DAYS", default=7)
# Behind a front cache, the background re-render after a purge waits this long, leaving the CPU
# to the visitors' own renders of the purged pages.
REFRESH_AFTER_PURGE_SECONDS = env.float("REFRESH_AFTER_PURGE_SECONDS", default=3.0)
# Public pages' Cache-Control max-age. 0: revalidate every time (304 from each page's ETag).
PAGE_BROWSER_MAX_AGE = env.int("PAGE_BROWSER_MAX_AGE", default=0)

# A cache in front of the app servers (gpuguide/lib/front_cache.py): varnish, fastly,
# cloudflare, or empty for none.
FRONT_CACHE = env.str("FRONT_CACHE", default="")
FRONT_CACHE_PURGE_URLS = env.list("FRONT_CACHE_PURGE_URLS", default=[])  # each Varnish
FASTLY_SERVICE_ID = env.str("FASTLY_SERVICE_ID", default="")
FASTLY_API_TOKEN = env.str("FASTLY_API_TOKEN", default="")
FASTLY_API_URL = env.str("FASTLY_API_URL", default="https://api.fastly.com").rstrip("/")
CLOUDFLARE_ZONE_ID = env.str("CLOUDFLARE_ZONE_ID", default="")
CLOUDFLARE_API_TOKEN = env.str("CLOUDFLARE_API_TOKEN", default="")
CLOUDFLARE_API_URL = env.str(
    "CLOUDFLARE_API_URL", default="https://api.cloudflare.com/client/v4"
).rstrip("/")
_FRONT_CACHE_NEEDS = {
    "varnish": ("FRONT_CACHE_PURGE_URLS",),
    "fastly": ("FASTLY_SERVICE_ID", "FASTLY_API_TOKEN"),
    "cloudflare": ("CLOUDFLARE_ZONE_ID", "CLOUDFLARE_API_TOKEN"),
}
if FRONT_CACHE and FRONT_CACHE not in _FRONT_CACHE_NEEDS:
    exit_with(f"FRONT_CACHE must be empty, varnish, fastly or cloudflare: {FRONT_CACHE!r}")
for _needed in _FRONT_CACHE_NEEDS.get(FRONT_CACHE, ()):
    if not globals()[_needed]:
        exit_with(f"FRONT_CACHE={FRONT_CACHE} needs {_needed}")
for _url in FRONT_CACHE_PURGE_URLS:
    if not re.fullmatch(r"https?://[A-Za-z0-9.:\[\]-]+(/\S*)?", _url):
        exit_with(f"FRONT_CACHE_PURGE_URLS must be http(s) addresses, comma-separated: {_url!r}")

# --- Sign-in: passwords, lockout, two-factor, the admin's path (docs/operations.md) -------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out sign-in
    "django.contrib.auth.backends.ModelBackend",
]
# Five failures lock the pair (account, address) for 15 minutes: nobody can lock somebody else
# out. Accounts and addresses that keep failing are slowed instead (accounts/throttling.py).
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# A try refused while locked neither extends the lock nor counts towards the slowdown.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_CLIENT_IP_CALLABLE = "gpuguide.lib.client_address.client_ip"
AXES_USERNAME_CALLABLE = "accounts.throttling.axes_username"  # the name as sign-in reads it
AXES_LOCKOUT_CALLABLE = "accounts.throttling.lockout_response"
AXES_VERBOSE = False
# Failures within AXES_COOLOFF_TIME before each further try waits 2, 4, 8 ... seconds (at most
# the second value).
SIGNIN_SLOWDOWN_AFTER = env.int("SIGNIN_SLOWDOWN_AFTER", default=5)
SIGNIN_SLOWDOWN_MAX_SECONDS = env.int("SIGNIN_SLOWDOWN_MAX_SECONDS", default=60)

# The proxies whose X-Forwarded-For is believed (CIDRs, e.g. 127.0.0.1/32,10.0.0.5/32).
try:
    TRUSTED_PROXIES = tuple(
        ip_network(cidr, strict=False) for cidr in env.list("TRUSTED_PROXIES", default=[])
    )
except ValueError as exc:
    exit_with(f"TRUSTED_PROXIES must be comma-separated addresses or CIDRs: {exc}")

# Requests a minute per client address to the planner and the JSON API (0: no limit).
API_RATE_LIMIT = env.int("API_RATE_LIMIT", default=600)

# Requests to the same routes computing at once in one process (0: no cap); beyond it, 503.
# One: threads share one interpreter, and two computations already slow the others
# (docs/security.md, "Capacity").
COMPUTE_CONCURRENCY = env.int("COMPUTE_CONCURRENCY", default=1)

REQUIRE_2FA_FOR_ADMINISTRATORS = env.bool("REQUIRE_2FA_FOR_ADMINISTRATORS", default=not DEBUG)
OTP_TOTP_ISSUER = "GPU Guide"

# The admin's path under each language prefix (/en/<ADMIN_URL>).
ADMIN_URL = env.str("ADMIN_URL", default="admin/")
if not re.fullmatch(r"(?:[A-Za-z0-9._~-]+/)+", ADMIN_URL):
    exit_with(f"ADMIN_URL must be a path such as admin/ or team-desk/ (ending in /): {ADMIN_URL!r}")

# --- Internationalisation -----------------------------------------------------------------

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("de", _("German")),
    ("ja", _("Japanese")),
]
MODELTRANSLATION_DEFAULT_LANGUAGE = "en"
MODELTRANSLATION_FALLBACK_LANGUAGES = ("en",)
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

# --- Static files -------------------------------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
# modeltranslation's tabbed admin would load jQuery UI from a CDN; serve our own copy.
JQUERY_UI_URL = "vendor/jquery-ui/jquery-ui.min.js"

# --- Cross-origin requests, Content-Security-Policy, Permissions-Policy --------------------

# The JSON API is public and read-only: any site's scripts may GET it, without credentials.
CORS_URLS_REGEX = r"^/api/"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_ALLOW_CREDENTIALS = False

# Strict and nonce-free, so that whole pages stay cacheable. The admin and Swagger UI set styles
# only through the DOM, which CSP allows.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    },
}

# Features no page of ours uses. Only ones Chromium knows: an unknown one is a console error.
PERMISSIONS_POLICY = {
    feature: []
    for feature in ("accelerometer", "browsing-topics", "camera", "display-capture",
                    "geolocation", "gyroscope", "magnetometer", "microphone", "payment", "usb")
}  # fmt: skip

# --- Background tasks ---------------------------------------------------------------------

# Purges of the front cache have a queue of their own ("purges", for a worker of its own): a
# write's purge must not wait behind the re-renders.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "purges"]}}
# A task RUNNING longer than this (seconds) lost its worker mid-run (guides/background/
# task_queue.py). Far above the longest task, a full re-render of every page.
TASK_RUNNING_TIMEOUT = env.int("TASK_RUNNING_TIMEOUT", default=1800)
if TASK_RUNNING_TIMEOUT <= 0:
    exit_with(f"TASK_RUNNING_TIMEOUT must be a number of seconds above 0: {TASK_RUNNING_TIMEOUT}")

# --- Backups (gpuguide/lib/backups.py, docs/operations.md) --------------------------------

# Signs each backup's manifest. Empty: SECRET_KEY's, and a backup dies with it.
BACKUP_SIGNING_KEY = env.str("BACKUP_SIGNING_KEY", default="")
# How many backups `manage.py backup` keeps in backups/ per engine (0: all of them).
BACKUP_KEEP = env.int("BACKUP_KEEP", default=7)
if BACKUP_KEEP < 0:
    exit_with(f"BACKUP_KEEP must be a number of backups, 0 to keep all: {BACKUP_KEEP}")

# --- Logging ------------------------------------------------------------------------------

# LOG_FORMAT=json: one JSON object a line, with the request's id; plain: the message alone.
LOG_FORMAT = env.str("LOG_FORMAT", default="plain")
if LOG_FORMAT not in ("plain", "json"):
    exit_with(f"LOG_FORMAT must be plain or json: {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "gpuguide.lib.request_ids.RequestIdFilter"}},
    "formatters": {
        "plain": {"format": "%(message)s"},
        "json": {"()": "gpuguide.lib.request_ids.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": LOG_FORMAT,
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}

# --- Metrics (gpuguide/lib/metrics.py, docs/operations.md) --------------------------------

# The bearer token Prometheus sends to /metrics. Empty (the default): /metrics answers 404.
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# prometheus-client's multiprocess mode reads it from the environment; checked here.
_METRICS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if _METRICS_DIR and not Path(_METRICS_DIR).is_dir():
    exit_with(f"PROMETHEUS_MULTIPROC_DIR must be an existing folder: {_METRICS_DIR!r}")

# --- The site -----------------------------------------------------------------------------

# The site's own address for canonical, hreflang and sitemap URLs, never the request's Host
# (which a visitor chooses). Unset: the first public host in ALLOWED_HOSTS.
SITE_URL = env.str("SITE_URL", default="").rstrip("/")
if not SITE_URL:
    _public_hosts = [h for h in ALLOWED_HOSTS if h and not h.startswith(".") and h != "*"]
    if DEBUG:
        SITE_URL = "http://127.0.0.1:8000"
    elif _public_hosts:
        SITE_URL = f"https://{_public_hosts[0]}"
if not re.fullmatch(r"https?://[A-Za-z0-9.-]+(:[0-9]+)?", SITE_URL):
    exit_with(
        f"SITE_URL must be the site's address such as https://guide.example.com (no path): "
        f"{SITE_URL!r}"
    )
if ALLOWED_HOSTS and not validate_host(urlsplit(SITE_URL).hostname, ALLOWED_HOSTS):
    # The background re-render asks for pages at SITE_URL; a host Django refuses would fail it.
    exit_with(f"SITE_URL's host is not in ALLOWED_HOSTS: {SITE_URL!r}")

# Where a visitor rents {count} GPUs {gpu} (our slug) on the house's site.
RENT_URL_TEMPLATE = env.str(
    "RENT_URL_TEMPLATE", default="https://gpuwithcrypto.com/rent?gpu={gpu}&count={count}"
)
try:
    _rent_fields = {field for _text, field, _spec, _conv in Formatter().parse(RENT_URL_TEMPLATE)}
except ValueError:  # an unmatched brace
    _rent_fields = set()
_rent_site = re.match(r"https?://[^/{}]+/", RENT_URL_TEMPLATE)
if _rent_fields - {None} != {"gpu", "count"} or not _rent_site:
    exit_with(
        "RENT_URL_TEMPLATE must be an http(s) address with {gpu} and {count} in it and no other "
        f"{{...}} field, e.g. https://example.com/rent?gpu={{gpu}}&count={{count}}: "
        f"{RENT_URL_TEMPLATE!r}"
    )

SITE_NAME = env.str("SITE_NAME", default="GPU Guide")
CONTACT_EMAIL = env.str("CONTACT_EMAIL", default="support@gpuwithcrypto.com")

# Whether Editors publish themselves, or submit working copies for review (the default).
EDITORS_MAY_PUBLISH = env.bool("EDITORS_MAY_PUBLISH", default=False)

# Mail: console by default; e.g. smtp+tls://user:password@host:587 in production.
vars().update(env.email_url("EMAIL_URL", default="consolemail://"))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default=f"{SITE_NAME} <{CONTACT_EMAIL}>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# Staff are warned of prices (a price holds this long after its check) and cited sources older
# than these.
PRICE_STALE_AFTER_DAYS = env.int("PRICE_STALE_AFTER_DAYS", default=30)
SOURCE_STALE_AFTER_MONTHS = env.int("SOURCE_STALE_AFTER_MONTHS", default=12)

# Share-image fonts per language: the first that exists is used. Debian: fonts-dejavu-core,
# fonts-ipafont-gothic.
_LATIN_FONTS = env.list(
    "SHARE_IMAGE_FONTS_LATIN",
    default=[
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    ],
)
SHARE_IMAGE_FONTS = {
    "en": _LATIN_FONTS,
    "de": _LATIN_FONTS,
    "ja": env.list(
        "SHARE_IMAGE_FONTS_JA",
        default=[
            "/usr/share/fonts/opentype/ipafont-gothic/ipagp.ttf",  # proportional Latin
            "/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf",
            "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
        ],
    ),
}
