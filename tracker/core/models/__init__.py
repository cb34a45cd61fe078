"""Models of the core app, one module per subject.

holders.py: RightsHolder; works.py: Work; audit.py: AuditEvent, the append-only audit trail that
every app's actions write. Target sites, scan runs, whitelisted domains and matches are the
crawler's (``crawler.models``); takedown notices are the dashboard's.
"""

from .audit import AuditEvent, AuditTrailError, register_state_labels, verify_chain
from .holders import RightsHolder
from .works import Work, WorkKind, WorkLanguage, WorkStatus

__all__ = ["AuditEvent", "AuditTrailError", "RightsHolder", "Work", "WorkKind", "WorkLanguage",
           "WorkStatus", "register_state_labels", "verify_chain"]
