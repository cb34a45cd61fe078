"""Functions the migrations share (kept out of the migration files so that none is copied)."""

from __future__ import annotations


def move_content_types(apps, from_app: str, to_app: str, models) -> None:
    """Relabel the content types of ``models`` from app ``from_app`` to app ``to_app``.

    Moving a model to another app keeps its content type row (and so its id, its permissions
    and the groups holding them) this way. A content type already made for ``to_app`` (by a
    ``migrate`` run before the move, which creates them for every model it knows) is deleted
    first, with its permissions, so that the relabelled one takes its place.

    Args:
        apps: the migration's historical app registry.
        from_app, to_app: app labels, e.g. "core" and "crawler".
        models: lower-case model names, e.g. ["match"].
    """
    content_type = apps.get_model("contenttypes", "ContentType")
    for model in models:
        old = content_type.objects.filter(app_label=from_app, model=model).first()
        if old is None:
            continue
        content_type.objects.filter(app_label=to_app, model=model).delete()
        old.app_label = to_app
        old.save(update_fields=["app_label"])
