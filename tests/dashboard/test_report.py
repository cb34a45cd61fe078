"""The evidence report a lawyer sends: what its cover states, the order of its parts, and the
length of the PDF of a whole copied chapter (A4, pages counted with pypdf)."""

import io
import itertools
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from crawler.models import Match
from crawler.review_actions import do_review_match

from .conftest import (
    AD,
    ARTIFACTS,
    FIXTURES,
    FOOTER,
    HEADER,
    chapter_sections,
    copy_page,
    store_page,
)

CHAPTER = FIXTURES / "xiyouji-chapter-02.txt"


@pytest.fixture
def chapter_copy(scenario):
    """A page copying the whole 4,293-character chapter in six passages (an advert between
    them), as a Match of a work holding that chapter; returns the Match."""
    from core.engine import get_engine
    from core.models import Work

    text = CHAPTER.read_text(encoding="utf-8")
    work = Work.objects.create(holder=scenario.a, reference="XYJ-002", title="西游记第二回",
                               author="吴承恩", kind="novel", length=len(text),
                               sections=chapter_sections(text), status="indexed")
    get_engine().add_work(work.engine_id, text)
    bounds = [m.end() for m in re.finditer("\n\n", text)]
    cuts = [0] + [min(bounds, key=lambda b, want=want: abs(b - want))
                  for want in range(700, len(text) - 500, 700)] + [len(text)]
    pieces = [(a, b) for a, b in itertools.pairwise(cuts) if b > a]
    page, spans = copy_page(text, pieces, [HEADER] + [AD] * (len(pieces) - 1) + [FOOTER])
    url = "https://copy.example.com/novel/xyj-2-full.html"
    page_id, version_id = store_page(url, page, "西游记第二回 全文")
    copied = sum(p["page_end"] - p["page_start"] for p in spans)
    now = timezone.now()
    return Match.objects.create(
        work=work, page_id=page_id, version_id=version_id, url=url, domain="copy.example.com",
        title="西游记第二回 全文", score=copied / len(page), containment_page=copied / len(page),
        containment_work=copied / len(text), passages=spans, first_seen=now - timedelta(days=1),
        last_seen=now)


def staff_client(scenario, language):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(scenario.users.staff)
    return client


def test_pdf_of_a_whole_chapter_copy_is_a_few_a4_pages(scenario, chapter_copy, pdf_reader):
    do_review_match(chapter_copy, "confirmed", "整章转载", scenario.users.staff)
    response = staff_client(scenario, "zh-hans").get(
        f"/crawler/match/{chapter_copy.pk}/report/pdf/")
    assert response["Content-Type"] == "application/pdf"
    reader = pdf_reader.PdfReader(io.BytesIO(response.content))
    width, height = (float(v) for v in reader.pages[0].mediabox.upper_right)
    assert (round(width), round(height)) == (595, 842)  # A4 in points
    assert 2 <= len(reader.pages) <= 6, len(reader.pages)  # 5 here; 27 with the old layout


def test_report_cover_then_passages_then_trail(scenario, chapter_copy):
    do_review_match(chapter_copy, "confirmed", "整章转载", scenario.users.staff)
    html = staff_client(scenario, "zh-hans").get(
        f"/crawler/match/{chapter_copy.pk}/report/").content.decode()
    cover = html[html.index('class="cover"'):html.index('class="passages"')]
    for fact in ("西游记第二回", "星河出版社", chapter_copy.url, "200", "+0800",
                 "与抓取时一致"):
        assert fact in cover, fact
    assert html.index('class="passages"') < html.index("整章转载")
    assert re.search(r"综合得分 \d+%", cover)  # one score format: percent, not 0.86


def test_pdf_shows_each_audit_hash_whole(scenario, chapter_copy, pdf_reader):
    from core.models import AuditEvent

    do_review_match(chapter_copy, "confirmed", "整章转载", scenario.users.staff)
    [event] = AuditEvent.objects.about(chapter_copy)
    for language in ("zh-hans", "en"):  # the report the PDF is printed from
        html = staff_client(scenario, language).get(
            f"/crawler/match/{chapter_copy.pk}/report/").content.decode()
        assert f"<code>{event.digest}</code>" in html
    # pypdf reads the text of the Chinese PDF back (its English fonts carry no text map)
    response = staff_client(scenario, "zh-hans").get(
        f"/crawler/match/{chapter_copy.pk}/report/pdf/")
    reader = pdf_reader.PdfReader(io.BytesIO(response.content))
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "report-trail-zh-hans.pdf").write_bytes(response.content)  # to look at
    lines = [line.strip() for page in reader.pages for line in page.extract_text().splitlines()]
    assert any(event.digest in line for line in lines), "the trail's SHA-256 is cut or broken"
    # the version column "1 (本匹配)" is drawn on one line: see the PDF kept in test-artifacts/
    # (pypdf does not read that line's text back)


def test_the_report_of_the_big5_reprint_states_the_passages_similarity(big5_reprint, scenario,
                                                                       pdf_reader):
    """The demo's Big5 reprint: the report (and the PDF printed from it, kept in
    test-artifacts/ to look at) gives its passage a similarity like the match's score."""
    counted = {"en": r"\d{3,} in the other script", "zh-hans": r"繁简转换 \d{3,} 个字"}
    for language, other_script in counted.items():
        client = staff_client(scenario, language)
        html = client.get(f"/crawler/match/{big5_reprint.pk}/report/").content.decode()
        similarity = int(re.search(r'<span class="similarity">(\d+)%</span>', html).group(1))
        assert similarity >= 95 and similarity >= round(big5_reprint.score * 100) - 3
        summary = re.search(r'<div class="summary">([^<]*)</div>', html).group(1)
        assert re.search(other_script, summary), summary
        response = client.get(f"/crawler/match/{big5_reprint.pk}/report/pdf/")
        assert response.content.startswith(b"%PDF")
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / f"comparison-big5-{language}.pdf").write_bytes(response.content)


def test_the_report_names_the_other_works_the_page_copies_and_the_kind(scenario, chapter_copy,
                                                                     pdf_reader):
    """The same text registered again by the holder and by another holder, and the whole
    novel holding the copied chapter: the report's cover names the holder's works by title and
    reference, counts the other holder's as a rights conflict without naming it, and says the
    kind of match; the PDF (kept in test-artifacts/ to look at) names the same works."""
    from core.models import RightsHolder, Work
    from crawler.models import MatchKind

    holder = chapter_copy.work.holder
    reprint = Work.objects.create(holder=holder, reference="XYJ-002B", title="西游记第二回（重印）")
    rival = Work.objects.create(holder=RightsHolder.objects.create(name="别家出版社"),
                                reference="RIVAL-9", title="别家西游")
    Match.objects.filter(pk=chapter_copy.pk).update(
        same_text=[rival.pk, reprint.pk], part_of_works=[scenario.novel.pk],
        kind=MatchKind.REWRITTEN)
    said = {
        "en": ("Kind of match", "rewritten (洗稿)", "The same text is registered as 3 works.",
               "西游记第二回（重印） (XYJ-002B)",
               "1 of them belongs to another rights holder: a rights conflict.",
               "This work is part of another registered work, which the page copies too:",
               "西游记（节选） (XYJ-001)"),
        "zh-hans": ("匹配类型", "洗稿（改写）", "西游记第二回（重印） (XYJ-002B)",
                    "本作品是另一部已登记作品的一部分，本页也抄袭了该作品：",
                    "西游记（节选） (XYJ-001)"),
    }
    for language, facts in said.items():
        client = staff_client(scenario, language)
        html = client.get(f"/crawler/match/{chapter_copy.pk}/report/").content.decode()
        cover = html[html.index('class="cover"'):html.index("</section>")]
        for fact in facts:
            assert fact in cover, (language, fact)
        assert "RIVAL-9" not in html and "别家" not in html
        assert "href=" not in cover  # a file read away from the dashboard: no links
    response = staff_client(scenario, "zh-hans").get(
        f"/crawler/match/{chapter_copy.pk}/report/pdf/")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "report-related-works-zh-hans.pdf").write_bytes(response.content)
    # pypdf reads back the Latin text of the Chinese PDF's cover (each letter followed by a
    # NUL), not its Chinese text: the references, then the words in the PNG of the PDF
    text = pdf_reader.PdfReader(io.BytesIO(response.content)).pages[0].extract_text()
    assert "(XYJ-002B)" in text.replace("\x00", "") and "(XYJ-001)" in text.replace("\x00", "")
