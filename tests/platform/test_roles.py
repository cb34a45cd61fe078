"""The two roles exist after `migrate` with the permissions of every app they draw from."""

import pytest
from django.contrib.auth.models import Group

from core.roles import HOLDER_GROUP, STAFF_GROUP


@pytest.mark.django_db
def test_migrate_gives_staff_every_role_app_including_later_ones():
    # axes comes after core in INSTALLED_APPS: its permissions exist only after core's
    # post_migrate, so the groups must be refreshed after it too.
    apps = set(Group.objects.get(name=STAFF_GROUP).permissions
               .values_list("content_type__app_label", flat=True))
    assert {"core", "auth", "dashboard", "django_celery_beat", "axes"} <= apps


@pytest.mark.django_db
def test_migrate_gives_holders_their_whitelist_and_notice_permissions():
    codenames = set(Group.objects.get(name=HOLDER_GROUP).permissions
                    .values_list("codename", flat=True))
    assert {"add_whitelisteddomain", "view_match", "change_takedownnotice"} <= codenames
    assert "delete_match" not in codenames
