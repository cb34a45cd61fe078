"""Takedown contacts of sites (registered domains): set by staff, or suggested by a search of
the site's own pages and confirmed by staff before any notice goes to them.

Actions (atomic, audited with kind "site"): ``do_set_contact`` (staff type or confirm an
address), ``do_search_contacts`` (asks the search: task ``crawler.find_contacts``),
``do_record_contact_search`` (the worker stores what it found). ``search`` fetches the pages
with the crawler's own machinery only (``scans.get_crawler()``: robots.txt, politeness slots,
the Fetcher and its SSRF guard) and reads them with ``lib.crawl.contacts``.
``sweep_searches`` (run by ``crawler.sweep_stuck``) resumes or fails a search whose task was
lost. The addresses RDAP gives (registrar, hosting provider) are looked up by
``crawler.rdap_contacts``, asked together with the site search; both store what they find
through ``store_found``, which refuses an address no one can write to, with the reason.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from core import notes
from core.errors import ActionError, require_email_address
from core.models import AuditEvent
from core.queueing import queue_after_commit
from crawler import takedown
from crawler.models import (
    OPEN_STATES,
    Case,
    ContactEvent,
    ContactSearch,
    ContactSource,
    ContactSuggestion,
    Match,
    SiteContact,
)
from lib.crawl import contacts as found_in
from lib.crawl.domains import registered_domain
from lib.crawl.outcomes import Outcome
from lib.text import decode_bytes

log = logging.getLogger(__name__)


def contact_of(domain: str) -> SiteContact:
    """The SiteContact of registered ``domain`` (str), created empty when there is none."""
    contact, _created = SiteContact.objects.get_or_create(domain=registered_domain(domain))
    return contact


def missing_contacts() -> QuerySet:
    """The registered domains (str, ordered) of open cases whose site has no confirmed
    takedown contact: the sites that need one."""
    confirmed = SiteContact.objects.filter(domain=OuterRef("domain")).exclude(address="")
    return (Case.objects.filter(state__in=OPEN_STATES).exclude(Exists(confirmed))
            .order_by("domain").values_list("domain", flat=True).distinct())


def audit(contact: SiteContact, acting_user, old: str, new: str, reason: str) -> AuditEvent:
    """Append an event of ``contact`` (kind "site") to the audit trail: its state ``old`` ->
    ``new`` with ``reason`` (a coded note or ""), by ``acting_user`` (None: the platform)."""
    return AuditEvent.record(kind=AuditEvent.Kind.SITE, user=acting_user, holder=None,
                             target=contact, subject=contact.domain, old_state=old,
                             new_state=new, reason=reason)


def do_set_contact(domain: str, address: str, acting_user) -> SiteContact:
    """Make ``address`` (str, an e-mail address; "" clears it) the confirmed takedown contact of
    the registered domain of ``domain``, confirmed by ``acting_user``, and record it.

    Returns the SiteContact. Raises ActionError (in the user's language): not an address."""
    address = (address or "").strip()
    if address:
        require_email_address(address)
    with transaction.atomic():
        contact = contact_of(domain)
        contact = SiteContact.objects.select_for_update().get(pk=contact.pk)
        old = contact.address
        contact.address = address
        contact.confirmed_by, contact.confirmed_at = (acting_user, timezone.now()) if address \
            else (None, None)
        contact.save(update_fields=["address", "confirmed_by", "confirmed_at"])
        audit(contact, acting_user, ContactEvent.CONTACT_SET, ContactEvent.CONTACT_SET, notes.coded(
            "contact_set", gettext_noop("takedown contact: %(old)s -> %(new)s"),
            old=old or "-", new=address or "-"))
    return contact


def do_search_contacts(domain: str, acting_user) -> SiteContact:
    """Ask for the takedown addresses of the registered domain of ``domain``: the search of
    the site's own pages (task ``crawler.find_contacts``) and the RDAP lookup of its
    registrar's and hosting provider's abuse addresses (task ``crawler.find_rdap_contacts``),
    both queued on commit, and record who asked.

    Returns the SiteContact, both "searching" (an RDAP lookup still running is left to go
    on). Raises ActionError: the site search is running already."""
    with transaction.atomic():
        contact = SiteContact.objects.select_for_update().get(pk=contact_of(domain).pk)
        if contact.search == ContactSearch.SEARCHING:
            raise ActionError(_("The addresses of %(domain)s are being searched already.") % {
                "domain": contact.domain})
        old, now = contact.search, timezone.now()
        contact.search, contact.search_asked_at = ContactSearch.SEARCHING, now
        contact.search_attempts, contact.search_note = 1, ""
        fields = ["search", "search_asked_at", "search_attempts", "search_note"]
        lookup = contact.rdap != ContactSearch.SEARCHING  # else the running lookup goes on
        if lookup:
            contact.rdap, contact.rdap_asked_at = ContactSearch.SEARCHING, now
            contact.rdap_attempts, contact.rdap_note = 1, ""
            fields += ["rdap", "rdap_asked_at", "rdap_attempts", "rdap_note"]
        contact.save(update_fields=fields)
        audit(contact, acting_user, old or ContactEvent.UNSET, ContactSearch.SEARCHING, "")
        queue_after_commit("crawler.find_contacts", contact.pk)
        if lookup:
            queue_after_commit("crawler.find_rdap_contacts", contact.pk)
    return contact


@dataclass(frozen=True)
class Found:
    """One address found: ``address`` (str), ``source`` (ContactSource value), ``url`` (str)."""

    address: str
    source: str
    url: str


def _sorted_out(found: list[Found]) -> tuple[list[Found], list[dict]]:
    """The items of ``found`` that can be takedown contacts (one address SMTP carries, that
    Django's EmailValidator accepts), and the others as refusals ({"address": its first 80
    characters, "source", "reason": English words}), each address once."""
    kept, refused = [], []
    for item in found:
        reason = found_in.refusal(item.address)
        if reason is None:
            try:
                validate_email(item.address.strip())
            except ValidationError:
                reason = "not an e-mail address"
        if reason is None:
            kept.append(Found(item.address.strip(), item.source, item.url))
            continue
        log.info("contact search: refused %r found on %s: %s", item.address[:80], item.url, reason)
        entry = {"address": item.address[:80], "source": item.source, "reason": reason}
        if entry not in refused:
            refused.append(entry)
    return kept, refused


def store_found(contact: SiteContact, found: list[Found], sources) -> tuple[int, int]:
    """Store ``found`` on ``contact`` (locked by the caller's transaction): each new address
    that can be a contact as a ContactSuggestion, the others in ``contact.refused`` in place
    of the earlier refusals of ``sources`` (ContactSource values the search reads; saved by
    the caller). Returns (addresses kept, addresses refused)."""
    kept, refused = _sorted_out(found)
    for item in kept:
        ContactSuggestion.objects.get_or_create(
            contact=contact, address=item.address,
            defaults={"source": item.source, "found_on": item.url[:2048]})
    contact.refused = [r for r in contact.refused or [] if r.get("source") not in sources] + refused
    return len({item.address for item in kept}), len(refused)


#: The reasons ``lib.crawl.contacts.refusal`` gives, translated where they are shown.
REFUSAL_REASONS = (gettext_noop("a line break"), gettext_noop("longer than 254 characters"),
                   gettext_noop("not an e-mail address"))
#: The sources the site search reads (its refusals are replaced by each search's).
SITE_SOURCES = (ContactSource.SECURITY_TXT, ContactSource.MAILTO, ContactSource.CONTACT_PAGE)


def do_record_contact_search(contact_id: int, found: list[Found], pages_read: int,
                             failure: str = "", icp: str = "") -> SiteContact:
    """Store the result of a search (worker side, no acting person): ``found`` through
    ``store_found`` (an address of 300 characters or with a line break is refused with the
    reason, the others kept); the search "done" with a note of ``pages_read`` pages and the
    addresses stored and refused, or "failed" with ``failure`` (a coded note); ``icp``, the
    ICP filing number the pages show ("" for none), recorded on the domain's cases. Audited."""
    with transaction.atomic():
        contact = SiteContact.objects.select_for_update().get(pk=contact_id)
        kept, refused = store_found(contact, found, SITE_SOURCES)
        if icp:
            Case.objects.filter(domain=contact.domain).exclude(icp_filing=icp).update(
                icp_filing=icp)
        state = ContactSearch.FAILED if failure else ContactSearch.DONE
        contact.search = state
        contact.search_note = failure or notes.coded(
            "contact_search_found", gettext_noop(
                "%(pages)s pages read, %(found)s addresses found, %(refused)s refused, "
                "ICP filing: %(icp)s"), pages=pages_read, found=kept, refused=refused,
            icp=icp or "-")
        contact.save(update_fields=["search", "search_note", "refused"])
        audit(contact, None, ContactSearch.SEARCHING, state, contact.search_note)
    return contact


def _read(crawler, url: str, delay: float) -> tuple[str, str] | None:
    """Fetch ``url`` as a scan would (robots.txt, politeness slot of ``delay`` seconds or the
    robots.txt Crawl-delay, SSRF guard): (text of the body, final URL), or None when it could
    not be read."""
    policy = crawler.robots.policy(url)
    if not policy.allowed(url):
        return None
    takedown.polite_slot(crawler, url, max(delay, policy.crawl_delay or 0.0))
    result = crawler.fetcher.fetch(url, kinds=frozenset({"html", "text"}))
    if result.outcome is not Outcome.OK or result.status != 200:
        return None
    return decode_bytes(result.body, result.headers.get("content-type")).text, result.final_url


def _origins(contact: SiteContact) -> tuple[list[str], list[str]]:
    """The origins ("https://host") of the newest case pages on ``contact``'s domain, and
    some of their URLs (settings.CONTACT_SEARCH_MATCHED_PAGES)."""
    pages = Match.objects.filter(case__domain=contact.domain).order_by("-last_seen")
    urls = list(pages.values_list("url", flat=True)[:settings.CONTACT_SEARCH_MATCHED_PAGES])
    origins = []
    for url in urls or [f"https://{contact.domain}/"]:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in origins:
            origins.append(origin)
    return origins, urls


def search(contact: SiteContact, crawler) -> tuple[list[Found], int, str]:
    """Search ``contact``'s site for addresses with ``crawler`` (a lib.crawl.pipeline.Crawler):
    each origin's security.txt and home page, the matched pages, then the contact pages they
    link to, at most settings.CONTACT_SEARCH_MAX_PAGES fetches, under the politeness delay of
    the pages' target site (else the crawler's default). Returns (addresses found, pages read,
    the first ICP filing number the pages show or "")."""
    origins, matched = _origins(contact)
    site_delay = (Match.objects.filter(case__domain=contact.domain, site__isnull=False)
                  .values_list("site__delay_seconds", flat=True).first())
    delay = crawler.config.default_delay_seconds if site_delay is None else site_delay
    queue = [(origin + found_in.SECURITY_TXT_PATH, "security") for origin in origins]
    queue += [(origin + "/", "page") for origin in origins] + [(url, "page") for url in matched]
    found: list[Found] = []
    fetched, read, icp = set(), 0, []
    while queue and len(fetched) < settings.CONTACT_SEARCH_MAX_PAGES:
        url, kind = queue.pop(0)
        if url in fetched:
            continue
        fetched.add(url)
        answer = _read(crawler, url, delay)
        if answer is None:
            continue
        read += 1
        text, final = answer
        if kind == "security":
            found += [Found(a, ContactSource.SECURITY_TXT, final)
                      for a in found_in.security_txt_addresses(text)]
            continue
        found += [Found(a, ContactSource.MAILTO, final) for a in found_in.mailto_addresses(text)]
        icp += found_in.icp_numbers(text)
        if kind == "contact":
            found += [Found(a, ContactSource.CONTACT_PAGE, final)
                      for a in found_in.written_addresses(text)]
        else:
            queue += [(link, "contact") for link in found_in.contact_page_links(text, final)]
    return found, read, icp[0] if icp else ""


def sweep_searches(prefix: str = "search", task: str = "crawler.find_contacts",
                   record=None) -> list[int]:
    """Searches still "searching" settings.CONTACT_SEARCH_STUCK_SECONDS after they were asked
    (their task lost): queued again, or recorded failed after
    settings.CONTACT_SEARCH_MAX_ATTEMPTS attempts. ``prefix``: the SiteContact fields of the
    search ("search": the site search; "rdap": the RDAP lookup), ``task`` the task that runs
    it, ``record(contact_id, failure)`` what records it failed (default: the site search's).
    Returns the ids of the contacts swept."""
    if record is None:
        def record(contact_id, failure):
            return do_record_contact_search(contact_id, [], 0, failure)
    asked, attempts = f"{prefix}_asked_at", f"{prefix}_attempts"
    stale = timezone.now() - timedelta(seconds=settings.CONTACT_SEARCH_STUCK_SECONDS)
    swept = []
    for contact_id in SiteContact.objects.filter(
            Q(**{f"{asked}__lt": stale}) | Q(**{f"{asked}__isnull": True}),
            **{prefix: ContactSearch.SEARCHING}).values_list("pk", flat=True):
        with transaction.atomic():
            contact = SiteContact.objects.select_for_update().get(pk=contact_id)
            tries = getattr(contact, attempts)
            give_up = tries >= settings.CONTACT_SEARCH_MAX_ATTEMPTS
            if not give_up:
                setattr(contact, attempts, tries + 1)
                setattr(contact, asked, timezone.now())
                contact.save(update_fields=[attempts, asked])
                queue_after_commit(task, contact.pk)
        if give_up:
            record(contact_id, notes.coded("contact_search_lost", gettext_noop(
                "no answer from the worker after %(n)s attempts"), n=tries))
        swept.append(contact_id)
    return swept
