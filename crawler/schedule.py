"""Scheduled scans with django-celery-beat: one PeriodicTask per target site, kept in step with it.

When a TargetSite is saved, its PeriodicTask is created (default: every day at
``settings.SCAN_DEFAULT_HOUR``:00 in the platform's time zone, a crontab so scans run at a quiet hour) or
updated (enabled flag, arguments). Staff set the timing on the site's own form as a ``Timing``
("daily at 03:00", "weekly on Monday at 03:00", "hourly at minute 15"), which ``apply`` turns
into the task's crontab; a superuser's other crontab, set on celery-beat's screens, is kept.
Deleting the site deletes its task.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from cron_descriptor import (
    FormatException,
    MissingFieldException,
    Options,
    WrongArgumentException,
    get_description,
)
from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from crawler.models import TargetSite
from lib.text.untrusted import ascii_int

DAILY, WEEKLY, HOURLY = "daily", "weekly", "hourly"
FREQUENCIES = [(DAILY, gettext_lazy("daily")), (WEEKLY, gettext_lazy("weekly")),
               (HOURLY, gettext_lazy("hourly"))]
# Crontab day-of-week numbers (celery's: 0 is Sunday), listed from Monday.
WEEKDAYS = [(1, gettext_lazy("Monday")), (2, gettext_lazy("Tuesday")),
            (3, gettext_lazy("Wednesday")), (4, gettext_lazy("Thursday")),
            (5, gettext_lazy("Friday")), (6, gettext_lazy("Saturday")),
            (0, gettext_lazy("Sunday"))]


@dataclass(frozen=True)
class Timing:
    """When a site is scanned.

    Attributes:
        frequency: DAILY, WEEKLY or HOURLY.
        hour: 0..23, in the platform's time zone (ignored when hourly).
        minute: 0..59.
        weekday: crontab day of week, 0 (Sunday)..6 (used when weekly).
    """

    frequency: str = DAILY
    hour: int = 0
    minute: int = 0
    weekday: int = 1

    def crontab(self) -> dict[str, str]:
        """The CrontabSchedule fields (str values) of this timing, in ``settings.TIME_ZONE``."""
        hourly = self.frequency == HOURLY
        return {"minute": str(self.minute), "hour": "*" if hourly else str(self.hour),
                "day_of_week": str(self.weekday) if self.frequency == WEEKLY else "*",
                "day_of_month": "*", "month_of_year": "*"}

    def describe(self) -> str:
        """The timing in words, in the active language: "daily at 03:00"."""
        at = f"{self.hour:02d}:{self.minute:02d}"
        if self.frequency == HOURLY:
            return _("hourly at minute %(minute)02d") % {"minute": self.minute}
        if self.frequency == WEEKLY:
            return _("weekly on %(day)s at %(time)s") % {
                "day": dict(WEEKDAYS)[self.weekday], "time": at}
        return _("daily at %(time)s") % {"time": at}


def default_timing() -> Timing:
    """A new site's timing: daily at ``settings.SCAN_DEFAULT_HOUR``:00."""
    return Timing(DAILY, settings.SCAN_DEFAULT_HOUR, 0)


def read(site) -> Timing | None:
    """The Timing of ``site``'s task; the default for a site without one; None for a crontab
    that is none of daily, weekly or hourly (set by a superuser on celery-beat's screens)."""
    task = site.periodic_task if site.pk else None
    if task is None or task.crontab is None:
        return default_timing() if task is None else None
    return timing_of(task.crontab)


def timing_of(tab) -> Timing | None:
    """The Timing of a django_celery_beat CrontabSchedule ``tab``; None for a crontab that is
    none of daily, weekly or hourly."""
    minute, hour, weekday = (ascii_int(tab.minute), ascii_int(tab.hour),
                             ascii_int(tab.day_of_week))
    if tab.day_of_month != "*" or tab.month_of_year != "*" or minute is None:
        return None
    if tab.hour == "*" and tab.day_of_week == "*":
        return Timing(HOURLY, 0, minute)
    if hour is None:
        return None
    if tab.day_of_week == "*":
        return Timing(DAILY, hour, minute)
    if weekday in dict(WEEKDAYS):
        return Timing(WEEKLY, hour, minute, weekday)
    return None


def crontab_words(tab) -> str:
    """A django_celery_beat CrontabSchedule ``tab`` in words of the active language: the
    project's wording for daily, weekly and hourly ("daily at 03:00"), else cron-descriptor's
    description in Chinese or English; the crontab's own five fields when it cannot say."""
    timing = timing_of(tab)
    if timing is not None:
        return timing.describe()
    fields = f"{tab.minute} {tab.hour} {tab.day_of_month} {tab.month_of_year} {tab.day_of_week}"
    options = Options()
    options.locale_code = "zh_CN" if (get_language() or "").startswith("zh") else "en_US"
    options.use_24hour_time_format = True
    try:
        return get_description(fields, options)
    except (FormatException, MissingFieldException, WrongArgumentException):
        return fields


def apply(site, timing: Timing) -> object:
    """Give ``site``'s PeriodicTask (created by ``sync`` if missing) the crontab of ``timing``.

    Returns:
        The django_celery_beat PeriodicTask.
    """
    task = site.periodic_task or sync(site)
    task.crontab, _created = CrontabSchedule.objects.get_or_create(
        timezone=settings.TIME_ZONE, **timing.crontab())
    task.save()
    return task

TASK_NAME = "crawler.start_scan"


def sync(site) -> object:
    """Create or update the PeriodicTask of ``site`` (a TargetSite with a pk).

    Returns the django_celery_beat PeriodicTask. Its name is "scan <site name> (#<id>)", its
    task ``crawler.start_scan`` with args [site id] and kwargs {"trigger": "schedule"}.
    """
    task = site.periodic_task
    if task is None:
        crontab, _created = CrontabSchedule.objects.get_or_create(
            timezone=settings.TIME_ZONE, **default_timing().crontab())
        task = PeriodicTask(crontab=crontab)
    task.name = f"scan {site.name} (#{site.pk})"[:200]
    task.task = TASK_NAME
    task.args = json.dumps([site.pk])
    task.kwargs = json.dumps({"trigger": "schedule"})
    task.queue = settings.QUEUE_CRAWL
    task.enabled = site.enabled
    task.description = f"Scheduled scan of target site {site.name}"
    task.save()
    if site.periodic_task_id != task.pk:
        TargetSite.objects.filter(pk=site.pk).update(periodic_task=task)
        site.periodic_task = task
    return task


def _on_save(sender, instance, raw=False, **kwargs):
    if not raw:
        sync(instance)


def _on_delete(sender, instance, **kwargs):
    if instance.periodic_task_id:
        PeriodicTask.objects.filter(pk=instance.periodic_task_id).delete()


def connect() -> None:
    """Connect the TargetSite post_save / post_delete handlers (called by CrawlerConfig.ready)."""
    post_save.connect(_on_save, sender=TargetSite, dispatch_uid="crawler.schedule.save")
    post_delete.connect(_on_delete, sender=TargetSite, dispatch_uid="crawler.schedule.delete")


def next_run(site, now):
    """When beat next starts a scan of ``site`` (an aware datetime), after ``now`` (aware);
    None when the site or its schedule is disabled or it has none."""
    task = site.periodic_task if site.pk else None
    if not site.enabled or task is None or not task.enabled or task.crontab is None:
        return None
    return now + task.crontab.schedule.remaining_estimate(now)
