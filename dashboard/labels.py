"""Chinese for the login-protection pages: django-axes 8.3 ships no zh_Hans catalog, so its
names are marked here for ``makemessages`` and translated in dashboard/locale (gettext
message ids are global, so these translations apply to axes' own admin pages)."""

from django.utils.translation import gettext_noop

AXES_LABELS = [
    gettext_noop("access attempt"), gettext_noop("access attempts"),
    gettext_noop("access failure"), gettext_noop("access failures"), gettext_noop("access log"),
    gettext_noop("access logs"), gettext_noop("User Agent"), gettext_noop("IP Address"),
    gettext_noop("Username"), gettext_noop("Path"), gettext_noop("Attempt Time"),
    gettext_noop("Failed Logins"), gettext_noop("Logout Time"), gettext_noop("Locked Out"),
    gettext_noop("Form Data"), gettext_noop("Meta Data"),
    gettext_noop("Clean up expired attempts"),
]
