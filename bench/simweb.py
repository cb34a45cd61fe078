"""A simulated web on loopback and a search service over it, for search discovery's tests and
bench (``bench/search_discovery.py``, ``tests/crawler/test_search_discovery.py``).

``plan_web`` lays out sites (one loopback address each, 127.0.0.<n>, so that each site is its
own domain to the crawler): of the works given, some sites copy one verbatim inside a portal
page, some copy one edited (person names swapped, one character in ``EDIT_EVERY`` changed,
ads between paragraphs), some copy one split over three pages linked by "下一页", and most
carry unrelated text only. ``SimulatedWeb`` serves every site from threads of this process
(one ThreadingHTTPServer per address, port chosen by the system) and a search service over
every page on 127.0.0.1 (``lib.crawl.search.service``: SearXNG's JSON format, exact phrases).
``SimulatedWeb.queries`` counts the queries answered.
"""

from __future__ import annotations

import html
import random
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from urllib.parse import urlsplit

from lib.crawl.search.service import SearchService
from lib.runtime.serving import QuietHandler, serve_in_thread

EDIT_EVERY = 40  # an edited copy changes one character in this many
_NEAR = "的了是在有和也就都而及与着或之于其"  # what an edited character becomes
_AD = "【广告】点击领取新人礼包，注册即送会员，最新章节抢先看。"
_NAMES = {"悟空": "行者", "宝玉": "二爷", "黛玉": "林姑娘", "贾": "甄"}


@dataclass
class Page:
    """A page of a site: ``path``, ``title``, ``paragraphs`` (its text) and ``next`` (the path
    of the next part of a chapter split over pages, or '')."""

    path: str
    title: str
    paragraphs: list[str]
    next: str = ""


@dataclass
class Site:
    """A site: ``host`` (its loopback address), ``kind`` ('verbatim', 'edited', 'paginated',
    'excerpt' or 'unrelated'), ``work`` (the id of the work it copies, or ''), ``pages`` and ``copy_paths``
    (the paths of the pages that hold the copy). ``base`` is set when it is served."""

    host: str
    kind: str
    work: str = ""
    pages: list[Page] = field(default_factory=list)
    copy_paths: list[str] = field(default_factory=list)
    base: str = ""


def plan_web(works: dict[str, str], fillers: list[str], sites: int = 50, verbatim: int = 4,
             edited: int = 4, paginated: int = 3, excerpt: int = 0, seed: int = 7,
             host: str = "") -> list[Site]:
    """The sites of a simulated web: ``verbatim`` + ``edited`` + ``paginated`` + ``excerpt``
    copying sites (an excerpt: the middle third of the work among unrelated paragraphs)
    (each copies one of ``works``, {id: text}, taken in turn) and unrelated ones up to ``sites``,
    each page made of ``fillers`` (unrelated texts, str). Deterministic for ``seed``. ``host``:
    serve every site on this one loopback address instead (sites then differ by port only, as
    for a crawler allowed only 127.0.0.1). Raises
    ValueError when the copying sites outnumber ``sites`` or more than 250 sites are asked."""
    copying = verbatim + edited + paginated + excerpt
    if copying > sites or sites > 250 or not fillers:
        raise ValueError("need copying sites <= sites <= 250 and some filler text")
    rng = random.Random(seed)
    ids = list(works)
    out = []
    kinds = ["verbatim"] * verbatim + ["edited"] * edited + ["paginated"] * paginated
    kinds += ["excerpt"] * excerpt
    kinds += ["unrelated"] * (sites - copying)
    for n, kind in enumerate(kinds):
        site = Site(host or f"127.0.0.{n + 2}", kind)
        for i in range(rng.randint(2, 4)):  # every site has some unrelated pages
            site.pages.append(Page(f"/news/{i}.html", f"新闻 {i}", _filler(fillers, rng)))
        if kind != "unrelated":
            site.work = ids[n % len(ids)]
            _copy(site, works[site.work], fillers, rng)
        out.append(site)
    return out


def _filler(fillers: list[str], rng: random.Random) -> list[str]:
    text = rng.choice(fillers)
    start = rng.randrange(max(len(text) - 600, 1))
    return [p for p in text[start:start + 600].split("\n") if p.strip()] or [text[:600]]


def _copy(site: Site, text: str, fillers: list[str], rng: random.Random) -> None:
    paragraphs = [p for p in text.split("\n") if p.strip()]
    if site.kind == "excerpt":
        middle = text[len(text) // 3:2 * len(text) // 3]
        paragraphs = (_filler(fillers, rng) + [p for p in middle.split("\n") if p.strip()]
                      + _filler(fillers, rng))
    if site.kind == "edited":
        paragraphs = [_edit(p, rng) for p in paragraphs]
        paragraphs = [q for p in paragraphs for q in (p, _AD) if rng.random() < 0.3 or q == p]
    if site.kind == "paginated":
        third = max(len(paragraphs) // 3, 1)
        parts = [paragraphs[:third], paragraphs[third:2 * third], paragraphs[2 * third:]]
        paths = ["/book/1.html", "/book/1_2.html", "/book/1_3.html"]
        for i, part in enumerate(parts):
            site.pages.append(Page(paths[i], f"第一章（{i + 1}/3）", part,
                                   paths[i + 1] if i < 2 else ""))
        site.copy_paths = paths
        return
    site.pages.append(Page("/book/1.html", "最新章节 免费阅读", paragraphs))
    site.copy_paths = ["/book/1.html"]


def _edit(paragraph: str, rng: random.Random) -> str:
    for name, other in _NAMES.items():
        paragraph = paragraph.replace(name, other)
    chars = list(paragraph)
    for i in range(rng.randrange(EDIT_EVERY), len(chars), EDIT_EVERY):
        if "\u4e00" <= chars[i] <= "\u9fff":
            chars[i] = rng.choice(_NEAR)
    return "".join(chars)


def render(site: Site, page: Page) -> bytes:
    """The HTML of ``page`` on ``site``: a portal layout (menu, ads, footer) around its text,
    with a "下一页" link to the next part if any."""
    body = "".join(f"<p>{html.escape(p)}</p>" for p in page.paragraphs)
    links = "".join(f'<a href="{p.path}">{html.escape(p.title)}</a> ' for p in site.pages[:3])
    nxt = f'<a href="{page.next}">下一页</a>' if page.next else ""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(page.title)}"
            f"</title></head><body><nav>首页 {links}</nav><article><h1>{html.escape(page.title)}"
            f"</h1>{body}{nxt}</article><footer>本站内容来自网络 联系我们</footer></body></html>"
            ).encode()


class SimulatedWeb:
    """The sites of ``plan_web`` served on loopback and the search service over their pages
    (on ``search_port`` of 127.0.0.1, or a free port).

    Use as a context manager (or ``start``/``stop``). ``search_url``: the service's root, for
    ``TRACKER_SEARCH_PROVIDERS=searxng=<search_url>``; ``queries``: queries answered so far.
    """

    def __init__(self, sites: list[Site], search_port: int = 0):
        self.sites, self.search_url = sites, ""
        self.search_port = search_port  # 0: a free port
        self._servers: list[ThreadingHTTPServer] = []
        self._service: SearchService | None = None

    def __enter__(self) -> SimulatedWeb:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def queries(self) -> int:
        """Queries the search service answered so far."""
        return self._service.queries if self._service else 0

    def start(self) -> None:
        """Serve every site, then index every page and serve the search service."""
        for site in self.sites:
            site.base = self._serve(site.host, _site_handler(site))
        self._service = SearchService((site.base + p.path, p.title, "\n".join(p.paragraphs))
                                      for site in self.sites for p in site.pages)
        self.search_url = self._service.serve(self.search_port)

    def stop(self) -> None:
        """Stop every server."""
        if self._service is not None:
            self._service.stop()
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()

    def copies(self) -> dict[str, list[str]]:
        """{copying site's base URL: the URLs of its pages holding the copy}."""
        return {s.base: [s.base + p for p in s.copy_paths] for s in self.sites if s.work}

    def search(self, query: str) -> list[dict]:
        """The search service's results of ``query`` (``SearchService.search``)."""
        return self._service.search(query) if self._service else []

    def _serve(self, host: str, handler, port: int = 0) -> str:
        server = ThreadingHTTPServer((host, port), handler)
        server.daemon_threads = True
        serve_in_thread(server, f"simweb {host}")
        self._servers.append(server)
        return f"http://{host}:{server.server_address[1]}"


def _site_handler(site: Site):
    pages = {p.path: p for p in site.pages}

    class Handler(QuietHandler):
        def do_GET(self):
            path = urlsplit(self.path).path
            if path == "/robots.txt":
                return self.reply(200, "text/plain", b"User-agent: *\nAllow: /\n")
            page = pages.get(path)
            if page is None:
                return self.reply(404, "text/html", b"<html><body>not found</body></html>")
            return self.reply(200, "text/html; charset=utf-8", render(site, page))

    return Handler
