"""The audit trail under concurrent actions: 50 registrations at once on the real PostgreSQL all
succeed, and their events take the sequence numbers 1..50 once each with the chain intact."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from core import work_actions
from core.models import AuditEvent, Work, verify_chain
from core.text_extraction import extract_pasted

pytestmark = pytest.mark.django_db(transaction=True)

ACTIONS = 50


def test_fifty_concurrent_registrations_all_succeed_with_a_gapless_chain(people):
    holder, alice = people["press"], people["alice"]
    start = AuditEvent.objects.count()
    barrier = threading.Barrier(ACTIONS)
    failures: list[str] = []

    def register(number: int) -> None:
        try:
            text = extract_pasted(f"第{number}篇 新华社北京电 今天发布了一条新闻。" * 20)
            barrier.wait(timeout=60)  # every thread ready: all of them race for the trail
            work_actions.do_register_work(holder, f"news-{number}", text, acting_user=alice,
                                          ingest=False)
        except Exception as exc:  # noqa: BLE001 - the test reports every failure below
            failures.append(f"{number}: {type(exc).__name__}: {exc}")
        finally:
            connection.close()

    threads = [threading.Thread(target=register, args=(n,)) for n in range(ACTIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert failures == []
    assert Work.objects.filter(holder=holder).count() == ACTIONS
    sequences = list(AuditEvent.objects.order_by("sequence").values_list("sequence", flat=True))
    assert sequences == list(range(1, start + ACTIONS + 1))
    assert AuditEvent.objects.filter(kind="work", new_state="registered").count() == ACTIONS
    assert verify_chain() is None
