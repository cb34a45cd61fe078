"""Signal handlers: a deleted work leaves the index; roles exist after every migrate."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete, post_migrate
from django.dispatch import receiver

from .models import Work


@receiver(post_delete, sender=Work)
def _forget_deleted_work(sender, instance: Work, **kwargs) -> None:
    from . import services

    engine_id = instance.engine_id
    transaction.on_commit(lambda: services.forget_work(engine_id))


@receiver(post_migrate)
def _ensure_roles(sender, **kwargs) -> None:
    if sender.label != "core":
        return
    from . import roles

    roles.ensure_groups()
