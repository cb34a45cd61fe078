"""The two roles of the platform as Django groups, created after every ``migrate``.

"Platform staff": every permission of the platform's apps plus ``core.view_all_holders`` (sees
every holder's data). "Rights holders": work on their own holder's works; what they see is
narrowed to their holders by ``core.scoping``. Users need ``is_staff`` to enter the admin.
"""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission

STAFF_GROUP = "Platform staff"
HOLDER_GROUP = "Rights holders"

# app label -> codenames for rights holders' users ("*" = every permission of the app).
HOLDER_PERMISSIONS: dict[str, list[str]] = {
    # their holders, their works, the audit trail (read only)
    "core": ["view_rightsholder", "change_rightsholder",
             "view_work", "add_work", "change_work", "delete_work", "view_auditevent"],
    "crawler": ["view_match", "change_match",  # change_match: review decisions (dashboard)
                # their own sites and licensed partners, where pages never become matches
                "view_whitelisteddomain", "add_whitelisteddomain",
                "change_whitelisteddomain", "delete_whitelisteddomain",
                # checks of their notices' matched URLs (read only, scoped to their works)
                "view_takedowncheck",
                # sites they propose for scanning (staff decide)
                "view_siteproposal", "add_siteproposal",
                # candidate sites that copy their works (discovery; read only)
                "view_candidatesite",
                # their cases (work x site): confirm, dismiss, reopen
                "view_case", "change_case"],
    # dashboard: takedown notices
    "dashboard": ["view_takedownnotice", "change_takedownnotice"],
    # alerts: their own preferences, their holder's webhooks, the delivery log (read only)
    "alerts": ["view_alertpreference", "add_alertpreference", "change_alertpreference",
               "view_webhookendpoint", "add_webhookendpoint", "change_webhookendpoint",
               "delete_webhookendpoint", "view_delivery"],
}
STAFF_APPS = ["core", "crawler", "django_celery_beat", "auth", "dashboard", "axes", "alerts"]
#: Apps whose permissions the two roles hold.
ROLE_APPS = frozenset(STAFF_APPS) | HOLDER_PERMISSIONS.keys()


def ensure_groups() -> dict[str, int]:
    """Create or update both groups with their permissions.

    Returns:
        {group name: number of permissions it has}. Permissions not yet created (a model of a
        later migration) are simply absent; the next ``migrate`` adds them.
    """
    staff, _ = Group.objects.get_or_create(name=STAFF_GROUP)
    staff.permissions.set(Permission.objects.filter(content_type__app_label__in=STAFF_APPS))
    holders, _ = Group.objects.get_or_create(name=HOLDER_GROUP)
    wanted = Permission.objects.none()
    for app, codenames in HOLDER_PERMISSIONS.items():
        perms = Permission.objects.filter(content_type__app_label=app)
        wanted |= perms if codenames == ["*"] else perms.filter(codename__in=codenames)
    holders.permissions.set(wanted)
    return {staff.name: staff.permissions.count(), holders.name: holders.permissions.count()}
