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
    from . import roles

    # Each app's permissions exist only after its own post_migrate (auth's handler runs first):
    # refresh the groups after every app they draw permissions from, not only after core.
    if sender.label in roles.ROLE_APPS:
        roles.ensure_groups()
