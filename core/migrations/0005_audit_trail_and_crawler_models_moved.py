"""The audit trail joins the core app, and the crawler's four models leave it (part 3 of 3).

State only for both: the table core_auditevent was made from dashboard_auditevent by dashboard
0002, and the crawler's tables belong to the crawler app since crawler 0001.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("core", "0004_move_crawler_tables"),
        ("dashboard", "0002_move_audit_trail"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditEvent",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("sequence", models.PositiveBigIntegerField(editable=False, unique=True, verbose_name="sequence")),
                        ("at", models.DateTimeField(db_index=True, default=django.utils.timezone.now, editable=False, verbose_name="time")),
                        ("kind", models.CharField(choices=[("review", "review decision"), ("notice", "takedown notice"), ("work", "work"), ("site", "target site"), ("scan", "scan"), ("whitelist", "whitelisted domain")], max_length=16, verbose_name="kind")),
                        ("username", models.CharField(max_length=150, verbose_name="decided by")),
                        ("target_id", models.PositiveBigIntegerField(blank=True, null=True, verbose_name="subject id")),
                        ("subject", models.CharField(max_length=2000, verbose_name="subject")),
                        ("old_state", models.CharField(max_length=32, verbose_name="from")),
                        ("new_state", models.CharField(max_length=32, verbose_name="to")),
                        ("reason", models.TextField(blank=True, verbose_name="reason")),
                        ("digest", models.CharField(editable=False, max_length=64, verbose_name="SHA-256")),
                        ("holder", models.ForeignKey(db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="core.rightsholder", verbose_name="rights holder")),
                        ("target_type", models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="contenttypes.contenttype", verbose_name="subject type")),
                        ("user", models.ForeignKey(db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to=settings.AUTH_USER_MODEL, verbose_name="user")),
                    ],
                    options={
                        "verbose_name": "audit event",
                        "verbose_name_plural": "audit trail",
                        "ordering": ["-sequence"],
                    },
                ),
                migrations.DeleteModel(name="Match"),
                migrations.DeleteModel(name="ScanRun"),
                migrations.DeleteModel(name="TargetSite"),
                migrations.DeleteModel(name="WhitelistedDomain"),
            ],
            database_operations=[],
        ),
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(fields=["target_type", "target_id"], name="audit_target"),
        ),
    ]
