"""Models of the core app, one module per subject.

holders.py: RightsHolder; works.py: Work. The crawler's modules: sites.py (target sites and scan
runs) and matches.py (matches and whitelisted domains).
"""

from .holders import RightsHolder
from .matches import Match, ReviewStatus, WhitelistedDomain
from .sites import ScanRun, ScanStatus, TargetSite
from .works import Work, WorkKind, WorkLanguage, WorkStatus

__all__ = ["RightsHolder", "Work", "WorkKind", "WorkLanguage", "WorkStatus", "TargetSite",
           "ScanRun", "ScanStatus", "Match", "ReviewStatus", "WhitelistedDomain"]
