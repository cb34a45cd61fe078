"""Build demo/site/: a small static site of real pages for the demo scan (run once; output committed).

    python demo/build_site.py /path/to/news_html_dev.tar.gz

Pages:
- news/: 8 real Chinese news pages, the GeneralNewsExtractor test pages (GPL-3.0) as shipped in
  news_html_dev.tar.gz, copied byte for byte: they match no demo work.
- reprint/: pages that reprint the demo works (demo/works/) the way real sites do: a portal
  header and footer, ads between paragraphs, the editor's or reporter's name changed, a few
  characters changed, one chapter only, traditional characters in Big5, a GBK page that declares
  no charset, full-width digits turned into ASCII.
- private/: a reprint under a folder robots.txt disallows: a polite crawler never sees it.
- index.html (links to everything, plus a calendar link that is a crawler trap; its footer links
  the contact page and shows an ICP filing number), sitemap.xml, feed.xml (RSS 2.0), robots.txt.
- .well-known/security.txt and contact.html: the site's takedown addresses (RFC 9116 Contact
  lines, a mailto: link and an address written out), for the contact search.
- ../platform_site/: the second demo site, on the demo "platform" of crawler/data/platforms.toml
  (served as http://localhost:8932): an article reprinting chapter 1 of 西游记 and the
  platform's complaint page. `build_contact_pages()` writes these without the news tarball.
- ../unlisted_site/: the third demo site, which no target site lists (served on 127.0.0.2 by
  `make run`, where the demo search engine finds it): chapter 2 of 红楼梦 with ads.
  `build_unlisted_site()` writes it without the news tarball.
- ../archive/demo-crawl.warc.gz: the demo's web archive (WARC, written with warcio), for
  `manage.py scan_archive`: three of the news pages and chapter 3 of 西游记 from a site that is
  gone. `build_demo_archive()` writes it from the news pages already in news/.
- assets/: what a real piracy site's pages load, so that evidence captures record it: a
  stylesheet, a logo (SVG), an advert image (PNG, drawn with Pillow) and a web font (WOFF2: the
  Latin letters and digits of DejaVu Sans Bold, subset with fontTools).
Traditional characters come from opencc-python-reimplemented (s2t).
"""

from __future__ import annotations

import html
import io
import json
import re
import sys
import tarfile
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path

import opencc
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

DEMO = Path(__file__).resolve().parent
WORKS, SITE = DEMO / "works", DEMO / "site"
NEWS_PAGES = ["tests/baijiahao/1.html", "tests/cjddsb/1.html", "tests/stcn/1.html", "tests/qq/qq.html",
              "tests/csdn/1.html", "tests/xds/1.html", "tests/zyyfy/1.html", "tests/thepaper/3.html"]
ICP_NUMBER = "京ICP备00000001号-1"  # a made-up filing number, shown as piracy sites show theirs
PLATFORM_SITE = DEMO / "platform_site"
UNLISTED_SITE, UNLISTED_NAME = DEMO / "unlisted_site", "笔趣书阁"
ARCHIVE = DEMO / "archive" / "demo-crawl.warc.gz"
GONE_URL = "http://www.xiaoshuo-gone.example/xiyouji/3.html"  # the archived copy's site, gone
ARCHIVED_NEWS = ["baijiahao-1.html", "stcn-1.html", "xds-1.html"]
CHANGED_CHARACTERS = {"猴": "候", "石": "实", "仙": "先"}  # homophones, as reposts do
ADS = ["【广告】手游新服开启，登录即送VIP礼包", "【推广】本地装修公司限时五折优惠，点击咨询",
       "【广告】新用户注册领取百元话费"]


def chapters(path: Path, encoding: str) -> list[tuple[str, str]]:
    """(heading, body) of each chapter of a demo work file (headings are lines '第X回 ...')."""
    text = path.read_bytes().decode(encoding)
    parts = re.split(r"(?m)^(第[一二三四五六七八九十百]+回[^\n]*)\n", text)
    return [(parts[i].strip(), parts[i + 1].strip()) for i in range(1, len(parts) - 1, 2)]


def paragraphs(text: str) -> list[str]:
    """The non-blank lines of ``text``, stripped."""
    return [p.strip() for p in text.split("\n") if p.strip()]


def portal(title: str, body_html: str, site_name: str, charset: str | None = "utf-8",
           assets: bool = True) -> str:
    """A page in the layout of a portal: navigation, the article, related links, footer; with
    ``assets``, the demo site's stylesheet and logo (a site without assets/ leaves them out)."""
    meta = f'<meta charset="{charset}">' if charset else ""
    style = '<link rel="stylesheet" href="/assets/site.css">' if assets else ""
    logo = '<img class="logo" src="/assets/logo.svg" alt="logo">' if assets else ""
    return (f"<!DOCTYPE html>\n<html><head>{meta}<title>{html.escape(title)}_{site_name}</title>"
            f"{style}</head>\n"
            f"<body><div class=\"top\">{logo}"
            f"<a href=\"/\">{site_name}首页</a> | <a href=\"/\">新闻</a> | "
            f"<a href=\"/\">小说</a> | <a href=\"/\">排行榜</a> | <a href=\"/\">登录</a></div>\n"
            f"<div class=\"main\"><article><h1>{html.escape(title)}</h1>\n{body_html}\n</article></div>\n"
            f"<div class=\"side\"><h3>热门推荐</h3><ul><li><a href=\"/\">今日热点</a></li>"
            f"<li><a href=\"/\">精彩专题</a></li></ul></div>\n"
            f"<div class=\"footer\">版权所有 © {site_name} | 联系我们 | 网站地图</div></body></html>\n")


def with_ads(paras: list[str], every: int = 4, assets: bool = True) -> str:
    """HTML paragraphs of ``paras`` with an advertisement block after every ``every`` of them
    (with ``assets``, each with the demo site's advert image)."""
    out = []
    image = '<img src="/assets/ad.png" alt="AD">' if assets else ""
    for i, p in enumerate(paras):
        out.append(f"<p>{html.escape(p)}</p>")
        if i % every == every - 1:
            out.append(f'<div class="ad">{image}{ADS[(i // every) % len(ADS)]}</div>')
    return "\n".join(out)


def change_characters(text: str, limit: int = 3) -> str:
    """``text`` with up to ``limit`` occurrences of each CHANGED_CHARACTERS key replaced."""
    for old, new in CHANGED_CHARACTERS.items():
        text = text.replace(old, new, limit)
    return text


def build_reprints() -> list[dict]:
    """Write the reprint pages; returns [{path, title, what}] for the index, sitemap and feed."""
    s2t = opencc.OpenCC("s2t")
    xyj = chapters(WORKS / "xiyouji-01-03.txt", "utf-8")
    hlm = chapters(WORKS / "hongloumeng-01-02.txt", "gb18030")
    news = {json.loads(line)["id"]: json.loads(line)
            for line in (WORKS / "renmin-ribao-199801.jsonl").read_text(encoding="utf-8").splitlines()}
    pages = []

    def write(rel: str, content: bytes, title: str, what: str):
        path = SITE / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        pages.append({"path": "/" + rel, "title": title, "what": what})

    heading, body = xyj[0]
    paras = paragraphs(change_characters(body)) + ["（本章完，未完待续）", "责任编辑：赵六"]
    write("reprint/xiyouji-01.html", portal(f"西游记 {heading}", with_ads(paras), "好书连载网").encode(),
          f"西游记 {heading}", "chapter 1 only, ads, three homophones changed, an editor added")

    heading, body = xyj[1]
    trad = s2t.convert(heading), paragraphs(s2t.convert(body)) + ["責任編輯：錢七"]
    write("reprint/xiyouji-02-big5.html",
          portal(f"西遊記 {trad[0]}", with_ads(trad[1], 5), "臺灣書城", "big5")
          .encode("big5", "xmlcharrefreplace"), f"西遊記 {trad[0]}",
          "chapter 2 in traditional characters, encoded Big5 (meta charset)")

    heading, body = hlm[0]
    half = paragraphs(body)
    half = half[: max(3, len(half) // 2)] + ["整理：网友书虫"]
    write("reprint/hongloumeng-01.html", portal(f"红楼梦 {heading}", with_ads(half, 3), "古典文学吧", None)
          .encode("gbk", "xmlcharrefreplace"), f"红楼梦 {heading}",
          "first half of chapter 1, GBK bytes without any charset declaration")

    item = news["pd199801-00026"]
    text = item["text"].replace("本报记者何加正", "本网记者王明").replace("新华社记者陈雁、", "")
    write("reprint/news-concert.html", portal(item["title"], with_ads(paragraphs(text) + ["来源：本站综合 编辑：周八"], 3),
                                               "今日资讯网").encode(), item["title"],
          "People's Daily article reprinted whole, reporter names changed, source line replaced")

    item = news["pd199801-00090"]
    digits = str.maketrans("０１２３４５６７８９％", "0123456789%")
    text = item["text"].translate(digits)
    cut = paragraphs(text)
    write("reprint/news-huaihe.html", portal(item["title"], with_ads(cut[: max(2, len(cut) * 2 // 3)] +
                                                                  ["（编辑：吴九）"], 2), "环保在线").encode(),
          item["title"], "two thirds of a People's Daily article, full-width digits made ASCII")

    heading, body = xyj[2]
    write("private/draft-xiyouji-03.html", portal(f"西游记 {heading}", with_ads(paragraphs(body)), "好书连载网").encode(),
          f"西游记 {heading}", "a reprint in a folder robots.txt disallows (never fetched)")
    return pages


CSS = """@font-face { font-family: "DemoSans"; src: url("/assets/demo-sans.woff2") format("woff2"); }
body { margin: 0; background: #fffbe6; color: #222; font: 17px/1.7 serif; }
.top { background: #8b0000; color: #fff; padding: 8px 16px; font-family: "DemoSans", sans-serif; }
.top a { color: #ffd700; } .logo { height: 40px; vertical-align: middle; margin-right: 12px; }
.main { max-width: 860px; margin: 0 auto; padding: 0 16px; }
h1 { color: #8b0000; border-bottom: 4px solid #8b0000; font-family: "DemoSans", serif; }
.ad { background: #fff0f0; border: 2px dashed #d00; padding: 6px; margin: 12px 0; color: #d00; }
.ad img { display: block; max-width: 100%; }
.side { max-width: 860px; margin: 0 auto; padding: 0 16px; color: #555; }
.footer { background: #333; color: #ccc; padding: 12px 16px; font-family: "DemoSans", sans-serif; }
"""
LOGO = """<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40" viewBox="0 0 160 40">
<rect width="160" height="40" rx="6" fill="#ffd700"/><circle cx="20" cy="20" r="13" fill="#8b0000"/>
<text x="40" y="27" font-family="sans-serif" font-weight="bold" font-size="18" fill="#8b0000">DEMO BOOKS</text>
</svg>
"""


def build_assets() -> None:
    """Write assets/: the stylesheet, the logo, the advert image and the web font."""
    from fontTools import subset
    from PIL import Image, ImageDraw

    folder = SITE / "assets"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "site.css").write_text(CSS, encoding="utf-8")
    (folder / "logo.svg").write_text(LOGO, encoding="utf-8")
    advert = Image.new("RGB", (600, 90), "#ffeb3b")
    draw = ImageDraw.Draw(advert)
    draw.rectangle((4, 4, 595, 85), outline="#d00000", width=4)
    draw.text((24, 30), "AD  |  GAME SERVER OPEN - VIP GIFT  |  CLICK NOW", fill="#d00000")
    advert.save(folder / "ad.png", optimize=True)
    options = subset.Options()
    options.flavor = "woff2"
    font = subset.load_font("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(text="".join(chr(c) for c in range(0x20, 0x7F)))
    subsetter.subset(font)
    subset.save_font(font, str(folder / "demo-sans.woff2"), options)


def build_news(tar_path: Path) -> list[dict]:
    """Copy the real news pages out of the tarball; returns [{path, title, what}]."""
    pages = []
    with tarfile.open(tar_path) as tar:
        index = {json.loads(line)["id"]: json.loads(line)
                 for line in tar.extractfile("news_html/index.jsonl").read().decode().splitlines()}
        for member in NEWS_PAGES:
            name = member.split("/", 1)[1].replace("/", "-")
            (SITE / "news").mkdir(parents=True, exist_ok=True)
            (SITE / "news" / name).write_bytes(tar.extractfile(f"news_html/{member}").read())
            pages.append({"path": f"/news/{name}", "title": index[member]["html_title"],
                          "what": f"real news page ({index[member]['site']}), GeneralNewsExtractor test page"})
    return pages


def build_contact_pages() -> None:
    """Write the demo site's security.txt and contact page, and the demo platform's site."""
    (SITE / ".well-known").mkdir(exist_ok=True)
    (SITE / ".well-known" / "security.txt").write_text(
        "# The demo reprint site's contacts (RFC 9116)\nContact: mailto:security@reprint.example\n"
        "Contact: https://127.0.0.1/contact.html\nExpires: 2030-12-31T00:00:00.000Z\n"
        "Preferred-Languages: zh, en\n", encoding="utf-8")
    body = ("<p>版权投诉请发送至 <a href=\"mailto:copyright@reprint.example\">版权投诉邮箱</a>，"
            "商务合作请写信到 business@reprint.example。</p>")
    (SITE / "contact.html").write_text(portal("联系我们", body, "示例转载站").replace(
        "联系我们 |", f"{ICP_NUMBER} |"), encoding="utf-8")
    xyj = chapters(WORKS / "xiyouji-01-03.txt", "utf-8")
    heading, text = xyj[0]
    (PLATFORM_SITE / "article").mkdir(parents=True, exist_ok=True)
    article = portal(f"西游记 {heading}", "<p class=\"author\">作者：某自媒体号</p>\n"
                     + with_ads(paragraphs(text), 6), "示例内容平台")
    (PLATFORM_SITE / "article" / "xiyouji-01.html").write_text(article, encoding="utf-8")
    links = '<ul><li><a href="/article/xiyouji-01.html">西游记 第一回（自媒体号转载）</a></li></ul>'
    (PLATFORM_SITE / "index.html").write_text(portal("示例内容平台 Demo platform", links + (
        '<p><a href="/complaint.html">侵权投诉</a></p>'), "示例内容平台"), encoding="utf-8")
    (PLATFORM_SITE / "complaint.html").write_text(portal("侵权投诉 Complaint", (
        "<p>这是示例平台的投诉页：真实平台在此填写表单并上传材料。This is the demo platform's "
        "complaint page: on a real platform the form is filled in here and the files uploaded.</p>"),
        "示例内容平台"), encoding="utf-8")
    (PLATFORM_SITE / "robots.txt").write_text("User-agent: *\nAllow: /\n", encoding="utf-8")


def build_unlisted_site() -> None:
    """Write the third demo site, which no target site lists (served on 127.0.0.2 by `make
    run`; the demo search engine finds it): chapter 2 of 红楼梦, whole, with ads and
    homophones, and an index page."""
    heading, body = chapters(WORKS / "hongloumeng-01-02.txt", "gb18030")[1]
    paras = paragraphs(change_characters(body)) + ["（本章完）", "本章由书友“潇湘过客”上传"]
    (UNLISTED_SITE / "book").mkdir(parents=True, exist_ok=True)
    (UNLISTED_SITE / "book" / "hongloumeng-02.html").write_text(portal(
        f"红楼梦 {heading}", with_ads(paras, 5, assets=False), UNLISTED_NAME, assets=False),
        encoding="utf-8")
    links = f'<ul><li><a href="/book/hongloumeng-02.html">红楼梦 {html.escape(heading)}</a></li></ul>'
    (UNLISTED_SITE / "index.html").write_text(portal(f"{UNLISTED_NAME} 免费阅读", links,
                                                     UNLISTED_NAME, assets=False),
                                              encoding="utf-8")
    (UNLISTED_SITE / "robots.txt").write_text("User-agent: *\nAllow: /\n", encoding="utf-8")
    (UNLISTED_SITE / "SOURCES.md").write_text(
        "# The unlisted demo site (built by demo/build_site.py; served by `make run` on "
        "127.0.0.2)\n\n`book/hongloumeng-02.html` reprints chapter 2 of the demo work "
        "hongloumeng-01-02 (demo/works/SOURCES.md: public domain) whole, with ads, three "
        "homophones and an uploader's line; no target site lists this site, only the demo "
        "search engine finds it (crawler/demo_search.py).\n", encoding="utf-8")


def build_demo_archive() -> None:
    """Write the demo's web archive (a WARC file, with warcio): three of the real news pages
    and, from a site that is gone, a reprint of chapter 3 of 西游记, which no live demo site
    shows (the demo site's copy is under its robots.txt-forbidden /private/)."""
    heading, body = chapters(WORKS / "xiyouji-01-03.txt", "utf-8")[2]
    gone = portal(f"西游记 {heading}", with_ads(paragraphs(body), 5, assets=False), "旧书小站",
                  assets=False).encode()
    pages = [(f"https://news.example.cn/{name}", (SITE / "news" / name).read_bytes())
             for name in ARCHIVED_NEWS] + [(GONE_URL, gone)]
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    writer.write_record(writer.create_warcinfo_record(ARCHIVE.name, {
        "software": "demo/build_site.py (warcio)", "description": "the demo's web archive"}))
    for url, payload in pages:
        headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")],
                                   protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(payload),
                                                      http_headers=headers))
    ARCHIVE.parent.mkdir(exist_ok=True)
    ARCHIVE.write_bytes(buffer.getvalue())


def build_index(pages: list[dict]) -> None:
    """Write the site's index page, sitemap and feed linking ``pages`` ({path, title, what})."""
    links = "\n".join(f'<li><a href="{p["path"]}?utm_source=index&amp;spm=demo.1">{html.escape(p["title"])}</a></li>'
                      for p in pages)
    body = (f"<ul>\n{links}\n</ul>\n<p><a href=\"/calendar/2026/01/\">活动日历</a> | "
            f"<a href=\"/feed.xml\">RSS</a> | <a href=\"/sitemap.xml\">网站地图</a> | "
            f"<a href=\"https://www.example.com/\">友情链接</a></p>")
    (SITE / "index.html").write_text(portal("示例转载站 Demo reprint site", body, "示例转载站").replace(
        "联系我们", f'<a href="/contact.html">联系我们</a> | {ICP_NUMBER}'), encoding="utf-8")
    urls = "\n".join(f"  <url><loc>{{BASE}}{p['path']}</loc></url>" for p in pages if not p["path"].startswith("/private"))
    (SITE / "sitemap.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{urls}\n</urlset>\n", encoding="utf-8")
    now = format_datetime(datetime(2026, 1, 1, tzinfo=UTC))
    items = "\n".join(f"  <item><title>{html.escape(p['title'])}</title><link>{{BASE}}{p['path']}</link>"
                      f"<pubDate>{now}</pubDate></item>" for p in pages if p["path"].startswith("/reprint"))
    (SITE / "feed.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>示例转载站</title>'
        f"<link>{{BASE}}/</link><description>demo feed</description>\n{items}\n</channel></rss>\n", encoding="utf-8")
    (SITE / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n", encoding="utf-8")
    table = "\n".join(f"| `{p['path']}` | {p['what']} |" for p in pages)
    (SITE / "SOURCES.md").write_text(
        "# The demo site (built by demo/build_site.py; served by `python manage.py demo_site`)\n\n"
        "| page | what |\n|---|---|\n" + table + "\n\n"
        "Sources: `news/` are test pages of GeneralNewsExtractor (github.com/GeneralNewsExtractor/"
        "GeneralNewsExtractor, GPL-3.0), unchanged. `reprint/` and `private/` are made from the demo works "
        "(demo/works/SOURCES.md: public-domain novels, People's Daily 1998 from the PKU corpus). "
        "`assets/` are made by the script; the web font is a subset of DejaVu Sans Bold (Bitstream "
        "Vera licence, free to modify and redistribute). "
        "`sitemap.xml` and `feed.xml` hold `{BASE}`, replaced by the server with its own address.\n",
        encoding="utf-8")


def main(argv: list[str]) -> int:
    """Build the demo site from the news archive named in ``argv[1]``; exit status 0, or 2 on
    bad usage."""
    if len(argv) != 2:
        print(__doc__)
        return 2
    build_assets()
    pages = build_news(Path(argv[1])) + build_reprints()
    build_index(pages)
    build_contact_pages()
    build_unlisted_site()
    build_demo_archive()
    print(f"{len(pages)} pages written under {SITE}, the demo platform's under {PLATFORM_SITE}, "
          f"the unlisted site's under {UNLISTED_SITE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
