"""Models of the core app, one module per subject.

holders.py: RightsHolder; works.py: Work; conflicts.py: RightsConflict; imports.py: ImportJob, ImportItem;
user_settings.py: UserSettings (a person's time zone); audit.py: AuditEvent, the append-only audit trail that
every app's actions write. Target sites, scan runs, whitelisted domains and matches are the
crawler's (``crawler.models``); takedown notices are the dashboard's.
"""

from .audit import AccessState, AuditEvent, AuditTrailError, register_state_labels, verify_chain
from .conflicts import ConflictStatus, RightsConflict
from .holders import RightsHolder
from .imports import ImportItem, ImportJob, ImportKind, ImportState
from .user_settings import UserSettings
from .works import Work, WorkKind, WorkLanguage, WorkStatus

__all__ = ["AccessState", "AuditEvent", "AuditTrailError", "ConflictStatus", "RightsConflict", "RightsHolder",
           "ImportItem", "ImportJob", "ImportKind", "ImportState", "Work", "WorkKind", "WorkLanguage",
           "WorkStatus", "UserSettings", "register_state_labels", "verify_chain"]
