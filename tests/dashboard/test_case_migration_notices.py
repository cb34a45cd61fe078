"""The matches recorded before cases migrate into cases whose state follows their notices
(crawler 0010, then dashboard 0005), on the test PostgreSQL: a sent notice gives "notice
sent", a notice marked "content removed" gives "removed", a draft changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone


@pytest.mark.django_db(transaction=True)
def test_cases_of_sent_and_removed_notices_start_notice_sent_and_removed():
    assert connection.vendor == "postgresql"
    executor = MigrationExecutor(connection)
    before = [("crawler", "0009_case"), ("dashboard", "0004_notice_body")]
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    holder = apps.get_model("core", "RightsHolder").objects.create(name="Press A")
    novel = apps.get_model("core", "Work").objects.create(holder=holder, reference="n",
                                                          title="西游记", length=9)
    match_model = apps.get_model("crawler", "Match")
    notice_model = apps.get_model("dashboard", "TakedownNotice")
    sent_at = timezone.now() - timedelta(days=10)
    removed_at = sent_at + timedelta(days=3)

    def page(n, host, **fields):
        return match_model.objects.create(
            work=novel, page_id=f"{n:024x}", version_id=f"{n:024x}", url=f"https://{host}/{n}",
            domain=host, score=0.9, containment_page=0.5, containment_work=0.2,
            review_status="confirmed", **fields)

    def notice(host, status, pages, **dates):
        made = notice_model.objects.create(holder=holder, domain=host, status=status, **dates)
        made.matches.set(pages)
        return made

    sent = notice("sent.example.com", "sent", [page(1, "sent.example.com"),
                                               page(2, "m.sent.example.com")], sent_at=sent_at)
    notice("gone.example.net", "removed", [page(3, "gone.example.net")], sent_at=sent_at,
           removed_at=removed_at)
    # one page taken down, another of the same case still up and cited by no notice
    notice("half.example.org", "removed", [page(4, "half.example.org")], sent_at=sent_at,
           removed_at=removed_at)
    page(5, "www.half.example.org")
    notice("draft.example.cn", "drafted", [page(6, "draft.example.cn")])

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    from core import notes
    from crawler.models import Case

    cases = {c.domain: c for c in Case.objects.all()}
    assert {domain: c.state for domain, c in cases.items()} == {
        "example.com": "notice_sent", "example.net": "removed", "example.org": "notice_sent",
        "example.cn": "confirmed"}
    assert cases["example.com"].notice_sent_at == sent_at
    assert cases["example.net"].notice_sent_at == sent_at
    assert cases["example.net"].removed_at == removed_at
    assert cases["example.org"].removed_at is None
    assert cases["example.cn"].notice_sent_at is None
    with timezone.override("UTC"):
        assert notes.in_english(cases["example.com"].state_reason) == (
            f"Notice #{sent.pk} to sent.example.com sent")
