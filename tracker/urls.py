"""URLs: the admin (the dashboard) at the root, the REST API under /api/v1/, language switching,
and a health check; handler500 answers 503 while a server is down."""

from django.contrib import admin
from django.urls import include, path

from dashboard.bundle_links import bundle_view
from dashboard.registration_certificate import registration_certificate_view
from dashboard.user_settings import user_settings_view
from dashboard.watched_sites import watched_sites_view
from tracker.core import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("api/v1/", include("dashboard.api.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("alerts/", include("dashboard.alerts.urls")),
    path("evidence/bundle/<str:token>/", bundle_view, name="notice_bundle"),
    path("settings/", admin.site.admin_view(user_settings_view), name="user_settings"),
    path("sites/watched/", admin.site.admin_view(watched_sites_view), name="watched_sites"),
    path("works/<int:work_id>/registration-certificate.pdf",
         admin.site.admin_view(registration_certificate_view), name="registration_certificate"),
    path("", admin.site.urls),
]

handler500 = "tracker.core.views.server_error"
