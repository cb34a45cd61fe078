"""The cases opened from the matches recorded before cases (crawler 0010) take their notices
into account: a case whose pages a sent notice cites becomes "notice sent" (dated by the
earliest such notice), and "removed" when every page of it either no longer matches or is cited
by a notice marked "content removed" (dated by the latest such notice). Only the cases still in
the state crawler 0010 gave them are touched (their reason is its "case_migrated" note): a case
moved since keeps its state. Dismissed cases stay dismissed.
"""

from collections import defaultdict

from django.db import migrations
from django.utils.translation import gettext_noop

from core import notes

SENT = ("sent", "removed", "counter_notice")  # notice statuses reached after sending
MIGRATED = notes.coded("case_migrated", "opened from the matches recorded before cases")


def _notice(notice_id: int, domain: str) -> str:
    return notes.coded("notice", "Notice #%(id)s to %(domain)s", id=notice_id, domain=domain)


def forward(apps, schema_editor):
    case_model = apps.get_model("crawler", "Case")
    match_model = apps.get_model("crawler", "Match")
    cited = apps.get_model("dashboard", "TakedownNotice").matches.through
    migrated = case_model.objects.filter(state_reason=MIGRATED,
                                         state__in=("new", "confirmed", "removed"))
    notices = defaultdict(list)  # case id -> [(match id, notice id, domain, status, sent, removed)]
    for row in (cited.objects.filter(match__case__in=migrated,
                                     takedownnotice__status__in=SENT)
                .values_list("match__case_id", "match_id", "takedownnotice_id",
                             "takedownnotice__domain", "takedownnotice__status",
                             "takedownnotice__sent_at", "takedownnotice__removed_at",
                             "takedownnotice__drafted_at")):
        notices[row[0]].append(row[1:])
    for case in migrated.filter(pk__in=list(notices)):
        rows = notices[case.pk]
        first = min(rows, key=lambda r: r[4] or r[6])
        case.notice_sent_at = first[4] or first[6]
        removed = [r for r in rows if r[3] == "removed"]
        taken_down = {r[0] for r in removed}
        standing = set(match_model.objects.filter(case=case, still_matching=True)
                       .values_list("pk", flat=True))
        if case.state == "removed" or (removed and standing <= taken_down):
            last = max(removed, key=lambda r: r[5] or case.notice_sent_at) if removed else None
            if last is not None and case.state != "removed":
                case.removed_at = last[5] or case.notice_sent_at
            case.state = "removed"
            note = (notes.coded("case_migrated_removed", gettext_noop("%(notice)s: content removed"),
                                notice=_notice(last[1], last[2])) if last else MIGRATED)
        else:
            case.state = "notice_sent"
            note = notes.coded("case_migrated_notice", gettext_noop("%(notice)s sent"),
                               notice=_notice(first[1], first[2]))
        case.state_reason = note
        case.state_changed_at = max(filter(None, [case.removed_at, case.notice_sent_at]))
        case.save(update_fields=["state", "state_reason", "state_changed_at", "notice_sent_at",
                                 "removed_at"])


class Migration(migrations.Migration):

    dependencies = [
        ("dashboard", "0004_notice_body"),
        ("crawler", "0010_matches_into_cases"),
    ]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
