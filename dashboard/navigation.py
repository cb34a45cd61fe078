"""The admin's navigation in one order for every language: Django sorts the apps and their
models by their names in the reader's language, so the sidebar moved when the language did.
Here both are sorted by their English names, for every reader. The overview lists the system's
own apps apart (``split_system``)."""

from __future__ import annotations

from django.apps import apps as apps_registry
from django.contrib import admin
from django.utils import translation

#: Apps of the platform's own machinery (celery-beat's schedules, axes' login protection): on the
#: overview under a staff-only "System" section, apart from the business ones.
SYSTEM_APPS = frozenset({"django_celery_beat", "axes"})


def split_system(app_list: list[dict]) -> tuple[list[dict], list[dict]]:
    """``app_list`` (the admin's list of app dicts) as (business apps, SYSTEM_APPS), each in
    its order. Returns the two lists."""
    return ([app for app in app_list if app["app_label"] not in SYSTEM_APPS],
            [app for app in app_list if app["app_label"] in SYSTEM_APPS])


def _english(name) -> str:
    with translation.override("en"):
        return str(name).lower()


def fix_order(site: admin.AdminSite = admin.site) -> None:
    """Make ``site.get_app_list`` return apps and models sorted by their English names
    (``verbose_name`` of the app, ``verbose_name_plural`` of each model). Returns None."""
    unsorted = site.get_app_list

    def get_app_list(request, app_label=None):
        apps = unsorted(request, app_label)
        for app in apps:
            app["models"].sort(key=lambda m: _english(m["model"]._meta.verbose_name_plural))
        return sorted(apps, key=lambda app: _english(
            apps_registry.get_app_config(app["app_label"]).verbose_name))

    site.get_app_list = get_app_list
