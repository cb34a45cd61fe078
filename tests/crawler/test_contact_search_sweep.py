"""A contact search whose task was lost never stays "searching": the sweeper queues it again,
then records it failed with the reason (crawler.contacts.sweep_searches)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone


def test_a_lost_search_is_asked_again_then_failed_with_its_reason(db, settings):
    from core import notes
    from core.models import AuditEvent
    from crawler.contacts import sweep_searches
    from crawler.models import SiteContact

    old = timezone.now() - timedelta(seconds=settings.CONTACT_SEARCH_STUCK_SECONDS + 1)
    young = SiteContact.objects.create(domain="young.example", search="searching",
                                       search_asked_at=timezone.now(), search_attempts=1)
    retried = SiteContact.objects.create(domain="retried.example", search="searching",
                                         search_asked_at=old, search_attempts=1)
    spent = SiteContact.objects.create(domain="spent.example", search="searching",
                                       search_asked_at=old,
                                       search_attempts=settings.CONTACT_SEARCH_MAX_ATTEMPTS)
    assert sorted(sweep_searches()) == sorted([retried.pk, spent.pk])
    for contact in (young, retried, spent):
        contact.refresh_from_db()
    assert (young.search, young.search_attempts) == ("searching", 1)
    assert (retried.search, retried.search_attempts) == ("searching", 2)
    assert retried.search_asked_at > old
    assert spent.search == "failed"
    assert notes.in_english(spent.search_note) == "no answer from the worker after 3 attempts"
    assert AuditEvent.objects.about(spent).get().new_state == "failed"
    assert sweep_searches() == []  # nothing stale is left
