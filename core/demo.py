"""The demo of `make run`: demo accounts, demo works, and the main job (ingestion).

``python manage.py demo`` calls ``ensure_demo_accounts`` and then each callable listed in
settings.DEMO_STEPS (default: ``ingest_demo_works``); each step takes the command's stdout and
returns a dict of figures for the summary. The crawler adds its scan of the demo site there.
"""

from __future__ import annotations

import json
import secrets
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import Count, Sum

from .bulk_import import import_path
from .engine import indexed_work_ids
from .models import RightsHolder, Work, WorkStatus
from .roles import HOLDER_GROUP, STAFF_GROUP, ensure_groups

DEMO_HOLDER = "示例出版社 Demo Press"
DEMO_HOLDER_DETAILS = {
    "contact_person": "王编辑 (demo)", "email": "rights@demo-press.example",
    "phone": "+86 10 0000 0000", "address": "北京市东城区示例路 1 号 (demo address)",
}
STAFF_USER, HOLDER_USER = "admin", "holder"


def accounts_file():
    """Path of the file keeping the demo accounts' passwords (VAR_DIR/demo-accounts.json)."""
    return settings.VAR_DIR / "demo-accounts.json"


def demo_holder() -> RightsHolder:
    """The demo rights holder, created with its (fictional) contact details when missing."""
    holder, _ = RightsHolder.objects.get_or_create(name=DEMO_HOLDER, defaults=DEMO_HOLDER_DETAILS)
    return holder


def ensure_demo_accounts(stdout) -> dict:
    """Create the staff user ``admin`` and the rights-holder user ``holder`` (member of the
    demo holder) with random passwords, printed once and kept in VAR_DIR/demo-accounts.json
    (mode 600). When they exist, say so and where their passwords are.

    Returns:
        {"accounts": "created" | "existing"}.
    """
    users = get_user_model().objects
    ensure_groups()
    if users.filter(username__in=[STAFF_USER, HOLDER_USER]).count() == 2:
        where = accounts_file() if accounts_file().exists() else "(file removed)"
        stdout.write(f"Demo accounts exist: {STAFF_USER} (staff), {HOLDER_USER} (rights "
                     f"holder); passwords in {where}")
        return {"accounts": "existing"}
    passwords = {STAFF_USER: secrets.token_urlsafe(9), HOLDER_USER: secrets.token_urlsafe(9)}
    staff = users.filter(username=STAFF_USER).first() or users.create_superuser(
        STAFF_USER, "admin@demo-press.example", passwords[STAFF_USER])
    staff.set_password(passwords[STAFF_USER])
    staff.save()
    staff.groups.add(Group.objects.get(name=STAFF_GROUP))
    holder_user = users.filter(username=HOLDER_USER).first() or users.create_user(
        HOLDER_USER, "holder@demo-press.example", passwords[HOLDER_USER], is_staff=True)
    holder_user.set_password(passwords[HOLDER_USER])
    holder_user.is_staff = True
    holder_user.save()
    holder_user.groups.add(Group.objects.get(name=HOLDER_GROUP))
    demo_holder().users.add(holder_user)
    accounts_file().parent.mkdir(parents=True, exist_ok=True)
    accounts_file().write_text(json.dumps(passwords, indent=1))
    accounts_file().chmod(0o600)
    stdout.write("Demo accounts created (shown once; kept in "
                 f"{accounts_file()}):\n  staff:         {STAFF_USER} / {passwords[STAFF_USER]}"
                 f"\n  rights holder: {HOLDER_USER} / {passwords[HOLDER_USER]}")
    return {"accounts": "created"}


def ingest_demo_works(stdout) -> dict:
    """Register the demo works (demo/works) for the demo holder and wait until the Celery
    workers have indexed them (at most settings.DEMO_INGEST_TIMEOUT_SECONDS).

    Returns:
        {"demo works registered", "updated", "unchanged", "failed to import", "indexed",
        "failed", "waiting", "windows indexed", "works in the Redis index"}.
    """
    holder = demo_holder()
    summary = import_path(settings.DEMO_WORKS_DIR, holder, progress=False)
    for ref, reason in summary.failed:
        stdout.write(f"  demo work {ref} failed: {reason}")
    works = Work.objects.filter(holder=holder)
    counts = wait_for_ingestion(works, settings.DEMO_INGEST_TIMEOUT_SECONDS, stdout)
    return {"demo works registered": len(summary.registered),
            "updated": len(summary.updated),
            "unchanged": sum(reason == "unchanged" for _, reason in summary.skipped),
            "failed to import": len(summary.failed),
            "indexed": counts.get(WorkStatus.INDEXED, 0),
            "failed": counts.get(WorkStatus.FAILED, 0),
            "waiting": counts.get(WorkStatus.WAITING, 0) + counts.get(WorkStatus.PENDING, 0),
            "windows indexed": works.aggregate(n=Sum("windows"))["n"] or 0,
            "works in the Redis index": index_size()}


def index_size() -> int:
    """Number of works in the Redis fingerprint index (engine.indexed_work_ids)."""
    return len(indexed_work_ids())


def wait_for_ingestion(works, timeout: float, stdout) -> dict[str, int]:
    """Poll ``works`` (a Work queryset) every second until none is pending or waiting, or
    ``timeout`` seconds pass, printing progress when it changes.

    Returns:
        {status: number of works}.
    """
    deadline = time.monotonic() + timeout
    last = None
    while True:
        counts = dict(works.values_list("status").annotate(n=Count("id")))
        busy = counts.get(WorkStatus.PENDING, 0) + counts.get(WorkStatus.WAITING, 0)
        if counts != last:
            stdout.write("  ingestion: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
            last = counts
        if not busy or time.monotonic() > deadline:
            return counts
        time.sleep(1)
