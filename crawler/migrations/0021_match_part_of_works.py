from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('crawler', '0020_target_site_accept_invalid_certificate'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='part_of_works',
            field=models.JSONField(blank=True, default=list, verbose_name='part of works'),
        ),
        migrations.AddField(
            model_name='match',
            name='part_works',
            field=models.JSONField(blank=True, default=list, verbose_name='works inside it'),
        ),
    ]
