"""Point the takedown notices at the crawler's matches, and hand the audit trail to the core app.

The notices' match table (dashboard_takedownnotice_matches) keeps its rows: its match_id column
already points at the renamed crawler_match (core 0004); only Django's state changes.

The audit trail moves down to the core app (every app's actions write it): its two links to a
match and a notice become one generic link (content type + id), filled from the old columns
before they are dropped; the table is renamed core_auditevent and its content type relabelled
core.auditevent. Digests are untouched: ``AuditEvent.content`` still names a match or notice
target under the keys "match" and "notice", so the chain verifies as before.
"""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import F

from core.migration_helpers import move_content_types

# (old link column, app label and model of its target)
LINKS = (("match", "crawler", "match"), ("notice", "dashboard", "takedownnotice"))


def links_to_target(apps, schema_editor):
    content_type = apps.get_model("contenttypes", "ContentType")
    event = apps.get_model("dashboard", "AuditEvent")
    for column, app_label, model in LINKS:
        events = event.objects.filter(**{f"{column}__isnull": False})
        if events.exists():
            target_type, _ = content_type.objects.get_or_create(app_label=app_label, model=model)
            events.update(target_type=target_type, target_id=F(f"{column}_id"))


def target_to_links(apps, schema_editor):
    content_type = apps.get_model("contenttypes", "ContentType")
    event = apps.get_model("dashboard", "AuditEvent")
    for column, app_label, model in LINKS:
        target_type = content_type.objects.filter(app_label=app_label, model=model).first()
        if target_type is not None:
            event.objects.filter(target_type=target_type).update(**{f"{column}_id": F("target_id")})


def content_type_to_core(apps, schema_editor):
    move_content_types(apps, "dashboard", "core", ["auditevent"])


def content_type_to_dashboard(apps, schema_editor):
    move_content_types(apps, "core", "dashboard", ["auditevent"])


class Migration(migrations.Migration):

    dependencies = [
        ("dashboard", "0001_initial"),
        ("crawler", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="takedownnotice",
                    name="matches",
                    field=models.ManyToManyField(related_name="takedown_notices",
                                                 to="crawler.match", verbose_name="matches"),
                ),
                migrations.AlterField(
                    model_name="auditevent",
                    name="match",
                    field=models.ForeignKey(blank=True, db_constraint=False, null=True,
                                            on_delete=django.db.models.deletion.DO_NOTHING,
                                            related_name="audit_events", to="crawler.match",
                                            verbose_name="match"),
                ),
            ],
            database_operations=[],
        ),
        migrations.AddField(
            model_name="auditevent",
            name="target_type",
            field=models.ForeignKey(blank=True, db_constraint=False, null=True,
                                    on_delete=django.db.models.deletion.DO_NOTHING,
                                    related_name="+", to="contenttypes.contenttype",
                                    verbose_name="subject type"),
        ),
        migrations.AddField(
            model_name="auditevent",
            name="target_id",
            field=models.PositiveBigIntegerField(blank=True, null=True, verbose_name="subject id"),
        ),
        migrations.RunPython(links_to_target, target_to_links),
        migrations.RemoveField(model_name="auditevent", name="match"),
        migrations.RemoveField(model_name="auditevent", name="notice"),
        migrations.AlterModelTable(name="auditevent", table="core_auditevent"),
        migrations.RunPython(content_type_to_core, content_type_to_dashboard),
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="AuditEvent")],
            database_operations=[],
        ),
    ]
