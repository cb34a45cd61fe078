"""URLs: the admin (the dashboard) at the root, language switching, and a health check."""

from django.contrib import admin
from django.urls import include, path

from tracker.core import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", admin.site.urls),
]
