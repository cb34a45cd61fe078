"""The core app's tasks run on the ingest queue: their names (kept from before the app moved,
``tracker.core.tasks.*``) are the names the routes of settings.CELERY_TASK_ROUTES match, so a
renamed task cannot fall silently to the default queue, which ingestion workers may not read."""

from __future__ import annotations

import pytest
from celery import current_app
from django.conf import settings

from core import tasks

CORE_TASKS = [tasks.ingest_work, tasks.remove_work, tasks.import_archive, tasks.read_upload]


@pytest.mark.parametrize("task", CORE_TASKS, ids=lambda task: task.name)
def test_a_core_task_is_registered_under_its_name_and_routed_to_the_ingest_queue(task):
    assert current_app.tasks[task.name].__module__ == "core.tasks"
    route = current_app.amqp.router.route({}, task.name)
    assert route["queue"].name == settings.QUEUE_INGEST
