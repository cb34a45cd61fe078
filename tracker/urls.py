"""URLs: the admin (the dashboard) at the root, the REST API under /api/v1/, language switching,
a health check, the notice recipient's evidence page and its replay (no login); handler500
answers 503 while a server is down."""

from django.contrib import admin
from django.urls import include, path

from core import views
from dashboard.recipient_page import (
    recipient_bundle_view,
    recipient_page_view,
    recipient_report_view,
    recipient_screenshot_view,
)
from dashboard.registration_certificate import registration_certificate_view
from dashboard.replay_assets import replay_asset_view, replay_frame_view
from dashboard.similarity import similarity_report_view
from dashboard.user_settings import user_settings_view
from dashboard.watched_sites import watched_sites_view

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("api/v1/", include("dashboard.api.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("alerts/", include("dashboard.alerts.urls")),
    path("evidence/notice/<str:token>/", recipient_page_view, name="recipient_page"),
    path("evidence/notice/<str:token>/bundle-<int:capture_id>.wacz", recipient_bundle_view,
         name="recipient_bundle"),
    path("evidence/notice/<str:token>/screenshot-<int:capture_id>.png",
         recipient_screenshot_view, name="recipient_screenshot"),
    path("evidence/notice/<str:token>/report-<int:match_id>.pdf", recipient_report_view,
         name="recipient_report"),
    # the links mailed before the recipient page named one capture's bundle: they open the page
    path("evidence/bundle/<str:token>/", recipient_page_view),
    path("replay/", replay_frame_view, name="replay_frame"),
    path("replay/<str:name>", replay_asset_view, name="replay_asset"),
    path("settings/", admin.site.admin_view(user_settings_view), name="user_settings"),
    path("sites/watched/", admin.site.admin_view(watched_sites_view), name="watched_sites"),
    path("works/<int:work_id>/registration-certificate.pdf",
         admin.site.admin_view(registration_certificate_view), name="registration_certificate"),
    path("works/<int:work_id>/similarity/", admin.site.admin_view(similarity_report_view),
         name="work_similarity"),
    path("", admin.site.urls),
]

handler500 = "core.views.server_error"
