"""Serializers of the REST API: what each endpoint reads and answers, every field with its type
and unit (help_text, shown in the OpenAPI schema). Timestamps are ISO 8601 with the offset of
settings.TIME_ZONE."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core import notes
from core.connections import storage_errors
from core.errors import StorageUnavailable
from core.models import AuditEvent, ImportJob, Work, WorkKind, WorkLanguage
from core.validators import no_control_characters
from crawler import scans
from crawler.models import Match, ReviewStatus, ScanRun, ScanStatus, TargetSite
from dashboard.alerts.models import AlertPreference, WebhookEndpoint
from dashboard.alerts.validators import check_webhook_url
from dashboard.models import NoticeLanguage, NoticeStatus, TakedownNotice

from .errors import ErrorSerializer


class WorkSerializer(serializers.ModelSerializer):
    """A registered work, its ingestion status and indexing progress."""

    holder = serializers.IntegerField(source="holder_id", read_only=True,
                                      help_text="Id of the owning rights holder.")
    error = serializers.CharField(source="error_words", read_only=True, help_text=(
        "Why ingestion waits or failed, in words of the request's language; empty otherwise."))
    chapters = serializers.SerializerMethodField(help_text="Number of chapters found in the "
                                                           "text.")

    class Meta:
        model = Work
        fields = ["id", "holder", "reference", "title", "author", "kind", "language",
                  "source_name", "length", "sha256", "status", "error", "windows",
                  "indexed_at", "chapters", "created_at", "updated_at"]
        read_only_fields = fields
        extra_kwargs = {
            "id": {"help_text": "Id of the work."},
            "reference": {"help_text": "The holder's own id for the work (unique per holder)."},
            "length": {"help_text": "Length of the registered text, in characters."},
            "sha256": {"help_text": "Hex SHA-256 of the registered text (UTF-8)."},
            "status": {"help_text": "Ingestion: pending (queued), waiting (storage "
                                    "unreachable, retrying), indexed (searchable), failed."},
            "windows": {"help_text": "Fingerprint windows indexed (0 until indexed)."},
            "indexed_at": {"help_text": "When the text was indexed (ISO 8601), null before."},
            "created_at": {"help_text": "When the work was registered (ISO 8601)."},
            "updated_at": {"help_text": "When the work last changed (ISO 8601)."},
            "source_name": {"help_text": "File name of the upload, or \"pasted\"."},
        }

    def get_chapters(self, work: Work) -> int:
        """Number of chapters (``Work.sections``)."""
        return len(work.sections or [])


class RegisteredWorkSerializer(WorkSerializer):
    """A work after registration, with what the registration did."""

    outcome = serializers.CharField(read_only=True, help_text="registered (new), updated "
                                    "(text or metadata changed) or skipped (nothing changed).")

    class Meta(WorkSerializer.Meta):
        fields = [*WorkSerializer.Meta.fields, "outcome"]
        read_only_fields = fields


class _WorkMetadata(serializers.Serializer):
    holder = serializers.IntegerField(required=False, help_text=(
        "Id of the rights holder; may be left out by a user of exactly one holder."))
    reference = serializers.CharField(max_length=200, validators=[no_control_characters], help_text=(
        "The holder's own id for the work, 1 to 200 characters; registering the same "
        "reference again updates (or leaves unchanged) that work."))
    title = serializers.CharField(max_length=500, required=False, allow_blank=True,
                                  validators=[no_control_characters], help_text="Title; default: found in the text, else the "
                                            "reference.")
    author = serializers.CharField(max_length=300, required=False, allow_blank=True,
                                   validators=[no_control_characters], help_text="Author; default: found in the text.")
    kind = serializers.ChoiceField(WorkKind.choices, required=False,
                                   help_text="Kind; default: novel when the text has two "
                                             "chapters or more.")
    language = serializers.ChoiceField(WorkLanguage.choices, required=False,
                                       help_text="Language; default: guessed from the text.")
    allow_duplicate = serializers.BooleanField(default=False, help_text=(
        "Register the text even when the holder already registered it as another work (at "
        "least 90% the same); default false: answered 409 \"duplicate_work\" naming that "
        "work."))


class WorkTextSerializer(_WorkMetadata):
    """Register a work from text given in the JSON body."""

    text = serializers.CharField(trim_whitespace=False, help_text=(
        "The work's text (Unicode characters); chapters are found from their headings, as in "
        "the dashboard. At most settings.UPLOAD_MAX_BYTES bytes in UTF-8."))


class WorkFileSerializer(_WorkMetadata):
    """Register a work from an uploaded file (multipart/form-data)."""

    file = serializers.FileField(allow_empty_file=True, help_text=(
        "The file: .txt, .html, .docx, .pdf or .epub, checked as in the dashboard; at most "
        f"{settings.UPLOAD_MAX_BYTES} bytes. Its size and suffix are checked at once (400); "
        "it is read by a job in the background (202, then poll the job)."))


class ImportJobSerializer(serializers.ModelSerializer):
    """A job reading an uploaded file in the background, and what became of it."""

    url = serializers.HyperlinkedIdentityField(view_name="api:import-detail", help_text=(
        "This job's URL: poll it until state is finished or failed."))
    holder = serializers.IntegerField(source="holder_id", read_only=True,
                                      help_text="Id of the rights holder.")
    work = serializers.IntegerField(source="work_id", read_only=True, allow_null=True,
                                    help_text="Id of the work registered or updated once "
                                              "finished; null before and on failure.")
    outcome = serializers.SerializerMethodField(help_text=(
        "Once finished: registered (new), updated or skipped (nothing changed); else null."))
    error = serializers.SerializerMethodField(help_text=(
        "Once failed: {code, message, fields} as in error answers, message in the uploader's "
        "language; code one of the upload's codes (too_large, empty, unsupported, mismatch, "
        "corrupt, encrypted, archive_bomb, encoding), duplicate_work (fields.existing_work: "
        "the id of the holder's work with the same text), timeout (reading took longer than "
        f"{settings.UPLOAD_EXTRACT_SECONDS} s), worker_lost (its reading killed the worker "
        "process each time), stalled (its worker was lost), missing, not_queued or internal. "
        "Null otherwise."))

    class Meta:
        model = ImportJob
        fields = ["id", "url", "kind", "holder", "name", "state", "done", "total", "work",
                  "outcome", "error", "started_at", "updated_at"]
        extra_kwargs = {
            "id": {"help_text": "Id of the job."},
            "kind": {"help_text": "file: one work file (works/upload/); archive: a .zip of "
                                  "works imported in the dashboard."},
            "name": {"help_text": "The uploaded file's name."},
            "state": {"help_text": "running, finished or failed. A job whose worker was lost "
                                   f"fails after {settings.IMPORT_STUCK_SECONDS} s."},
            "done": {"help_text": "Steps (file: of 3: read, duplicate check, registered) or "
                                  "works (archive) done so far."},
            "total": {"help_text": "Steps or works in all (0 until known)."},
            "started_at": {"help_text": "When the job was started (ISO 8601)."},
            "updated_at": {"help_text": "Its last progress (ISO 8601)."},
        }

    def get_outcome(self, job) -> str | None:
        """The registration's outcome, once finished."""
        return job.summary.get("outcome") if job.state == "finished" else None

    @extend_schema_field(ErrorSerializer(allow_null=True))
    def get_error(self, job) -> dict | None:
        """{code, message, fields} once failed."""
        if job.state != "failed":
            return None
        fields = {"existing_work": [str(job.summary["existing_work"])]} \
            if job.error_code == "duplicate_work" else {}
        return {"code": job.error_code or "internal", "message": notes.in_words(job.error),
                "fields": fields}


class WorkTextUpdateSerializer(serializers.Serializer):
    """New text for a work: chapters appended to its text, or a whole new text."""

    text = serializers.CharField(trim_whitespace=False, help_text=(
        "The text to append (new chapters) or the whole new text (characters)."))
    mode = serializers.ChoiceField([("append", "append"), ("replace", "replace")],
                                   default="append", help_text=(
                                       "append: add after the current text (a new chapter); "
                                       "replace: the text becomes this one."))


class BulkResultSerializer(serializers.Serializer):
    """What one line of a JSON Lines bulk registration did."""

    line = serializers.IntegerField(help_text="Line number in the request body, from 1.")
    reference = serializers.CharField(allow_blank=True, help_text="The line's reference.")
    outcome = serializers.CharField(help_text="registered, updated, skipped or error.")
    id = serializers.IntegerField(allow_null=True, help_text="Id of the work; null on error.")
    error = serializers.DictField(allow_null=True, help_text=(
        "On error: {code, message, fields} as in error answers; null otherwise."))


class ChapterSerializer(serializers.Serializer):
    """One chapter of a work's text."""

    title = serializers.CharField(help_text="The chapter's title.")
    start = serializers.IntegerField(help_text="Offset of its first character in the work's "
                                               "text (characters, from 0).")
    end = serializers.IntegerField(help_text="Offset after its last character (characters, "
                                             "end exclusive).")


class MatchSerializer(serializers.ModelSerializer):
    """A page found copying a work (list rows)."""

    work_reference = serializers.CharField(source="work.reference", read_only=True,
                                           help_text="The holder's reference of the work.")
    chapters = serializers.CharField(source="section", read_only=True, help_text=(
        "Titles of the work's chapters the page copies, \"; \"-separated, or empty."))

    class Meta:
        model = Match
        fields = ["id", "work", "work_reference", "url", "domain", "title", "score",
                  "containment_page", "containment_work", "chapters", "first_seen",
                  "last_seen", "still_matching", "review_status", "part_of", "kind",
                  "part_of_works", "part_works"]
        read_only_fields = fields
        extra_kwargs = {
            "id": {"help_text": "Id of the match."},
            "work": {"help_text": "Id of the work copied."},
            "url": {"help_text": "The page's canonical URL."},
            "domain": {"help_text": "The page's host name."},
            "title": {"help_text": "The page's title when matched."},
            "score": {"help_text": "Engine score, 0 to 1: max(containment_page, "
                                   "containment_work)."},
            "containment_page": {"help_text": "Share of the page's letters found in the work, "
                                              "0 to 1."},
            "containment_work": {"help_text": "Share of the work's letters found on the page, "
                                              "0 to 1."},
            "first_seen": {"help_text": "First time the page was found matching (ISO 8601)."},
            "last_seen": {"help_text": "Latest time the page was found matching (ISO 8601)."},
            "still_matching": {"help_text": "False once a later version of the page no longer "
                                            "matches."},
            "review_status": {"help_text": "new, confirmed, false_positive or licensed."},
            "part_of": {"help_text": "For one part of a chapter split over several pages "
                                     "(下一页, _2.html): the canonical URL of the chapter's "
                                     "first part; else empty. Filter matches by it to get "
                                     "every part."},
            "kind": {"help_text": "copy: the page's letters align with the work's; rewritten: "
                                  "a rewritten copy (洗稿), the work's sentences paired with "
                                  "reworded ones of the page (then score and "
                                  "containment_work are the share of the work's sentences "
                                  "paired, containment_page the share of the page's)."},
            "part_of_works": {"help_text": "Ids of the registered works whose text holds this "
                                           "work's (a chapter registered alone and inside its "
                                           "whole novel), each with its own match of this "
                                           "page; else empty."},
            "part_works": {"help_text": "Ids of the registered works whose text this work "
                                        "holds (the novel's match names the chapter), each "
                                        "with its own match of this page; else empty."},
        }


class PassageSerializer(serializers.Serializer):
    """One matched passage, cut at the work's chapter boundaries."""

    page_start = serializers.IntegerField(help_text="Start in the captured page text "
                                                    "(characters, from 0).")
    page_end = serializers.IntegerField(help_text="End in the page text (characters, "
                                                  "exclusive).")
    work_start = serializers.IntegerField(help_text="Start in the work's text (characters).")
    work_end = serializers.IntegerField(help_text="End in the work's text (characters, "
                                                  "exclusive).")
    page_text = serializers.CharField(help_text="The page's text between page_start and "
                                                "page_end.")
    work_text = serializers.CharField(help_text="The work's text between work_start and "
                                                "work_end.")


class CaptureSerializer(serializers.Serializer):
    """The captured page version a match cites (the evidence)."""

    version_id = serializers.CharField(help_text="Id of the page version (24 hex characters).")
    number = serializers.IntegerField(help_text="Version number of the page, from 1.")
    url = serializers.CharField(help_text="Canonical URL of the page.")
    fetched_at = serializers.DateTimeField(allow_null=True, help_text="When it was fetched "
                                                                      "(ISO 8601).")
    http_status = serializers.IntegerField(allow_null=True, help_text=(
        "HTTP status of the page's latest fetch, null when unknown."))
    sha256 = serializers.CharField(allow_null=True, help_text=(
        "Hex SHA-256 of the captured text, stored at capture."))
    hash_ok = serializers.BooleanField(allow_null=True, help_text=(
        "True when the stored text still has that SHA-256; null when unknown."))
    length = serializers.IntegerField(help_text="Length of the captured text (characters).")


class EventSerializer(serializers.ModelSerializer):
    """One audit-trail event about an object."""

    class Meta:
        model = AuditEvent
        fields = ["sequence", "at", "kind", "username", "old_state", "new_state", "reason"]
        read_only_fields = fields
        extra_kwargs = {
            "sequence": {"help_text": "Position in the platform's audit trail."},
            "at": {"help_text": "When (ISO 8601)."},
            "username": {"help_text": "Who decided (user name)."},
            "old_state": {"help_text": "State before."},
            "new_state": {"help_text": "State after."},
            "reason": {"help_text": "Why, as given."},
        }


class MatchDetailSerializer(MatchSerializer):
    """A match with its evidence: passages with the text of both sides, capture, history."""

    passages = PassageSerializer(source="evidence_passages", many=True, read_only=True)
    chapter_shares = serializers.ListField(child=serializers.DictField(), read_only=True,
                                           help_text=("[{title, chars}]: the work's chapters "
                                                      "copied and characters of each."))
    capture = CaptureSerializer(read_only=True, allow_null=True)
    history = EventSerializer(many=True, read_only=True)
    problems = serializers.ListField(child=serializers.CharField(), read_only=True,
                                     help_text="Evidence that could not be loaded, in words.")

    class Meta(MatchSerializer.Meta):
        fields = [*MatchSerializer.Meta.fields, "passages", "chapter_shares", "same_text",
                  "capture", "history", "problems"]
        read_only_fields = fields


class ReviewSerializer(serializers.Serializer):
    """A review decision on a match."""

    decision = serializers.ChoiceField(ReviewStatus.choices, help_text=(
        "confirmed, false_positive, licensed (also whitelists the domain for the holder) or "
        "new."))
    reason = serializers.CharField(max_length=2000, help_text="Why (required).")


class NoticeSerializer(serializers.ModelSerializer):
    """A takedown notice: one rights holder, one infringing site, its confirmed matches."""

    holder = serializers.IntegerField(source="holder_id", read_only=True,
                                      help_text="Id of the rights holder sending it.")
    matches = serializers.PrimaryKeyRelatedField(many=True, read_only=True,
                                                 help_text="Ids of the matches it cites.")

    class Meta:
        model = TakedownNotice
        fields = ["id", "holder", "domain", "recipient", "language", "status", "matches",
                  "drafted_at", "sent_at", "removed_at", "counter_notice_at"]
        read_only_fields = fields
        extra_kwargs = {
            "id": {"help_text": "Id of the notice."},
            "domain": {"help_text": "The infringing site's host name."},
            "recipient": {"help_text": "Who the notice goes to."},
            "language": {"help_text": "Language of the notice: zh-hans or en."},
            "status": {"help_text": "drafted, sent, removed or counter_notice."},
            "drafted_at": {"help_text": "When drafted (ISO 8601)."},
            "sent_at": {"help_text": "When marked sent (ISO 8601), null before."},
            "removed_at": {"help_text": "When the content was removed (ISO 8601), or null."},
            "counter_notice_at": {"help_text": "When a counter-notice came (ISO 8601), or "
                                               "null."},
        }


class DraftNoticesSerializer(serializers.Serializer):
    """Draft notices from confirmed matches: one per (rights holder, site)."""

    matches = serializers.ListField(child=serializers.IntegerField(), min_length=1,
                                    max_length=settings.API_PAGE_SIZE_MAX,
                                    help_text="Ids of confirmed matches.")
    language = serializers.ChoiceField(NoticeLanguage.choices, default=NoticeLanguage.ZH_HANS,
                                       help_text="Language of the notices.")
    recipient = serializers.CharField(max_length=500, required=False, allow_blank=True,
                                      default="", help_text="Who the notices go to.")


class AdvanceNoticeSerializer(serializers.Serializer):
    """Move a notice on: drafted -> sent -> removed or counter_notice."""

    status = serializers.ChoiceField(NoticeStatus.choices, help_text="The new status.")
    note = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="",
                                 help_text="Optional note for the audit trail.")


class SiteSerializer(serializers.ModelSerializer):
    """A target site scanned for copies (staff only)."""

    class Meta:
        model = TargetSite
        fields = ["id", "name", "start_urls", "allowed_domains", "path_patterns", "max_depth",
                  "max_pages", "delay_seconds", "enabled", "notes", "created_at", "updated_at"]
        read_only_fields = ["id", "created_at", "updated_at"]
        extra_kwargs = {
            "name": {"help_text": "Unique name of the site."},
            "start_urls": {"help_text": "URLs where a scan starts: pages, sitemaps, feeds."},
            "allowed_domains": {"help_text": "Host names a scan may visit (subdomains "
                                             "included); default: the start URLs' hosts."},
            "path_patterns": {"help_text": "Regular expressions; when given, only URLs whose "
                                           "path and query match one are visited."},
            "max_depth": {"help_text": "Links followed from a start URL (0: start URLs only)."},
            "max_pages": {"help_text": "URLs fetched per scan at most (pages)."},
            "delay_seconds": {"help_text": "Politeness delay between two fetches from one "
                                           "host (seconds); a larger robots.txt Crawl-delay "
                                           "wins."},
            "enabled": {"help_text": "Scheduled scans run only for enabled sites."},
            "notes": {"help_text": "Free notes."},
            "created_at": {"help_text": "When created (ISO 8601)."},
            "updated_at": {"help_text": "When last changed (ISO 8601)."},
        }


class ScanSerializer(serializers.ModelSerializer):
    """A scan run and its live progress (staff only): while it runs, its figures come from its
    frontier in Redis (``crawler.scans.live_figures``; the row gets them when it finishes).
    Raises StorageUnavailable (503) when Redis does not answer for a running scan."""

    note = serializers.CharField(source="note_words", read_only=True, help_text=(
        "Why it ended, in words of the request's language (Accept-Language)."))
    note_code = serializers.SerializerMethodField(help_text=(
        "Stable code of the note (scan_cancelled, scan_skipped, no_start_url, scan_abandoned, "
        "scan_never_started, scan_stuck), \"\" for none or for a note kept as plain text."))
    note_params = serializers.SerializerMethodField(help_text=(
        "The note's parameters ({name: value}, e.g. {\"user\": \"alice\"}), {} for none."))

    def get_note_code(self, instance) -> str:
        return notes.code_of(instance.note)

    def get_note_params(self, instance) -> dict:
        return notes.params_of(instance.note)

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if instance.status == ScanStatus.RUNNING:
            try:
                data.update(scans.live_figures(instance.pk))
            except storage_errors() as exc:
                raise StorageUnavailable(str(exc)) from exc
        return data

    class Meta:
        model = ScanRun
        fields = ["id", "site", "status", "trigger", "started_at", "finished_at", "max_pages",
                  "urls_seen", "pages_fetched", "pages_new", "pages_changed", "pages_unchanged",
                  "errors", "matches_found", "matches_new", "stage_seconds", "note",
                  "note_code", "note_params"]
        read_only_fields = fields
        extra_kwargs = {
            "site": {"help_text": "Id of the target site."},
            "status": {"help_text": "running, finished, failed, cancelled or skipped."},
            "trigger": {"help_text": "What started it: schedule, command, admin, api, demo."},
            "started_at": {"help_text": "When it started (ISO 8601)."},
            "finished_at": {"help_text": "When it ended (ISO 8601), null while running."},
            "max_pages": {"help_text": "Page limit of this run (pages)."},
            "urls_seen": {"help_text": "URLs discovered so far."},
            "pages_fetched": {"help_text": "Pages downloaded so far."},
            "pages_new": {"help_text": "Pages seen for the first time."},
            "pages_changed": {"help_text": "Pages whose text changed."},
            "pages_unchanged": {"help_text": "Pages whose text did not change."},
            "errors": {"help_text": "Errors by kind: {kind: count}."},
            "matches_found": {"help_text": "Matches found so far."},
            "matches_new": {"help_text": "Matches not seen before."},
            "stage_seconds": {"help_text": "Time per stage: {stage: seconds}."},
        }


class StartScanSerializer(serializers.Serializer):
    """Start a scan of a site now."""

    max_pages = serializers.IntegerField(min_value=1, required=False, help_text=(
        "This run's page limit instead of the site's (pages)."))


class WebhookSerializer(serializers.ModelSerializer):
    """A webhook endpoint of one of the user's rights holders: each new match of the holder's
    works with at least ``min_score`` is POSTed to ``url``, signed with the secret
    (``X-Tracker-Signature``: hex HMAC-SHA256(secret, timestamp + "." + body)). The secret is
    generated by the platform and answered once, on create."""

    holder = serializers.IntegerField(
        source="holder_id", required=False,
        help_text="Id of one of your rights holders; may be left out when you have one.")
    url = serializers.URLField(max_length=2048, help_text="Where the alerts are POSTed (http or "
                               "https); must not point to a private or loopback address.")

    class Meta:
        model = WebhookEndpoint
        fields = ["id", "holder", "name", "url", "format", "language", "min_score", "enabled",
                  "consecutive_failures", "created_at"]
        read_only_fields = ["id", "consecutive_failures", "created_at"]
        extra_kwargs = {
            "name": {"help_text": "A name for the endpoint."},
            "format": {"help_text": "Body: json (the match as JSON) or wecom (WeCom robot "
                                    "markdown message)."},
            "language": {"help_text": "Language of the message texts."},
            "min_score": {"help_text": "Only matches with at least this score (0 to 1) are "
                                       "sent."},
            "enabled": {"help_text": "Disabled endpoints get nothing; saving it enabled resets "
                                     "the failure count."},
            "consecutive_failures": {"help_text": "Deliveries failed in a row; the endpoint is "
                                                  "disabled when it reaches the platform's "
                                                  "limit."},
            "created_at": {"help_text": "When created (ISO 8601)."},
        }

    def validate_url(self, url: str) -> str:
        """The URL through the SSRF guard of the dashboard form."""
        try:
            return check_webhook_url(url)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages, code="refused_address") from exc


class NewWebhookSerializer(WebhookSerializer):
    """A webhook endpoint just created, with its signing secret (shown this once only)."""

    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]
        read_only_fields = fields
        extra_kwargs = {**WebhookSerializer.Meta.extra_kwargs,
                        "secret": {"help_text": "Signing secret (text); store it now, it is "
                                                "never shown again."}}


class AlertPreferenceSerializer(serializers.ModelSerializer):
    """The calling user's e-mail alerts (sent to the user's account e-mail address)."""

    class Meta:
        model = AlertPreference
        fields = ["email_enabled", "min_score", "digest_enabled", "language"]
        extra_kwargs = {
            "email_enabled": {"help_text": "An e-mail at once for each new match."},
            "min_score": {"help_text": "Immediate e-mails only for matches with at least this "
                                       "score (0 to 1)."},
            "digest_enabled": {"help_text": "One daily e-mail listing the day's new matches."},
            "language": {"help_text": "Language of the alert e-mails."},
        }


class EvidenceUploadSerializer(serializers.Serializer):
    """An evidence bundle to verify."""

    bundle = serializers.FileField(help_text="the .wacz file")


class EvidenceVerdictSerializer(serializers.Serializer):
    """What the verification of a bundle found: ``verdict`` (VALID, UNVERIFIED or FAIL) and
    ``words`` (it in one sentence of the request's language); ``valid`` (true for VALID only);
    ``unverified`` (why UNVERIFIED, else ''); ``failed_file`` and ``reason`` of the check that
    failed ('' unless FAIL); ``checked``: what held; ``timestamp``: the verified RFC 3161
    timestamp ('' when there is none that chains to a trusted root)."""

    verdict = serializers.ChoiceField(choices=["VALID", "UNVERIFIED", "FAIL"])
    words = serializers.CharField()
    valid = serializers.BooleanField()
    unverified = serializers.CharField()
    failed_file = serializers.CharField()
    reason = serializers.CharField()
    checked = serializers.ListField(child=serializers.CharField())
    timestamp = serializers.CharField()
