"""What `make run`'s demo offers to try every kind of takedown contact: the demo reprint site
publishes a security.txt, a contact page and an ICP filing number; the second demo site sits on
the demo platform of the registry (localhost) and its scan opens a case filed by complaint
package; the demo RDAP server answers for both (the registrar of localhost, the hosting
provider of 127.0.0.1). Real crawler, PostgreSQL, Redis and, for the scan, a Celery worker."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.utils import timezone

from crawler import demo
from lib.crawl import rdap_server

WORKS = Path(__file__).resolve().parents[2] / "demo" / "works"


def _work():
    from core.engine import get_engine
    from core.models import RightsHolder, Work

    text = (WORKS / "xiyouji-01-03.txt").read_text(encoding="utf-8")
    holder = RightsHolder.objects.create(name="示例出版社")
    work = Work.objects.create(holder=holder, reference="XYJ", title="西游记", length=len(text),
                               status="indexed", indexed_at=timezone.now())
    get_engine().add_work(work.engine_id, text)
    return work


def _page(work, url: str):
    from crawler.cases import open_case
    from crawler.models import Match

    host = url.split("/")[2].split(":")[0]
    case, _ = open_case(work, host)
    Match.objects.create(work=work, page_id=url[-24:].rjust(24, "0"), version_id="b" * 24,
                         url=url, domain=host, title="第一回", score=0.9, containment_page=0.8,
                         containment_work=0.1, case=case, passages=[], first_seen=timezone.now(),
                         last_seen=timezone.now())
    return case


@pytest.mark.django_db(transaction=True)
def test_the_demo_platform_site_opens_a_case_on_the_platform(settled_worker, platform_stores,
                                                             monkeypatch, settings):
    from crawler.models import Case
    from crawler.platform_registry import platform_of_case

    settings.PLATFORM_REGISTRY_DEMO = True
    work = _work()
    monkeypatch.setenv("DEMO_PLATFORM_PORT", "0")
    out = io.StringIO()
    figures = demo.scan_demo_platform(out)
    summary = json.loads(out.getvalue().split(":\n", 1)[1])
    assert summary["status"] == "finished" and figures["matches found"] == 1
    case = Case.objects.get(work=work)
    assert case.domain == "localhost"
    assert case.pages.get().url.endswith("/article/xiyouji-01.html")
    assert platform_of_case(case).name_zh == "示例内容平台"


def test_every_kind_of_suggestion_on_the_demo_sites(db, platform_stores, settings):
    from crawler import contacts, tasks
    from crawler.models import Case, ContactSuggestion

    site = demo.serve()
    rdap = rdap_server.serve(demo=True)
    settings.RDAP_BOOTSTRAP_URL = rdap.url + "/"
    try:
        work = _work()
        reprint = _page(work, site.url + "/reprint/xiyouji-01.html")
        platform = _page(work, site.url.replace("127.0.0.1", "localhost")
                         + "/article/xiyouji-01.html")
        for case in (reprint, platform):
            contact = contacts.do_search_contacts(case.domain, None)
            tasks.find_contacts.apply(args=[contact.pk])
            tasks.find_rdap_contacts.apply(args=[contact.pk])
    finally:
        site.stop()
        rdap.stop()
    found = {(s.contact.domain, s.address, s.source)
             for s in ContactSuggestion.objects.select_related("contact")}
    assert {("127.0.0.1", "security@reprint.example", "security_txt"),
            ("127.0.0.1", "copyright@reprint.example", "mailto"),
            ("127.0.0.1", "business@reprint.example", "contact_page"),
            ("127.0.0.1", "abuse@hosting.example", "rdap_host"),
            ("localhost", "abuse@registrar.example", "rdap_registrar"),
            ("localhost", "abuse@hosting.example", "rdap_host")} <= found
    assert Case.objects.get(pk=reprint.pk).icp_filing == "京ICP备00000001号-1"
