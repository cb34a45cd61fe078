"""The takedown API: contacts (/api/v1/contacts/, platform staff only: the sites needing one,
setting one) and sending a case's notice (/api/v1/cases/{id}/send-notice/: refused in the
user's language without a confirmed contact, queued once with one, listed in .../mails/)."""

from __future__ import annotations

import pytest
import requests
from django.utils.translation import gettext_noop

from dashboard.models import ApiToken


@pytest.fixture
def api(live_server):
    """Factory ``api(user, language="en") -> requests.Session`` with a Bearer token of
    ``user``; ``session.url(path)`` gives the absolute /api/v1/ URL."""

    def make(user, language="en"):
        token = ApiToken(user=user, name="takedown")
        raw = token.issue()
        token.save()
        session = requests.Session()
        session.headers.update({"Authorization": f"Bearer {raw}", "Accept-Language": language})
        session.url = lambda path: f"{live_server.url}/api/v1/{path}"
        return session

    return make


def test_contacts_are_for_staff_and_list_the_sites_needing_one(scenario_cases, scenario, api):
    from core.models import AuditEvent
    from crawler.models import SiteContact

    staff, holder = api(scenario.users.staff), api(scenario.users.holder_a)
    assert holder.get(holder.url("contacts/"), timeout=30).status_code == 403
    needing = staff.get(staff.url("contacts/?missing=true"), timeout=30).json()
    assert [row["domain"] for row in needing["results"]] == [
        "example.cn", "example.com", "example.net", "example.org"]
    bad = staff.patch(staff.url("contacts/example.com/"), json={"address": "not an address"},
                      timeout=30)
    assert bad.status_code == 400
    done = staff.patch(staff.url("contacts/example.com/"), json={"address": "legal@example.com"},
                       timeout=30)
    assert done.status_code == 200 and done.json()["address"] == "legal@example.com"
    contact = SiteContact.objects.get(domain="example.com")
    assert contact.confirmed_by == scenario.users.staff
    assert AuditEvent.objects.about(contact).get().new_state == "contact set"
    needing = staff.get(staff.url("contacts/?missing=true"), timeout=30).json()
    assert "example.com" not in [row["domain"] for row in needing["results"]]


def test_send_notice_needs_a_confirmed_contact_then_queues_one_mail(scenario_cases, scenario,
                                                                    api):
    from core import notes
    from crawler import case_actions, contacts
    from dashboard.models import MailStatus, NoticeMail

    case = scenario_cases["novel"]
    case_actions.do_confirm_case(case, scenario.users.staff, "copies chapter 2")
    holder = api(scenario.users.holder_a, "zh-hans")
    refused = holder.post(holder.url(f"cases/{case.pk}/send-notice/"),
                          json={"language": "zh-hans"}, timeout=30)
    assert refused.status_code == 400
    assert "还没有已确认的删除通知联系人" in refused.json()["message"]
    contacts.do_set_contact(case.domain, "legal@example.com", scenario.users.staff)
    queued = holder.post(holder.url(f"cases/{case.pk}/send-notice/"),
                         json={"language": "zh-hans"}, timeout=30)
    assert queued.status_code == 202
    [row] = queued.json()
    assert (row["recipient"], row["status"]) == ("legal@example.com", "queued")
    again = holder.post(holder.url(f"cases/{case.pk}/send-notice/"),
                        json={"language": "zh-hans"}, timeout=30)
    assert again.status_code == 400 and NoticeMail.objects.count() == 1
    listed = holder.get(holder.url(f"cases/{case.pk}/mails/"), timeout=30).json()
    assert [m["id"] for m in listed["results"]] == [row["id"]]
    # an error the platform recorded (a coded note) reads in words of the request's language
    lost = NoticeMail.objects.create(
        notice_id=row["notice"], recipient="legal@example.com", status=MailStatus.FAILED,
        error=notes.coded("notice_mail_lost", gettext_noop(
            "no answer from the worker after %(n)s attempts"), n=5))
    for language, words in (("en", "no answer from the worker after 5 attempts"),
                            ("zh-hans", "尝试 5 次后工作进程仍无应答")):
        listed = api(scenario.users.holder_a, language).get(
            holder.url(f"cases/{case.pk}/mails/"), timeout=30).json()
        assert {m["id"]: m["error"] for m in listed["results"]}[lost.pk] == words
    other = api(scenario.users.holder_b)
    assert other.post(other.url(f"cases/{case.pk}/send-notice/"), json={"language": "en"},
                      timeout=30).status_code == 404
