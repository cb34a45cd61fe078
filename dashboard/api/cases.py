"""API of cases (/api/v1/cases/): one rights holder's work on one site, scoped per holder
(``core.scoping.scope``); a case's pages are its matches, paginated; decisions go
through ``crawler.case_actions``, sending its notice by e-mail through
``dashboard.notice_actions`` (audited)."""

from __future__ import annotations

import django_filters
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from core.scoping import scope
from crawler import case_actions, cases
from crawler.models import Case, CaseState
from dashboard import notice_actions
from dashboard.models import NoticeLanguage, NoticeMail

from .filters import UtcIsoDateTimeFilter
from .serializers import MatchSerializer
from .views import ERRORS


class CaseSerializer(serializers.ModelSerializer):
    """A case: one work of one rights holder found on one site (registered domain)."""

    holder = serializers.IntegerField(source="work.holder_id", read_only=True,
                                      help_text="Id of the rights holder.")
    work_reference = serializers.CharField(source="work.reference", read_only=True,
                                           help_text="The holder's reference of the work.")
    work_title = serializers.CharField(source="work.title", read_only=True,
                                       help_text="Title of the work.")
    state_reason = serializers.CharField(source="state_reason_words", read_only=True, help_text=(
        "Why the case is in its state, in words of the request's language; may be empty."))
    pages = serializers.IntegerField(source="page_total", read_only=True,
                                     help_text="Matched pages of the work on the site.")
    pages_still_up = serializers.IntegerField(source="standing_total", read_only=True,
                                              help_text="Of those, pages still matching.")

    class Meta:
        model = Case
        fields = ["id", "holder", "work", "work_reference", "work_title", "domain", "state",
                  "state_reason", "pages", "pages_still_up", "opened_at", "state_changed_at",
                  "notice_sent_at", "removed_at", "first_scan"]
        read_only_fields = fields
        extra_kwargs = {
            "id": {"help_text": "Id of the case."},
            "work": {"help_text": "Id of the work copied."},
            "domain": {"help_text": "The site's registered domain, e.g. example.com for "
                                    "pages on news.example.com."},
            "state": {"help_text": "new, confirmed, dismissed, notice_sent, removed, still_up "
                                   "or reopened."},
            "opened_at": {"help_text": "When its first page was recorded (ISO 8601)."},
            "state_changed_at": {"help_text": "When its state last changed (ISO 8601)."},
            "notice_sent_at": {"help_text": "When a notice citing its pages was last sent."},
            "removed_at": {"help_text": "When its pages were last found removed."},
            "first_scan": {"help_text": "Id of the scan that found its first page, or null."},
        }


class DecisionSerializer(serializers.Serializer):
    """A decision on a case."""

    verb = serializers.ChoiceField(sorted(case_actions.VERBS), help_text=(
        "confirm (new or reopened cases; confirms its pages under review), dismiss or reopen "
        "(dismissed or removed cases)."))
    reason = serializers.CharField(max_length=2000, help_text="Why (required).")


class SendNoticeSerializer(serializers.Serializer):
    """Sending a case's notice by e-mail."""

    language = serializers.ChoiceField(NoticeLanguage.values, help_text=(
        "The notice's language: zh-hans or en."))


class NoticeMailSerializer(serializers.ModelSerializer):
    """One e-mail of a notice: where it is and what the SMTP server answered."""

    error = serializers.CharField(source="error_words", read_only=True, help_text=(
        "Why the last attempt failed, in the request's language; \"\" when none."))

    class Meta:
        model = NoticeMail
        fields = ["id", "notice", "recipient", "status", "attempts", "smtp_reply", "message_id",
                  "error", "asked_at", "attempted_at", "next_attempt_at", "sent_at"]
        read_only_fields = fields
        extra_kwargs = {
            "status": {"help_text": "queued, retrying, sent, failed (gave up) or refused (5xx)."},
            "smtp_reply": {"help_text": "The server's last answer, e.g. \"250 OK\"."},
            "message_id": {"help_text": "The Message-ID header of the mail."},
        }


class CaseFilter(django_filters.FilterSet):
    """Filters of the case list."""

    state = django_filters.ChoiceFilter(choices=CaseState.choices, help_text="State.")
    work = django_filters.NumberFilter(field_name="work_id", help_text="Id of the work.")
    holder = django_filters.NumberFilter(field_name="work__holder_id",
                                         help_text="Id of the rights holder.")
    domain = django_filters.CharFilter(field_name="domain", lookup_expr="iexact",
                                       help_text="The site's registered domain.")
    opened_after = UtcIsoDateTimeFilter(
        field_name="opened_at", lookup_expr="gte",
        help_text="Opened at or after this time (ISO 8601).")
    opened_before = UtcIsoDateTimeFilter(
        field_name="opened_at", lookup_expr="lt", help_text="Opened before this time (ISO 8601).")

    class Meta:
        model = Case
        fields = ["state", "work", "holder", "domain", "opened_after", "opened_before"]


@extend_schema_view(
    list=extend_schema(summary="List cases", responses={200: CaseSerializer, **ERRORS}),
    retrieve=extend_schema(summary="A case", responses={200: CaseSerializer, **ERRORS}),
)
class CaseViewSet(viewsets.ReadOnlyModelViewSet):
    """Cases of the user's holders' works."""

    serializer_class = CaseSerializer
    filterset_class = CaseFilter
    ordering_fields = ["id", "opened_at", "state_changed_at", "domain"]
    ordering = ["-opened_at", "-id"]

    def get_queryset(self):
        """The cases the user may see, with their page counts."""
        return cases.with_page_counts(scope(Case.objects.select_related("work"),
                                            self.request.user, "work__holder"))

    @extend_schema(summary="A case's pages (its matches)",
                   responses={200: MatchSerializer(many=True), **ERRORS})
    @action(detail=True, methods=["get"], filterset_class=None, ordering_fields=[])
    def pages(self, request, pk=None):
        """The matched pages of the case, oldest first, paginated."""
        found = self.get_object().pages.select_related("work").order_by("first_seen", "pk")
        page = self.paginate_queryset(found)
        return self.get_paginated_response(MatchSerializer(page, many=True).data)

    @extend_schema(summary="Decide on a case", request=DecisionSerializer,
                   responses={200: CaseSerializer, **ERRORS})
    @action(detail=True, methods=["post"], filterset_class=None, ordering_fields=[])
    def decide(self, request, pk=None):
        """Confirm, dismiss or reopen the case with a reason (crawler.case_actions, audited);
        a move its state does not allow answers 400."""
        case = self.get_object()
        form = DecisionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        case_actions.VERBS[form.validated_data["verb"]](case, request.user,
                                                        form.validated_data["reason"])
        return Response(CaseSerializer(self.get_queryset().get(pk=case.pk)).data)

    @extend_schema(summary="Send the case's notice by e-mail", request=SendNoticeSerializer,
                   responses={202: NoticeMailSerializer(many=True), **ERRORS})
    @action(detail=True, methods=["post"], filterset_class=None, ordering_fields=[],
            url_path="send-notice")
    def send_notice(self, request, pk=None):
        """Queue the case's takedown notice for its site's confirmed contact, with the evidence
        reports attached (dashboard.notice_actions.do_send_case_notice); a case that cannot
        send (state, no contact, a mail on its way) answers 400. Follow the mails in
        ``mails``."""
        form = SendNoticeSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        mails = notice_actions.do_send_case_notice(self.get_object(), request.user,
                                                   form.validated_data["language"])
        return Response(NoticeMailSerializer(mails, many=True).data, status=202)

    @extend_schema(summary="The e-mails of the case's notices",
                   responses={200: NoticeMailSerializer(many=True), **ERRORS})
    @action(detail=True, methods=["get"], filterset_class=None, ordering_fields=[])
    def mails(self, request, pk=None):
        """The e-mails of the notices citing the case's pages, newest first, paginated."""
        found = NoticeMail.objects.filter(notice__matches__case=self.get_object()).distinct()
        page = self.paginate_queryset(found.order_by("-asked_at", "-pk"))
        return self.get_paginated_response(NoticeMailSerializer(page, many=True).data)
