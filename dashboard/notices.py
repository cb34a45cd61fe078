"""Takedown notices: the facts frozen when drafted, the text in Chinese or English, a .docx.

What a valid notice holds follows the two laws the platform's users meet most:
《信息网络传播权保护条例》第十四条 (China, 2013 revision): the right holder's name, contact
details and address; the name and network address of the infringing work; preliminary proof
of infringement; the holder answers for the notice's truth. 17 U.S.C. §512(c)(3)(A) (DMCA):
identification of the work and of the infringing material with its location, the complaining
party's contact information, a good-faith statement, a statement of accuracy under penalty
of perjury and of authority to act, and a signature.
"""

from __future__ import annotations

import io
import unicodedata
from collections import defaultdict
from datetime import datetime

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import timezone, translation

from dashboard import sources
from dashboard.models import RecipientRole


def _excerpt(text: str, start: int, end: int) -> str:
    piece = " ".join(text[start:end].split())
    most = settings.NOTICE_EXCERPT_CHARS
    return piece if len(piece) <= most else piece[:most] + "…"


def _iso(value) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else None


def snapshot(holder, domain: str, matches) -> dict:
    """Freeze what a notice says about ``matches`` (core Match objects, all of ``holder``).

    Args:
        holder: the RightsHolder sending the notice.
        domain: the infringing site's host name.
        matches: iterable of Match on that domain.

    Returns:
        A JSON-ready dict: ``holder`` (name, contact_person, email, phone, address, website),
        ``domain``, and ``works``: ``[{title, author, reference, copies: [{url, title,
        captured_at (ISO), share_of_page (0..1), kind ("copy", or "rewritten": 洗稿, worded
        as such), passages: [{page, work}]}]}]``; the passages
        are quoted from the stored page version and the work's text (at most
        settings.NOTICE_PASSAGES_PER_URL per URL, settings.NOTICE_EXCERPT_CHARS characters
        each).
    """
    by_work: dict[int, dict] = {}
    copies = defaultdict(list)
    for match in matches:
        work = match.work
        by_work.setdefault(work.pk, {"title": work.title, "author": work.author,
                                     "reference": work.reference})
        evidence = sources.load(match)
        quoted = []
        if evidence.page_text and evidence.work_text:
            for ps, pe, ws, we in evidence.passages[:settings.NOTICE_PASSAGES_PER_URL]:
                quoted.append({"page": _excerpt(evidence.page_text, ps, pe),
                               "work": _excerpt(evidence.work_text, ws, we)})
        version = evidence.version
        copies[work.pk].append({
            "url": match.url,
            "title": (version.title if version else "") or "",
            "captured_at": _iso(version.fetched_at if version else None) or _iso(match.first_seen),
            "share_of_page": match.containment_page,
            "kind": match.kind,
            "passages": quoted,
        })
    works = [{**by_work[pk], "copies": copies[pk]} for pk in by_work]
    return {
        "holder": {key: getattr(holder, key) for key in
                   ("name", "contact_person", "email", "phone", "address", "website")},
        "domain": domain,
        "works": works,
    }


def _local(iso: str | None) -> str:
    if not iso:
        return ""
    moment = datetime.fromisoformat(iso)
    if moment.tzinfo is None:
        return iso
    return timezone.localtime(moment).isoformat(sep=" ", timespec="seconds")  # with UTC offset


def _role_label(notice):
    """The words for the role of ``notice``'s recipient (lazy: rendered in the notice's
    language)."""
    return RecipientRole(notice.recipient_role).label


def _person(user) -> str:
    """The name a notice is signed with for ``user`` (its full name, else its user name)."""
    if user is None:
        return ""
    return user.get_full_name() or user.get_username()


HEADING = "# "  # a template line starting with this is a section heading (docx Heading 1)


def _generated(notice) -> list[tuple[bool, str]]:
    """The notice's lines rendered from its snapshot in its own language
    (``notice.language``): ``[(is_heading, text)]``; the first line is the title, runs of blank
    lines are collapsed."""
    content = notice.content
    works = [{**work, "copies": [{**copy, "captured_local": _local(copy.get("captured_at")),
                                   "share": round(100 * float(copy.get("share_of_page") or 0))}
                                  for copy in work["copies"]]}
             for work in content.get("works", [])]
    escalation = content.get("escalation")
    if escalation:
        escalation = {**escalation, "sent_local": _local(escalation.get("sent_at")),
                      "pages": [{**page, "checked_local": _local(page.get("checked_at"))}
                                for page in escalation.get("pages", [])]}
    context = {"notice": notice, "holder": content.get("holder", {}), "works": works,
               "escalation": escalation, "role_label": _role_label(notice),
               "domain": content.get("domain", notice.domain),
               "date": timezone.localdate(notice.drafted_at).isoformat(),
               "drafted_by": _person(notice.created_by)}
    with translation.override(notice.language):
        text = render_to_string(f"dashboard/notices/notice.{notice.language}.txt", context)
    collapsed: list[tuple[bool, str]] = []
    for line in text.strip().splitlines():
        line = line.rstrip()
        if line or (collapsed and collapsed[-1][1]):
            heading = line.startswith(HEADING)
            collapsed.append((heading, line.removeprefix(HEADING) if heading else line))
    while collapsed and not collapsed[-1][1]:
        collapsed.pop()
    return collapsed


def printable(text: str) -> str:
    """``text`` without the characters a document may not hold (XML 1.0, so .docx): control
    characters other than line feed and tab, surrogates, U+FFFE and U+FFFF."""
    return "".join(ch for ch in text if ch in "\n\t" or not (
        unicodedata.category(ch) in ("Cc", "Cs") or ch in "\ufffe\uffff"))


def _lines(notice) -> list[tuple[bool, str]]:
    """The notice's lines ``[(is_heading, text)]``: its edited or frozen ``body`` when it has
    one (a line is a heading when it equals one of the generated text's headings), else the
    text generated from the snapshot; ``printable`` either way (a crawled excerpt, or a row
    written before input was checked, may hold control characters)."""
    generated = [(heading, printable(line)) for heading, line in _generated(notice)]
    body = printable(notice.body).strip()
    if not body:
        return generated
    headings = {line for heading, line in generated if heading}
    return [(line in headings, line) for line in body.splitlines()]


def generated_text(notice) -> str:
    """The notice's text as generated from its snapshot, ignoring any edited ``body``
    (lines separated by "\\n")."""
    return "\n".join(line for _heading, line in _generated(notice)) + "\n"


def render_text(notice) -> str:
    """The notice as plain text in its own language (``notice.language``): the edited or
    frozen ``notice.body`` when set, else generated from its snapshot.

    Returns:
        The full text, lines separated by "\\n".
    """
    return "\n".join(line for _heading, line in _lines(notice)) + "\n"


def render_docx(notice) -> bytes:
    """The notice as an A4 Word document (.docx bytes): the title in Word's "Title" style,
    each section heading in "Heading 1" (so Word's navigation pane and outline see them), one
    paragraph per other line of ``render_text``; Chinese text set in SimSun (宋体) so Word
    shows it as intended; 25 mm margins."""
    # late: python-docx and lxml take 50 ms to import, which only this download needs
    from docx import Document
    from docx.oxml.ns import qn
    from docx.shared import Mm, Pt, RGBColor

    document = Document()
    section = document.sections[0]
    section.page_width, section.page_height = Mm(210), Mm(297)  # A4 (python-docx: US Letter)
    for side in ("left_margin", "right_margin", "top_margin", "bottom_margin"):
        setattr(section, side, Mm(25))
    for name, size in (("Normal", 11), ("Title", 18), ("Heading 1", 13)):
        style = document.styles[name]
        style.font.name = "Times New Roman"
        style.font.size = Pt(size)
        style.element.get_or_add_rPr().get_or_add_rFonts().set(qn("w:eastAsia"), "SimSun")
        if name != "Normal":
            style.font.color.rgb = RGBColor(0, 0, 0)
    (_heading, title), *body = _lines(notice)
    document.add_heading(title, level=0)
    for heading, line in body:
        if heading:
            document.add_heading(line, level=1)
        else:
            document.add_paragraph(line)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()
