"""The abuse addresses RDAP gives for a site: its registrar's (for its registered domain) and
its hosting provider's (for the IP addresses of its hosts), stored as suggestions with their
source, used only once staff confirm one (``crawler.contacts.do_set_contact``).

``lookup`` asks (``lib.crawl.rdap``: IANA bootstrap, RFC 9083 answers); the task
``crawler.find_rdap_contacts`` runs it and records the outcome with the actions, each atomic
and audited with kind "site": ``do_record_rdap_lookup`` (done or failed, the addresses kept and
refused) and ``do_note_rdap_retry`` (a timeout, 429, 5xx or malformed answer: retried with
backoff, the fault kept in the note). ``sweep_lookups`` resumes or fails a lookup whose task
was lost, so that none stays "searching".
"""

from __future__ import annotations

import ipaddress
import socket

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext_noop

from core import notes
from crawler.contacts import Found, audit, store_found, sweep_searches
from crawler.models import ContactSearch, ContactSource, Match, SiteContact
from lib.crawl.rdap import RdapClient, RdapNotFound

#: The sources the RDAP lookup gives (its refusals are replaced by each lookup's).
RDAP_SOURCES = (ContactSource.RDAP_REGISTRAR, ContactSource.RDAP_HOST)


def client() -> RdapClient:
    """An RDAP client on settings.RDAP_BOOTSTRAP_URL, waiting settings.RDAP_TIMEOUT_SECONDS."""
    return RdapClient(settings.RDAP_BOOTSTRAP_URL, settings.RDAP_TIMEOUT_SECONDS)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def ip_addresses(contact: SiteContact) -> list[str]:
    """The IP addresses (str) of the hosts of ``contact``'s case pages (its domain when none),
    address literals as they are, names resolved; settings.RDAP_MAX_ADDRESSES at most."""
    hosts = list(Match.objects.filter(case__domain=contact.domain).order_by()
                 .values_list("domain", flat=True).distinct()[:settings.RDAP_MAX_ADDRESSES])
    found: list[str] = []
    for host in hosts or [contact.domain]:
        if _is_ip(host):
            candidates = [host.strip("[]")]
        else:
            try:
                candidates = [info[4][0] for info in socket.getaddrinfo(host, None)]
            except (OSError, UnicodeError):
                candidates = []
        found += [a for a in candidates if a not in found]
    return found[:settings.RDAP_MAX_ADDRESSES]


def lookup(contact: SiteContact, rdap: RdapClient) -> tuple[list[Found], list[str]]:
    """Ask RDAP for ``contact``'s registrar (unless its domain is an IP address) and for the
    network of each of its IP addresses. Returns (the addresses found, the lookups that found
    no record, as English words). Raises RdapRetryable: a fault worth asking again."""
    found: list[Found] = []
    missing: list[str] = []
    asks = [] if _is_ip(contact.domain) else [
        (ContactSource.RDAP_REGISTRAR, rdap.domain_abuse, contact.domain)]
    asks += [(ContactSource.RDAP_HOST, rdap.ip_abuse, address) for address in ip_addresses(contact)]
    for source, ask, name in asks:
        try:
            found += [Found(c.address, source, c.url) for c in ask(name)]
        except RdapNotFound as exc:
            missing.append(str(exc))
    return found, missing


def do_record_rdap_lookup(contact_id: int, found: list[Found], missing: list[str] = (),
                          failure: str = "") -> SiteContact:
    """Store the outcome of an RDAP lookup (worker side, no acting person): ``found`` through
    ``crawler.contacts.store_found`` (an address of 300 characters or with a line break is
    refused with the reason, the others kept), the lookup "done" with a note of the addresses
    kept and refused and of ``missing`` (the lookups without a record), or "failed" with
    ``failure`` (a coded note). Audited. Returns the SiteContact."""
    with transaction.atomic():
        contact = SiteContact.objects.select_for_update().get(pk=contact_id)
        kept, refused = store_found(contact, found, RDAP_SOURCES)
        state = ContactSearch.FAILED if failure else ContactSearch.DONE
        contact.rdap = state
        contact.rdap_note = failure or notes.coded(
            "rdap_done", gettext_noop("RDAP: %(found)s addresses found, %(refused)s refused; "
                                      "no record: %(missing)s"),
            found=kept, refused=refused, missing="; ".join(missing)[:500] or "-")
        contact.save(update_fields=["rdap", "rdap_note", "refused"])
        audit(contact, None, ContactSearch.SEARCHING, state, contact.rdap_note)
    return contact


def do_note_rdap_retry(contact_id: int, error: str, delay: float) -> SiteContact:
    """An RDAP lookup met a fault (``error``, English words) and is asked again in ``delay``
    seconds: counted in ``rdap_attempts`` and said in its note, the lookup still "searching".
    Audited. Returns the SiteContact."""
    with transaction.atomic():
        contact = SiteContact.objects.select_for_update().get(pk=contact_id)
        contact.rdap_attempts += 1
        contact.rdap_note = notes.coded(
            "rdap_retry", gettext_noop("RDAP attempt %(n)s failed (%(error)s); next in %(delay)s s"),
            n=contact.rdap_attempts - 1, error=error[:300], delay=round(delay))
        contact.save(update_fields=["rdap_attempts", "rdap_note"])
        audit(contact, None, ContactSearch.SEARCHING, ContactSearch.SEARCHING, contact.rdap_note)
    return contact


def rdap_failure(error: str, attempts: int) -> str:
    """The coded note of a lookup given up after ``attempts`` attempts, the last ``error``."""
    return notes.coded("rdap_failed", gettext_noop(
        "RDAP lookup failed after %(n)s attempts: %(error)s"), n=attempts, error=error[:300])


def sweep_lookups() -> list[int]:
    """RDAP lookups whose task was lost, queued again or failed as
    ``crawler.contacts.sweep_searches`` does for site searches. Returns the contacts' ids."""
    return sweep_searches("rdap", "crawler.find_rdap_contacts",
                          lambda contact_id, failure: do_record_rdap_lookup(contact_id, [],
                                                                            failure=failure))
