"""Chinese for the login-protection pages: django-axes 8.3 ships no zh_Hans catalog, so its
names are marked here for ``makemessages`` and translated in dashboard/locale (gettext
message ids are global, so these translations apply to axes' own admin pages). Also Django
5's own strings that its zh_Hans catalog lacks (the navigation's table headers for screen
readers, the user form's note)."""

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

DJANGO_LABELS = [
    gettext_noop("Model name"), gettext_noop("Add link"),
    gettext_noop("Change or view list link"),
    gettext_noop("After you’ve created a user, you’ll be able to edit more user options."),
]
