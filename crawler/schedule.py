"""Daily scans with django-celery-beat: one PeriodicTask per target site, kept in step with it.

When a TargetSite is saved, its PeriodicTask is created (default: every day at
``settings.SCAN_DEFAULT_HOUR``:00 in the platform's time zone, a crontab so scans run at a quiet hour) or
updated (enabled flag, arguments); staff change the timing in the admin's Periodic tasks and
it is kept. Deleting the site deletes its task.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.db.models.signals import post_delete, post_save

TASK_NAME = "crawler.start_scan"


def sync(site) -> object:
    """Create or update the PeriodicTask of ``site`` (a TargetSite with a pk).

    Returns the django_celery_beat PeriodicTask. Its name is "scan <site name> (#<id>)", its
    task ``crawler.start_scan`` with args [site id] and kwargs {"trigger": "schedule"}.
    """
    from django_celery_beat.models import CrontabSchedule, PeriodicTask

    from crawler.models import TargetSite

    task = site.periodic_task
    if task is None:
        crontab, _ = CrontabSchedule.objects.get_or_create(
            minute="0", hour=str(settings.SCAN_DEFAULT_HOUR), day_of_week="*", day_of_month="*",
            month_of_year="*", timezone=settings.TIME_ZONE)
        task = PeriodicTask(crontab=crontab)
    task.name = f"scan {site.name} (#{site.pk})"[:200]
    task.task = TASK_NAME
    task.args = json.dumps([site.pk])
    task.kwargs = json.dumps({"trigger": "schedule"})
    task.queue = settings.QUEUE_CRAWL
    task.enabled = site.enabled
    task.description = f"Daily scan of target site {site.name}"
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
        from django_celery_beat.models import PeriodicTask

        PeriodicTask.objects.filter(pk=instance.periodic_task_id).delete()


def connect() -> None:
    """Connect the TargetSite post_save / post_delete handlers (called by CrawlerConfig.ready)."""
    from crawler.models import TargetSite

    post_save.connect(_on_save, sender=TargetSite, dispatch_uid="crawler.schedule.save")
    post_delete.connect(_on_delete, sender=TargetSite, dispatch_uid="crawler.schedule.delete")
