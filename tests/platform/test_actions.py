"""The core app's actions record who registered, changed and deleted a work in the audit trail."""

from __future__ import annotations

import pytest

from core.models import AuditEvent, Work, verify_chain


@pytest.mark.django_db
def test_admin_upload_edit_and_delete_are_recorded_with_the_user(client, people):
    client.force_login(people["alice"])
    response = client.post("/core/work/add/", {
        "holder": people["press"].pk, "reference": "news-1", "title": "", "author": "",
        "kind": "", "language": "", "text": "新华社北京电 今天发布了一条新闻。" * 20})
    assert response.status_code == 302, response.content[:2000]
    work = Work.objects.get(holder=people["press"], reference="news-1")
    client.post(f"/core/work/{work.pk}/change/", {
        "holder": people["press"].pk, "reference": "news-1", "title": "改过的标题", "author": "",
        "kind": work.kind, "language": work.language, "text": ""})
    assert Work.objects.get(pk=work.pk).title == "改过的标题"
    client.post(f"/core/work/{work.pk}/delete/", {"post": "yes"})
    assert not Work.objects.filter(pk=work.pk).exists()
    trail = AuditEvent.objects.about(work).order_by("sequence")
    assert [(e.kind, e.username, e.new_state) for e in trail] == [
        ("work", "alice", "registered"), ("work", "alice", "updated"), ("work", "alice", "deleted")]
    assert "title" in trail[1].reason and trail[0].holder_id == people["press"].pk
    assert verify_chain() is None
