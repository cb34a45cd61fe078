"""Signal handlers: a deleted work leaves the index; an indexed work is checked for rights
conflicts with other holders' works; roles exist after every migrate; each Celery task reads
content types afresh."""

from __future__ import annotations

import logging

from celery.signals import task_prerun
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models.signals import post_delete, post_migrate
from django.dispatch import receiver

from . import ingestion, roles
from .conflict_actions import do_flag_rights_conflicts
from .connections import storage_errors
from .ingestion import work_indexed
from .models import Work

log = logging.getLogger(__name__)


@receiver(post_delete, sender=Work)
def _forget_deleted_work(sender, instance: Work, **kwargs) -> None:
    engine_id = instance.engine_id
    transaction.on_commit(lambda: ingestion.forget_work(engine_id))


@receiver(post_migrate)
def _ensure_roles(sender, **kwargs) -> None:
    # Each app's permissions exist only after its own post_migrate (auth's handler runs first):
    # refresh the groups after every app they draw permissions from, not only after core.
    if sender.label in roles.ROLE_APPS:
        roles.ensure_groups()


@receiver(work_indexed)
def _flag_conflicts(sender, work_id: int, **kwargs) -> None:
    try:
        do_flag_rights_conflicts(work_id)
    except storage_errors() as exc:  # the work stays indexed; a later ingestion checks again
        log.warning("rights conflict check of work %s skipped: %s", work_id, exc)


@receiver(task_prerun)
def _fresh_content_types(**kwargs) -> None:
    # The audit trail names its targets by content type. A worker process outlives the
    # content-type rows it cached when the database is flushed and filled again (the test
    # suite's transactional tests): its events would name another model. One query per model
    # a task audits.
    ContentType.objects.clear_cache()
