"""What the evidence view and the evidence report show for one match.

The page side is the stored page version's text exactly as captured (whole, up to
settings.EVIDENCE_PAGE_FULL_CHARS characters); the work side shows
settings.EVIDENCE_WORK_CONTEXT_CHARS characters around each matched passage, since a
registered novel may run to a million characters.
"""

from __future__ import annotations

import dataclasses

from django.conf import settings
from django.http import FileResponse, Http404
from django.utils.translation import gettext as _

from core import notes
from core.engine import get_engine
from crawler.evidence.models import Capture
from crawler.evidence.trust import authority_label
from crawler.evidence.verdicts import verify_file
from crawler.models import MatchKind
from dashboard import comparison, sources, wording
from dashboard.errors import DashboardError
from dashboard.highlight import SpanError, highlight
from fingerprint.rewrite.explain import explain
from fingerprint.rewrite.stage import RewriteStage
from lib.evidence.verify import Verdict


def web_href(url: str) -> str:
    """``url`` when it is an http(s) URL, else "" (a crawled page's URL is shown as text but
    never linked as ``javascript:`` or ``data:``)."""
    return url if url.lower().startswith(("http://", "https://")) else ""


def evidence_context(match) -> dict:
    """Template context for ``match`` (a core Match).

    Returns:
        dict: ``match``, ``page_href`` (the URL to link, "" unless http(s)), ``evidence``
        (sources.Evidence), ``page_segments`` and
        ``work_segments`` (lists of highlight.Segment), ``sentences`` (scores in words),
        ``sections`` (chapter titles matched), ``passage_count``, ``history`` (page versions,
        each with ``current``), ``hash_ok`` (the text's SHA-256 equals the hash stored at
        capture; None when unknown), ``comparisons`` (per passage: ``n``, ``similarity``
        (0..1; None when not compared), ``summary`` (its edits counted, in words) and ``edits``
        (comparison.Edit runs), in passage order), ``rewrite_pairs`` (``rewrite_pairs``),
        ``text_lang`` (the work's language tag, ``Work.lang_tag``), ``problems`` (translated
        messages).
    """
    evidence = sources.load(match)
    problems = list(evidence.problems)
    page_spans = [(ps, pe) for ps, pe, _ws, _we in evidence.passages]
    work_spans = [(ws, we) for _ps, _pe, ws, we in evidence.passages]
    page_segments, work_segments = [], []
    try:
        if evidence.page_text:
            context = (None if len(evidence.page_text) <= settings.EVIDENCE_PAGE_FULL_CHARS
                       else settings.EVIDENCE_PAGE_CONTEXT_CHARS)
            page_segments = highlight(evidence.page_text, page_spans, context)
        if evidence.work_text:
            work_segments = highlight(evidence.work_text, work_spans,
                                      settings.EVIDENCE_WORK_CONTEXT_CHARS)
    except SpanError as exc:
        problems.append(_("The stored passages do not fit the stored text: %(error)s") % {
            "error": exc})
        page_segments = highlight(evidence.page_text, []) if evidence.page_text else []
        work_segments = []
    sections = [chapter.title for chapter in evidence.chapters]
    current_id = evidence.version.id if evidence.version else ""
    history = [{**dataclasses.asdict(row), "current": row.id == current_id}
               for row in evidence.history]
    stored_hash = evidence.version.text_hash if evidence.version else None
    return {
        "match": match,
        "page_href": web_href(match.url),
        "evidence": evidence,
        "page_segments": page_segments,
        "work_segments": work_segments,
        "sentences": wording.describe(match.containment_page, match.containment_work,
                                      match.work.title, sections),
        "sections": sections,
        "passage_count": len(evidence.passages),
        "passages_text": wording.passages_count(len(evidence.passages)),
        "history": history,
        "hash_ok": (stored_hash == evidence.text_sha256) if stored_hash and evidence.page_text
        else None,
        "comparisons": compared_passages(evidence),
        "same_text_works": same_text_works(match),
        "part_of_works": works_named(match, match.part_of_works),
        "part_works": works_named(match, match.part_works),
        "rewrite_pairs": rewrite_pairs(match, evidence),
        "text_lang": match.work.lang_tag,
        "problems": problems,
    }


def rewrite_pairs(match, evidence) -> list:
    """The sentence pairs of a rewritten match (kind "rewritten", 洗稿) as
    ``fingerprint.rewrite.explain.ShownPair`` items in the work's order, aligned again from
    the stored page text and work text with the platform engine's rewrite stage; [] for a
    copy, when either text is missing, or when the texts no longer pair."""
    if match.kind != MatchKind.REWRITTEN or not (evidence.page_text and evidence.work_text):
        return []
    engine = get_engine()
    return explain(engine.rewrite or RewriteStage(engine.config), evidence.work_text,
                   evidence.page_text)


def captures_of(match) -> list[dict]:
    """The evidence captures of ``match``, newest first: {"capture" (Capture), "outcome"
    (words in the active language), "closes" (the detection Capture a removal capture closes,
    or None), "authority" (trust.AuthorityLabel of its timestamp, or None)}."""
    return [{"capture": c, "outcome": notes.in_words(c.outcome), "closes": c.closed_capture(),
             "authority": authority_label(c)}
            for c in Capture.objects.filter(match=match).order_by("-created_at", "-id")]


def bundle_response(match, capture_id: int | None = None) -> FileResponse:
    """The WACZ bundle of ``match`` (a Match the user may see) as a download: capture
    ``capture_id``, or its newest detection capture. Raises Http404 when there is none."""
    capture = Capture.objects.bundle_of(match.pk, capture_id)
    if capture is None:
        raise Http404(_("This match has no evidence bundle yet."))
    response = FileResponse(capture.bundle.open("rb"), as_attachment=True,
                            filename=f"evidence-match-{match.pk}-capture-{capture.pk}.wacz",
                            content_type="application/wacz")
    response["X-Evidence-SHA256"] = capture.bundle_sha256
    return response


class BundleTooLarge(DashboardError):
    """An uploaded bundle over settings.EVIDENCE_VERIFY_UPLOAD_MAX_BYTES; ``str()`` says so in
    the active language."""


def verify_upload(upload) -> Verdict:
    """Verify an uploaded bundle (a Django UploadedFile) as ``verify_evidence`` does, from the
    temporary file Django streamed it to (or, under FILE_UPLOAD_MAX_MEMORY_SIZE, from memory):
    never read whole. Returns the Verdict; raises BundleTooLarge over the upload limit."""
    limit = settings.EVIDENCE_VERIFY_UPLOAD_MAX_BYTES
    if upload.size > limit:
        raise BundleTooLarge(_("%(name)s is %(size)s MB; bundles of up to %(limit)s MB are "
                               "verified here.") % {"name": upload.name,
                                                     "size": upload.size // 2**20,
                                                     "limit": limit // 2**20})
    source = upload.temporary_file_path() if hasattr(upload, "temporary_file_path") else upload.file
    return verify_file(source, name=upload.name)


def same_text_works(match) -> dict | None:
    """What the view says of the other registered works whose text is the same as ``match``'s
    work (``Match.same_text``; the page copies them too): ``count`` (works registered with
    this text, this one included), ``own`` (the holder's own other works, Work rows) and
    ``others`` (how many belong to other holders: a rights conflict, named to no holder).
    None for a text registered once."""
    named = works_named(match, match.same_text)
    return None if named is None else {**named, "count": named["count"] + 1}


def works_named(match, work_pks: list[int]) -> dict | None:
    """What the view says of the registered works ``work_pks`` (Work pks; the page copies them
    too: ``Match.same_text``, ``part_of_works``, ``part_works``): ``count`` (how many of them
    still exist), ``own`` (those of ``match``'s holder, Work rows by pk) and ``others`` (how
    many belong to other holders: a rights conflict, named to no holder). None for no pks."""
    if not work_pks:
        return None
    own, others = match.related_works(work_pks)
    return {"count": len(own) + others, "own": own, "others": others}


def compared_passages(evidence) -> list[dict]:
    """Each passage of ``evidence`` (sources.Evidence) compared character by character
    (``comparison.compare``): [{n, similarity (None: not compared), summary, edits}], []
    without both texts."""
    if not (evidence.page_text and evidence.work_text):
        return []
    rows = []
    for i, (ps, pe, ws, we) in enumerate(evidence.passages):
        result = comparison.compare(evidence.page_text[ps:pe], evidence.work_text[ws:we])
        summary = (wording.edit_counts(result.counts()) if result.similarity is not None else
                   _("too long and too different to align character by character"))
        rows.append({"n": i + 1, "similarity": result.similarity, "summary": summary,
                     "edits": result.edits})
    return rows


def passage_pairs(evidence, comparisons: list[dict]) -> list[dict]:
    """Each passage's page text and work text side by side, with its comparison: [{n, page,
    work, page_at, work_at (character offsets), comparison (a ``compared_passages`` row)}];
    [] without both texts. ``comparisons``: ``compared_passages(evidence)``."""
    if not (evidence.page_text and evidence.work_text):
        return []
    return [{"n": i + 1, "page": evidence.page_text[ps:pe], "work": evidence.work_text[ws:we],
             "page_at": ps, "work_at": ws, "comparison": compared}
            for i, ((ps, pe, ws, we), compared)
            in enumerate(zip(evidence.passages, comparisons, strict=True))]
