"""Existing matches into cases: one case per (work, registered domain of the page's host).

Each case opens at its earliest page's first sight; its state is read from its pages:
dismissed when every page was reviewed as a false positive or licensed, or when the holder
whitelisted the domain or the hosts of all its pages; removed when no page still matches and a takedown check found one
removed; confirmed when a page was confirmed; else new. The reason says it was migrated.
Notices are the dashboard's: its migration 0005 then moves the cases whose notice was sent.
"""

from collections import defaultdict

from django.db import migrations

from lib.crawl.domains import registered_domain
from core import notes

BATCH = 1000


def _covered(host: str, entries: set) -> bool:
    """True when a whitelist entry among ``entries`` is ``host`` or a parent domain of it."""
    parts = host.lower().split(".")
    return bool({".".join(parts[i:]) for i in range(len(parts))} & entries)


def _state(pages, whitelisted: bool, removed_at):
    reviews = {p.review_status for p in pages}
    if reviews <= {"false_positive", "licensed"} or whitelisted:
        return "dismissed"
    if removed_at is not None and not any(p.still_matching for p in pages):
        return "removed"
    return "confirmed" if "confirmed" in reviews else "new"


def forward(apps, schema_editor):
    match_model = apps.get_model("crawler", "Match")
    case_model = apps.get_model("crawler", "Case")
    check_model = apps.get_model("crawler", "TakedownCheck")
    whitelist = apps.get_model("crawler", "WhitelistedDomain")
    groups = defaultdict(list)
    for page in match_model.objects.filter(case__isnull=True).select_related("work").only(
            "pk", "work_id", "work__holder_id", "domain", "first_seen", "first_scan_id",
            "review_status", "still_matching").order_by("first_seen", "pk").iterator(BATCH):
        groups[(page.work_id, registered_domain(page.domain))].append(page)
    listed = defaultdict(set)
    for holder_id, domain in whitelist.objects.values_list("holder_id", "domain"):
        listed[holder_id].add(domain)
    reason = notes.coded("case_migrated", "opened from the matches recorded before cases")
    for (work_id, domain), pages in groups.items():
        entries = listed[pages[0].work.holder_id]
        covered = _covered(domain, entries) or all(_covered(p.domain, entries) for p in pages)
        removed_at = (check_model.objects.filter(match_id__in=[p.pk for p in pages],
                                                 outcome="removed")
                      .order_by("-checked_at").values_list("checked_at", flat=True).first())
        state = _state(pages, covered, removed_at)
        case = case_model.objects.create(
            work_id=work_id, domain=domain, state=state, state_reason=reason,
            opened_at=pages[0].first_seen, state_changed_at=pages[-1].first_seen,
            first_scan_id=pages[0].first_scan_id,
            removed_at=removed_at if state == "removed" else None)
        ids = [p.pk for p in pages]
        for start in range(0, len(ids), BATCH):
            match_model.objects.filter(pk__in=ids[start:start + BATCH]).update(case=case)


def backward(apps, schema_editor):
    apps.get_model("crawler", "Match").objects.update(case=None)
    apps.get_model("crawler", "Case").objects.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ("crawler", "0009_case"),
        ("core", "0012_audit_case_kind"),
    ]

    operations = [migrations.RunPython(forward, backward)]
