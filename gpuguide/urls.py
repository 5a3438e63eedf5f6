from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.contrib.sitemaps.views import sitemap
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.decorators.http import require_safe
from django.views.generic import TemplateView

from accounts import password_reset, signin_link
from gpuguide.api import api
from gpuguide.lib import metrics, outages
from guides.sitemaps import SITEMAPS

urlpatterns = [
    # Health probes: not per language, never cached, no database for /healthz.
    path("healthz", outages.healthz, name="healthz"),
    path("readyz", outages.Readiness.as_view(), name="readyz"),
    # Prometheus: only with METRICS_TOKEN (a 404 without), never cached.
    path("metrics", metrics.metrics_view, name="metrics"),
    path("sitemap.xml", require_safe(sitemap), {"sitemaps": SITEMAPS}, name="sitemap"),
    path(
        "robots.txt",
        require_safe(
            TemplateView.as_view(
                template_name="robots.txt",
                content_type="text/plain",
                extra_context={"admin_url": settings.ADMIN_URL},
            )
        ),
        name="robots",
    ),
    # Browsers and crawlers ask for /favicon.ico whatever the pages link; the icon is a static file.
    path(
        "favicon.ico", require_safe(lambda request: redirect(static("favicon.ico"))), name="favicon"
    ),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", api.urls),  # JSON, not per language
]

urlpatterns += i18n_patterns(
    path(settings.ADMIN_URL, include(password_reset)),  # before the admin's own paths
    path(settings.ADMIN_URL, include(signin_link)),
    path(settings.ADMIN_URL, admin.site.urls),
    path("", include("guides.urls")),
)

handler403 = "guides.views.permission_denied"
handler404 = "guides.views.page_not_found"
# Static, translated, no database: also answers 503 when the database cannot be reached.
handler500 = "gpuguide.lib.outages.server_error"
