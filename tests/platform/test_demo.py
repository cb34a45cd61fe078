"""`manage.py demo` (the main job of `make run`): accounts once, a lost index rebuilt."""

from __future__ import annotations

import io
import json
import stat

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from core import ingestion, registration, reindexing
from core.models import RightsHolder
from core.text_extraction import extract_pasted

pytestmark = pytest.mark.django_db


def _demo() -> str:
    out = io.StringIO()
    call_command("demo", stdout=out)
    return out.getvalue()


def test_accounts_are_created_once_and_their_passwords_kept(settings, tmp_path, platform_stores):
    settings.VAR_DIR = tmp_path
    settings.DEMO_STEPS = []
    first = _demo()
    assert "Demo accounts created" in first
    kept = tmp_path / "demo-accounts.json"
    passwords = json.loads(kept.read_text())
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert passwords["admin"] in first and passwords["holder"] in first  # printed this once
    users = get_user_model().objects
    assert users.get(username="admin").check_password(passwords["admin"])
    holder = users.get(username="holder")
    assert holder.check_password(passwords["holder"]) and holder.is_staff
    assert not holder.is_superuser
    assert list(holder.rights_holders.values_list("name", flat=True)) == [
        RightsHolder.objects.get().name]
    second = _demo()
    assert "Demo accounts exist" in second and passwords["admin"] not in second


def test_a_lost_index_is_rebuilt_from_mongodb(settings, tmp_path, platform_stores, people,
                                              novel_text):
    settings.VAR_DIR = tmp_path
    settings.DEMO_STEPS = []
    settings.FINGERPRINT_INDEX_PREFIX = "fp-demo-test"  # private: the session worker is not disturbed
    _db, redis_client = platform_stores
    reg = registration.register_work(people["press"], "xyj", extract_pasted(novel_text), ingest=False)
    ingestion.ingest(reg.work.pk)
    for key in list(redis_client.scan_iter(match="fp-demo-test:*")):
        redis_client.delete(key)
    assert reindexing.index_gaps() == [reg.work.pk]
    assert "missing from the Redis index: rebuilding" in _demo()
    assert reindexing.index_gaps() == []
    for key in list(redis_client.scan_iter(match="fp-demo-test:*")):
        redis_client.delete(key)
