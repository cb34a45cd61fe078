"""Fill ``Match.site`` where it was left empty: matches recorded by the stored-page search
(no scan) had none. A match takes its first or last scan's site, else the site whose allowed
domains cover its host (``lib.crawl.domains.site_covering``)."""

from django.db import migrations

from lib.crawl.domains import site_covering


def fill_sites(apps, schema_editor):
    Match = apps.get_model("crawler", "Match")
    TargetSite = apps.get_model("crawler", "TargetSite")
    sites = dict(TargetSite.objects.values_list("pk", "allowed_domains"))
    by_site: dict[int, list[int]] = {}
    for pk, domain, first, last in Match.objects.filter(site__isnull=True).values_list(
            "pk", "domain", "first_scan__site_id", "last_scan__site_id").iterator():
        site_id = first or last or site_covering(domain, sites)
        if site_id is not None:
            by_site.setdefault(site_id, []).append(pk)
    for site_id, pks in by_site.items():
        Match.objects.filter(pk__in=pks).update(site_id=site_id)


class Migration(migrations.Migration):

    dependencies = [("crawler", "0016_archive_scans")]

    operations = [migrations.RunPython(fill_sites, migrations.RunPython.noop)]
