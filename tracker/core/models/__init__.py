"""Models of the core app, one module per subject.

holders.py: RightsHolder; works.py: Work; sites.py: TargetSite and ScanRun; matches.py: Match
and WhitelistedDomain (the last two belong to the crawler).
"""

from .holders import RightsHolder
from .matches import Match, ReviewStatus, WhitelistedDomain
from .sites import ScanRun, ScanStatus, TargetSite
from .works import Work, WorkKind, WorkLanguage, WorkStatus

__all__ = ["Match", "ReviewStatus", "RightsHolder", "ScanRun", "ScanStatus", "TargetSite",
           "WhitelistedDomain", "Work", "WorkKind", "WorkLanguage", "WorkStatus"]
