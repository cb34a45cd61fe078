"""Chapters split over several pages (下一页, ``_2.html``): the parts are followed within the
site's scope without spending link depth, each part is matched, and the match list shows the
parts of one chapter page as one row with their count."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from lib.crawl.links import chapter_of, chapter_part, next_part_links
from tests.chapter import CHAPTER
from tests.scanning import scan

PAGE = ("<html><head><title>西游记 第一回 ({n}/3) - 好书网</title></head><body><div class='nav'>首页</div>"
        "<article><h1>第一回</h1>{paras}</article><div class='pager'>{pager}</div>"
        "<a href='/book/'>目录</a></body></html>")


def test_next_part_links_and_chapter_of():
    doc = ('<a href="345_2.html">下一页</a><a href="346.html">下一章</a>'
           '<a href="346.html">下一页</a><a href="345_3.html"> [下一頁] </a><a href="x.html">next</a>')
    url = "http://a.cn/book/345.html"
    assert next_part_links(doc, url) == ["http://a.cn/book/345_2.html"]
    assert next_part_links(doc, "http://a.cn/book/345_2.html") == ["http://a.cn/book/345_3.html"]
    assert chapter_part("http://a.cn/read?id=3&page=2") == ("http://a.cn/read?id=3", 2)
    assert chapter_part("http://a.cn/news/2024-05/") == ("http://a.cn/news/2024-05/", 1)
    assert chapter_of(url, [], ["http://a.cn/book/345_2.html"]) == url
    assert chapter_of("http://a.cn/book/345_3.html", ["http://a.cn/book/345_2.html"], []) == url
    assert chapter_of("http://a.cn/news/2024_12.html", ["http://a.cn/other.html"], []) == ""
    assert chapter_of(url, ["http://a.cn/book/346.html"], []) == ""  # a one-page chapter


def serve_chapter(site) -> None:
    """Chapter one cut in three pages; the last page's 下一页 leads to chapter two."""
    thirds = [CHAPTER[i * len(CHAPTER) // 3:(i + 1) * len(CHAPTER) // 3] for i in range(3)]
    names = ["/book/1.html", "/book/1_2.html", "/book/1_3.html"]
    for n, (name, text) in enumerate(zip(names, thirds, strict=True), start=1):
        pager = (f"<a href='{names[n - 2] if n > 1 else '/book/'}'>上一页</a>"
                 f"<a href='{names[n] if n < 3 else '/book/2.html'}'>下一页</a>")
        paras = "".join(f"<p>{p}</p>" for p in text.split("\n") if p.strip())
        site.route(name, site.html(PAGE.format(n=n, paras=paras, pager=pager)))
    site.route("/book/2.html", site.html("<html><body><p>第二回</p></body></html>"))
    site.route("/", site.html("<a href='/book/1.html'>第一回</a>"))


@pytest.mark.django_db(transaction=True)
def test_parts_are_followed_matched_and_grouped(idle_worker, site, indexed_chapter, client):
    from crawler.models import Match

    work = indexed_chapter()
    serve_chapter(site)
    call_command("add_site", "分页站", site.url("/"), "--delay", "0", "--max-depth", "1",
                 stdout=io.StringIO())
    summary = scan("分页站")
    assert summary["status"] == "finished" and summary["matches_new"] == 3, summary

    # depth 1 reaches the first page only; its parts keep that depth, the next chapter does not
    assert site.hits("/book/1_3.html") == 1 and site.hits("/book/2.html") == 0
    chapter = site.url("/book/1.html")
    assert sorted(Match.objects.values_list("url", "part_of")) == [
        (chapter, chapter), (site.url("/book/1_2.html"), chapter),
        (site.url("/book/1_3.html"), chapter)]
    [head] = Match.objects.chapter_heads()
    assert (head.url, head.part_count) == (chapter, 3)
    assert Match.objects.filter(pk=head.pk).with_parts().count() == 3

    staff = get_user_model().objects.create_superuser("boss", "boss@example.com", "x")
    client.force_login(staff)
    listing = client.get("/crawler/match/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert listing.context["cl"].result_count == 1
    assert "3 个页面属于同一章" in listing.content.decode()
    drill = client.get("/crawler/match/", {"part_of": chapter, "work__id__exact": work.pk})
    assert drill.context["cl"].result_count == 3
    # confirming the chapter's row confirms its three pages
    client.post("/crawler/match/", {"action": "mark_confirmed", "_selected_action": [head.pk],
                                    "apply": "1", "reason": "整章分页转载"})
    assert set(Match.objects.values_list("review_status", flat=True)) == {"confirmed"}


@pytest.mark.django_db
def test_chapter_head_is_its_first_part_whichever_was_recorded_first():
    """Two workers match a chapter's parts in any order: the row shown is the first part."""
    from core.models import RightsHolder, Work
    from crawler.models import Match

    work = Work.objects.create(holder=RightsHolder.objects.create(name="测试出版社"),
                               reference="XYJ-1", title="西游记", length=10, status="indexed")
    chapter = "http://a.cn/book/1.html"
    for n, url in enumerate(["http://a.cn/book/1_3.html", "http://a.cn/book/1_2.html", chapter]):
        Match.objects.create(work=work, page_id=f"{n:024d}", version_id=f"{n:024d}", url=url,
                             domain="a.cn", part_of=chapter, score=0.9, containment_page=0.9,
                             containment_work=0.3)
    [head] = Match.objects.chapter_heads()
    assert (head.url, head.part_count) == (chapter, 3)
    # without its first part among them, the parts' row is the first recorded one
    [head] = Match.objects.exclude(url=chapter).chapter_heads()
    assert (head.url, head.part_count) == ("http://a.cn/book/1_3.html", 2)
