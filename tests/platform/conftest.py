"""Fixtures of the platform tests: holders and users, sample texts, waiting for the worker."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
DEMO_WORKS = Path(__file__).resolve().parents[2] / "demo" / "works"


@pytest.fixture
def novel_text() -> str:
    """西游记 chapters 1-3 (demo/works/xiyouji-01-03.txt), about 21,000 characters."""
    return (DEMO_WORKS / "xiyouji-01-03.txt").read_text(encoding="utf-8")


@pytest.fixture
def news_html() -> bytes:
    """A real UTF-8 Chinese news page (fixtures/news-baijiahao-2.html)."""
    return (FIXTURES / "news-baijiahao-2.html").read_bytes()


@pytest.fixture
def people(django_user_model):
    """Two rights holders with one user each, and a platform staff user (not a superuser).

    Returns:
        dict: "press", "agency" (RightsHolder); "alice" (press's user), "bob" (agency's),
        "staff" (group "Platform staff").
    """
    from django.contrib.auth.models import Group

    from core.models import RightsHolder
    from core.roles import HOLDER_GROUP, STAFF_GROUP, ensure_groups

    ensure_groups()
    press = RightsHolder.objects.create(name="Press A", email="a@press.example")
    agency = RightsHolder.objects.create(name="Agency B", email="b@agency.example")
    users = {}
    for name, holder in (("alice", press), ("bob", agency)):
        user = django_user_model.objects.create_user(name, password="pw-" + name, is_staff=True)
        user.groups.add(Group.objects.get(name=HOLDER_GROUP))
        holder.users.add(user)
        users[name] = user
    staff = django_user_model.objects.create_user("staff", password="pw-staff", is_staff=True)
    staff.groups.add(Group.objects.get(name=STAFF_GROUP))
    return {"press": press, "agency": agency, "staff": staff, **users}


@pytest.fixture
def wait_for():
    """``wait_for(fn, timeout=90)``: call ``fn`` every 0.2 s until it returns a truthy value,
    which is returned; fails the test after ``timeout`` seconds."""

    def wait(fn, timeout: float = 90.0):
        deadline = time.monotonic() + timeout
        while True:
            value = fn()
            if value:
                return value
            if time.monotonic() > deadline:
                pytest.fail(f"condition not met within {timeout} s (last value {value!r})")
            time.sleep(0.2)

    return wait
