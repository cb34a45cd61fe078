"""A database made before the crawler's models and the audit trail moved upgrades with its records.

The test migrates the test database back to the last migrations of that layout (core 0003,
dashboard 0001, no crawler migration), fills it through the historical models of that state
(works, a scheduled site, scans, matches, a whitelisted domain, a takedown notice citing a
match, a chained audit trail, a group holding match permissions), migrates forward and reads
the same records through today's models. Only the ORM and Django's migration executor are used,
so it runs unchanged on SQLite and PostgreSQL.
"""

from __future__ import annotations

import datetime
import hashlib
import json

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

OLD_LAYOUT = [("core", "0003_scanrun_stage_seconds"), ("dashboard", "0001_initial")]
AT = datetime.datetime(2026, 11, 20, 8, 30, 15, 123456, tzinfo=datetime.UTC)


def _old_digest(previous: str, event: dict) -> str:
    """The digest as the trail computed it before the move (its content had "match" and
    "notice" keys)."""
    payload = previous + json.dumps(event, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _fill_old_database(apps) -> dict:
    """Create the records of a small deployment with the old layout's models; return their ids."""
    user = apps.get_model("auth", "User").objects.create(username="reviewer", is_staff=True)
    group = apps.get_model("auth", "Group").objects.create(name="Reviewers")
    old_perm = apps.get_model("auth", "Permission").objects.get(
        content_type__app_label="core", codename="change_match")
    group.permissions.add(old_perm)
    user.groups.add(group)
    holder = apps.get_model("core", "RightsHolder").objects.create(name="Press A")
    work = apps.get_model("core", "Work").objects.create(
        holder=holder, reference="isbn-1", title="西游记", length=21000,
        sections=[{"title": "第一回", "start": 0, "end": 7000}], status="indexed")
    interval = apps.get_model("django_celery_beat", "IntervalSchedule").objects.create(
        every=1, period="days")
    task = apps.get_model("django_celery_beat", "PeriodicTask").objects.create(
        name="scan site 1", task="crawler.tasks.start_scheduled_scan", interval=interval)
    site = apps.get_model("core", "TargetSite").objects.create(
        name="Reprints", start_urls=["https://reprints.example/"],
        allowed_domains=["reprints.example"], periodic_task=task)
    scan_model = apps.get_model("core", "ScanRun")
    first_scan = scan_model.objects.create(site=site, status="finished", pages_fetched=16,
                                           errors={"timeout": 2}, stage_seconds={"fetch": 1.5})
    last_scan = scan_model.objects.create(site=site, status="finished", matches_found=1)
    match = apps.get_model("core", "Match").objects.create(
        work=work, page_id="a" * 24, version_id="b" * 24, url="https://reprints.example/1",
        domain="reprints.example", title="copy", site=site, first_scan=first_scan,
        last_scan=last_scan, score=0.91, containment_page=0.8, containment_work=0.3,
        passages=[{"page_start": 0, "page_end": 50, "work_start": 10, "work_end": 60}],
        section="第一回", review_status="confirmed")
    domain = apps.get_model("core", "WhitelistedDomain").objects.create(
        holder=holder, domain="press-a.example", note="own site")
    notice = apps.get_model("dashboard", "TakedownNotice").objects.create(
        holder=holder, domain="reprints.example", content={"urls": [match.url]},
        status="sent", created_by=user)
    notice.matches.add(match)
    events, previous = [], ""
    event_model = apps.get_model("dashboard", "AuditEvent")
    for sequence, (kind, link, old, new, subject) in enumerate(
            [("review", {"match": match.pk}, "new", "confirmed", match.url),
             ("notice", {"notice": notice.pk}, "", "drafted", "Notice #1"),
             ("notice", {"notice": notice.pk}, "drafted", "sent", "Notice #1")], start=1):
        at = AT + datetime.timedelta(minutes=sequence)
        content = {"sequence": sequence, "at": at.isoformat(), "kind": kind, "user": user.pk,
                   "username": "reviewer", "holder": holder.pk, "match": None, "notice": None,
                   "subject": subject, "old": old, "new": new, "reason": "copy", **link}
        previous = _old_digest(previous, content)
        events.append(event_model.objects.create(
            sequence=sequence, at=at, kind=kind, user_id=user.pk, username="reviewer",
            holder=holder, match_id=link.get("match"), notice_id=link.get("notice"),
            subject=subject, old_state=old, new_state=new, reason="copy", digest=previous).pk)
    return {"user": user.pk, "group": group.pk, "perm": old_perm.pk, "work": work.pk,
            "task": task.pk, "site": site.pk, "scans": (first_scan.pk, last_scan.pk),
            "match": match.pk, "domain": domain.pk, "notice": notice.pk, "events": events}


@pytest.mark.django_db(transaction=True)
def test_database_of_the_old_layout_upgrades_with_the_same_records():
    executor = MigrationExecutor(connection)
    executor.migrate(OLD_LAYOUT + [("crawler", None)])
    old_apps = executor.loader.project_state(OLD_LAYOUT).apps
    ids = _fill_old_database(old_apps)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    ContentType.objects.clear_cache()
    connection.check_constraints()  # every foreign key still finds its row

    from django.contrib.auth.models import User

    from core.models import AuditEvent, verify_chain
    from crawler.models import Match, ScanRun, TargetSite, WhitelistedDomain
    from dashboard.models import TakedownNotice

    match = Match.objects.select_related("work", "site", "first_scan", "last_scan").get(
        pk=ids["match"])
    assert (match.work.pk, match.work.title, match.site.pk) == (ids["work"], "西游记", ids["site"])
    assert (match.first_scan.pk, match.last_scan.pk) == ids["scans"]
    assert match.passages == [{"page_start": 0, "page_end": 50, "work_start": 10, "work_end": 60}]
    assert (match.score, match.section, match.review_status) == (0.91, "第一回", "confirmed")
    site = TargetSite.objects.get(pk=ids["site"])
    assert site.periodic_task.pk == ids["task"] and site.periodic_task.target_site == site
    assert ScanRun.objects.get(pk=ids["scans"][0]).errors == {"timeout": 2}
    assert WhitelistedDomain.objects.get(pk=ids["domain"]).domain == "press-a.example"
    notice = TakedownNotice.objects.get(pk=ids["notice"])
    assert list(notice.matches.values_list("pk", flat=True)) == [ids["match"]]
    assert list(match.takedown_notices.values_list("pk", flat=True)) == [ids["notice"]]

    trail = AuditEvent.objects.order_by("sequence")
    assert list(trail.values_list("pk", flat=True)) == ids["events"]
    assert AuditEvent.objects.about(match).get().new_state == "confirmed"
    assert list(AuditEvent.objects.about(notice).values_list("new_state", flat=True)) == [
        "sent", "drafted"]
    assert verify_chain() is None  # the digests recorded before the move still verify

    perm = Permission.objects.get(pk=ids["perm"])
    assert (perm.content_type.app_label, perm.codename) == ("crawler", "change_match")
    assert User.objects.get(pk=ids["user"]).has_perm("crawler.change_match")
    assert not ContentType.objects.filter(app_label="core", model="match").exists()
    assert ContentType.objects.get_for_model(AuditEvent).app_label == "core"
