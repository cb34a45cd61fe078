"""Contacts beyond the site on the case page, and the complaint package of a case on a
platform: the suggestions show where each came from (the site, the registrar's or the hosting
provider's RDAP record), the refused addresses say why, the ICP filing number is shown, and a
case on 百家号 downloads a ZIP with the form's fields, the notice, the signed reports, the WACZ
bundles, the holder's rights documents and the filing steps in both languages (real
PostgreSQL, MongoDB, WeasyPrint and the signing key; Chromium at 1366 and 390 px)."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _wacz() -> bytes:
    """A small ZIP standing for the page's WACZ bundle."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr("datapackage.json", '{"resources": []}')
    return buffer.getvalue()
LABELS = {
    "en": {"registrar": "registrar (RDAP)", "host": "hosting provider (RDAP)",
           "mailto": "mailto: link", "platform": "On a platform: Baijiahao (Baidu)",
           "refused": "a line break"},
    "zh-hans": {"registrar": "域名注册商（RDAP）", "host": "主机服务商（RDAP）",
                "mailto": "mailto: 链接", "platform": "位于平台：百家号", "refused": "含换行符"},
}


@pytest.fixture
def platform_case(scenario_cases, scenario):
    """The novel's case moved to a page on baijiahao.baidu.com, confirmed, with its bundle, a
    rights document of the holder, and the suggestions of each source."""
    from crawler import case_actions, contacts
    from crawler.cases import open_case
    from crawler.evidence.models import Capture
    from crawler.models import ContactSource, Match, SiteContact
    from crawler.rdap_contacts import do_record_rdap_lookup
    from dashboard.models import RightsDocument
    from dashboard.rights_documents import do_upload_rights_document

    match = scenario.matches[0]
    case, _ = open_case(match.work, "baijiahao.baidu.com")
    Match.objects.filter(pk=match.pk).update(
        case=case, domain="baijiahao.baidu.com", url="https://baijiahao.baidu.com/s?id=17001")
    case_actions.do_confirm_case(case, scenario.users.staff, "copies chapter 2")
    match.refresh_from_db()
    capture = Capture(match=match, kind="detection", state="done", version_id=match.version_id,
                      url=match.url, bundle_sha256="cd" * 32)
    capture.bundle.save("detection.wacz", ContentFile(_wacz()))
    do_upload_rights_document(RightsDocument(
        holder=match.work.holder, title="著作权登记证书",
        file=SimpleUploadedFile("registration.pdf", PDF)), scenario.users.staff)
    contact = SiteContact.objects.get(domain=case.domain)
    contacts.do_record_contact_search(contact.pk, [contacts.Found(
        "editor@baidu.example", ContactSource.MAILTO, "https://baijiahao.baidu.com/")], 3,
        icp="京ICP备030173号-1")
    do_record_rdap_lookup(contact.pk, [
        contacts.Found("abuse@registrar.example", ContactSource.RDAP_REGISTRAR,
                       "https://rdap.example/domain/baidu.com"),
        contacts.Found("abuse@hosting.example", ContactSource.RDAP_HOST,
                       "https://rdap.example/ip/1.2.3.4"),
        contacts.Found("x@evil.example\r\nBcc: y@evil.example", ContactSource.RDAP_HOST,
                       "https://rdap.example/ip/1.2.3.4")])
    case.refresh_from_db()
    return case


def test_the_package_holds_what_the_platform_asks_for(platform_case, scenario, client):
    from core import notes
    from core.models import AuditEvent

    assert platform_case.icp_filing == "京ICP备030173号-1"
    client.force_login(scenario.users.staff)
    response = client.post(f"/crawler/case/{platform_case.pk}/change/", {"do": "complaint_package"})

    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert f"complaint-case-{platform_case.pk}-baijiahao.zip" in response["Content-Disposition"]
    package = zipfile.ZipFile(io.BytesIO(response.content))
    names = set(package.namelist())
    match = platform_case.pages.get()
    assert {f"evidence/report-match-{match.pk}.pdf", f"evidence/bundle-match-{match.pk}.wacz",
            "form.zh-hans.txt", "form.en.txt", "notice.zh-hans.txt", "notice.en.txt",
            "README.zh-hans.txt", "README.en.txt"} <= names
    [rights] = [n for n in names if n.startswith("rights/")]
    assert package.read(rights) == PDF
    assert package.read(f"evidence/report-match-{match.pk}.pdf").startswith(b"%PDF")
    form = package.read("form.zh-hans.txt").decode()
    assert "【权利人名称】\n星河出版社" in form and "https://baijiahao.baidu.com/s?id=17001" in form
    assert "【权属证明】\n" + rights in form
    readme = package.read("README.en.txt").decode()
    assert "Baijiahao (Baidu)" in readme and "Complaint channel: https://" in readme
    assert "1. Log in with a Baidu account" in readme
    assert "百家号" in package.read("README.zh-hans.txt").decode()
    event = AuditEvent.objects.about(platform_case).order_by("-sequence").first()
    assert "complaint package" in notes.in_english(event.reason)


def test_a_case_on_no_platform_gets_no_package(scenario_cases, scenario, client):
    case = scenario_cases["news"]
    client.force_login(scenario.users.staff)
    page = client.get(f"/crawler/case/{case.pk}/change/").content.decode()
    assert 'id="dash-case-platform"' not in page
    response = client.post(f"/crawler/case/{case.pk}/change/", {"do": "complaint_package"},
                           follow=True)
    assert f"{case.domain} 不在平台登记表中" in response.content.decode()  # the staff user reads zh-hans


@pytest.mark.parametrize("name, content, words", [
    ("contract.exe", b"MZ...", "仅接受以下文件类型：.pdf, .jpg, .jpeg, .png。"),
    ("contract.pdf", b"\x89PNG\r\n\x1a\n", "文件内容不是 PDF 文件。"),
    ("big.pdf", PDF + b"0" * 200, "最多接受 0.0 MB"),
])
def test_a_rights_document_is_checked_before_it_is_kept(scenario, client, settings, name,
                                                         content, words):
    from dashboard.models import RightsDocument

    settings.RIGHTS_DOCUMENT_MAX_BYTES = 100
    client.force_login(scenario.users.staff)
    response = client.post("/dashboard/rightsdocument/add/", {
        "holder": scenario.novel.holder.pk, "title": "合同",
        "file": SimpleUploadedFile(name, content)})
    assert response.status_code == 200 and words in response.content.decode()  # in zh-hans
    assert not RightsDocument.objects.exists()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_case_page_shows_each_source_and_downloads_the_package(
        platform_case, open_page, browser_login, screenshot, language):
    words = LABELS[language]
    page = open_page(language)
    page.set_viewport_size({"width": 1366, "height": 900})
    browser_login(page, "staff")
    page.goto(f"/crawler/case/{platform_case.pk}/change/")
    rows = page.locator("#dash-contact-suggestions tbody tr")
    assert rows.count() == 3
    sources = {row.locator("td").nth(0).inner_text(): row.locator("td").nth(1).inner_text()
               for row in rows.all()}
    assert sources["abuse@registrar.example"].startswith(words["registrar"])
    assert sources["abuse@hosting.example"].startswith(words["host"])
    assert sources["editor@baidu.example"].startswith(words["mailto"])
    assert "京ICP备030173号-1" in page.locator("#dash-case-icp").inner_text()
    page.locator("#dash-contact-refused summary").click()
    assert words["refused"] in page.locator("#dash-contact-refused").inner_text()
    assert words["platform"] in page.locator("#dash-case-platform h2").inner_text()
    screenshot(page, f"case-contacts-platform-{language}-1366")
    with page.expect_download() as download:
        page.click("#dash-package-button")
    path = download.value.path()
    assert "README.zh-hans.txt" in zipfile.ZipFile(path).namelist()
    page.set_viewport_size({"width": 390, "height": 844})
    for selector in ("#dash-case-contact", "#dash-case-platform"):
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (selector, box)
    screenshot(page, f"case-contacts-platform-{language}-390")
