"""The demo's web search engine, for trying search discovery under `make run`: the pages of
the three demo sites in a SearXNG-format search service on loopback
(``lib.crawl.search.service``), asked by ``manage.py discover --search`` through
``TRACKER_SEARCH_PROVIDERS=searxng=...``.

The third demo site, demo/unlisted_site/, reprints chapter 2 of the demo's 红楼梦 and is no
target site: only search discovery finds it. `make run` serves it on UNLISTED_HOST (its own
domain to the crawler; CRAWLER_ALLOW_ADDRESSES lets it through), port DEMO_UNLISTED_PORT.
"""

from __future__ import annotations

from pathlib import Path

from protego import Protego

from crawler.demo import SITE_DIR
from lib.crawl.search.service import SearchService
from lib.text import decode_bytes, extract_document

UNLISTED_DIR = SITE_DIR.parent / "unlisted_site"
UNLISTED_HOST = "127.0.0.2"
UNLISTED_PORT = 8934
SEARCH_PORT = 8935
ROBOT = "*"  # the demo search engine's crawler reads what robots.txt allows every robot


def site_pages(base: str, folder: Path) -> list[tuple[str, str, str]]:
    """(url, title, text) of each HTML page under ``folder``, served at ``base`` (its root
    URL), that the folder's robots.txt lets a search engine's crawler read; the text as the
    platform extracts it (``lib.text``: the encoding found, then the main content)."""
    robots = folder / "robots.txt"
    rules = Protego.parse(robots.read_text(encoding="utf-8") if robots.is_file() else "")
    pages = []
    for path in sorted(folder.rglob("*.html")):
        url = f"{base}/{path.relative_to(folder).as_posix()}"
        if not rules.can_fetch(url, ROBOT):
            continue
        page = extract_document(decode_bytes(path.read_bytes(), "text/html").text, url=url,
                                with_author=False, with_date=False)
        if page.text:
            pages.append((url, page.title or "", page.text))
    return pages


def serve_search(port: int, sites: list[tuple[str, Path]]) -> tuple[SearchService, str]:
    """Index the pages of ``sites`` ((root URL, folder) each, ``site_pages``) and serve them
    on 127.0.0.1:``port`` (0: a free port). Returns (the service, its root URL). Raises
    OSError when the port is taken."""
    service = SearchService(page for base, folder in sites for page in site_pages(base, folder))
    return service, service.serve(port)
