"""The Celery application: broker and options come from Django settings (``CELERY_*``).

Queues: ``default``, ``ingest`` (works' fingerprinting), ``crawl`` and ``match`` (the crawler);
``tracker.workers.ALL_QUEUES`` lists them. Start a worker with
``celery -A tracker worker -Q default,ingest,crawl,match`` and beat with ``celery -A tracker beat``.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings")

app = Celery("tracker")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
