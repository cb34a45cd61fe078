"""Admin screens of the platform's plumbing, for superusers only: django-celery-beat's
schedules and django-axes's login records. Staff and rights holders never see them in the
navigation, and their URLs answer 403, whatever permissions a group grants. Also the login
form's wording, which must not assume a staff member.
"""

from __future__ import annotations

from django.apps import apps
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.utils.translation import gettext_lazy as _
from django_celery_beat.models import CrontabSchedule

from crawler.schedule import crontab_words

# The apps whose admin pages are plumbing, by app label.
SUPERUSER_ONLY_APPS = ("django_celery_beat", "axes")


class SuperuserOnlyMixin:
    """Admin permission checks that let superusers only through."""

    def has_module_permission(self, request) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_view_permission(self, request, obj=None) -> bool:
        return self.has_module_permission(request) and super().has_view_permission(request, obj)

    def has_add_permission(self, request, *args) -> bool:
        return self.has_module_permission(request) and super().has_add_permission(request, *args)

    def has_change_permission(self, request, obj=None) -> bool:
        return self.has_module_permission(request) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return self.has_module_permission(request) and super().has_delete_permission(request, obj)


def restrict(site: admin.AdminSite = admin.site) -> list[str]:
    """Re-register every model of SUPERUSER_ONLY_APPS on ``site`` with its own admin class
    made superuser-only (``SuperuserOnlyMixin``), the apps' admin modules imported first so
    that they have registered; and give ``site`` the dashboard's ``LoginForm``.

    Returns:
        The ``app_label.ModelName`` names restricted, sorted.
    """
    import axes.admin  # noqa: F401  (registers axes's pages)
    import django_celery_beat.admin  # noqa: F401  (registers the schedules' pages)

    site.login_form = LoginForm
    apps.get_app_config("axes").verbose_name = _("login protection")  # "Axes" in any language
    restricted = []
    for model, model_admin in list(site._registry.items()):
        if model._meta.app_label not in SUPERUSER_ONLY_APPS or isinstance(
                model_admin, SuperuserOnlyMixin):
            continue
        cls = type(model_admin)
        site.unregister(model)
        mixins = (SuperuserOnlyMixin, *IN_WORDS.get(model._meta.model_name, ()))
        site.register(model, type(f"SuperuserOnly{cls.__name__}", (*mixins, cls), {}))
        restricted.append(model._meta.label)
    return sorted(restricted)


class TaskNameFilter(admin.AllValuesFieldListFilter):
    """django-celery-beat's filter by task name, titled in the reader's language (the model
    names the field "Task Name" without translation)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.title = _("task")


def _tab_words(tab) -> str:
    return f"{crontab_words(tab)} ({tab.timezone})"


class ScheduleInWordsMixin:
    """The periodic tasks' list and page: the schedule in words of the reader's language
    ("daily at 03:00 (Asia/Shanghai)") instead of the crontab's text, in the list, the task's
    name, the crontab choices and beside them (``crontab_words``, also as a crontab is chosen:
    dashboard/crontab_words.js); the task filter titled in that language."""

    change_form_template = "admin/django_celery_beat/periodictask/change_form.html"

    def get_list_display(self, request):
        return [("schedule_words" if name == "scheduler" else name)
                for name in super().get_list_display(request)]

    def get_list_filter(self, request):
        return [((name, TaskNameFilter) if name == "task" else name)
                for name in super().get_list_filter(request)]

    def get_fieldsets(self, request, obj=None):
        return [(title, {**options, "fields": [("crontab_words" if name == "crontab_translation"
                                                else name) for name in options["fields"]]})
                for title, options in super().get_fieldsets(request, obj)]

    def get_readonly_fields(self, request, obj=None):
        return [("crontab_words" if name == "crontab_translation" else name)
                for name in super().get_readonly_fields(request, obj)]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if db_field.name == "crontab":
            field.label_from_instance = _tab_words
        return field

    def render_change_form(self, request, context, add=False, change=False, form_url="",
                           obj=None):
        context["crontab_words"] = {tab.pk: _tab_words(tab)
                                    for tab in CrontabSchedule.objects.all()}
        if obj is not None:
            context["subtitle"] = f"{obj.name}: {self.schedule_words(obj)}"
        return super().render_change_form(request, context, add, change, form_url, obj)

    @admin.display(description=_("schedule"))
    def schedule_words(self, task) -> str:
        if task.crontab is None:
            return str(task.scheduler)  # an interval, a clock time or a solar event
        return _tab_words(task.crontab)

    @admin.display(description=_("in words"))
    def crontab_words(self, task) -> str:
        return _tab_words(task.crontab) if task.crontab_id else "-"


class CrontabInWordsMixin:
    """The crontabs' list and page: the crontab's fields and time zone, then the schedule in
    words of the reader's language (``crawler.schedule.crontab_words``), instead of
    celery-beat's "(m/h/dM/MY/d)" text and its English "human readable" description."""

    def get_list_display(self, request):
        return ["fields_text", "in_words"]

    def get_fields(self, request, obj=None):
        return [("in_words" if name == "human_readable" else name)
                for name in super().get_fields(request, obj)]

    def get_readonly_fields(self, request, obj=None):
        return ["in_words"]

    @admin.display(description=_("crontab"))
    def fields_text(self, tab) -> str:
        return (f"{tab.minute} {tab.hour} {tab.day_of_month} {tab.month_of_year} "
                f"{tab.day_of_week} ({tab.timezone})")

    @admin.display(description=_("in words"))
    def in_words(self, tab) -> str:
        return crontab_words(tab) if tab.pk else ""


# Admin mixins putting celery-beat's schedules into words, by model name.
IN_WORDS = {"periodictask": (ScheduleInWordsMixin,), "crontabschedule": (CrontabInWordsMixin,)}


class LoginForm(AdminAuthenticationForm):
    """The admin's login form, with an error that fits every user: rights holders log in here
    too, and Django's message speaks of a "staff account"."""

    error_messages = {
        **AdminAuthenticationForm.error_messages,
        "invalid_login": _("The %(username)s or password is wrong. Both are case-sensitive."),
    }
