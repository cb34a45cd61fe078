"""API tokens: issued, revoked and deleted only here, each atomic and recorded in the audit
trail (kind "access") with the acting user."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from core import notes
from core.models import AccessState, AuditEvent
from dashboard.models import ApiToken


def do_issue_api_token(token: ApiToken, acting_user) -> str:
    """Save the new, unsaved ``token`` (its name set) for ``acting_user`` and record it.

    Returns:
        The raw token, to be shown once (only its SHA-256 is stored).
    """
    with transaction.atomic():
        token.user = acting_user
        raw = token.issue()
        token.save()
        AuditEvent.record(kind=AuditEvent.Kind.ACCESS, user=acting_user, holder=None,
                          target=token, subject=str(token), old_state="",
                          new_state=AccessState.ACTIVE,
                          reason=notes.coded("token_issued", gettext_noop("API token issued")))
    return raw


def do_revoke_api_tokens(tokens, acting_user) -> int:
    """Revoke each token of ``tokens`` (an ApiToken queryset) still active, for good, and record
    each revocation.

    Returns:
        The number of tokens revoked.
    """
    revoked = 0
    with transaction.atomic():
        for token in tokens.select_for_update().filter(revoked_at__isnull=True):
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
            AuditEvent.record(kind=AuditEvent.Kind.ACCESS, user=acting_user, holder=None,
                              target=token, subject=str(token), old_state=AccessState.ACTIVE,
                              new_state=AccessState.REVOKED, reason=notes.coded(
                                  "token_revoked", gettext_noop("API token revoked")))
            revoked += 1
    return revoked


def do_delete_api_tokens(tokens, acting_user) -> int:
    """Delete each token of ``tokens`` (an ApiToken queryset), which ends its access for good,
    and record each deletion.

    Returns:
        The number of tokens deleted.
    """
    deleted = 0
    with transaction.atomic():
        for token in tokens.select_for_update():
            AuditEvent.record(kind=AuditEvent.Kind.ACCESS, user=acting_user, holder=None,
                              target=None, subject=str(token),
                              old_state=AccessState.REVOKED if token.revoked_at
                              else AccessState.ACTIVE, new_state=AccessState.DELETED,
                              reason=notes.coded("token_deleted",
                                                 gettext_noop("API token deleted")))
            token.delete()
            deleted += 1
    return deleted
