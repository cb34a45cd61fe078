"""Send a Celery task by name once the current database transaction commits.

Actions queue their follow-up tasks through ``queue_after_commit``: a task never leaves before the
rows it reads are committed (outside a transaction it leaves at once), and naming the task
instead of importing it keeps task modules, which import the actions they call, out of an
import circle with them. Routing by name follows settings.CELERY_TASK_ROUTES.
"""

from __future__ import annotations

from celery import current_app
from django.db import transaction


def queue_after_commit(task_name: str, *args, countdown: float | None = None) -> None:
    """Send the Celery task registered as ``task_name`` with positional ``args`` (JSON values)
    after ``countdown`` seconds (None: at once), when the current transaction commits."""
    transaction.on_commit(
        lambda: current_app.send_task(task_name, args=args, countdown=countdown))
