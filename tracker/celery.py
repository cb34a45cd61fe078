"""The Celery application: broker and options come from Django settings (``CELERY_*``).

Queues and task routes are named in settings (``QUEUE_*``, ``WORKER_QUEUES``,
``CELERY_TASK_ROUTES``): fingerprinting works, crawling, matching. Start a worker with
``celery -A tracker worker -Q <queues>`` and beat with ``celery -A tracker beat``.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings")

app = Celery("tracker")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
