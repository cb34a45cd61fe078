"""The crawler app's models: target sites, scan runs, matches and whitelisted domains (part 2 of
3 of the move from the core app).

State only: the tables exist already, renamed to these names by core 0004.
"""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

import crawler.models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("core", "0004_move_crawler_tables"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='TargetSite',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=200, unique=True, verbose_name='name')),
                        ('start_urls', models.JSONField(default=list, help_text='Pages, sitemaps or RSS/Atom feeds, one URL each.', validators=[crawler.models._validate_start_urls], verbose_name='start URLs')),
                        ('allowed_domains', models.JSONField(blank=True, default=list, validators=[crawler.models._validate_domains], verbose_name='allowed domains')),
                        ('path_patterns', models.JSONField(blank=True, default=list, validators=[crawler.models._validate_patterns], verbose_name='path patterns')),
                        ('max_depth', models.PositiveSmallIntegerField(default=3, verbose_name='maximum depth')),
                        ('max_pages', models.PositiveIntegerField(default=500, verbose_name='maximum pages per scan')),
                        ('delay_seconds', models.FloatField(default=2.0, verbose_name='politeness delay (seconds)')),
                        ('enabled', models.BooleanField(default=True, verbose_name='enabled')),
                        ('notes', models.TextField(blank=True, verbose_name='notes')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                        ('updated_at', models.DateTimeField(auto_now=True, verbose_name='updated')),
                        ('periodic_task', models.OneToOneField(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='target_site', to='django_celery_beat.periodictask', verbose_name='schedule')),
                    ],
                    options={
                        'verbose_name': 'target site',
                        'verbose_name_plural': 'target sites',
                        'ordering': ['name'],
                    },
                ),
                migrations.CreateModel(
                    name='ScanRun',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('status', models.CharField(choices=[('running', 'running'), ('finished', 'finished'), ('failed', 'failed'), ('cancelled', 'cancelled'), ('skipped', 'skipped')], db_index=True, default='running', max_length=16, verbose_name='status')),
                        ('trigger', models.CharField(default='schedule', max_length=16, verbose_name='trigger')),
                        ('started_at', models.DateTimeField(db_index=True, default=django.utils.timezone.now, verbose_name='started')),
                        ('finished_at', models.DateTimeField(blank=True, null=True, verbose_name='finished')),
                        ('max_pages', models.PositiveIntegerField(default=0, verbose_name='page limit')),
                        ('urls_seen', models.PositiveIntegerField(default=0, verbose_name='URLs seen')),
                        ('pages_fetched', models.PositiveIntegerField(default=0, verbose_name='pages fetched')),
                        ('pages_new', models.PositiveIntegerField(default=0, verbose_name='new pages')),
                        ('pages_changed', models.PositiveIntegerField(default=0, verbose_name='changed pages')),
                        ('pages_unchanged', models.PositiveIntegerField(default=0, verbose_name='unchanged pages')),
                        ('errors', models.JSONField(blank=True, default=dict, verbose_name='errors by kind')),
                        ('matches_found', models.PositiveIntegerField(default=0, verbose_name='matches found')),
                        ('matches_new', models.PositiveIntegerField(default=0, verbose_name='new matches')),
                        ('stage_seconds', models.JSONField(blank=True, default=dict, verbose_name='time per stage (seconds)')),
                        ('note', models.TextField(blank=True, verbose_name='note')),
                        ('site', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='scans', to='crawler.targetsite', verbose_name='site')),
                    ],
                    options={
                        'verbose_name': 'scan run',
                        'verbose_name_plural': 'scan runs',
                        'ordering': ['-started_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='Match',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('page_id', models.CharField(db_index=True, max_length=24, verbose_name='page id')),
                        ('version_id', models.CharField(max_length=24, verbose_name='page version id')),
                        ('url', models.CharField(max_length=2048, verbose_name='URL')),
                        ('domain', models.CharField(db_index=True, max_length=255, verbose_name='domain')),
                        ('title', models.CharField(blank=True, max_length=500, verbose_name='page title')),
                        ('score', models.FloatField(verbose_name='score')),
                        ('containment_page', models.FloatField(verbose_name='share of the page')),
                        ('containment_work', models.FloatField(verbose_name='share of the work')),
                        ('passages', models.JSONField(default=list, verbose_name='passages')),
                        ('section', models.CharField(blank=True, max_length=500, verbose_name='chapter')),
                        ('first_seen', models.DateTimeField(db_index=True, default=django.utils.timezone.now, verbose_name='first seen')),
                        ('last_seen', models.DateTimeField(default=django.utils.timezone.now, verbose_name='last seen')),
                        ('still_matching', models.BooleanField(default=True, verbose_name='still matching')),
                        ('review_status', models.CharField(choices=[('new', 'new'), ('confirmed', 'confirmed infringement'), ('false_positive', 'false positive'), ('licensed', 'licensed')], db_index=True, default='new', max_length=16, verbose_name='review status')),
                        ('work', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='matches', to='core.work', verbose_name='work')),
                        ('first_scan', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='crawler.scanrun', verbose_name='first scan')),
                        ('last_scan', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='crawler.scanrun', verbose_name='last scan')),
                        ('site', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='matches', to='crawler.targetsite', verbose_name='site')),
                    ],
                    options={
                        'verbose_name': 'match',
                        'verbose_name_plural': 'matches',
                        'ordering': ['-first_seen', '-id'],
                        'constraints': [models.UniqueConstraint(fields=('page_id', 'work'), name='match_unique_page_work')],
                    },
                ),
                migrations.CreateModel(
                    name='WhitelistedDomain',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('domain', models.CharField(help_text='Host name without scheme, e.g. news.example.com', max_length=255, verbose_name='domain')),
                        ('note', models.CharField(blank=True, max_length=500, verbose_name='note')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                        ('holder', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='whitelisted_domains', to='core.rightsholder', verbose_name='rights holder')),
                    ],
                    options={
                        'verbose_name': 'whitelisted domain',
                        'verbose_name_plural': 'whitelisted domains',
                        'ordering': ['holder', 'domain'],
                        'constraints': [models.UniqueConstraint(fields=('holder', 'domain'), name='whitelist_domain_unique_per_holder')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
