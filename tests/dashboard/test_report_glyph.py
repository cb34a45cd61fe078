"""The evidence report draws every character of a work registered through the one text path:
西游记 chapter 2 carries U+E82F (a GBK-era private-use code point, no font has it), which the
text path turns into 㳠 (lib.text.gbk_pua), so the PDF shows the character, not a box."""

import io

from django.test import Client
from django.utils import timezone

from crawler.models import Match
from lib.text import extract_file

from .conftest import FIXTURES, chapter_sections, copy_page, store_page

CHAPTER = FIXTURES / "xiyouji-chapter-02.txt"


def test_pdf_report_shows_la_not_a_private_use_box(scenario, pdf_reader):
    from core.engine import get_engine
    from core.models import Work

    raw = CHAPTER.read_bytes()
    assert "\ue82f".encode() in raw
    text = extract_file(CHAPTER.name, raw).text  # as an upload reads it
    work = Work.objects.create(holder=scenario.a, reference="XYJ-002", title="西游记第二回",
                               author="吴承恩", kind="novel", length=len(text),
                               sections=chapter_sections(text), status="indexed")
    get_engine().add_work(work.engine_id, text)
    at = text.index("滴㳠")
    page, spans = copy_page(text, [(at - 200, at + 200)], ["转载：\n\n", "\n\n（完）"])
    page_id, version_id = store_page("https://copy.example.com/xyj-2-la.html", page, "西游记")
    match = Match.objects.create(
        work=work, page_id=page_id, version_id=version_id, url="https://copy.example.com/x.html",
        domain="copy.example.com", title="西游记", score=0.9, containment_page=0.9,
        containment_work=0.1, passages=spans, first_seen=timezone.now(), last_seen=timezone.now())

    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(scenario.users.staff)
    pdf = client.get(f"/crawler/match/{match.pk}/report/pdf/").content
    (FIXTURES.parents[2] / "test-artifacts").mkdir(exist_ok=True)
    (FIXTURES.parents[2] / "test-artifacts" / "report-glyph.pdf").write_bytes(pdf)
    words = "".join(p.extract_text() for p in pdf_reader.PdfReader(io.BytesIO(pdf)).pages)
    assert "滴㳠" in words and "\ue82f" not in words
