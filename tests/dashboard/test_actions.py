"""Dashboard actions (takedown notices) and the crawler's review action, with the append-only audit
trail (against the real MongoDB)."""

import io

import pytest
from django.db import connection
from django.utils import translation
from docx import Document

from core.errors import ActionError
from core.models import AuditEvent, AuditTrailError, verify_chain
from crawler.review_actions import do_review_match
from dashboard import notices
from dashboard.models import NoticeStatus
from dashboard.notice_actions import do_advance_notice, do_draft_notices


@pytest.fixture(autouse=True)
def english():
    """The refusals are checked by their English wording (the default language is zh-hans)."""
    with translation.override("en"):
        yield


def test_review_records_who_when_why(scenario):
    match = scenario.matches[0]
    event = do_review_match(match, "confirmed", "整章照搬，无授权", scenario.users.staff)
    match.refresh_from_db()
    assert match.review_status == "confirmed"
    assert (event.old_state, event.new_state, event.username) == ("new", "confirmed", "staff")
    assert event.reason == "整章照搬，无授权" and event.target == match
    assert event.holder_id == scenario.a.pk and event.subject == match.url


@pytest.mark.parametrize("decision,reason,message", [
    ("confirmed", "  ", "Give a reason"), ("stolen", "x", "Unknown review status")])
def test_bad_decisions_change_nothing(scenario, decision, reason, message):
    match = scenario.matches[0]
    with pytest.raises(ActionError, match=message):
        do_review_match(match, decision, reason, scenario.users.staff)
    match.refresh_from_db()
    assert match.review_status == "new" and not AuditEvent.objects.exists()


def test_same_decision_twice_is_refused(scenario):
    match = scenario.matches[0]
    do_review_match(match, "confirmed", "copy", scenario.users.staff)
    with pytest.raises(ActionError, match="already"):
        do_review_match(match, "confirmed", "again", scenario.users.staff)
    assert AuditEvent.objects.count() == 1


def test_licensed_whitelists_the_domain_for_the_holder(scenario):
    from crawler.models import WhitelistedDomain

    match = scenario.matches[1]
    do_review_match(match, "licensed", "合作伙伴，已授权转载", scenario.users.holder_a)
    entry = WhitelistedDomain.objects.get()
    assert (entry.holder, entry.domain) == (scenario.a, "mirror.example.net")
    do_review_match(match, "confirmed", "授权已过期", scenario.users.holder_a)
    do_review_match(match, "licensed", "续约", scenario.users.holder_a)
    assert WhitelistedDomain.objects.count() == 1  # idempotent


def test_audit_events_cannot_be_changed_or_deleted(scenario):
    event = do_review_match(scenario.matches[0], "confirmed", "copy", scenario.users.staff)
    event.reason = "edited"
    with pytest.raises(AuditTrailError):
        event.save()
    with pytest.raises(AuditTrailError):
        event.delete()
    with pytest.raises(AuditTrailError):
        AuditEvent.objects.filter(pk=event.pk).update(reason="edited")
    with pytest.raises(AuditTrailError):
        AuditEvent.objects.all().delete()
    assert AuditEvent.objects.get().reason == "copy"


def test_chain_finds_an_edit_made_behind_djangos_back(scenario):
    staff = scenario.users.staff
    do_review_match(scenario.matches[0], "confirmed", "copy", staff)
    second = do_review_match(scenario.matches[1], "false_positive", "quotation", staff)
    do_review_match(scenario.matches[2], "confirmed", "copy", staff)
    assert verify_chain() is None
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {AuditEvent._meta.db_table} SET reason = %s WHERE id = %s",
                       ["licensed after all", second.pk])
    assert verify_chain() == second.sequence


def test_deleting_a_match_keeps_its_trail(scenario):
    match = scenario.matches[0]
    do_review_match(match, "confirmed", "copy", scenario.users.staff)
    match.delete()
    event = AuditEvent.objects.get()
    assert event.subject == "https://copy.example.com/novel/xyj-2.html"
    assert verify_chain() is None


def test_notices_only_from_confirmed_matches(scenario):
    with pytest.raises(ActionError, match="Only confirmed"):
        do_draft_notices(scenario.matches[:1], scenario.users.staff)


def confirm_all(scenario):
    for match in scenario.matches:
        do_review_match(match, "confirmed", "copy", scenario.users.staff)


def test_one_notice_per_holder_and_domain(scenario):
    confirm_all(scenario)
    drafted = do_draft_notices(scenario.matches, scenario.users.staff, "zh-hans")
    assert sorted((n.holder.name, n.domain) for n in drafted) == sorted([
        ("星河出版社", "copy.example.com"), ("星河出版社", "mirror.example.net"),
        ("晨光文化传媒", "news-copy.example.org")])
    assert all(n.status == NoticeStatus.DRAFTED for n in drafted)


def test_chinese_notice_holds_what_a_valid_notice_needs(scenario):
    confirm_all(scenario)
    notice, = do_draft_notices(scenario.matches[:1], scenario.users.staff, "zh-hans")
    text = notices.render_text(notice)
    match, passages = scenario.matches[0], scenario.passages[scenario.matches[0].pk]
    page_text = scenario.texts[match.pk]
    first = passages[0]
    for needed in ["侵权内容删除通知书", "星河出版社", "李明", "legal@xinghe.example",
                   "北京市朝阳区建国路 88 号", "《西游记（节选）》", "吴承恩", match.url,
                   "取证时间", "信息网络传播权保护条例", "承担法律责任",
                   "".join(page_text[first["page_start"]:first["page_end"]].split())[:40]]:
        assert needed in text.replace(" ", "") or needed in text, needed


def test_english_notice_and_docx(scenario):
    from docx import Document

    confirm_all(scenario)
    notice, = do_draft_notices(scenario.matches[2:], scenario.users.staff, "en",
                                     recipient="abuse@news-copy.example.org")
    text = notices.render_text(notice)
    for needed in ["Notice of Copyright Infringement", "To: abuse@news-copy.example.org",
                   "晨光文化传媒", "rights@chenguang.example", scenario.matches[2].url,
                   "Captured:", "good faith belief", "penalty of perjury"]:
        assert needed in text, needed
    document = Document(io.BytesIO(notices.render_docx(notice)))
    paragraphs = [p.text for p in document.paragraphs]
    assert paragraphs[0] == "Notice of Copyright Infringement and Request for Removal"
    assert any(scenario.matches[2].url in p for p in paragraphs)


def test_a_notice_words_a_rewritten_copy_as_such(scenario):
    # a 洗稿 is not a copy of the work's text: the notice says what the comparison found
    from crawler.models import Match, MatchKind

    confirm_all(scenario)
    Match.objects.filter(pk=scenario.matches[0].pk).update(kind=MatchKind.REWRITTEN)
    said = {"zh-hans": ("比对结果：该网页是对上述作品的洗稿：网页文字的", "来自上述作品"),
            "en": ("Comparison: the page is a rewritten copy (洗稿) of the work above:",
                   "comes from the work above")}
    for language, (rewritten, copied) in said.items():
        notice, = do_draft_notices(Match.objects.filter(pk=scenario.matches[0].pk),
                                   scenario.users.staff, language)
        text = notices.render_text(notice)
        assert rewritten in text and copied not in text, text
        notice.delete()
    copy, = do_draft_notices(scenario.matches[2:], scenario.users.staff, "zh-hans")
    assert "比对结果：该网页文字的" in notices.render_text(copy)
    # a notice drafted before matches had kinds: worded as drafted, a copy
    for work in copy.content["works"]:
        for page in work["copies"]:
            del page["kind"]
    assert "来自上述作品" in notices.render_text(copy)


def test_notice_snapshot_is_frozen_when_drafted(scenario):
    confirm_all(scenario)
    notice, = do_draft_notices(scenario.matches[:1], scenario.users.staff)
    scenario.a.address = "新地址"
    scenario.a.save()
    assert "北京市朝阳区建国路 88 号" in notices.render_text(notice)


def test_a_notice_quotes_as_many_passages_and_characters_as_the_settings_say(scenario, settings):
    # the first page copies two passages of the novel, of 480 and 300 characters
    confirm_all(scenario)

    def quoted():
        notice, = do_draft_notices(scenario.matches[:1], scenario.users.staff)
        (work,) = notice.content["works"]
        (page,) = work["copies"]
        notice.delete()
        return [passage["work"] for passage in page["passages"]]

    first, second = quoted()
    assert len(first) == len(second) == settings.NOTICE_EXCERPT_CHARS + 1
    start = scenario.passages[scenario.matches[0].pk][0]["work_start"]
    assert first == scenario.novel_text[start:start + len(first) - 1] + "…"
    settings.NOTICE_PASSAGES_PER_URL, settings.NOTICE_EXCERPT_CHARS = 1, 40
    assert quoted() == [first[:40] + "…"]


def test_notice_status_moves_are_dated_and_recorded(scenario):
    confirm_all(scenario)
    notice, = do_draft_notices(scenario.matches[:1], scenario.users.staff)
    with pytest.raises(ActionError, match="cannot become"):
        do_advance_notice(notice, NoticeStatus.REMOVED, scenario.users.staff)
    do_advance_notice(notice, NoticeStatus.SENT, scenario.users.staff, "emailed")
    assert notice.status == "sent" and notice.sent_at is not None
    do_advance_notice(notice, NoticeStatus.COUNTER, scenario.users.staff)
    assert notice.counter_notice_at is not None and notice.removed_at is None
    with pytest.raises(ActionError):
        do_advance_notice(notice, NoticeStatus.REMOVED, scenario.users.staff)
    states = list(AuditEvent.objects.about(notice).order_by("sequence").values_list("old_state", "new_state"))
    assert states == [("", "drafted"), ("drafted", "sent"), ("sent", "counter_notice")]


def test_chinese_notice_names_the_works_before_referring_to_them(scenario):
    confirm_all(scenario)
    notice, = do_draft_notices(scenario.matches[:1], scenario.users.staff, "zh-hans")
    text = notices.render_text(notice)
    listing = text.index("二、被侵权作品及侵权网址")
    assert "上述作品" not in text[:listing]  # nothing is "above" before the list
    assert "下列作品" in text[:listing] and "# " not in text


def test_docx_is_a4_with_heading_styles(scenario):
    from docx import Document
    from docx.shared import Mm

    confirm_all(scenario)
    notice, = do_draft_notices(scenario.matches[:1], scenario.users.staff, "zh-hans")
    document = Document(io.BytesIO(notices.render_docx(notice)))
    section = document.sections[0]
    assert (round(section.page_width / Mm(1)), round(section.page_height / Mm(1))) == (210, 297)
    styled = [(p.style.name, p.text) for p in document.paragraphs]
    assert styled[0] == ("Title", "侵权内容删除通知书")
    assert [t for s, t in styled if s == "Heading 1"] == [
        "一、权利人信息", "二、被侵权作品及侵权网址", "三、初步证明材料", "四、声明"]


def test_a_match_in_a_sent_notice_is_not_noticed_again_without_saying_so(scenario):
    confirm_all(scenario)
    first, = do_draft_notices(scenario.matches[:1], scenario.users.staff)
    do_draft_notices(scenario.matches[:1], scenario.users.staff)  # a draft is not sent: allowed
    do_advance_notice(first, NoticeStatus.SENT, scenario.users.staff)
    with pytest.raises(ActionError, match=f"notice #{first.pk}"):
        do_draft_notices(scenario.matches[:2], scenario.users.staff)
    again = do_draft_notices(scenario.matches[:1], scenario.users.staff, resend=True)
    assert len(again) == 1 and list(again[0].matches.all()) == [scenario.matches[0]]


def test_notice_text_is_editable_while_drafted_and_frozen_when_sent(scenario):
    from dashboard.notice_actions import do_edit_notice
    from lib.crawl.pagestore import sha256

    confirm_all(scenario)
    notice, = do_draft_notices(scenario.matches[:1], scenario.users.staff)
    generated = notices.render_text(notice)
    assert do_edit_notice(notice, scenario.users.staff, body=generated) is None  # no change
    assert notice.body == ""
    edited = generated.replace("侵权内容删除通知书", "侵权内容删除通知书（第二次）", 1)
    event = do_edit_notice(notice, scenario.users.staff, body=edited)
    assert notices.render_text(notice) == edited and sha256(edited) in event.reason
    document = Document(io.BytesIO(notices.render_docx(notice)))
    assert [p.text for p in document.paragraphs if p.style.name == "Heading 1"][0] == "一、权利人信息"

    scenario.a.address = "新地址"  # the holder's record changes after sending...
    scenario.a.save()
    sent = do_advance_notice(notice, NoticeStatus.SENT, scenario.users.staff, "by email")
    assert notice.body == edited and sha256(edited) in sent.reason and "by email" in sent.reason
    with pytest.raises(ActionError, match="sent"):
        do_edit_notice(notice, scenario.users.staff, body="anything")
    do_advance_notice(notice, NoticeStatus.REMOVED, scenario.users.staff)
    assert notices.render_text(notice) == edited  # ...the text sent stays what it was
