"""Matches left without a site (recorded by the stored-page search) get one from the data
migration (crawler 0017), on the test PostgreSQL: their scan's site, else the site whose
allowed domains cover their host (the most specific), else the one site of their registered
domain; a host no site covers stays empty."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from lib.crawl.domains import site_covering


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_site_of_existing_matches():
    executor = MigrationExecutor(connection)
    before = [("crawler", "0016_archive_scans")]
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    holder = apps.get_model("core", "RightsHolder").objects.create(name="Press A")
    novel = apps.get_model("core", "Work").objects.create(holder=holder, reference="n",
                                                          title="西游记", length=9)
    site_model, match_model = apps.get_model("crawler", "TargetSite"), apps.get_model("crawler", "Match")
    wide = site_model.objects.create(name="wide", start_urls=["https://example.com/"],
                                     allowed_domains=["example.com"])
    news = site_model.objects.create(name="news", start_urls=["https://news.example.com/"],
                                     allowed_domains=["news.example.com"])
    other = site_model.objects.create(name="other", start_urls=["https://www.other.net/"],
                                      allowed_domains=["www.other.net"])
    scan = apps.get_model("crawler", "ScanRun").objects.create(site=other)

    def page(n, host, **fields):
        return match_model.objects.create(
            work=novel, page_id=f"{n:024x}", version_id=f"{n:024x}", url=f"https://{host}/{n}",
            domain=host, score=0.9, containment_page=0.5, containment_work=0.2, **fields).pk

    rows = {"scanned": page(1, "example.com", first_scan=scan),
            "sub": page(2, "m.news.example.com"), "apex": page(3, "example.com"),
            "registered": page(4, "cdn.other.net"), "nobody": page(5, "elsewhere.org"),
            "kept": page(6, "example.com", site=news)}

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    from crawler.models import Match

    got = dict(Match.objects.values_list("pk", "site_id"))
    assert {name: got[pk] for name, pk in rows.items()} == {
        "scanned": other.pk, "sub": news.pk, "apex": wide.pk, "registered": other.pk,
        "nobody": None, "kept": news.pk}


def test_site_covering_prefers_the_most_specific_domain():
    sites = {1: ["example.com"], 2: ["news.example.com"], 3: ["a.org", "b.org"]}
    assert site_covering("news.example.com", sites) == 2
    assert site_covering("x.news.example.com", sites) == 2
    assert site_covering("EXAMPLE.com.", sites) == 1
    assert site_covering("c.b.org", sites) == 3
    assert site_covering("c.org", sites) is None
