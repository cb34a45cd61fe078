"""API views: works, matches, notices, sites, scans and alerts. Every queryset is scoped (``core.scoping.scope``) and
every change goes through an action (``core.*_actions``, ``crawler.*_actions``)."""

from __future__ import annotations

import json

import django_filters
from django.conf import settings
from django.http import HttpResponse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, mixins, parsers, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from core import import_actions, import_jobs, text_extraction, work_actions
from core.conflicts import DuplicateWork
from core.ingestion import work_text
from core.models import AuditEvent, ImportJob, RightsHolder, Work
from core.scoping import holders_for, scope, sees_all
from crawler import review_actions, scan_actions, site_actions
from crawler.evidence.verdicts import verdict_words
from crawler.models import Match, MatchKind, ReviewStatus, ScanRun, TargetSite
from dashboard import notice_actions as dashboard_actions
from dashboard import notices, sources
from dashboard.alerts import actions as alert_actions
from dashboard.alerts.models import AlertPreference, WebhookEndpoint
from dashboard.evidence import BundleTooLarge, bundle_response, verify_upload
from dashboard.models import TakedownNotice
from lib.text.untrusted import ascii_int

from . import serializers as s
from .errors import ApiError, ErrorSerializer
from .filters import UtcIsoDateTimeFilter

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
ERRORS = {code: OpenApiResponse(ErrorSerializer, description=text) for code, text in (
    (400, "Invalid request (code, message, fields)."), (401, "Not authenticated."),
    (404, "No such object for this user."), (429, "Too many requests for this token."))}


def _holder(request, holder_id: int | None) -> RightsHolder:
    """The holder a new work goes to: ``holder_id`` among the user's, or the user's only one.

    Raises:
        ApiError: "invalid" (fields.holder) when ``holder_id`` is not one of the user's holders
            or is needed (several holders) and missing.
    """
    holders = holders_for(request.user)
    if holder_id is not None:
        holder = holders.filter(pk=holder_id).first()
        if holder is None:
            raise ApiError("invalid", _("No such rights holder."),
                           {"holder": [_("No such rights holder.")]})
        return holder
    first_two = list(holders[:2])
    if len(first_two) != 1:
        raise ApiError("required", _("Say which rights holder the work belongs to."),
                       {"holder": [_("This field is required.")]})
    return first_two[0]


def _register(request, data: dict, extracted, source_name: str):
    """Register ``extracted`` per the validated ``data`` through do_register_work.

    Raises:
        ApiError: "duplicate_work" (409, fields.existing_work: the work's id) when the holder
            already registered the text as another work and ``allow_duplicate`` is not set.
    """
    holder = _holder(request, data.get("holder"))
    try:
        return work_actions.do_register_work(
            holder, data["reference"], extracted, acting_user=request.user,
            title=data.get("title", ""), author=data.get("author", ""), kind=data.get("kind"),
            language=data.get("language"), source_name=source_name,
            check_duplicate=not data.get("allow_duplicate"))
    except DuplicateWork as exc:
        work = exc.overlap.work
        raise ApiError("duplicate_work", _(
            "The text is %(pct)s the same as your work %(id)d (%(reference)s): update that "
            "work instead, or send allow_duplicate=true.") % {
                "pct": f"{exc.overlap.containment:.0%}", "id": work.pk,
                "reference": work.reference},
            {"existing_work": [str(work.pk)]}, status_code=409) from exc


def _registered(registration) -> Response:
    body = s.RegisteredWorkSerializer(registration.work).data
    body["outcome"] = registration.outcome
    code = status.HTTP_201_CREATED if registration.outcome == "registered" else status.HTTP_200_OK
    return Response(body, status=code)


class JsonLinesParser(parsers.BaseParser):
    """``application/x-ndjson`` (JSON Lines) bodies, parsed line by line by the view."""

    media_type = "application/x-ndjson"

    def parse(self, stream, media_type=None, parser_context=None):
        """The body as text (UTF-8)."""
        try:
            return stream.read().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ApiError("parse_error", _("The body is not UTF-8 text.")) from exc


@extend_schema_view(
    list=extend_schema(summary="List works", responses={200: s.WorkSerializer, **ERRORS}),
    retrieve=extend_schema(summary="A work: status and indexing progress",
                           responses={200: s.WorkSerializer, **ERRORS}),
    destroy=extend_schema(summary="Delete a work (and remove it from the index)",
                          responses={204: None, **ERRORS}),
)
class WorkViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin,
                  viewsets.GenericViewSet):
    """Works of the user's rights holders."""

    serializer_class = s.WorkSerializer
    filterset_fields = ["status", "reference", "kind", "language"]
    ordering_fields = ["id", "created_at", "updated_at", "title", "length"]
    ordering = ["-id"]

    def get_queryset(self):
        """The works the user may see."""
        return scope(Work.objects.all(), self.request.user).order_by("-id")

    @extend_schema(summary="Register a work from text", request=s.WorkTextSerializer,
                   responses={200: s.RegisteredWorkSerializer, 201: s.RegisteredWorkSerializer,
                              **ERRORS})
    def create(self, request):
        """Register (or update, by reference) a work from JSON text; 201 when new."""
        form = s.WorkTextSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        extracted = text_extraction.extract_pasted(form.validated_data["text"])
        return _registered(_register(request, form.validated_data, extracted, "pasted"))

    @extend_schema(summary="Register a work from a file (read in the background)",
                   request=s.WorkFileSerializer,
                   responses={202: s.ImportJobSerializer, **ERRORS})
    @action(detail=False, methods=["post"], parser_classes=[parsers.MultiPartParser])
    def upload(self, request):
        """Store the uploaded file and start the job reading it (202, Location: the job's URL);
        its size and suffix are checked at once, the rest by the job (``imports/{id}/``)."""
        form = s.WorkFileSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["file"]
        try:
            text_extraction.check_upload(upload.name, upload.size)  # refuse before storing it
        except text_extraction.UploadError as exc:
            raise ApiError(exc.code, str(exc), {"file": [str(exc)]}) from exc
        data = form.validated_data
        job = import_actions.do_start_upload(
            _holder(request, data.get("holder")), request.user, upload.name, upload.chunks(),
            {key: data.get(key) for key in ("reference", "title", "author", "kind", "language",
                                            "allow_duplicate")}, get_language())
        body = s.ImportJobSerializer(job, context={"request": request}).data
        return Response(body, status=status.HTTP_202_ACCEPTED,
                        headers={"Location": str(body["url"])})

    @extend_schema(summary="Register works in bulk (JSON Lines)",
                   request={"application/x-ndjson": OpenApiTypes.STR},
                   responses={200: s.BulkResultSerializer(many=True), **ERRORS})
    @action(detail=False, methods=["post"], parser_classes=[JsonLinesParser],
            pagination_class=None)
    def bulk(self, request):
        """One work per line, each a JSON object as for "Register a work from text"; each line
        is registered on its own and reported (a bad line does not stop the others)."""
        body = request.data if isinstance(request.data, str) else ""
        lines = [(n, line) for n, line in enumerate(body.splitlines(), 1) if line.strip()]
        if len(lines) > settings.API_BULK_MAX_LINES:
            raise ApiError("too_many_lines", _("At most %(max)d works per request.") % {
                "max": settings.API_BULK_MAX_LINES})
        results = []
        for number, line in lines:
            row = {"line": number, "reference": "", "outcome": "error", "id": None,
                   "error": None}
            try:
                item = json.loads(line)
                if not isinstance(item, dict):
                    raise ValueError
            except (ValueError, RecursionError):  # RecursionError: nested too deeply
                row["error"] = {"code": "parse_error", "message": _("Line %(n)d is not a JSON "
                                                                    "object.") % {"n": number},
                                "fields": {}}
                results.append(row)
                continue
            row["reference"] = str(item.get("reference", ""))[:200]
            form = s.WorkTextSerializer(data=item)
            try:
                form.is_valid(raise_exception=True)
                extracted = text_extraction.extract_pasted(form.validated_data["text"])
                registration = _register(request, form.validated_data, extracted, "pasted")
            except (ValidationError, ApiError, text_extraction.UploadError) as exc:
                fields = exc.detail if isinstance(exc, ValidationError) else getattr(
                    exc, "fields", {})
                row["error"] = {"code": getattr(exc, "code", "invalid"),
                                "message": str(exc) if isinstance(exc, text_extraction.UploadError)
                                else str(getattr(exc, "message", "")) or _(
                                    "The request has invalid fields: %(names)s.") % {
                                        "names": ", ".join(fields)},
                                "fields": {k: [str(m) for m in v] for k, v in fields.items()}}
                results.append(row)
                continue
            row.update(outcome=registration.outcome, id=registration.work.pk)
            results.append(row)
        return Response(results)

    @extend_schema(summary="Append chapters to a work's text, or replace it",
                   request=s.WorkTextUpdateSerializer,
                   responses={200: s.RegisteredWorkSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def text(self, request, pk=None):
        """New text for the work (re-indexed after): ``append`` adds ``text`` after the current
        text (a new chapter), ``replace`` makes ``text`` the work's text."""
        work = self.get_object()
        form = s.WorkTextUpdateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        new = form.validated_data["text"]
        if form.validated_data["mode"] == "append":
            current = work_text(work)
            if current is None:
                raise ApiError("text_unavailable", _("The work's current text is not stored; "
                                                     "send the whole text with mode "
                                                     "“replace”."), status_code=409)
            new = f"{current}\n\n{new}"
        extracted = text_extraction.extract_pasted(new)
        registration = work_actions.do_register_work(
            work.holder, work.reference, extracted, acting_user=request.user, title=work.title,
            author=work.author, kind=work.kind, language=work.language,
            source_name=work.source_name)
        return _registered(registration)

    @extend_schema(summary="A work's chapters",
                   responses={200: s.ChapterSerializer(many=True), **ERRORS})
    @action(detail=True, methods=["get"], pagination_class=None, filterset_fields=[],
            ordering_fields=[])
    def chapters(self, request, pk=None):
        """The chapters found in the work's text, with their character offsets."""
        return Response(s.ChapterSerializer(self.get_object().sections or [], many=True).data)

    def perform_destroy(self, instance):
        """Delete through do_delete_work (audited; index and store cleaned after commit)."""
        work_actions.do_delete_work(instance, self.request.user)


@extend_schema_view(
    list=extend_schema(summary="List upload jobs",
                       responses={200: s.ImportJobSerializer, **ERRORS}),
    retrieve=extend_schema(summary="An upload job: progress, then the work or the error",
                           responses={200: s.ImportJobSerializer, **ERRORS}),
)
class ImportJobViewSet(viewsets.ReadOnlyModelViewSet):
    """Jobs reading uploaded files (``works/upload/``) and the dashboard's .zip imports, of
    the user's rights holders; a running job whose worker was lost is failed when read."""

    serializer_class = s.ImportJobSerializer
    filterset_fields = ["state", "kind"]
    ordering_fields = ["id", "started_at"]
    ordering = ["-id"]

    def get_queryset(self):
        """The jobs the user may see."""
        return scope(ImportJob.objects.all(), self.request.user).order_by("-id")

    def retrieve(self, request, pk=None):
        """The job, a stale running one failed first (``import_jobs.settle``)."""
        return Response(self.get_serializer(import_jobs.settle(self.get_object())).data)


class MatchFilter(django_filters.FilterSet):
    """Filters of the match list."""

    status = django_filters.ChoiceFilter(field_name="review_status", choices=ReviewStatus.choices,
                                         help_text="Review status.")
    first_seen_after = UtcIsoDateTimeFilter(
        field_name="first_seen", lookup_expr="gte",
        help_text="First seen at or after this time (ISO 8601).")
    first_seen_before = UtcIsoDateTimeFilter(
        field_name="first_seen", lookup_expr="lt", help_text="First seen before this time "
                                                             "(ISO 8601).")
    score_min = django_filters.NumberFilter(field_name="score", lookup_expr="gte",
                                            help_text="Score at least this (0 to 1).")
    score_max = django_filters.NumberFilter(field_name="score", lookup_expr="lte",
                                            help_text="Score at most this (0 to 1).")
    domain = django_filters.CharFilter(field_name="domain", lookup_expr="iexact",
                                       help_text="The page's host name.")
    work = django_filters.NumberFilter(field_name="work_id", help_text="Id of the work.")
    still_matching = django_filters.BooleanFilter(help_text="Whether the latest version of "
                                                            "the page still matches.")
    part_of = django_filters.CharFilter(help_text="The parts of one chapter split over several "
                                                  "pages: its first part's canonical URL.")
    kind = django_filters.ChoiceFilter(choices=MatchKind.choices,
                                       help_text="Kind of match: copy, or rewritten (洗稿).")

    class Meta:
        model = Match
        fields = ["status", "first_seen_after", "first_seen_before", "score_min", "score_max",
                  "domain", "work", "still_matching", "part_of", "kind"]


def _detail(match: Match) -> dict:
    """The detail body of ``match``: its row, passages with both texts, capture, history."""
    evidence = sources.load(match)
    page, work = evidence.page_text, evidence.work_text
    match.evidence_passages = [
        {"page_start": ps, "page_end": pe, "work_start": ws, "work_end": we,
         "page_text": page[ps:pe], "work_text": work[ws:we]}
        for ps, pe, ws, we in evidence.passages]
    match.chapter_shares = [{"title": c.title, "chars": c.chars} for c in evidence.chapters]
    version = evidence.version
    match.capture = None if version is None else {
        "version_id": version.id, "number": version.number,
        "url": version.canonical_url or match.url,
        "fetched_at": version.fetched_at, "sha256": version.text_hash,
        "http_status": evidence.page.status if evidence.page else None,
        "hash_ok": (version.text_hash == evidence.text_sha256)
        if version.text_hash and page else None, "length": len(page)}
    match.history = AuditEvent.objects.about(match).order_by("sequence")
    match.problems = [str(p) for p in evidence.problems]
    return s.MatchDetailSerializer(match).data


@extend_schema_view(
    list=extend_schema(summary="List matches", responses={200: s.MatchSerializer, **ERRORS}),
    retrieve=extend_schema(summary="A match with its evidence",
                           responses={200: s.MatchDetailSerializer, **ERRORS}),
)
class MatchViewSet(viewsets.ReadOnlyModelViewSet):
    """Matches of the user's holders' works."""

    serializer_class = s.MatchSerializer
    filterset_class = MatchFilter
    ordering_fields = ["id", "first_seen", "last_seen", "score", "domain"]
    ordering = ["-first_seen", "-id"]

    def get_queryset(self):
        """The matches the user may see."""
        return scope(Match.objects.select_related("work"), self.request.user, "work__holder")

    def retrieve(self, request, pk=None):
        """The match with scores, chapters, passages (offsets and text), capture, history."""
        return Response(_detail(self.get_object()))

    @extend_schema(summary="Review a match", request=s.ReviewSerializer,
                   responses={200: s.MatchSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def review(self, request, pk=None):
        """Decide on the match (confirmed, false_positive, licensed, new) with a reason,
        through the dashboard's action (audited)."""
        match = self.get_object()
        form = s.ReviewSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        review_actions.do_review_match(match, form.validated_data["decision"],
                                       form.validated_data["reason"], request.user)
        return Response(s.MatchSerializer(match).data)

    @extend_schema(summary="The match's evidence bundle (WACZ)",
                   parameters=[OpenApiParameter("capture", int, description="a capture id of "
                                                "the match (default: its newest detection)")],
                   responses={(200, "application/wacz"): OpenApiTypes.BINARY, **ERRORS})
    @action(detail=True, methods=["get"])
    def evidence(self, request, pk=None):
        """Download the match's evidence bundle: a WACZ file (WARC of the HTTP exchange,
        screenshot, PDF print, text, passages, metadata, provenance page, RFC 3161 timestamp).
        Its SHA-256 is in the X-Evidence-SHA256 header; a ``capture`` that is not written in
        ASCII digits is refused with 400."""
        match, chosen = self.get_object(), request.query_params.get("capture")
        capture = ascii_int(chosen)
        if chosen and capture is None:
            raise ValidationError({"capture": [_("A capture id is a number.")]})
        return bundle_response(match, capture)





@extend_schema_view(
    list=extend_schema(summary="List takedown notices",
                       responses={200: s.NoticeSerializer, **ERRORS}),
    retrieve=extend_schema(summary="A takedown notice",
                           responses={200: s.NoticeSerializer, **ERRORS}),
)
class NoticeViewSet(viewsets.ReadOnlyModelViewSet):
    """Takedown notices of the user's holders."""

    serializer_class = s.NoticeSerializer
    filterset_fields = ["status", "domain", "language"]
    ordering_fields = ["id", "drafted_at", "sent_at"]
    ordering = ["-drafted_at", "-id"]

    def get_queryset(self):
        """The notices the user may see."""
        return scope(TakedownNotice.objects.prefetch_related("matches"), self.request.user)

    @extend_schema(summary="Draft notices from confirmed matches",
                   request=s.DraftNoticesSerializer,
                   responses={201: s.NoticeSerializer(many=True), **ERRORS})
    def create(self, request):
        """One notice per (holder, site) of the given confirmed matches (do_draft_notices);
        a match id the user may not see answers 404."""
        form = s.DraftNoticesSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        ids = set(form.validated_data["matches"])
        matches = list(scope(Match.objects.select_related("work__holder"), request.user,
                             "work__holder").filter(pk__in=ids))
        if len(matches) != len(ids):
            raise NotFound()
        drafted = dashboard_actions.do_draft_notices(
            matches, request.user, form.validated_data["language"],
            form.validated_data["recipient"])
        return Response(s.NoticeSerializer(drafted, many=True).data,
                        status=status.HTTP_201_CREATED)

    @extend_schema(summary="Advance a notice's status", request=s.AdvanceNoticeSerializer,
                   responses={200: s.NoticeSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def advance(self, request, pk=None):
        """drafted -> sent -> removed / counter_notice, through do_advance_notice (audited)."""
        notice = self.get_object()
        form = s.AdvanceNoticeSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        dashboard_actions.do_advance_notice(notice, form.validated_data["status"], request.user,
                                            form.validated_data["note"])
        notice.refresh_from_db()
        return Response(s.NoticeSerializer(notice).data)

    @extend_schema(summary="Download a notice (.docx or .txt)",
                   parameters=[OpenApiParameter("fmt", str, OpenApiParameter.PATH,
                                                enum=["docx", "txt"],
                                                description="Document format.")],
                   responses={(200, DOCX): OpenApiTypes.BINARY,
                              (200, "text/plain"): OpenApiTypes.STR, **ERRORS})
    @action(detail=True, methods=["get"], url_path=r"document/(?P<fmt>docx|txt)",
            filterset_fields=[], ordering_fields=[])
    def document(self, request, pk=None, fmt="txt"):
        """The notice as the dashboard renders it (dashboard.notices)."""
        notice = self.get_object()
        name = f"takedown-notice-{notice.pk}-{notice.domain}"
        if fmt == "docx":
            response = HttpResponse(notices.render_docx(notice), content_type=DOCX)
        else:
            response = HttpResponse(notices.render_text(notice).encode("utf-8"),
                                    content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
        return response


class IsPlatformStaff(permissions.BasePermission):
    """Platform staff only (``core.scoping.sees_all``): sites and scans."""

    message = gettext_lazy("Only platform staff may manage sites and scans.")

    def has_permission(self, request, view) -> bool:
        """True for platform staff."""
        return sees_all(request.user)


@extend_schema_view(
    list=extend_schema(summary="List target sites (staff)",
                       responses={200: s.SiteSerializer, **ERRORS}),
    retrieve=extend_schema(summary="A target site (staff)",
                           responses={200: s.SiteSerializer, **ERRORS}),
    create=extend_schema(summary="Create a target site (staff)",
                         responses={201: s.SiteSerializer, **ERRORS}),
    update=extend_schema(summary="Update a target site (staff)",
                         responses={200: s.SiteSerializer, **ERRORS}),
    partial_update=extend_schema(summary="Update some fields of a target site (staff)",
                                 responses={200: s.SiteSerializer, **ERRORS}),
)
class SiteViewSet(mixins.CreateModelMixin, mixins.UpdateModelMixin, mixins.ListModelMixin,
                  mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Target sites, through crawler.site_actions.do_save_site (audited)."""

    serializer_class = s.SiteSerializer
    permission_classes = [permissions.IsAuthenticated, IsPlatformStaff]
    queryset = TargetSite.objects.order_by("name")
    filterset_fields = ["enabled"]
    ordering_fields = ["id", "name", "created_at"]

    def perform_create(self, serializer):
        """Save the new site through do_save_site."""
        serializer.instance = site_actions.do_save_site(
            TargetSite(**serializer.validated_data), self.request.user, ["created"])

    def perform_update(self, serializer):
        """Save the changed fields through do_save_site."""
        site = serializer.instance
        for name, value in serializer.validated_data.items():
            setattr(site, name, value)
        site_actions.do_save_site(site, self.request.user, sorted(serializer.validated_data))

    @extend_schema(summary="Start a scan of the site now (staff)", request=s.StartScanSerializer,
                   responses={201: s.ScanSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def scan(self, request, pk=None):
        """Start a scan (crawler.scan_actions.do_start_scan); follow it at ``scans/{id}/``."""
        site = self.get_object()
        form = s.StartScanSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        run = scan_actions.do_start_scan(site, acting_user=request.user, trigger="api",
                                         max_pages=form.validated_data.get("max_pages"))
        return Response(s.ScanSerializer(run).data, status=status.HTTP_201_CREATED)


@extend_schema_view(
    list=extend_schema(summary="List scans (staff)", responses={200: s.ScanSerializer, **ERRORS}),
    retrieve=extend_schema(summary="A scan and its live progress (staff)",
                           responses={200: s.ScanSerializer, **ERRORS}),
)
class ScanViewSet(viewsets.ReadOnlyModelViewSet):
    """Scan runs and their progress; cancel a running one."""

    serializer_class = s.ScanSerializer
    permission_classes = [permissions.IsAuthenticated, IsPlatformStaff]
    queryset = ScanRun.objects.order_by("-started_at", "-id")
    filterset_fields = ["site", "status"]
    ordering_fields = ["id", "started_at"]

    @extend_schema(summary="Cancel a running scan (staff)", request=None,
                   responses={200: s.ScanSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Cancel the scan (crawler.scan_actions.do_cancel_scan); 400 "not_running" otherwise."""
        run = self.get_object()
        if not scan_actions.do_cancel_scan(run, request.user):
            raise ApiError("not_running", _("The scan is not running."))
        run.refresh_from_db()
        return Response(s.ScanSerializer(run).data)


@extend_schema_view(
    list=extend_schema(summary="List the webhook endpoints of your rights holders",
                       responses={200: s.WebhookSerializer, **ERRORS}),
    retrieve=extend_schema(summary="A webhook endpoint",
                           responses={200: s.WebhookSerializer, **ERRORS}),
    create=extend_schema(summary="Create a webhook endpoint (its secret is answered once)",
                         responses={201: s.NewWebhookSerializer, **ERRORS}),
    update=extend_schema(summary="Update a webhook endpoint",
                         responses={200: s.WebhookSerializer, **ERRORS}),
    partial_update=extend_schema(summary="Update some fields of a webhook endpoint",
                                 responses={200: s.WebhookSerializer, **ERRORS}),
    destroy=extend_schema(summary="Delete a webhook endpoint", responses={204: None, **ERRORS}),
)
class WebhookViewSet(viewsets.ModelViewSet):
    """Webhook endpoints of the user's holders (scoped as the dashboard admin scopes them),
    saved and deleted through dashboard.alerts.actions (audited)."""

    serializer_class = s.WebhookSerializer
    filterset_fields = ["holder", "enabled"]
    ordering_fields = ["id", "name", "created_at"]

    def get_queryset(self):
        """The endpoints of the user's holders (all of them for staff)."""
        return scope(WebhookEndpoint.objects.all(), self.request.user).order_by("id")

    def create(self, request, *args, **kwargs):
        """Create through do_save_webhook; the answer carries the secret, this once."""
        form = self.get_serializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = dict(form.validated_data)
        holder = _holder(request, data.pop("holder_id", None))
        endpoint = alert_actions.do_save_webhook(WebhookEndpoint(holder=holder, **data),
                                                 request.user, ["created"])
        return Response(s.NewWebhookSerializer(endpoint).data, status=status.HTTP_201_CREATED)

    def perform_update(self, serializer):
        """Save the changed fields through do_save_webhook (the holder may change to another
        of the user's)."""
        endpoint = serializer.instance
        data = dict(serializer.validated_data)
        if "holder_id" in data:
            endpoint.holder = _holder(self.request, data.pop("holder_id"))
        for name, value in data.items():
            setattr(endpoint, name, value)
        alert_actions.do_save_webhook(endpoint, self.request.user,
                                      sorted(serializer.validated_data))

    def perform_destroy(self, instance):
        """Delete through do_delete_webhook (audited)."""
        alert_actions.do_delete_webhook(instance, self.request.user)


class AlertPreferenceView(generics.GenericAPIView):
    """The calling user's e-mail alert preferences (the defaults until first saved)."""

    serializer_class = s.AlertPreferenceSerializer

    def _current(self):
        user = self.request.user
        return AlertPreference.objects.filter(user=user).first() or AlertPreference(user=user)

    @extend_schema(summary="Your e-mail alert preferences",
                   responses={200: s.AlertPreferenceSerializer, **ERRORS})
    def get(self, request):
        """The preferences (defaults when never saved; nothing is written)."""
        return Response(self.get_serializer(self._current()).data)

    def _save(self, request, partial: bool) -> Response:
        form = self.get_serializer(self._current(), data=request.data, partial=partial)
        form.is_valid(raise_exception=True)
        pref = alert_actions.do_update_alert_preferences(request.user, **form.validated_data)
        return Response(self.get_serializer(pref).data)

    @extend_schema(summary="Replace your e-mail alert preferences",
                   responses={200: s.AlertPreferenceSerializer, **ERRORS})
    def put(self, request):
        """Save all fields through do_update_alert_preferences (audited)."""
        return self._save(request, partial=False)

    @extend_schema(summary="Change some of your e-mail alert preferences",
                   responses={200: s.AlertPreferenceSerializer, **ERRORS})
    def patch(self, request):
        """Save the given fields through do_update_alert_preferences (audited)."""
        return self._save(request, partial=True)


class EvidenceVerifyView(generics.GenericAPIView):
    """Verify an uploaded evidence bundle (WACZ), as ``manage.py verify_evidence`` does."""

    serializer_class = s.EvidenceUploadSerializer
    parser_classes = [parsers.MultiPartParser]

    @extend_schema(summary="Verify an evidence bundle", request=s.EvidenceUploadSerializer,
                   responses={200: s.EvidenceVerdictSerializer,
                              400: OpenApiResponse(PolymorphicProxySerializer(
                                  component_name="EvidenceVerifyRefusal",
                                  serializers=[s.EvidenceVerdictSerializer, ErrorSerializer],
                                  resource_type_field_name=None), description=(
                                  "The bundle was refused before its digests could be compared "
                                  "(not a ZIP, malformed JSON, unsafe or duplicate names, an "
                                  "archive bomb: a verdict FAIL), or the request has no file "
                                  "(an error).")),
                              413: OpenApiResponse(ErrorSerializer, description=(
                                  "Over EVIDENCE_VERIFY_UPLOAD_MAX_BYTES.")),
                              **{k: v for k, v in ERRORS.items() if k != 400}})
    def post(self, request):
        """Check the uploaded bundle (multipart field ``bundle``): its ZIP names, every digest,
        its WARC records and its RFC 3161 timestamp. ``verdict`` is VALID (all hold and the
        timestamp chains to a trusted root), UNVERIFIED (the digests hold but nothing trusted
        dates them) or FAIL (``failed_file`` and ``reason`` name the first file that fails).
        Nothing is stored."""
        limit = settings.EVIDENCE_VERIFY_UPLOAD_MAX_BYTES
        if int(request.META.get("CONTENT_LENGTH") or 0) > limit + 64 * 1024:
            raise ApiError("too_large", _("Bundles of up to %(limit)s MB are verified here.")
                           % {"limit": limit // 2**20}, status_code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        form = self.get_serializer(data=request.data)
        form.is_valid(raise_exception=True)
        upload = form.validated_data["bundle"]
        try:
            verdict = verify_upload(upload)
        except BundleTooLarge as exc:
            raise ApiError("too_large", str(exc),
                           status_code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE) from exc
        failure = verdict.failure
        return Response(s.EvidenceVerdictSerializer({
            "verdict": verdict.status, "valid": verdict.ok, "words": verdict_words(verdict, upload.name),
            "checked": verdict.checked, "timestamp": verdict.timestamp,
            "unverified": verdict.unverified, "failed_file": failure.path if failure else "",
            "reason": failure.reason if failure else ""}).data,
            status=status.HTTP_400_BAD_REQUEST if failure and failure.refused else status.HTTP_200_OK)
