"""Who sees what in the admin and its exports: staff everything, a holder's users only theirs."""

from __future__ import annotations

import pytest

from core.models import RightsHolder, Work, WorkStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def works(people):
    a = Work.objects.create(holder=people["press"], reference="A-1", title="甲书",
                            status=WorkStatus.INDEXED)
    b = Work.objects.create(holder=people["agency"], reference="B-1", title="乙书",
                            status=WorkStatus.INDEXED)
    return a, b


def _client(client, user):
    client.force_login(user)
    return client


def test_holder_user_lists_only_own_works(client, people, works):
    page = _client(client, people["alice"]).get("/core/work/")
    assert page.status_code == 200
    assert "甲书" in page.text and "乙书" not in page.text
    assert "Agency B" not in page.text  # not even in the holder filter


def test_staff_sees_every_holder(client, people, works):
    page = _client(client, people["staff"]).get("/core/work/")
    assert "甲书" in page.text and "乙书" in page.text


def test_other_holders_objects_answer_404(client, people, works):
    a, b = works
    c = _client(client, people["alice"])
    assert c.get(f"/core/work/{a.pk}/change/").status_code == 200
    for url in (f"/core/work/{b.pk}/change/", f"/core/work/{b.pk}/delete/",
                f"/core/work/{b.pk}/history/", f"/core/rightsholder/{people['agency'].pk}/change/",
                "/core/work/999999/change/"):
        assert c.get(url).status_code == 404, url
    assert c.post(f"/core/work/{b.pk}/delete/", {"post": "yes"}).status_code == 404
    assert Work.objects.filter(pk=b.pk).exists()


def test_holder_cannot_add_work_for_another_holder(client, people):
    c = _client(client, people["alice"])
    form = c.get("/core/work/add/")
    assert "Press A" in form.text and "Agency B" not in form.text
    response = c.post("/core/work/add/", {"holder": people["agency"].pk, "reference": "X",
                                          "title": "偷", "text": "第一章 开端\n正文。"})
    assert response.status_code == 200  # the form is shown again with an error
    assert not Work.objects.filter(reference="X").exists()


def test_csv_export_is_scoped(client, people, works):
    a, b = works
    c = _client(client, people["alice"])
    # Even when the other holder's id is posted, the action works on the scoped queryset.
    response = c.post("/core/work/", {"action": "export_csv", "_selected_action": [a.pk, b.pk]})
    body = response.content.decode("utf-8-sig")
    assert response["Content-Type"].startswith("text/csv")
    assert "甲书" in body and "乙书" not in body


def test_csv_export_of_works_neutralizes_formulas(client, people):
    """A title, author, reference or holder name a spreadsheet would evaluate is written with a
    leading apostrophe, as in the match export."""
    import csv
    import io

    holder = RightsHolder.objects.create(name="@SUM(1+1)")
    holder.users.add(people["alice"])
    work = Work.objects.create(holder=holder, reference="-2+3", title='=HYPERLINK("http://x")',
                               author="+cmd", sha256="0" * 64)
    response = _client(client, people["alice"]).post(
        "/core/work/", {"action": "export_csv", "_selected_action": [work.pk]})
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[1][:4] == ["'-2+3", "'=HYPERLINK(\"http://x\")", "'+cmd", "'@SUM(1+1)"]


def test_holder_user_edits_own_contact_details_but_not_members(client, people):
    c = _client(client, people["alice"])
    url = f"/core/rightsholder/{people['press'].pk}/change/"
    page = c.get(url)
    assert page.status_code == 200 and 'name="users"' not in page.text
    assert c.get("/core/rightsholder/add/").status_code == 403
    response = c.post(url, {"name": "Press A", "contact_person": "张三", "email": "a@press.example",
                            "phone": "123", "address": "北京", "website": ""})
    assert response.status_code == 302
    assert RightsHolder.objects.get(pk=people["press"].pk).contact_person == "张三"


def test_admin_language_follows_the_browser(client, people):
    c = _client(client, people["staff"])
    english = c.get("/core/work/", headers={"accept-language": "en"})
    chinese = c.get("/core/work/", headers={"accept-language": "zh-CN,zh;q=0.9"})
    assert "Select work to change" in english.text
    assert "选择 作品 来修改" in chinese.text  # Django's string with this project's "work"
    assert "Select work to change" not in chinese.text
