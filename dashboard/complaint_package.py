"""The complaint package of a case on a platform (百家号, 微博, ...: ``crawler.platform_registry``):
a ZIP a person files through the platform's complaint channel, since platforms take complaints
through their forms, not by e-mail.

It holds ``form.zh-hans.txt`` and ``form.en.txt`` (each field of the platform's form, as the
registry lists them, with its value: the holder, the work, the infringing links, the notice's
text), the notice (``notice.<language>.txt``), the signed evidence report PDF and the WACZ
bundle of each confirmed page still up (settings.COMPLAINT_PACKAGE_MAX_PAGES at most, under
``evidence/``), the holder's rights documents for the work (``rights/``) and the filing steps
with the channel's URL and the materials asked (``README.zh-hans.txt``, ``README.en.txt``).
``do_make_complaint_package`` builds it and records it in the case's audit trail.
"""

from __future__ import annotations

import io
import os
import zipfile

from django.conf import settings
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from core import notes
from core.errors import ActionError
from core.models import AuditEvent
from crawler.evidence.models import Capture
from crawler.models import Case, ReviewStatus
from crawler.platform_registry import platform_of_case
from dashboard import evidence_reports, notices
from dashboard.models import RightsDocument, TakedownNotice

LANGUAGES = ("zh-hans", "en")


def _pages(case: Case):
    return list(case.pages.filter(review_status=ReviewStatus.CONFIRMED, still_matching=True)
                .select_related("work", "work__holder").order_by("pk")
                [:settings.COMPLAINT_PACKAGE_MAX_PAGES])


def _notice_text(case: Case, pages, language: str) -> str:
    """The case's newest notice in ``language`` when one was drafted, else one generated now."""
    drafted = (TakedownNotice.objects.filter(matches__case=case, language=language)
               .order_by("-drafted_at").first())
    if drafted is None:
        drafted = TakedownNotice(holder=case.work.holder, domain=case.domain, language=language,
                                 drafted_at=timezone.now(),
                                 content=notices.snapshot(case.work.holder, case.domain, pages))
    return notices.render_text(drafted)


def _values(case: Case, pages, evidence: list[str], rights: list[str], language: str) -> dict:
    holder = case.work.holder
    contact = "; ".join(v for v in (holder.contact_person, holder.email, holder.phone,
                                    holder.address) if v)
    return {"holder_name": holder.name, "holder_contact": contact,
            "work_title": case.work.title, "work_reference": case.work.reference or "-",
            "urls": "\n".join(p.url for p in pages),
            "notice_text": _notice_text(case, pages, language),
            "evidence_files": "\n".join(evidence) or "-", "rights_documents": "\n".join(rights) or "-"}


def _readme(platform, language: str, case: Case) -> str:
    zh = language.startswith("zh")
    lines = [_("Complaint package: %(work)s on %(platform)s") % {
        "work": case.work.title, "platform": platform.name(language)}, "",
        _("Complaint channel: %(url)s") % {"url": platform.complaint_url}, "",
        _("Materials the platform asks for:")]
    lines += [f"- {m}" for m in (platform.materials_zh if zh else platform.materials_en)]
    lines += ["", _("Steps:")]
    lines += [f"{n}. {s}" for n, s in enumerate(platform.steps_zh if zh else platform.steps_en, 1)]
    lines += ["", _("Contents: form.*.txt (the form's fields), notice.*.txt, evidence/ (signed "
                    "reports and WACZ bundles), rights/ (proof of rights).")]
    return "\n".join(lines) + "\n"


def build(case: Case, acting_user) -> tuple[bytes, str]:
    """The complaint package of ``case`` as ZIP bytes and its file name. Raises ActionError:
    the case is on no platform of the registry, or has no confirmed page still up;
    PdfUnavailableError / SigningError from ``evidence_reports.kept_report_pdf``."""
    platform = platform_of_case(case)
    if platform is None:
        raise ActionError(_("%(domain)s is not a platform of the registry: send a notice by "
                            "e-mail instead.") % {"domain": case.domain})
    pages = _pages(case)
    if not pages:
        raise ActionError(_("The case has no confirmed page still up to complain about."))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        evidence = []
        for match in pages:
            name = f"evidence/report-match-{match.pk}.pdf"
            package.writestr(name, evidence_reports.kept_report_pdf(match, acting_user))
            evidence.append(name)
            capture = Capture.objects.bundle_of(match.pk)
            if capture is not None:
                name = f"evidence/bundle-match-{match.pk}.wacz"
                with capture.bundle.open("rb") as bundle:
                    package.writestr(name, bundle.read())
                evidence.append(name)
        rights = []
        for document in RightsDocument.objects.filter(
                Q(work=case.work) | Q(work__isnull=True), holder=case.work.holder).order_by("pk"):
            name = f"rights/{document.pk}-{os.path.basename(document.file.name)}"
            with document.file.open("rb") as stream:
                package.writestr(name, stream.read())
            rights.append(name)
        for language in LANGUAGES:
            with translation.override(language):
                values = _values(case, pages, evidence, rights, language)
                zh = language == "zh-hans"
                form = [f"【{f.label_zh if zh else f.label_en}】\n{values[f.value]}\n"
                        for f in platform.form_fields]
                package.writestr(f"form.{language}.txt", "\n".join(form))
                package.writestr(f"notice.{language}.txt", values["notice_text"])
                package.writestr(f"README.{language}.txt", _readme(platform, language, case))
    return buffer.getvalue(), f"complaint-case-{case.pk}-{platform.key}.zip"


def do_make_complaint_package(case: Case, acting_user) -> tuple[bytes, str]:
    """Build the complaint package of ``case`` (``build``) for ``acting_user`` and record it
    in the case's audit trail (kind "case", its state unchanged, the platform and the files'
    count as the reason). Returns (ZIP bytes, file name). Raises as ``build``."""
    data, name = build(case, acting_user)
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        files = len(package.namelist())
    AuditEvent.record(kind=AuditEvent.Kind.CASE, user=acting_user, holder=case.work.holder,
                      target=case, subject=str(case), old_state=case.state,
                      new_state=case.state, reason=notes.coded(
                          "complaint_package", gettext_noop(
                              "complaint package %(name)s made (%(files)s files)"),
                          name=name, files=files))
    return data, name
