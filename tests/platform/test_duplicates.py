"""Duplicate and conflicting registrations (core.conflicts): the same holder is warned
and offered its work to update; another holder's copy is registered and flagged for staff."""

from __future__ import annotations

import io
import zipfile

import pytest
import requests
from django.core.management import call_command

from core import work_actions
from core.models import (
    AuditEvent,
    ConflictStatus,
    RightsConflict,
    Work,
    WorkStatus,
)
from core.text_extraction import extract_pasted

pytestmark = pytest.mark.django_db(transaction=True)


def _indexed(wait_for, work: Work) -> Work:
    return wait_for(lambda: Work.objects.filter(pk=work.pk, status=WorkStatus.INDEXED).first())


def _form(holder, reference: str, **extra) -> dict:
    return {"holder": holder.pk, "reference": reference, "title": "", "author": "", "kind": "",
            "language": "", "text": "", **extra}


@pytest.fixture
def registered(people, celery_worker, platform_stores, novel_text, wait_for) -> Work:
    """Press A's 西游记 chapters 1-3, indexed by the worker."""
    work = work_actions.do_register_work(people["press"], "xiyouji", extract_pasted(novel_text),
                                         acting_user=people["alice"]).work
    return _indexed(wait_for, work)


def test_same_holder_text_is_warned_with_a_link_to_update_that_work(
        client, people, registered, novel_text):
    """Pasted text is checked in the form (an uploaded file by its job:
    tests/platform/test_upload_jobs.py)."""
    client.force_login(people["alice"])
    # chapter 2 alone: all of it is inside the registered novel
    chapter_two = novel_text[novel_text.index("\n第二回"):novel_text.index("\n第三回")]
    page = client.post("/core/work/add/", _form(people["press"], "ch2", text=chapter_two),
                       headers={"accept-language": "en"})
    assert page.status_code == 200
    assert "100% the same as your work" in page.text
    assert f'href="/core/work/{registered.pk}/change/"' in page.text
    assert "Update that work instead" in page.text
    assert not Work.objects.filter(reference="ch2").exists()

    zh = client.post("/core/work/add/", _form(people["press"], "ch2", text=chapter_two))
    assert "改为更新该作品" in zh.text
    anyway = client.post("/core/work/add/", _form(people["press"], "ch2", text=chapter_two,
                                                  register_anyway="on"))
    assert anyway.status_code == 302
    assert Work.objects.filter(holder=people["press"], reference="ch2").exists()


def test_updating_the_same_work_with_its_own_text_is_no_duplicate(
        client, people, registered, novel_text):
    client.force_login(people["alice"])
    edited = novel_text.replace("猴王", "美猴王", 1)
    page = client.post(f"/core/work/{registered.pk}/change/", {
        **_form(people["press"], "xiyouji", text=edited), "title": registered.title,
        "kind": registered.kind, "language": registered.language})
    assert page.status_code == 302, page.text[:3000]


def test_import_works_reports_duplicates_and_skips_them_unless_allowed(
        tmp_path, people, registered, novel_text):
    (tmp_path / "again.txt").write_text(novel_text, encoding="utf-8")
    out = io.StringIO()
    call_command("import_works", tmp_path, "--holder", people["press"].name, "--no-progress",
                 stdout=out)
    assert "duplicates: 1" in out.getvalue()
    assert "again: same text as your work xiyouji (100%)" in out.getvalue()
    assert not Work.objects.filter(reference="again").exists()
    out = io.StringIO()
    call_command("import_works", tmp_path, "--holder", people["press"].name, "--no-progress",
                 "--allow-duplicates", stdout=out)
    assert "registered: 1" in out.getvalue() and "duplicates: 0" in out.getvalue()


def test_api_answers_409_naming_the_existing_work(live_server, people, registered,
                                                  novel_text):
    from dashboard.models import ApiToken

    token = ApiToken(user=people["alice"], name="script")
    raw = token.issue()
    token.save()
    session = requests.Session()
    session.headers.update({"Authorization": f"Bearer {raw}", "Accept-Language": "en"})
    url = f"{live_server.url}/api/v1/works/"
    body = {"reference": "copy", "text": novel_text}
    refused = session.post(url, json=body, timeout=60)
    assert refused.status_code == 409
    assert refused.json()["code"] == "duplicate_work"
    assert refused.json()["fields"] == {"existing_work": [str(registered.pk)]}
    assert session.post(url, json={**body, "allow_duplicate": True},
                        timeout=60).status_code == 201


def test_another_holders_copy_is_registered_and_flagged_for_staff_only(
        client, people, registered, novel_text, wait_for, tmp_path):
    (tmp_path / "西游记.txt").write_text(novel_text, encoding="utf-8")
    out = io.StringIO()
    call_command("import_works", tmp_path / "西游记.txt", "--holder", people["agency"].name,
                 "--no-progress", stdout=out)
    assert "registered: 1" in out.getvalue()  # no warning: the other holder is not named
    copy = Work.objects.get(holder=people["agency"])
    conflict = wait_for(lambda: RightsConflict.objects.filter(claimed=copy).first())
    assert conflict.existing == registered and conflict.containment >= 0.9
    assert conflict.status == ConflictStatus.OPEN and conflict.passages
    # recorded by the worker, whose cached content type ids may predate earlier tests' flushes
    event = AuditEvent.objects.get(kind="conflict", new_state="open")
    assert (event.kind, event.new_state, event.username) == ("conflict", "open", "")

    client.force_login(people["bob"])  # a holder never sees the conflict nor the other work
    assert "↔" not in client.get("/core/auditevent/").text  # no conflict event in its trail
    assert client.get(f"/core/rightsconflict/{conflict.pk}/change/").status_code in (302, 403)
    assert client.get(f"/core/work/{registered.pk}/change/").status_code == 404

    client.force_login(people["staff"])
    page = client.get(f"/core/rightsconflict/{conflict.pk}/change/",
                      headers={"accept-language": "en"})
    assert page.status_code == 200
    assert "Press A" in page.text and "Agency B" in page.text
    assert page.text.count("<mark>") >= 2 and "灵根育孕源流出" in page.text
    refused = client.post(f"/core/rightsconflict/{conflict.pk}/change/", {"note": ""})
    assert refused.status_code == 200
    done = client.post(f"/core/rightsconflict/{conflict.pk}/change/",
                       {"note": "Agency B licensed the text from Press A."})
    assert done.status_code == 302
    conflict.refresh_from_db()
    assert (conflict.status, conflict.resolved_by) == ("resolved", people["staff"])
    assert AuditEvent.objects.about(conflict).filter(new_state="resolved").exists()

    # ingesting the copy again flags nothing new
    work_actions.do_register_work(people["agency"], copy.reference,
                                  extract_pasted(novel_text + "\n后记。"))
    _indexed(wait_for, copy)
    assert RightsConflict.objects.count() == 1



def test_two_registered_copies_do_not_hide_a_third(people, platform_stores, novel_text):
    """Two identical registered works are one text for Engine.match (reported against both,
    each with its full score and the other in ``same_text``); the check judges each candidate
    alone and finds both too."""
    from core import ingestion
    from core.conflicts import overlaps, same_holder_duplicate

    for holder, reference in ((people["press"], "a"), (people["agency"], "b")):
        work = work_actions.do_register_work(holder, reference, extract_pasted(novel_text),
                                             ingest=False).work
        ingestion.ingest(work.pk)
    from core.engine import get_engine

    matched = get_engine().match(novel_text)
    assert len(matched) == 2 and all(m.score >= 0.99 and len(m.same_text) == 2 for m in matched)
    found = overlaps(novel_text)
    assert [o.work.reference for o in found] == ["a", "b"]
    assert all(o.containment >= 0.99 for o in found)
    assert same_holder_duplicate(people["press"], "c", novel_text).work.reference == "a"


#: A 64-character line repeated 20 times: every seed of the alignment repeats 20 times.
REPEATED_LINE = "\n".join(["天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏闰余成岁律吕调阳云腾致雨露"
                           "结为霜金生丽水玉出昆冈剑号巨阙珠称夜光果珍李柰菜重芥姜"] * 20)


def test_a_text_of_one_repeated_line_is_warned_through_the_form_the_api_and_a_zip(
        client, people, platform_stores, tmp_path):
    from core import ingestion
    from dashboard.models import ApiToken

    assert len(REPEATED_LINE.splitlines()[0]) == 64
    first = work_actions.do_register_work(people["press"], "line", extract_pasted(REPEATED_LINE),
                                          ingest=False).work
    ingestion.ingest(first.pk)

    client.force_login(people["alice"])
    page = client.post("/core/work/add/", _form(people["press"], "form", text=REPEATED_LINE),
                       headers={"accept-language": "en"})
    assert "100% the same as your work" in page.text

    token = ApiToken(user=people["alice"], name="script")
    raw = token.issue()
    token.save()
    refused = client.post("/api/v1/works/", {"reference": "api", "text": REPEATED_LINE},
                          content_type="application/json",
                          headers={"authorization": f"Bearer {raw}", "accept-language": "en"})
    assert refused.status_code == 409, refused.content[:500]
    assert refused.json()["fields"] == {"existing_work": [str(first.pk)]}

    archive = tmp_path / "again.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("again.txt", REPEATED_LINE.encode("utf-8"))
    out = io.StringIO()
    call_command("import_works", archive, "--holder", people["press"].name, "--no-progress",
                 stdout=out)
    assert "again: same text as your work line (100%)" in out.getvalue()
    assert list(Work.objects.values_list("reference", flat=True)) == ["line"]
