"""Hand the crawler's four tables to the crawler app (part 1 of 3; crawler 0001 and core 0005
follow, with dashboard 0002 between them).

The tables are renamed to the crawler app's names (core_match -> crawler_match ...), rows and ids
unchanged: a rename keeps every foreign key pointing at them (the takedown notices' matches, the
audit trail's links) on SQLite and PostgreSQL alike. The content types move with them, so the
permissions that groups hold (``core.roles``) keep their rows and ids.
"""

from django.db import migrations

from core.migration_helpers import move_content_types

MOVED = ("targetsite", "scanrun", "match", "whitelisteddomain")


def forwards(apps, schema_editor):
    move_content_types(apps, "core", "crawler", MOVED)


def backwards(apps, schema_editor):
    move_content_types(apps, "crawler", "core", MOVED)


class Migration(migrations.Migration):

    dependencies = [
        ("core", "0003_scanrun_stage_seconds"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        *[migrations.AlterModelTable(name=model, table=f"crawler_{model}") for model in MOVED],
        migrations.RunPython(forwards, backwards),
    ]
