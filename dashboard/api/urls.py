"""URLs of the API, mounted at /api/v1/ (tracker/urls.py): the resources, the OpenAPI 3 schema
(/schema/), Swagger UI (/docs/) and Redoc (/redoc/) from local static files."""

from __future__ import annotations

from django.urls import include, path, re_path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.routers import DefaultRouter

from . import cases, contacts, views
from .errors import not_found
from .schema import page_title

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("works", views.WorkViewSet, basename="work")
router.register("imports", views.ImportJobViewSet, basename="import")
router.register("matches", views.MatchViewSet, basename="match")
router.register("cases", cases.CaseViewSet, basename="case")
router.register("notices", views.NoticeViewSet, basename="notice")
router.register("sites", views.SiteViewSet, basename="site")
router.register("contacts", contacts.ContactViewSet, basename="contact")
router.register("scans", views.ScanViewSet, basename="scan")
router.register("alerts/webhooks", views.WebhookViewSet, basename="webhook")

app_name = "api"
urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema", title=page_title()),
         name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema", title=page_title(),
                                                template_name="api/redoc.html"), name="redoc"),
    path("alerts/preferences/", views.AlertPreferenceView.as_view(), name="alert-preferences"),
    path("evidence/verify/", views.EvidenceVerifyView.as_view(), name="evidence-verify"),
    path("", include(router.urls)),
    re_path(r"^(?P<path>.*)$", not_found, name="not-found"),
]
