"""Rights holders open the takedown-check page for their own matches: the list and
each check's page show their checks only; another holder's check, even by a guessed id, answers
404 as if it did not exist."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from core import roles
from core.models import RightsHolder, Work
from crawler.models import CheckOutcome, Match, TakedownCheck

pytestmark = pytest.mark.django_db


def _check(holder: RightsHolder, url: str, note: str) -> TakedownCheck:
    work = Work.objects.create(holder=holder, reference=note, title=note, length=1,
                               status="indexed")
    match = Match.objects.create(work=work, page_id="p" * 24, version_id="v" * 24, url=url,
                                 domain=url.split("/")[2], score=0.9, containment_page=0.9,
                                 containment_work=0.1, still_matching=False)
    return TakedownCheck.objects.create(match=match, outcome=CheckOutcome.REMOVED,
                                        http_status=404, note=note)


def _holder_user(name: str, holder: RightsHolder):
    roles.ensure_groups()
    user = get_user_model().objects.create_user(name, password="x", is_staff=True)
    user.groups.add(Group.objects.get(name=roles.HOLDER_GROUP))
    holder.users.add(user)
    return user


def test_holders_see_their_own_takedown_checks_only(client):
    press = RightsHolder.objects.create(name="甲出版社")
    agency = RightsHolder.objects.create(name="乙代理")
    mine = _check(press, "http://copies.example/mine.html", "press-check-404")
    theirs = _check(agency, "http://copies.example/theirs.html", "agency-check-404")
    client.force_login(_holder_user("alice", press))

    listing = client.get("/crawler/takedowncheck/", HTTP_ACCEPT_LANGUAGE="en")
    assert listing.status_code == 200
    page = listing.content.decode()
    assert "press-check-404" in page and "agency-check-404" not in page

    own = client.get(f"/crawler/takedowncheck/{mine.pk}/change/", HTTP_ACCEPT_LANGUAGE="en")
    assert own.status_code == 200 and "press-check-404" in own.content.decode()
    guessed = client.get(f"/crawler/takedowncheck/{theirs.pk}/change/")
    assert guessed.status_code == 404
    # still read-only: no deleting a check
    assert client.post(f"/crawler/takedowncheck/{mine.pk}/delete/",
                       {"post": "yes"}).status_code == 403
    assert TakedownCheck.objects.count() == 2
