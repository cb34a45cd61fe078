"""Holders propose target sites; staff approve (the site is created) or reject with a reason;
every step is in the audit trail and a holder sees only its own proposals."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from core.models import AuditEvent, RightsHolder
from core.roles import HOLDER_GROUP, STAFF_GROUP, ensure_groups
from crawler.models import ProposalStatus, SiteProposal, TargetSite

pytestmark = pytest.mark.django_db


@pytest.fixture
def users(django_user_model, settings):
    """Holder users alice (Press A) and bob (Agency B), staff user "staff"; loopback addresses
    allowed to the crawler, as for a test site."""
    settings.CRAWLER = {**settings.CRAWLER, "ALLOW_ADDRESSES": "127.0.0.1"}
    ensure_groups()
    out = {}
    for name, holder in (("alice", "Press A"), ("bob", "Agency B")):
        user = django_user_model.objects.create_user(name, password="pw", is_staff=True)
        user.groups.add(Group.objects.get(name=HOLDER_GROUP))
        RightsHolder.objects.create(name=holder).users.add(user)
        out[name] = user
    out["staff"] = django_user_model.objects.create_user("staff", password="pw", is_staff=True)
    out["staff"].groups.add(Group.objects.get(name=STAFF_GROUP))
    return out


def _propose(client, url: str, reason: str = "全文转载了我们的小说", **headers):
    holder = RightsHolder.objects.get(name="Press A")
    return client.post("/crawler/siteproposal/add/", {"holder": holder.pk, "url": url,
                                                      "reason": reason}, headers=headers)


def test_a_refused_address_is_shown_in_the_form(client, users):
    client.force_login(users["alice"])
    page = _propose(client, "http://169.254.169.254/latest/", **{"accept-language": "en"})
    assert page.status_code == 200 and "may not be scanned (link_local)" in page.text
    assert "不允许扫描" in _propose(client, "http://10.0.0.1/").text
    assert not SiteProposal.objects.exists()


def test_proposal_rejected_with_a_reason_the_holder_sees(client, users, site):
    client.force_login(users["alice"])
    assert _propose(client, f"{site.base}/news/").status_code == 302
    proposal = SiteProposal.objects.get()
    assert (proposal.status, proposal.proposed_by) == (ProposalStatus.PROPOSED, users["alice"])
    assert f"{site.base}/news/" in client.get("/crawler/siteproposal/").text  # her own list

    client.force_login(users["bob"])  # another holder sees nothing of it
    assert site.base not in client.get("/crawler/siteproposal/").text
    assert client.get(f"/crawler/siteproposal/{proposal.pk}/change/").status_code == 404

    client.force_login(users["staff"])
    form = client.get(f"/crawler/siteproposal/{proposal.pk}/change/")
    assert "全文转载了我们的小说" in form.text
    empty = client.post(f"/crawler/siteproposal/{proposal.pk}/change/",
                        {"decision": "rejected", "decision_reason": ""})
    assert empty.status_code == 200 and "请说明拒绝的理由" in empty.text
    client.post(f"/crawler/siteproposal/{proposal.pk}/change/",
                {"decision": "rejected", "decision_reason": "该站点已在扫描范围内"})
    proposal.refresh_from_db()
    assert (proposal.status, proposal.decided_by) == (ProposalStatus.REJECTED, users["staff"])
    assert not TargetSite.objects.exists()

    client.force_login(users["alice"])
    assert "该站点已在扫描范围内" in client.get(f"/crawler/siteproposal/{proposal.pk}/change/").text
    trail = AuditEvent.objects.about(proposal).order_by("sequence")
    assert [(e.username, e.new_state) for e in trail] == [("alice", "proposed"),
                                                         ("staff", "rejected")]


def test_approval_creates_the_target_site(client, users, site):
    client.force_login(users["alice"])
    _propose(client, f"{site.base}/news/")
    proposal = SiteProposal.objects.get()
    client.force_login(users["staff"])
    done = client.post(f"/crawler/siteproposal/{proposal.pk}/change/",
                       {"decision": "approved", "decision_reason": ""})
    assert done.status_code == 302
    proposal.refresh_from_db()
    target = TargetSite.objects.get()
    assert proposal.status == ProposalStatus.APPROVED and proposal.site == target
    assert target.start_urls == [f"{site.base}/news/"] and target.periodic_task is not None
    assert AuditEvent.objects.about(target).get().new_state == "created"
    assert AuditEvent.objects.about(proposal).filter(new_state="approved",
                                                     username="staff").exists()
    # decided: the page is read-only now
    assert client.post(f"/crawler/siteproposal/{proposal.pk}/change/",
                       {"decision": "rejected", "decision_reason": "x"}).status_code == 403
