"""The daily digest's beat entry: task ``alerts.send_digests`` every day at
settings.ALERT_DIGEST_HOUR:00 in TIME_ZONE (staff may change the time in Periodic tasks)."""

from django.conf import settings
from django.db import migrations

NAME = "alerts: daily digest"


def create(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute="0", hour=str(settings.ALERT_DIGEST_HOUR), day_of_week="*", day_of_month="*",
        month_of_year="*", timezone=settings.TIME_ZONE)
    PeriodicTask.objects.get_or_create(name=NAME, defaults={
        "task": "alerts.send_digests", "crontab": crontab, "queue": settings.QUEUE_DEFAULT,
        "description": "Daily digest of new matches (alerts)"})


def remove(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("alerts", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(create, remove)]
