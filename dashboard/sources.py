"""Where a match's evidence comes from: the page version the crawler stored (MongoDB
``page_versions``, via ``lib.crawl.pagestore.PageStore``) and the work's text in the engine's
work store (``core.ingestion.work_text``). Nothing is fetched from the web again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.chapters import ChapterShare, attribute, passages_from_json
from core.connections import get_mongo_db
from core.ingestion import work_text
from lib.crawl.pagestore import Page, PageStore, PageVersion, sha256


@dataclass
class Evidence:
    """A match's stored evidence, with what could not be loaded said in ``problems``.

    Attributes:
        page: the crawled page (lib.crawl.pagestore.Page) or None.
        version: the PageVersion the match cites (``text``, ``fetched_at``, ``number``,
            ``text_hash``) or None.
        history: every PageVersion of the page, oldest first, without text.
        page_text: the captured text ("" when missing).
        work_text: the work's registered text ("" when missing).
        text_sha256: hex SHA-256 of ``page_text`` (to compare with the stored ``text_hash``).
        passages: ``[(page_start, page_end, work_start, work_end)]``, character offsets, cut
            at the work's chapter boundaries (``core.chapters.attribute``).
        chapters: the work's chapters the passages cover, in the work's order, each once.
        problems: human-readable reasons for anything missing (translated by the caller).
    """

    page: Page | None = None
    version: PageVersion | None = None
    history: list[PageVersion] = field(default_factory=list)
    page_text: str = ""
    work_text: str = ""
    text_sha256: str = ""
    passages: list[tuple[int, int, int, int]] = field(default_factory=list)
    chapters: list[ChapterShare] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def passages_of(match) -> tuple[list[tuple[int, int, int, int]], list[ChapterShare]]:
    """A match's passages as ``(page_start, page_end, work_start, work_end)`` tuples, cut at
    its work's chapter boundaries, and the chapters they cover (``chapters.attribute``).

    Accepts the stored JSON form, a list of dicts with those four keys (``Passage.to_dict()``).

    Raises:
        ValueError: a passage lacks one of the keys or holds a non-integer offset.
    """
    try:
        passages = passages_from_json(match.passages)
    except ValueError as exc:
        raise ValueError(f"match {match.pk}: {exc}") from exc
    found = attribute(match.work.sections or [], passages)
    return ([(p.page_start, p.page_end, p.work_start, p.work_end) for p in found.passages],
            found.chapters)


def load(match) -> Evidence:
    """Load the stored page version, its history and the work's text for ``match``.

    Returns an Evidence whose ``problems`` lists each part that is missing (the view shows
    them).

    Raises:
        ``storage_errors()``: MongoDB does not answer; the pages and the API answer it with
            their 503 in the user's language (the driver's message names internal addresses).
    """
    evidence = Evidence()
    try:
        evidence.passages, evidence.chapters = passages_of(match)
    except ValueError as exc:
        evidence.problems.append(str(exc))
    store = PageStore(get_mongo_db())
    evidence.page = store.page(match.page_id) if match.page_id else None
    evidence.version = store.version(match.version_id) if match.version_id else None
    if evidence.page:
        evidence.history = store.history(evidence.page.id)
    text = work_text(match.work)
    if evidence.version is None:
        evidence.problems.append("the captured page version is not in the page store")
    else:
        evidence.page_text = evidence.version.text
        evidence.text_sha256 = sha256(evidence.page_text)
    if text is None:
        evidence.problems.append("the work's text is not in the work store")
    else:
        evidence.work_text = text
    return evidence
